import FerryStore
import FerryTestSupport
import FerryTesting
import Foundation
import Logging
import ServiceLifecycle
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

    /// Starts a worker on its own pool of connections to `db`, running `handlers`.
    init(_ db: TestDatabase, handlers: JobHandlers, configuration: WorkerConfiguration = WorkerHarness.configuration()) {
        let logger = Logger(label: "ferry.test.worker", factory: { _ in SwiftLogNoOpLogHandler() })
        let store = db.store()
        self.store = store
        let worker = Worker(configuration: configuration, store: store, handlers: handlers, logger: logger)
        self.worker = worker
        let group = ServiceGroup(services: [worker], logger: logger)
        self.group = group
        running = Task { try await group.run() }
    }

    /// Starts a worker running one of `ferry worker --handler`'s scripts (`fail-until:3`, `sleep:300`, …) for every job.
    convenience init(_ db: TestDatabase, script: String, configuration: WorkerConfiguration = WorkerHarness.configuration()) throws {
        let handler = try #require(ScriptedHandler(script: script), "a --handler script")
        self.init(db, handlers: JobHandlers(catchAll: handler), configuration: configuration)
    }

    /// The worker's metrics as Prometheus text, as its /metrics would serve them.
    func scrape() -> PrometheusText {
        PrometheusText(String(decoding: worker.metrics.registry.emitToBuffer(), as: UTF8.self))
    }

    /// Shuts the worker down gracefully (as SIGTERM does), waits for it and closes its connections.
    func stop() async throws {
        await group.triggerGracefulShutdown()
        defer { store.client.close() }
        try await running.value
    }
}
