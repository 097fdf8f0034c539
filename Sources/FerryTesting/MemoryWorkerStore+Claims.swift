import FerryCore
import FerryStore
import Foundation
import Postgres

extension MemoryWorkerStore {
    public func claim(worker: String, queues: [String], limit: Int) async throws -> [ClaimedJob] {
        guard limit > 0, !queues.isEmpty else { return [] }
        return state.withLock { state in
            let now = state.now
            let wanted = Set(queues).subtracting(state.pausedQueues)
            let due = state.jobs.values
                .filter { $0.state == .queued && wanted.contains($0.queue) && $0.runAt <= now }
                .sorted(by: Self.claimOrder)
            // What each account may still start, counted once per claim as `ferry.claim_jobs` does.
            var room = [String: Int]()
            var picked = [UUID]()
            for job in due where picked.count < limit {
                if let account = job.account {
                    let known = state.accounts[account]
                    if let known, known.status != "active" { continue }
                    let left = room[account]
                        ?? (known?.maxConcurrent ?? 4) - state.jobs.values.count { $0.account == account && $0.isTransferring }
                    guard left > 0 else {
                        room[account] = left
                        continue
                    }
                    room[account] = left - 1
                }
                picked.append(job.jobID)
            }
            return picked.map { id in
                var job = state.jobs[id]!
                _ = Self.apply(.claimed, ["worker": .string(worker), "lease": .int(job.lease + 1)], to: &job, at: now)
                state.jobs[id] = job
                return Self.claimed(job)
            }
        }
    }

    public func record(_ outcomes: [JobOutcome]) async throws -> (accepted: Set<UUID>, rejected: Set<UUID>) {
        guard !outcomes.isEmpty else { return ([], []) }
        await passOutcomeGate()
        // One event per job per call: the latest outcome of each, as `FerryStore.record`.
        var latest = [UUID: JobOutcome]()
        for outcome in outcomes { latest[outcome.jobID] = outcome }
        var wakeups = Set<WorkerWakeup>()
        let accepted = state.withLock { state -> Set<UUID> in
            let now = state.now
            var accepted = Set<UUID>()
            for outcome in latest.values {
                guard var job = state.jobs[outcome.jobID], job.state == .running, job.lease == outcome.lease else { continue }
                if let wakeup = Self.apply(outcome.type, outcome.data, to: &job, at: now) { wakeups.insert(wakeup) }
                state.jobs[outcome.jobID] = job
                accepted.insert(outcome.jobID)
            }
            return accepted
        }
        announce(wakeups)
        return (accepted, Set(latest.keys).subtracting(accepted))
    }

    public func recordProgress(_ outcome: JobOutcome) async throws -> ProgressAck {
        try await recordProgress([outcome])[outcome.jobID] ?? ProgressAck(accepted: false, cancelRequested: false)
    }

    public func recordProgress(_ outcomes: [JobOutcome]) async throws -> [UUID: ProgressAck] {
        var latest = [UUID: JobOutcome]()
        for outcome in outcomes { latest[outcome.jobID] = outcome }
        var freed = false
        let acks = state.withLock { state -> [UUID: ProgressAck] in
            let now = state.now
            var acks = [UUID: ProgressAck]()
            for outcome in latest.values {
                guard var job = state.jobs[outcome.jobID], job.state == .running, job.lease == outcome.lease else {
                    acks[outcome.jobID] = ProgressAck(accepted: false, cancelRequested: false)
                    continue
                }
                _ = Self.apply(.progress, outcome.data, to: &job, at: now)
                state.jobs[outcome.jobID] = job
                acks[outcome.jobID] = ProgressAck(accepted: true, cancelRequested: job.cancelRequested)
                if outcome.freedAccount != nil { freed = true }
            }
            return acks
        }
        // Every byte up frees the account's slot: claimers waiting on its cap are told, as by NOTIFY ferry_jobs.
        if freed { announce([.jobs]) }
        return acks
    }

    public func announceCapacity() async throws {
        announce([.jobs])
    }

    public func cancelRequests(worker: String) async throws -> Set<UUID> {
        state.withLock { state in
            Set(state.jobs.values.filter { $0.state == .running && $0.worker == worker && $0.cancelRequested }.map(\.jobID))
        }
    }

    /// Priority DESC, `run_at`, job id: the claim order of `ferry.claim_jobs`.
    static func claimOrder(_ lhs: MemoryJob, _ rhs: MemoryJob) -> Bool {
        if lhs.priority != rhs.priority { return lhs.priority > rhs.priority }
        if lhs.runAt != rhs.runAt { return lhs.runAt < rhs.runAt }
        return uuidOrder(lhs.jobID, rhs.jobID)
    }

    /// The claim as a worker sees it.
    static func claimed(_ job: MemoryJob) -> ClaimedJob {
        ClaimedJob(
            jobID: job.jobID, lease: job.lease, attempt: job.attempt, maxAttempts: job.maxAttempts, kind: job.kind,
            queue: job.queue, batch: job.batch, source: job.source, destination: job.destination, account: job.account,
            spec: job.spec, metadata: job.metadata, bytesDone: job.bytesDone, bytesTotal: job.bytesTotal,
            session: job.session?.jsonText, enqueuedAt: PostgresTimestamp(job.enqueuedAt),
            claimedAt: PostgresTimestamp(job.updatedAt), priority: job.priority, runAt: PostgresTimestamp(job.runAt),
            traceparent: nil)
    }
}
