import FerryCore
import FerryStore
import FerryWorker
import Foundation
import Logging
import ServiceLifecycle

/// Runs a real `Worker` in process against a `MemoryWorkerStore` (as River's `rivertest` does): the claim loop,
/// batchers, heartbeats, rescue and cancel polls all run, in milliseconds and without PostgreSQL.
///
/// Start it, enqueue into `store`, wait for jobs to settle with `settle(_:)`, and `stop()` it (a graceful
/// shutdown, as SIGTERM) before the test ends.
public final class WorkerHarness: Sendable {
    public let store: MemoryWorkerStore
    public let worker: Worker
    private let group: ServiceGroup
    private let running: Task<Void, any Error>

    /// Starts a worker running `handler` for every job.
    ///
    /// - Parameters:
    ///   - configuration: defaults to `WorkerHarness.configuration()`: short intervals, so rescues, retries and
    ///     cancel polls happen within milliseconds.
    ///   - liveness: the store heartbeats go to (defaults to `store`), to let a test stop a worker's heartbeats.
    public convenience init(
        store: MemoryWorkerStore = MemoryWorkerStore(), handler: any JobHandler,
        configuration: WorkerConfiguration = WorkerHarness.configuration(), liveness: (any WorkerStore)? = nil,
        logger: Logger = Logger(label: "ferry.test.worker", factory: { _ in SwiftLogNoOpLogHandler() })
    ) {
        self.init(store: store, handlers: JobHandlers(catchAll: handler), configuration: configuration, liveness: liveness, logger: logger)
    }

    /// Starts a worker running real providers' handlers (`JobHandlers(registry:environment:)`), as `ferry worker` does.
    public init(
        store: MemoryWorkerStore = MemoryWorkerStore(), handlers: JobHandlers,
        configuration: WorkerConfiguration = WorkerHarness.configuration(), liveness: (any WorkerStore)? = nil,
        logger: Logger = Logger(label: "ferry.test.worker", factory: { _ in SwiftLogNoOpLogHandler() })
    ) {
        self.store = store
        let worker = Worker(configuration: configuration, store: store, liveness: liveness, handlers: handlers, logger: logger)
        self.worker = worker
        let group = ServiceGroup(services: [worker], logger: logger)
        self.group = group
        running = Task { try await group.run() }
    }

    /// A worker configuration for tests: every interval in milliseconds.
    public static func configuration(
        name: String = "test-\(UInt16.random(in: 0...UInt16.max))", queues: [String] = ["default"], concurrency: Int = 4,
        rescueAfter: Duration = .seconds(10), retryBaseSeconds: Double = 0.01, pollOnly: Bool = false
    ) -> WorkerConfiguration {
        WorkerConfiguration(
            name: name, queues: queues, concurrency: concurrency, shutdownTimeout: .milliseconds(500),
            pollInterval: .milliseconds(50), pollOnly: pollOnly, heartbeatInterval: .milliseconds(40),
            rescueAfter: rescueAfter, completionFlushInterval: .milliseconds(1), progressInterval: .zero,
            queueStatsInterval: .seconds(1),
            retryPolicy: RetryPolicy(baseSeconds: retryBaseSeconds, capSeconds: retryBaseSeconds * 8, minimumSeconds: 0.001))
    }

    /// Waits until `condition` holds for the store (checked every few milliseconds), or throws `HarnessTimeout`.
    public func waitUntil(
        timeout: Duration = .seconds(120), _ what: String = "condition", _ condition: (MemoryWorkerStore) -> Bool
    ) async throws(HarnessTimeout) {
        let deadline = ContinuousClock.now + timeout
        while !condition(store) {
            guard ContinuousClock.now < deadline else { throw HarnessTimeout(waitingFor: what, after: timeout) }
            try? await Task.sleep(for: .milliseconds(2))
        }
    }

    /// Waits until every job in `jobIDs` is in a terminal state (succeeded, failed, cancelled); returns them.
    @discardableResult
    public func settle(_ jobIDs: [UUID], timeout: Duration = .seconds(120)) async throws(HarnessTimeout) -> [MemoryJob] {
        try await waitUntil(timeout: timeout, "jobs to finish") { store in
            jobIDs.allSatisfy { store.job($0)?.state.isTerminal == true }
        }
        return jobIDs.compactMap { store.job($0) }
    }

    /// Shuts the worker down gracefully (running jobs get the shutdown timeout, then are released) and waits for it.
    public func stop() async throws {
        await group.triggerGracefulShutdown()
        try await running.value
    }
}
