import FerryCore
import FerryStore
import Foundation
import Logging
import Synchronization

/// A `WorkerStore` in process memory, for tests that run a worker or a handler in milliseconds without
/// PostgreSQL (as swift-jobs' `MemoryQueue` and River's `rivertest` do).
///
/// It keeps the semantics the worker relies on, which the shared contract suite checks against `FerryStore`:
/// claim order (priority, then `run_at`, then id) and due times, paused queues, per-account caps counting
/// transfers (`ferry.account_transfers`), lease fencing (an event under a stale lease is refused), the state
/// machine of `ferry.apply_event` (retries, deferrals and releases back to the queue, a cancel requested while
/// running winning at the next return to the queue), rescue of jobs whose worker stopped heartbeating, orphaned
/// claim release, keyed fan-out, and wake-ups on the events that announce work or cancel requests.
///
/// Time is the store's clock (`now`): tests move it with `advance(by:)` to make retries due or heartbeats stale
/// without waiting. Counters, queue depth and trace facts are not modelled (empty answers).
public final class MemoryWorkerStore: WorkerStore {
    struct WorkerRow {
        var registration: WorkerRegistration
        var heartbeatAt: Date
        var stopping: Bool
    }

    struct State {
        var jobs: [UUID: MemoryJob] = [:]
        var keys: [String: UUID] = [:]
        var accounts: [String: MemoryAccount] = [:]
        var workers: [String: WorkerRow] = [:]
        var pausedQueues: Set<String> = []
        var liveProgress: [UUID: (worker: String, bytes: Int64)] = [:]
        var listeners: [UUID: AsyncStream<WorkerWakeup>.Continuation] = [:]
        var offset: TimeInterval = 0
        var outcomesHeld = false
        var heldRecords: [CheckedContinuation<Void, Never>] = []
        var orphanChecks = 0
        var failingHeartbeats: Set<String> = []
        var remoteFolders: [String: MemoryRemoteFolder] = [:]
        /// Leases on account budgets: account → worker → (demand, expires).
        var accountShares: [String: [String: (demand: Double, expires: Date)]] = [:]
        var ids = UUIDv7Generator(random: SystemRandomNumberGenerator())

        var now: Date { Date().addingTimeInterval(offset) }
    }

    let state = Mutex(State())

    public init() {}

    /// The store's clock: the real time moved by `advance(by:)`.
    public var now: Date { Date().addingTimeInterval(state.withLock { $0.offset }) }

    /// Moves the store's clock forward (retries and deferrals fall due, heartbeats go stale).
    public func advance(by seconds: TimeInterval) {
        state.withLock { $0.offset += seconds }
    }

    /// Makes `record(_:)` wait until `releaseOutcomes()`, as a slow or stalled database would: for tests of what
    /// a worker does while its outcomes are in flight.
    public func holdOutcomes() {
        state.withLock { $0.outcomesHeld = true }
    }

    /// Lets held and later `record(_:)` calls through.
    public func releaseOutcomes() {
        let waiting = state.withLock { state in
            state.outcomesHeld = false
            defer { state.heldRecords = [] }
            return state.heldRecords
        }
        for call in waiting { call.resume() }
    }

    /// How many `record(_:)` calls are waiting for `releaseOutcomes()`.
    public var heldRecordCalls: Int { state.withLock { $0.heldRecords.count } }

    /// Makes `worker`'s heartbeats fail (throw ``MemoryStoreUnreachable``), as a partition between that worker and
    /// the database would, while everything else it does still goes through; `false` lets them through again.
    public func failHeartbeats(of worker: String, _ failing: Bool = true) {
        state.withLock { state in
            if failing { state.failingHeartbeats.insert(worker) } else { state.failingHeartbeats.remove(worker) }
        }
    }

    /// How many times a worker has asked to release its orphaned claims (its liveness loop's pace).
    public var orphanChecks: Int { state.withLock { $0.orphanChecks } }

    /// Waits while outcomes are held.
    func passOutcomeGate() async {
        await withCheckedContinuation { (call: CheckedContinuation<Void, Never>) in
            let held = state.withLock { state in
                if state.outcomesHeld { state.heldRecords.append(call) }
                return state.outcomesHeld
            }
            if !held { call.resume() }
        }
    }

    // MARK: Wake-ups

    public func wakeups(logger: Logger) -> AsyncStream<WorkerWakeup> {
        let (stream, continuation) = AsyncStream.makeStream(of: WorkerWakeup.self)
        let id = UUID()
        state.withLock { $0.listeners[id] = continuation }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.listeners.removeValue(forKey: id) }
        }
        return stream
    }

    /// Tells every listener, as the events' trigger NOTIFYs `ferry_jobs` or `ferry_cancel`.
    func announce(_ wakeups: Set<WorkerWakeup>) {
        guard !wakeups.isEmpty else { return }
        let listeners = state.withLock { Array($0.listeners.values) }
        for listener in listeners {
            for wakeup in wakeups.sorted(by: { "\($0)" < "\($1)" }) { listener.yield(wakeup) }
        }
    }

    /// The wake-up an event of `type` announces (`ferry.fold_events`' `wake_jobs` and `wake_cancel`).
    static func wakeup(for type: JobEventType) -> WorkerWakeup? {
        switch type {
        case .enqueued, .requeued, .released, .rescued, .retryScheduled, .deferred: .jobs
        case .cancelRequested: .cancel
        default: nil
        }
    }

    /// PostgreSQL's uuid order (bytes, as the lowercase text sorts).
    static func uuidOrder(_ lhs: UUID, _ rhs: UUID) -> Bool {
        lhs.uuidString.lowercased() < rhs.uuidString.lowercased()
    }
}
