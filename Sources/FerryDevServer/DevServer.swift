import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import Logging
import NIOCore
import NIOSSL
import ServiceLifecycle
import Synchronization

/// A local, Dropbox API v2 compatible server: OAuth endpoints, RPC routes and content routes
/// on one port (clients point their API, content and OAuth base URLs at it), plus a `/__dev/`
/// control surface for statistics, seeding and fault injection. The same port stands in for
/// the other services Ferry fetches from: Flickr's REST API (`/services/rest/`) and photo host
/// (`/flickr/photos/`), and a plain web server (`/web/`); see `DevServer+Flickr.swift` and
/// `DevServer+Web.swift`.
///
/// ```swift
/// let server = try DevServer(configuration: .init(storageDirectory: dir, appKey: "key"))
/// let task = Task { try await server.run() }
/// let port = try await server.waitUntilRunning()
/// let refreshToken = server.issueRefreshToken(account: "alice")
/// ```
public final class DevServer: Service, Sendable {
    /// Settings the server was created with (faults can change at runtime, see ``updateFaults(_:)``).
    public let configuration: DevServerConfiguration
    let backend: DevServerBackend
    private let logger: Logger
    /// Loaded when the server is created, so a bad certificate fails there rather than at run time.
    private let tls: TLSConfiguration?

    private enum Phase {
        case notStarted
        case running(port: Int)
        case stopped(DevServerError?)
    }

    private struct RunState {
        var phase: Phase = .notStarted
        var waiters: [CheckedContinuation<Int, any Error>] = []
    }

    private let runState = Mutex(RunState())

    /// Creates the server and loads accounts, tokens and files left in the storage directory.
    public init(configuration: DevServerConfiguration, logger: Logger = Logger(label: "ferry.dev-server")) throws {
        self.configuration = configuration
        self.logger = logger
        self.tls = try Self.tlsConfiguration(configuration)
        self.backend = try DevServerBackend(configuration: configuration, logger: logger)
    }

    private static func tlsConfiguration(_ configuration: DevServerConfiguration) throws -> TLSConfiguration? {
        switch (configuration.tlsCertificateFile, configuration.tlsKeyFile) {
        case (nil, nil):
            return nil
        case let (certificateFile?, keyFile?):
            do {
                let chain = try NIOSSLCertificate.fromPEMFile(certificateFile)
                let key = try NIOSSLPrivateKey(file: keyFile, format: .pem)
                return TLSConfiguration.makeServerConfiguration(certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
            } catch {
                throw DevServerError("cannot load the TLS certificate \(certificateFile) or key \(keyFile): \(error)")
            }
        default:
            throw DevServerError("TLS needs both a certificate and a private key")
        }
    }

    /// Serves until the surrounding task is cancelled (or the service group shuts down).
    public func run() async throws {
        let server: HTTPServerBuilder = if let tls { try .tls(.http1(), tlsConfiguration: tls) } else { .http1() }
        let app = Application(
            responder: DevServerResponder(backend: backend),
            server: server,
            configuration: ApplicationConfiguration(address: .hostname(configuration.host, port: configuration.port)),
            onServerRunning: { [weak self] channel in
                self?.markRunning(port: channel.localAddress?.port ?? 0)
            },
            logger: logger
        )
        do {
            try await app.run()
            markStopped(nil)
        } catch {
            markStopped(DevServerError("dev server failed: \(error)"))
            throw error
        }
    }

    /// Waits until the server listens and returns the bound port (useful with `port: 0`).
    /// Throws if the server stopped or failed before listening.
    public func waitUntilRunning() async throws -> Int {
        try await withCheckedThrowingContinuation { continuation in
            let immediate: Result<Int, any Error>? = runState.withLock { state in
                switch state.phase {
                case .running(let port): return .success(port)
                case .stopped(let error): return .failure(error ?? DevServerError("dev server stopped"))
                case .notStarted:
                    state.waiters.append(continuation)
                    return nil
                }
            }
            if let immediate { continuation.resume(with: immediate) }
        }
    }

    /// The listening port, or `nil` before the server runs.
    public var boundPort: Int? {
        runState.withLock { state in
            if case .running(let port) = state.phase { return port }
            return nil
        }
    }

    /// `http://host:port` (`https://` with TLS) once running: use it as API, content and OAuth base URL.
    public var baseURL: String? {
        boundPort.map { "\(scheme)://\(configuration.host):\($0)" }
    }

    /// `https` when the server terminates TLS, else `http`.
    public var scheme: String { tls == nil ? "http" : "https" }

    private func markRunning(port: Int) {
        let waiters = runState.withLock { state in
            state.phase = .running(port: port)
            defer { state.waiters = [] }
            return state.waiters
        }
        logger.info("Ferry dev server listening", metadata: ["port": "\(port)"])
        waiters.forEach { $0.resume(returning: port) }
    }

    private func markStopped(_ error: DevServerError?) {
        let waiters = runState.withLock { state in
            state.phase = .stopped(error)
            defer { state.waiters = [] }
            return state.waiters
        }
        waiters.forEach { $0.resume(throwing: error ?? DevServerError("dev server stopped")) }
    }

    // MARK: Seeding helpers

    /// Creates (or reuses) the account and returns a new refresh token for it, as if a user
    /// had linked the app: refreshing it needs the app secret, unless `publicClient` (a token
    /// from a PKCE flow without the secret).
    public func issueRefreshToken(account: String, publicClient: Bool = false) -> String {
        do {
            try backend.ensureAccount(account)
        } catch {
            logger.error("could not create account folder", metadata: ["account": "\(account)", "error": "\(error)"])
        }
        return backend.tokens.issueRefreshToken(account: account, publicClient: publicClient)
    }

    /// Creates (or reuses) the account and returns an access token valid for
    /// ``DevServerConfiguration/accessTokenLifetime`` seconds.
    public func issueAccessToken(account: String) -> String {
        do {
            try backend.ensureAccount(account)
        } catch {
            logger.error("could not create account folder", metadata: ["account": "\(account)", "error": "\(error)"])
        }
        return backend.issueAccessToken(account: account, refreshToken: nil)
    }

    /// Adds `count` files of `size` bytes named `<namePrefix>00000.bin`... to `folder`
    /// (`""` is the root), creating the account and folders as needed. Returns the number created.
    /// Contents differ per file (each starts with its number). It is fast (20,000 files in well
    /// under a second) because only the index changes: a file's bytes reach the disk when it is
    /// first downloaded, and the seeding itself is remembered across restarts.
    @discardableResult
    public func seedFiles(account: String, folder: String, count: Int, size: Int = 16, namePrefix: String = "file-") throws -> Int {
        guard count >= 0, size >= 0 else { throw DevServerError("count and size must not be negative") }
        let path: DropboxPath
        do {
            path = try DropboxPath.parse(folder, allowRoot: true, forWriting: true)
        } catch {
            throw DevServerError("invalid folder path \(folder)")
        }
        try backend.ensureAccount(account)
        return try backend.files.seed(account: account, folder: path, count: count, size: size, prefix: namePrefix).count
    }

    /// Current statistics (also at `GET /__dev/stats`).
    public func stats() -> DevServerStats { backend.stats.snapshot() }

    /// Clears the statistics (also `POST /__dev/reset-stats`).
    public func resetStats() { backend.stats.reset() }

    /// Current fault settings.
    public var faults: FaultConfiguration { backend.faults.configuration }

    /// Replaces the fault settings and restarts the PRNG from their seed (also `POST /__dev/faults`).
    public func updateFaults(_ faults: FaultConfiguration) { backend.faults.update(faults) }

    /// Makes every outstanding `list_folder` cursor of the account answer `reset`.
    public func resetCursors(account: String) { backend.files.resetCursors(account: account) }
}
