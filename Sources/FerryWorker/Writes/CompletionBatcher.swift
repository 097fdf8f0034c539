import FerryStore
import Foundation
import Logging
import Postgres
import Synchronization

/// Writes job outcomes in batches: finishing many short jobs costs one statement per batch, not one
/// transaction per job. Outcomes wait here while PostgreSQL is down and are written when it is back.
final class CompletionBatcher: Sendable {
    private let store: any WorkerStore
    private let batchSize: Int
    private let flushInterval: Duration
    private let logger: Logger
    private let signal = WakeupSignal()
    private let state = Mutex(State())
    /// Called after a batch that ended claims was written: their slots are free in the database now, so the
    /// claim loop may find due jobs of a capped account that a claim moments ago could not take.
    private let claimsEnded: @Sendable () -> Void
    /// Told when the database refuses or accepts writes: a refused batch waits here (with every outcome after
    /// it) until the server takes writes again, and is then written once.
    private let writes: DatabaseWrites?
    /// Set by the worker once it runs: outcomes that free account slots are written with the next claim.
    private let handover = Mutex<ClaimHandover?>(nil)

    private struct State {
        var buffer: [JobOutcome] = []
        /// Jobs whose outcomes are being written now: out of the buffer, not yet in the database.
        var writing: [UUID] = []
        var finishing = false
        /// How many outcomes the last statement wrote: the window is waited only when finishes came together.
        var lastBatchCount = 0
    }

    init(
        store: any WorkerStore, batchSize: Int, flushInterval: Duration, logger: Logger,
        claimsEnded: @escaping @Sendable () -> Void = {}, writes: DatabaseWrites? = nil
    ) {
        self.writes = writes
        self.claimsEnded = claimsEnded
        self.store = store
        self.batchSize = batchSize
        self.flushInterval = flushInterval
        self.logger = logger
    }

    /// Queues an outcome for the next batch.
    func submit(_ outcome: JobOutcome) {
        let wake = state.withLock { state -> Bool in
            state.buffer.append(outcome)
            return state.buffer.count == 1 || state.buffer.count >= batchSize
        }
        if wake { signal.notify() }
    }

    var pending: Int { state.withLock { $0.buffer.count } }

    /// Jobs with an outcome not yet in the database (buffered or being written). The worker counts them as its
    /// own when it releases orphaned claims: a job whose handler returned is out of the running set before its
    /// outcome lands, and releasing it then would fence off that outcome (a deferral or success lost).
    var unwrittenJobIDs: [UUID] {
        state.withLock { state in state.writing + state.buffer.map(\.jobID) }
    }

    /// Lets the batcher claim for the worker with outcomes that free account slots (`WorkerStore.recordThenClaim`).
    func handOverFreedSlots(_ handover: ClaimHandover) {
        self.handover.withLock { $0 = handover }
    }

    /// Whether `jobID`'s outcome waits here (buffered or being written): its account slot frees when it is written,
    /// and ``claimsEnded`` says so then.
    func holds(_ jobID: UUID) -> Bool {
        state.withLock { state in state.writing.contains(jobID) || state.buffer.contains { $0.jobID == jobID } }
    }

    /// Flushes until `finish()` is called and everything is written.
    func run() async {
        while true {
            let (isEmpty, finishing) = state.withLock { ($0.buffer.isEmpty, $0.finishing) }
            if isEmpty {
                if finishing { return }
                await signal.wait(timeout: .seconds(1))
                continue
            }
            // A short window lets concurrent finishers join the same statement, when there are any.
            if state.withLock({ Self.waitsForCompany(buffered: $0.buffer.count, lastBatch: $0.lastBatchCount, batchSize: batchSize, finishing: $0.finishing) }) {
                try? await Task.sleep(for: flushInterval)
            }
            let batch = state.withLock { state -> [JobOutcome] in
                let taken = Array(state.buffer.prefix(batchSize))
                state.buffer.removeFirst(taken.count)
                state.writing = taken.map(\.jobID)
                state.lastBatchCount = taken.count
                return taken
            }
            await write(batch)
            state.withLock { $0.writing = [] }
        }
    }

    /// Whether to wait the flush window before writing `buffered` outcomes. Only when the last statement took more
    /// than one: finishes then come together and a window saves statements. When they come one at a time (a
    /// capped account's few slow transfers) a window saves nothing and delays each freed slot's next claim, which
    /// waits for this write, by the whole window.
    static func waitsForCompany(buffered: Int, lastBatch: Int, batchSize: Int, finishing: Bool) -> Bool {
        buffered < batchSize && !finishing && lastBatch > 1
    }

    /// Stops accepting the wait: `run()` returns once the buffer is empty.
    func finish() {
        state.withLock { $0.finishing = true }
        signal.notify()
    }

    private func write(_ batch: [JobOutcome]) async {
        var claimed = false
        defer { afterWrite(batch, claimedAlready: claimed) }
        do {
            let result = try await record(batch, claimed: &claimed)
            if !result.rejected.isEmpty {
                // The ids say which claims were fenced off (a resumed zombie's writes, say); a batch holds at most
                // `batchSize` outcomes, so the list stays short.
                let ids = result.rejected.map { $0.uuidString.lowercased() }.sorted().joined(separator: ",")
                logger.notice(
                    "outcomes not written: their claims had ended (already recorded before a lost reply, rescued, or cancelled)",
                    metadata: ["jobs": "\(result.rejected.count)", "job_ids": "\(ids)"])
            }
        } catch {
            // Not a connection problem: isolate the bad outcome so the others still land.
            logger.error("writing a batch of outcomes failed; writing one by one", metadata: ["error": "\(error)"])
            for outcome in batch {
                do {
                    _ = try await store.record([outcome])
                } catch {
                    logger.error("an outcome could not be written; the job will be rescued", metadata: ["job": "\(outcome.jobID)", "error": "\(error)"])
                }
            }
        }
    }

    /// Writes `batch`, with a claim in the same transaction when it frees account slots and the worker may claim:
    /// the freed slot goes to the next job at once (a retry after a lost connection claims again; a claim whose
    /// commit was lost is released as orphaned, as for the claim loop's).
    private func record(_ batch: [JobOutcome], claimed handedOver: inout Bool) async throws -> (accepted: Set<UUID>, rejected: Set<UUID>) {
        let store = self.store
        guard batch.contains(where: { $0.freedAccount != nil && $0.type != .progress }),
            let handover = handover.withLock({ $0 }), let request = handover.begin(Set(batch.filter { $0.type != .progress }.map(\.jobID)))
        else {
            return try await withDatabaseRetry(logger: logger, writes: writes) { try await store.record(batch) }
        }
        var claimed = [ClaimedJob]()
        defer { handover.end(claimed, request.generation) }
        let result = try await withDatabaseRetry(logger: logger, writes: writes) {
            try await store.recordThenClaim(batch, worker: request.worker, queues: request.queues, limit: request.limit)
        }
        claimed = result.claimed
        handedOver = true
        return (result.accepted, result.rejected)
    }

    /// Wakes this process's claim loop (unless a claim went with the outcomes), and other processes' through
    /// `NOTIFY ferry_jobs` when an account's slot freed (those processes may be waiting on that account's cap; jobs
    /// without an account need no one told).
    private func afterWrite(_ batch: [JobOutcome], claimedAlready: Bool) {
        guard batch.contains(where: { $0.type != .progress }) else { return }
        // A claim made with the outcomes took every slot it could: another now would find nothing more.
        if !claimedAlready { claimsEnded() }
        if batch.contains(where: { $0.freedAccount != nil }) {
            let (store, logger) = (self.store, self.logger)
            Task {
                do {
                    try await store.announceCapacity()
                } catch {
                    logger.debug("announcing freed account capacity failed; other workers find it at their next poll", metadata: ["error": "\(error)"])
                }
            }
        }
    }
}
