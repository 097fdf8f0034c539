import FerryCore
import FerryStore
import Foundation

/// The producer's and the operator's side, for tests to set the stage: enqueue, cancel, accounts, paused queues,
/// a dead worker, and reading jobs back.
extension MemoryWorkerStore {
    /// Enqueues `spec` (due at its `runAt`, or now) and announces it. A spec whose idempotency key is known
    /// creates nothing. Returns the job's id and whether it was created.
    @discardableResult
    public func enqueue(_ spec: JobSpec) -> (jobID: UUID, created: Bool) {
        let result = state.withLock { state in Self.insert(spec, into: &state) }
        if result.created { announce([.jobs]) }
        return result
    }

    /// Enqueues several specs at once; returns their ids in order.
    @discardableResult
    public func enqueue(_ specs: [JobSpec]) -> [UUID] {
        specs.map { enqueue($0).jobID }
    }

    static func insert(_ spec: JobSpec, into state: inout State) -> (jobID: UUID, created: Bool) {
        if let key = spec.idempotencyKey, let existing = state.keys[key] { return (existing, false) }
        let now = state.now
        state.jobs[spec.jobID] = MemoryJob(
            jobID: spec.jobID,
            assignment: JobAssignment(
                kind: spec.kind, queue: spec.queue, batch: spec.batch, source: spec.source, destination: spec.destination,
                account: spec.account, spec: JSONValue.object(spec.details).jsonText, metadata: spec.metadata?.jsonText),
            priority: Int(spec.priority), maxAttempts: Int(spec.maxAttempts),
            idempotencyKey: spec.idempotencyKey, state: .queued, attempt: 0, lease: 0, worker: nil,
            runAt: spec.runAt ?? now, enqueuedAt: now, updatedAt: now, finishedAt: nil, bytesDone: 0,
            bytesTotal: spec.bytesTotal, session: nil, cancelRequested: false, lastError: nil, result: nil,
            traceparent: spec.traceparent, events: [.enqueued])
        if let key = spec.idempotencyKey { state.keys[key] = spec.jobID }
        return (spec.jobID, true)
    }

    /// `ferry cancel`: a queued job is cancelled at once, a running one gets `cancel_requested` (its worker is told
    /// and stops at its next step), a finished one is left alone. Returns the job's state afterwards.
    @discardableResult
    public func cancel(_ jobID: UUID) throws(FerryStoreError) -> JobState {
        var requested = false
        let result = state.withLock { state -> JobState? in
            guard var job = state.jobs[jobID] else { return nil }
            let now = state.now
            if job.state == .queued {
                _ = Self.apply(.cancelled, ["reason": .string("cancelled by test")], to: &job, at: now)
            } else if job.state == .running && !job.cancelRequested {
                _ = Self.apply(.cancelRequested, [:], to: &job, at: now)
                requested = true
            }
            state.jobs[jobID] = job
            return job.state
        }
        guard let result else { throw FerryStoreError(.notFound, "no such job") }
        if requested { announce([.cancel]) }
        return result
    }

    /// The job as the store holds it now.
    public func job(_ jobID: UUID) -> MemoryJob? {
        state.withLock { $0.jobs[jobID] }
    }

    /// Every job, in enqueue order (ids are UUIDv7).
    public var jobs: [MemoryJob] {
        state.withLock { $0.jobs.values.sorted { Self.uuidOrder($0.jobID, $1.jobID) } }
    }

    /// Adds or replaces an account.
    public func setAccount(_ account: MemoryAccount) {
        state.withLock { $0.accounts[account.name] = account }
        announce([.jobs])
    }

    /// Pauses or resumes a queue (`ferry queue pause`): a paused queue's jobs are not claimed.
    public func setQueuePaused(_ queue: String, paused: Bool) {
        state.withLock { state in
            if paused { state.pausedQueues.insert(queue) } else { state.pausedQueues.remove(queue) }
        }
        if !paused { announce([.jobs]) }
    }

    /// Makes `worker`'s last heartbeat `seconds` old, as if it had stopped (a `kill -9`, a lost machine).
    public func ageHeartbeat(of worker: String, by seconds: TimeInterval) {
        state.withLock { state in
            let then = state.now.addingTimeInterval(-seconds)
            state.workers[worker]?.heartbeatAt = then
        }
    }

    /// Whether `worker` is registered.
    public func isRegistered(_ worker: String) -> Bool {
        state.withLock { $0.workers[worker] != nil }
    }

    /// The live-progress bytes published for `jobID`, if any.
    public func liveBytes(of jobID: UUID) -> Int64? {
        state.withLock { $0.liveProgress[jobID]?.bytes }
    }
}
