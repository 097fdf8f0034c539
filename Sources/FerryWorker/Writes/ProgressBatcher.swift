import FerryStore
import Foundation
import Logging
import Synchronization

/// Writes progress events of many jobs in one statement, as `CompletionBatcher` does for outcomes: at the rate of
/// real transfers every job writes a progress event per chunk or part, and one statement per event cost the
/// fleet a round trip and a transaction each. Each caller still waits for its own answer (accepted, cancel
/// requested), so a lost claim or a cancel stops the job as before; a short window (`flushInterval`) lets
/// concurrent reports join.
final class ProgressBatcher: Sendable {
    private struct Waiting {
        var outcome: JobOutcome
        var continuation: CheckedContinuation<ProgressAck, any Error>
    }

    private struct State {
        var waiting: [Waiting] = []
        var stopped = false
    }

    private let store: any WorkerStore
    private let batchSize: Int
    private let flushInterval: Duration
    private let logger: Logger
    private let signal = WakeupSignal()
    private let state = Mutex(State())
    /// Told when the database refuses or accepts writes (see `DatabaseWrites.skippedProgress`).
    private let writes: DatabaseWrites?

    init(store: any WorkerStore, batchSize: Int, flushInterval: Duration, logger: Logger, writes: DatabaseWrites? = nil) {
        self.writes = writes
        self.store = store
        self.batchSize = max(1, batchSize)
        self.flushInterval = flushInterval
        self.logger = logger
    }

    /// Records `outcome` (a progress event) with the next batch and returns its answer.
    func record(_ outcome: JobOutcome) async throws -> ProgressAck {
        try await withCheckedThrowingContinuation { continuation in
            let accepted = state.withLock { state -> Bool in
                guard !state.stopped else { return false }
                state.waiting.append(Waiting(outcome: outcome, continuation: continuation))
                return true
            }
            if accepted {
                signal.notify()
            } else {
                continuation.resume(throwing: CancellationError())
            }
        }
    }

    /// Writes batches until the task is cancelled; then fails whatever still waits (its job is being stopped).
    func run() async {
        while !Task.isCancelled {
            if state.withLock({ $0.waiting.isEmpty }) {
                await signal.wait(timeout: .seconds(1))
                continue
            }
            if state.withLock({ $0.waiting.count < batchSize }) {
                try? await Task.sleep(for: flushInterval)
            }
            let batch = state.withLock { state -> [Waiting] in
                let taken = Array(state.waiting.prefix(batchSize))
                state.waiting.removeFirst(taken.count)
                return taken
            }
            do {
                let outcomes = batch.map(\.outcome)
                let acks = try await withDatabaseRetry(logger: logger) { try await self.store.recordProgress(outcomes) }
                writes?.accepted()
                for waiting in batch {
                    if let ack = acks[waiting.outcome.jobID] {
                        waiting.continuation.resume(returning: ack)
                    } else {
                        waiting.continuation.resume(throwing: LeaseLost())
                    }
                }
            } catch let error where writes?.refused(error) == true {
                for waiting in batch { waiting.continuation.resume(returning: DatabaseWrites.skippedProgress) }
            } catch {
                for waiting in batch { waiting.continuation.resume(throwing: error) }
            }
        }
        let left = state.withLock { state -> [Waiting] in
            state.stopped = true
            defer { state.waiting = [] }
            return state.waiting
        }
        for waiting in left { waiting.continuation.resume(throwing: CancellationError()) }
    }
}
