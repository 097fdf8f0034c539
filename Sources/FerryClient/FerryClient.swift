@_exported import FerryCore
import FerryProviders
import FerryStore
import Foundation
import Logging
import Postgres

/// Enqueue transfers and follow them from a Swift program: what `ferry enqueue`, `ferry status` and `ferry wait`
/// do, as an API.
///
/// ```swift
/// let ferry = FerryClient(databaseURL: "postgresql://app@db/ferry", providers: .standard)
/// defer { ferry.close() }
/// let jobs = try await ferry.enqueue([
///     JobRequest(kind: .upload, source: "/srv/photos/a.jpg", to: "s3:photos:bucket/camera/", batch: "trip"),
/// ])
/// let batch = try await ferry.waitForBatch("trip", timeout: .seconds(600))
/// print(batch.succeededWhole ? "uploaded" : "\(batch.failed) failed")
/// ```
///
/// Requests are checked exactly as the CLI checks them (the provider registry, the upload source on disk) and a
/// call enqueues all of its requests or none. The connection pool is the client's own: create one per process,
/// share it, and `close()` it at the end. Calls never block the caller's executor (libpq runs on the pool's threads).
public final class FerryClient: Sendable {
    let store: FerryStore
    let logger: Logger
    /// The providers requests are checked against: Ferry's own (`.standard`) or an app's list with its own.
    let providers: ProviderRegistry

    /// - Parameters:
    ///   - databaseURL: a libpq connection string or URL for a role that is a member of `ferry_producer`.
    ///   - providers: the providers requests may name (`.standard`, or a registry with the app's own providers).
    ///   - poolSize: connections kept open (a waiting call holds one while it listens).
    public init(databaseURL: String, providers: ProviderRegistry, poolSize: Int = 2, logger: Logger = Logger(label: "ferry.client")) {
        let client = PostgresClient(
            configuration: PostgresConfiguration(connectionString: databaseURL, applicationName: "ferry-client", poolSize: poolSize),
            logger: logger)
        store = FerryStore(client: client, logger: logger)
        self.logger = logger
        self.providers = providers
    }

    /// A client over a store the caller opened, whose connections ``close()`` closes: `ferry` opens its store its
    /// own way (the schema version checked, PostgreSQL waited for) and then calls this API.
    public init(store: FerryStore, providers: ProviderRegistry, logger: Logger = Logger(label: "ferry.client")) {
        self.store = store
        self.logger = logger
        self.providers = providers
    }

    /// Closes the connections. Calls after this fail.
    public func close() {
        store.client.close()
    }

    /// Validates every request, then enqueues them in one transaction: all of them, or none (a
    /// ``FerryClientError`` with ``FerryClientError/Code/invalidRequests`` lists every problem).
    /// Relative upload sources are resolved against the process's working directory.
    public func enqueue(_ requests: [JobRequest]) async throws -> [EnqueuedJob] {
        let now = Date()
        let directory = FileManager.default.currentDirectoryPath
        let inspector = LocalFileInspector()
        var ids = UUIDv7Generator(random: SystemRandomNumberGenerator())
        var specs = [JobSpec]()
        var issues = [ValidationIssue]()
        for (index, original) in requests.enumerated() {
            var request = original
            request.line = request.line ?? index + 1
            do throws(ValidationIssue) {
                specs.append(
                    try request.validated(
                        jobID: ids.next(now: now), now: now, currentDirectory: directory, inspectFile: inspector.inspect,
                        providers: providers))
            } catch {
                issues.append(error)
            }
        }
        guard issues.isEmpty else {
            throw FerryClientError(code: .invalidRequests, issues: issues, message: "\(issues.count) of \(requests.count) request(s) are invalid; nothing was enqueued")
        }
        return zip(try await store.enqueue(specs), specs).map { EnqueuedJob($0, spec: $1) }
    }

    /// The job's current state, or nil when there is no such job (or it was archived).
    public func job(_ id: UUID) async throws -> JobProgress? {
        try await store.reads.jobStatus(.job(id)).first.map(JobProgress.init)
    }

    /// The batch's current state, or nil when there is no such batch (or all its jobs were archived).
    public func batch(_ name: String) async throws -> BatchProgress? {
        try await store.reads.batchStatus(name).first.map(BatchProgress.init)
    }

    /// Waits until no job of the batch is queued or running and returns its final state (check
    /// ``BatchProgress/succeededWhole``). Woken by the batch's completion notification, and reads the state again
    /// every `pollInterval` in case a notification is missed. On a hot standby, which refuses LISTEN (SQLSTATE
    /// 25006) and hears no notifications, it logs that once and reads every `pollInterval`. Throws ``FerryClientError`` with
    /// ``FerryClientError/Code/notFound`` or ``FerryClientError/Code/timedOut``, or `CancellationError`.
    public func waitForBatch(_ name: String, timeout: Duration? = nil, pollInterval: Duration = .seconds(1)) async throws -> BatchProgress {
        let deadline = timeout.map { ContinuousClock.now + $0 }
        var waiting = BatchWaiting()
        while true {
            try Task.checkCancellation()
            guard let batch = try await batch(name) else {
                throw FerryClientError(code: .notFound, issues: [], message: "no batch named \(name)")
            }
            if batch.isDone { return batch }
            var pause = pollInterval
            if let deadline {
                let left = deadline - ContinuousClock.now
                guard left > .zero else {
                    throw FerryClientError(code: .timedOut, issues: [], message: "batch \(name) still has \(batch.queued + batch.running) unfinished job(s)")
                }
                pause = min(pause, left)
            }
            if try await self.pause(pause, batch: name, state: &waiting) == .startedPolling {
                logger.notice(
                    "the server is a hot standby (LISTEN refused, SQLSTATE 25006): reading the batch every poll interval instead of waiting for notifications")
            }
        }
    }
}
