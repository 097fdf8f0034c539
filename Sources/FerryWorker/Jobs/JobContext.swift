import FerryCore
import FerryStore
import Foundation
import Logging
import Postgres
import Synchronization

/// What a handler gets besides the job: a logger carrying the job's metadata, progress reporting, and
/// cancellation checks.
public final class JobContext: Sendable {
    public let job: ClaimedJob
    /// Carries job id, kind, attempt and worker as metadata (attached once per job).
    public let logger: Logger
    let store: any WorkerStore
    let metrics: WorkerMetrics
    private let state = Mutex(State())

    struct State {
        var lastRecorded = ContinuousClock.now - .seconds(60)
        var bytesReported: Int64 = 0
        var cancelRequested = false
        var endCleanups: [@Sendable () async -> Void] = []
    }

    /// Minimum spacing of progress events that are not forced (keeps the log from filling with progress).
    let progressInterval: Duration

    /// Whether the worker stopped this job because someone asked to cancel it (not for a shutdown).
    let cancelledByRequest: @Sendable () -> Bool

    /// This attempt's span id, kept in its progress events so that if the worker dies, the next attempt can name
    /// the span its finished chunk spans point to (nil with tracing off).
    let attemptSpanID: String?
    /// The folders this worker may read and write (`--local-root`): every local path goes through them.
    public let localRoots: LocalRoots
    /// Where `noteBytes` goes (published about once a second for the status views).
    let live: LiveProgress?
    /// Writes progress events with other jobs' in one statement; `nil` writes each on its own.
    let progressBatcher: ProgressBatcher?
    /// The process's bandwidth limit (`--bwlimit`, shared by all its transfers) and the job's account's (`ferry
    /// account update NAME --bwlimit`); nil with neither. Data paths spend from it before each piece they move.
    public let bandwidth: BandwidthBudget?
    /// Wakes this process's claim loop when a progress event ended a transfer of a capped account (every byte up,
    /// only the commit left): the account has room for another transfer now.
    let transferEnded: @Sendable () -> Void
    /// This worker's lease and the generation this job was claimed in (see ``ensureLease(before:margin:)``); nil
    /// for contexts outside a worker, whose lease is never in doubt.
    let lease: (lease: WorkerLease, generation: Int)?
    /// Told when the database refuses or accepts writes; a refused progress write is skipped (see `DatabaseWrites`).
    let writes: DatabaseWrites?

    init(
        job: ClaimedJob, logger: Logger, store: any WorkerStore, metrics: WorkerMetrics, progressInterval: Duration,
        cancelledByRequest: @escaping @Sendable () -> Bool = { false }, attemptSpanID: String? = nil,
        localRoots: LocalRoots = .none, live: LiveProgress? = nil, progressBatcher: ProgressBatcher? = nil,
        bandwidth: BandwidthBudget? = nil, transferEnded: @escaping @Sendable () -> Void = {},
        lease: (lease: WorkerLease, generation: Int)? = nil, writes: DatabaseWrites? = nil
    ) {
        self.lease = lease
        self.writes = writes
        self.transferEnded = transferEnded
        self.live = live
        self.progressBatcher = progressBatcher
        self.localRoots = localRoots
        self.bandwidth = bandwidth
        self.cancelledByRequest = cancelledByRequest
        self.attemptSpanID = attemptSpanID
        self.job = job
        self.logger = logger
        self.store = store
        self.metrics = metrics
        self.progressInterval = progressInterval
    }

    /// Records progress. With `session` (a resumable cursor) or `force`, always writes an event, so a new
    /// attempt can resume exactly there; otherwise at most one event per `progressInterval`.
    ///
    /// Throws `CancellationError` when a cancel was requested and `LeaseLost` when the claim is gone.
    public func reportProgress(bytesDone: Int64, bytesTotal: Int64? = nil, session: JSONValue? = nil, force: Bool = false) async throws {
        try Task.checkCancellation()
        let due = state.withLock { state in
            force || session != nil || ContinuousClock.now - state.lastRecorded >= progressInterval
        }
        guard due else { return }
        let outcome = progressOutcome(bytesDone: bytesDone, bytesTotal: bytesTotal, session: session)
        let ack: ProgressAck
        if let progressBatcher {
            ack = try await progressBatcher.record(outcome)
        } else {
            do {
                ack = try await withDatabaseRetry(logger: logger, writes: nil) { try await self.store.recordProgress(outcome) }
                writes?.accepted()
            } catch let error where writes?.refused(error) == true {
                ack = DatabaseWrites.skippedProgress
            }
        }
        let delta = state.withLock { state -> Int64 in
            state.lastRecorded = ContinuousClock.now
            defer { state.bytesReported = max(state.bytesReported, bytesDone) }
            return max(0, bytesDone - state.bytesReported)
        }
        metrics.bytesMoved(delta, job: job)
        guard ack.accepted else { throw LeaseLost() }
        if outcome.freedAccount != nil { transferEnded() }
        live?.recorded(job.jobID, bytes: bytesDone)
        if ack.cancelRequested {
            state.withLock { $0.cancelRequested = true }
            throw CancellationError()
        }
    }

    /// Notes that the transfer has moved `bytesDone` bytes so far (sent or received, not yet durable): cheap, no
    /// database write. The status views show it within about a second; progress events stay the resume points.
    public func noteBytes(_ bytesDone: Int64) {
        live?.note(job.jobID, bytes: bytesDone)
    }

    /// A progress event of this attempt, carrying its span id when tracing.
    func progressOutcome(bytesDone: Int64, bytesTotal: Int64?, session: JSONValue?) -> JobOutcome {
        var outcome = JobOutcome.progress(job, bytesDone: bytesDone, bytesTotal: bytesTotal, session: session)
        if let attemptSpanID { outcome.data["span_id"] = .string(attemptSpanID) }
        return outcome
    }

    /// Waits until the process's and the account's bandwidth limits allow `bytes` more (at once without either).
    public func throttle(_ bytes: Int) async throws {
        try await bandwidth?.spend(bytes)
    }

    /// Throws `CancellationError` if the job should stop (cancel requested or the worker is shutting down).
    public func checkCancellation() throws {
        try Task.checkCancellation()
    }

    var cancelRequestedByProgress: Bool { state.withLock { $0.cancelRequested } }

    /// True when the job is stopping because a cancel was requested (its work will never be resumed), false for a
    /// shutdown or a lost claim (a later attempt resumes). Handlers use it to clean up remote state on cancel.
    public var cancelRequested: Bool { cancelRequestedByProgress || cancelledByRequest() }

    func markCancelRequested() { state.withLock { $0.cancelRequested = true } }

    /// Registers `cleanup` to run if this attempt ends the job for good: it fails permanently, runs out of
    /// attempts or is cancelled. It never runs when the job succeeds, is retried, deferred or released (shutdown,
    /// lost claim, `kill -9`): a later attempt resumes from what the cleanup would remove. The worker runs it
    /// before recording the outcome, so a `ferry retry` that follows cannot race it.
    public func whenJobEnds(_ cleanup: @escaping @Sendable () async -> Void) {
        state.withLock { $0.endCleanups.append(cleanup) }
    }

    /// Runs (once) what `whenJobEnds` registered.
    func runEndCleanups() async {
        let cleanups = state.withLock { state in
            defer { state.endCleanups.removeAll() }
            return state.endCleanups
        }
        for cleanup in cleanups { await cleanup() }
    }

    /// Counts bytes the handler moved after its last progress event (the final chunk is never reported).
    func recordFinalBytes(_ total: Int64?) {
        guard let total else { return }
        let delta = state.withLock { state -> Int64 in
            defer { state.bytesReported = max(state.bytesReported, total) }
            return max(0, total - state.bytesReported)
        }
        metrics.bytesMoved(delta, job: job)
    }
}

/// Retries a database call while PostgreSQL is unreachable, with capped exponential backoff, so in-flight
/// work records its progress once the database is back (and a worker starting during a restart waits for it).
/// Other errors propagate at once; with a `deadline`, so does the connection error once the deadline would pass.
/// With `writes`, a server that refuses writes (read-only, out of disk) is waited for too, and `writes` is told.
public func withDatabaseRetry<T: Sendable>(
    logger: Logger, deadline: ContinuousClock.Instant? = nil, _ body: @Sendable () async throws -> T
) async throws -> T {
    try await withDatabaseRetry(logger: logger, deadline: deadline, writes: nil, body)
}

func withDatabaseRetry<T: Sendable>(
    logger: Logger, deadline: ContinuousClock.Instant? = nil, writes: DatabaseWrites?, _ body: @Sendable () async throws -> T
) async throws -> T {
    var delay = Duration.milliseconds(100)
    while true {
        do {
            let result = try await body()
            writes?.accepted()
            return result
        } catch where writes?.refused(error) == true {
            // Logged once by `writes`; a refusal lasts seconds (a failover) to as long as a person takes.
            if let deadline, ContinuousClock.now + delay > deadline { throw error }
            try await Task.sleep(for: delay)
            delay = min(delay * 2, .seconds(2))
        } catch where FerryStoreError.code(of: error) == .connectionLost {
            if let deadline, ContinuousClock.now + delay > deadline { throw error }
            logger.warning("database unavailable, retrying", metadata: ["retry_in_ms": "\(delay.components.seconds * 1000 + delay.components.attoseconds / 1_000_000_000_000_000)"])
            try await Task.sleep(for: delay)
            delay = min(delay * 2, .seconds(5))
        }
    }
}
