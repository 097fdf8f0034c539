import FerryProviders
import FerryStore
import Foundation
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle

/// `ferry dashboard`: server-rendered pages over Ferry's status views, live through Server-Sent Events, with
/// cancel and retry behind a token, expiring sessions, same-origin and session-bound CSRF checks. Every page answers `Accept: application/json` with the same
/// data.
///
/// Database use is bounded whatever the number of viewers: page reads share `store`'s pool, and one listener
/// connection feeds every event stream.
public struct Dashboard: Service, CustomStringConvertible {
    let configuration: DashboardConfiguration
    let store: FerryStore
    let providers: ProviderRegistry
    let fixes: FailureFix
    let logger: Logger
    let hub: NotificationHub
    let guardian: ActionGuard
    /// Aggregate reads shared by every viewer, at most once per `DashboardConfiguration.sharedReadAge`.
    let shared: SharedReads
    /// Told the bound port once the server listens (port 0 picks one): for an app or a test serving it in process.
    let onListening: (@Sendable (_ port: Int) -> Void)?

    /// Rows per batch page.
    static let pageSize = 50
    /// A worker whose heartbeat is older than this is not counted as alive.
    static let aliveAfterSeconds = 60.0
    /// Event streams served at most at once; more get 503 (each holds a socket and a little memory, no connection).
    static let maxStreams = 2000
    /// How often a stream gets a comment line, so a closed browser is noticed and proxies keep the stream open.
    static let keepAlive = Duration.seconds(15)
    /// How often the newest event's position is read (once for all viewers).
    static let headInterval = Duration.seconds(1)
    /// The pseudo-channel announcing that new events were appended (payload: the newest position).
    static let headChannel = "events"

    /// - Parameters:
    ///   - providers: the providers whose jobs it shows (their retry options and failure fixes).
    ///   - onListening: called with the bound port once the server listens.
    public init(
        configuration: DashboardConfiguration, store: FerryStore, providers: ProviderRegistry, logger: Logger,
        onListening: (@Sendable (_ port: Int) -> Void)? = nil
    ) {
        self.configuration = configuration
        self.onListening = onListening
        self.providers = providers
        self.fixes = FailureFix(providers: providers)
        self.store = store
        self.logger = logger
        self.shared = SharedReads(maxAge: configuration.sharedReadAge)
        self.hub = NotificationHub(configuration: store.client.configuration, logger: logger)
        self.guardian = ActionGuard(
            readOnly: configuration.readOnly, token: configuration.token,
            sessions: SessionStore(idleTimeout: configuration.sessionIdleTimeout, lifetime: configuration.sessionLifetime))
    }

    public var description: String { "Dashboard(\(configuration.host):\(configuration.port)\(configuration.basePath))" }

    var base: String { configuration.basePath }

    public func run() async throws {
        hub.start()
        defer { hub.stop() }
        // HEAD is answered like GET without a body.
        let router = Router(context: DashboardRequestContext.self, options: .autoGenerateHeadEndpoints)
        // Before the routes: Hummingbird wraps each route in the middleware present when it is added.
        router.add(middleware: SecurityHeadersMiddleware())
        routes(router)
        let logger = self.logger
        let configuration = self.configuration
        let onListening = self.onListening
        let app = Application(
            router: router,
            configuration: ApplicationConfiguration(address: .hostname(configuration.host, port: configuration.port)),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? configuration.port
                let host = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
                let url = "http://\(host):\(port)\(configuration.basePath)/"
                logger.info("dashboard listening", metadata: ["url": "\(url)"])
                // Always on stderr, whatever the log level: the operator (and tests) need the address.
                FileHandle.standardError.write(Data("ferry dashboard listening on \(url)\n".utf8))
                onListening?(port)
            },
            logger: logger)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { [hub] in
                // One timer for all streams, not one per browser.
                while !Task.isCancelled {
                    try await Task.sleep(for: Self.keepAlive)
                    hub.keepAlive()
                }
            }
            group.addTask { [store, hub, logger] in
                // One read of the event log's head per second for all viewers (never per browser): progress and
                // successes send no notification, so this is how pages see them move.
                // The baseline is read now, not when the first viewer arrives, so a change between a viewer's
                // subscription and the next read is still seen (a stale baseline costs at most one extra refresh).
                var last = try? await store.reads.latestEventPosition()
                while !Task.isCancelled {
                    try await Task.sleep(for: Self.headInterval)
                    guard hub.subscriberCount > 0 else { continue }
                    do {
                        let head = try await store.reads.latestEventPosition()
                        if let last, head != last { hub.publishChange(channel: Self.headChannel, payload: "\(head)") }
                        last = head
                    } catch {
                        logger.debug("event head read failed", metadata: ["error": "\(error)"])
                    }
                }
            }
            group.addTask {
                // Event streams never end by themselves: end them when shutdown begins, so the server's graceful
                // shutdown (which waits for open responses) completes.
                try await withGracefulShutdownHandler {
                    try await app.runService()
                } onGracefulShutdown: { [hub] in
                    hub.stop()
                }
            }
            try await group.next()
            group.cancelAll()
        }
    }
}
