import AsyncHTTPClient
import FerryCore
import FerryDevServer
import FerryHTTP
import FerryProviders
import FerryStore
import FerryTestSupport
import FerryTesting
import Foundation
import Logging
import Prometheus
import ServiceLifecycle
import Synchronization
import Testing

@testable import FerryWorker

/// A real `Worker` in process on PostgreSQL (`FerryStore` over a test database): the claim loop, batchers,
/// heartbeats, rescue and cancel polls of `ferry worker`, with no child process. For worker behaviour whose proof is
/// in the jobs table, the event log or the views; what only a process shows (exit codes, signals, `kill -9`, a
/// restarted PostgreSQL, the binary's /metrics) stays with `TestWorker` (docs/testing.md, Where a new test goes).
final class PostgresWorker: Sendable {
    let store: FerryStore
    let worker: Worker
    private let group: ServiceGroup
    private let running: Task<Void, any Error>
    private let stopped = Mutex(false)

    /// Starts a worker on its own pool of connections to `db`, running `handlers`; with `scheduleInterval`, the
    /// scheduler `ferry worker` runs beside it (`--schedule-interval`), which fires due schedules. It logs nowhere
    /// unless given a `logger` (a `LogRecorder`'s, to read what it said).
    init(
        _ db: TestDatabase, handlers: JobHandlers, configuration: WorkerConfiguration = WorkerHarness.configuration(),
        scheduleInterval: Duration? = nil, store: FerryStore? = nil,
        logger: Logger = Logger(label: "ferry.test.worker", factory: { _ in SwiftLogNoOpLogHandler() })
    ) {
        let store = store ?? db.store()
        self.store = store
        // One registry for both, as `ferry worker` serves them on one /metrics.
        let registry = PrometheusCollectorRegistry()
        // A rehearsal's scheduler (no roots) checks templates as `ferry worker --handler` does: unconfined.
        let scheduleRoots = configuration.localRoots == .none ? LocalRoots.unconfined : configuration.localRoots
        let scheduler = scheduleInterval.map {
            Scheduler(
                store: store, workerName: configuration.name, interval: $0, registry: .standard, localRoots: scheduleRoots,
                metricsRegistry: registry, logger: logger)
        }
        var schedulesChanged: (@Sendable () -> Void)? = nil
        if let scheduler { schedulesChanged = { scheduler.wake() } }
        let worker = Worker(
            configuration: configuration, store: store, handlers: handlers, metricsRegistry: registry, schedulesChanged: schedulesChanged,
            logger: logger)
        self.worker = worker
        let services: [any Service] = [worker] + (scheduler.map { [$0] } ?? [])
        let group = ServiceGroup(services: services, logger: logger)
        self.group = group
        running = Task { try await group.run() }
    }

    /// Starts a worker running one of `ferry worker --handler`'s scripts (`fail-until:3`, `sleep:300`, …) for every job.
    convenience init(
        _ db: TestDatabase, script: String, configuration: WorkerConfiguration = WorkerHarness.configuration(), scheduleInterval: Duration? = nil
    ) throws {
        let handler = try #require(ScriptedHandler(script: script), "a --handler script")
        self.init(db, handlers: JobHandlers(catchAll: handler, providers: .standard), configuration: configuration, scheduleInterval: scheduleInterval)
    }

    /// A worker running the registry's handlers, as `ferry worker` does, confined to `roots` (`--local-root`), with
    /// `--retry-base 0.2`; no provider tokens (web fetches and local files need none).
    static func transfers(_ db: TestDatabase, name: String, roots: [String], http: HTTPClient) throws -> PostgresWorker {
        let localRoots = try LocalRoots(directories: roots)
        var configuration = WorkerHarness.configuration(name: name)
        configuration.localRoots = localRoots
        configuration.retryPolicy = RetryPolicy(baseSeconds: 0.2)
        let environment = ProviderEnvironment(httpClient: http, tokens: nil, chunkSize: 1 << 20, localRoots: localRoots)
        return PostgresWorker(db, handlers: JobHandlers(registry: .standard, environment: environment), configuration: configuration)
    }

    /// Runs `body` with a dev server in process (storing under a fresh folder), its `/web` base URL and an HTTP client.
    static func withDevServer(_ body: (DevServer, String, HTTPClient) async throws -> Void) async throws {
        let storage = try temporaryFolder("postgres-worker-server")
        defer { try? FileManager.default.removeItem(atPath: storage) }
        var logger = Logger(label: "ferry.postgres-worker-test.dev-server")
        logger.logLevel = .critical
        let server = try DevServer(configuration: DevServerConfiguration(storageDirectory: storage, appKey: "postgres-worker-test"), logger: logger)
        let task = Task { try await server.run() }
        defer { task.cancel() }
        let port = try await server.waitUntilRunning()
        // The client `ferry worker` makes: it follows no redirect itself (the web handler does, checking each hop).
        let http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: HTTPTransferTimeouts.configuration())
        do {
            try await body(server, "http://127.0.0.1:\(port)/web", http)
        } catch {
            try? await http.shutdown()
            throw error
        }
        try await http.shutdown()
    }

    /// The worker's metrics as Prometheus text, as its /metrics would serve them.
    func scrape() -> PrometheusText {
        PrometheusText(String(decoding: worker.metrics.registry.emitToBuffer(), as: UTF8.self))
    }

    /// Shuts the worker down gracefully (as SIGTERM does), waits for it and closes its connections.
    func stop() async throws {
        // Once: a fleet stops at its end whatever workers a test has not stopped itself.
        guard stopped.withLock({ stopped in defer { stopped = true }; return !stopped }) else { return }
        await group.triggerGracefulShutdown()
        defer { store.client.close() }
        try await running.value
    }
}
