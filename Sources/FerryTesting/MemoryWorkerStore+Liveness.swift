import FerryCore
import FerryStore
import Foundation

extension MemoryWorkerStore {
    public func register(_ worker: WorkerRegistration) async throws {
        state.withLock { state in
            state.workers[worker.name] = WorkerRow(registration: worker, heartbeatAt: state.now, stopping: false)
        }
    }

    public func heartbeat(worker: String, stopping: Bool) async throws -> Bool {
        try state.withLock { state throws(MemoryStoreUnreachable) -> Bool in
            guard !state.failingHeartbeats.contains(worker) else { throw MemoryStoreUnreachable() }
            guard state.workers[worker] != nil else { return false }
            state.workers[worker]!.heartbeatAt = state.now
            state.workers[worker]!.stopping = stopping
            return true
        }
    }

    public func deregister(worker: String) async throws {
        _ = state.withLock { $0.workers.removeValue(forKey: worker) }
    }

    public func rescueStaleJobs(staleAfter: Duration, poisonAfter: Int) async throws -> [RescuedJob] {
        let rescued = state.withLock { state -> [RescuedJob] in
            let now = state.now
            let cutoff = now.addingTimeInterval(-Self.seconds(staleAfter))
            var rescued = [RescuedJob]()
            for id in state.jobs.keys.sorted(by: Self.uuidOrder) {
                var job = state.jobs[id]!
                guard job.state == .running else { continue }
                if let holder = job.worker.flatMap({ state.workers[$0] }), holder.heartbeatAt >= cutoff { continue }
                let worker = job.worker
                let reason = "worker \(worker ?? "?") stopped heartbeating (lease expired)"
                let exhausted = job.attempt >= job.maxAttempts
                // Rescues since the last retry, this one included (as ferry.rescue_stale_jobs counts them).
                let sinceRetry = job.events.lastIndex(of: .requeued).map { job.events.index(after: $0) } ?? job.events.startIndex
                let rescues = job.events[sinceRetry...].filter { $0 == .rescued }.count + 1
                if poisonAfter > 0 && rescues >= poisonAfter {
                    let error = "poison: the workers that claimed this job stopped mid-job \(rescues) times (last \(worker ?? "?")); "
                        + "it is no longer handed out: find the cause in their logs, then ferry retry it"
                    _ = Self.apply(.failed, ["error": .string(error), "reason": .string("poison")], to: &job, at: now)
                    state.jobs[id] = job
                    rescued.append(RescuedJob(jobID: id, outcome: "poison", worker: worker, kind: job.kind, queue: job.queue))
                    continue
                }
                if exhausted {
                    _ = Self.apply(
                        .failed, ["error": .string(reason + "; attempts exhausted (\(job.attempt) of \(job.maxAttempts))")],
                        to: &job, at: now)
                } else {
                    _ = Self.apply(.rescued, ["reason": .string(reason)], to: &job, at: now)
                }
                state.jobs[id] = job
                rescued.append(
                    RescuedJob(jobID: id, outcome: exhausted ? "failed" : "rescued", worker: worker, kind: job.kind, queue: job.queue))
            }
            // Forget workers that are long gone and hold nothing.
            let forgotten = now.addingTimeInterval(-Self.seconds(staleAfter) * 10)
            let holders = Set(state.jobs.values.filter { $0.state == .running }.compactMap(\.worker))
            state.workers = state.workers.filter { $0.value.heartbeatAt >= forgotten || holders.contains($0.key) }
            return rescued
        }
        if rescued.contains(where: { $0.outcome == "rescued" }) { announce([.jobs]) }
        return rescued
    }

    public func releaseOrphanedClaims(worker: String, running: [UUID], grace: Duration) async throws -> [UUID] {
        let running = Set(running)
        let released = state.withLock { state -> [UUID] in
            state.orphanChecks += 1
            let now = state.now
            let cutoff = now.addingTimeInterval(-Self.seconds(grace))
            var released = [UUID]()
            for id in state.jobs.keys.sorted(by: Self.uuidOrder) where !running.contains(id) {
                var job = state.jobs[id]!
                guard job.state == .running, job.worker == worker, job.updatedAt <= cutoff else { continue }
                _ = Self.apply(.released, ["reason": .string("claim reply lost with the connection; released unstarted")], to: &job, at: now)
                state.jobs[id] = job
                released.append(id)
            }
            return released
        }
        if !released.isEmpty { announce([.jobs]) }
        return released
    }

    public func publishLiveProgress(worker: String, jobs: [(jobID: UUID, batch: String?, bytes: Int64)]) async throws {
        state.withLock { state in
            let kept = Set(jobs.map(\.jobID))
            state.liveProgress = state.liveProgress.filter { $0.value.worker != worker || kept.contains($0.key) }
            for job in jobs { state.liveProgress[job.jobID] = (worker, job.bytes) }
        }
    }

    /// Nothing to fold: the memory store keeps no counters.
    public func compactCounters() async throws -> Int { 0 }

    public func pausedQueues() async throws -> Set<String> {
        state.withLock { $0.pausedQueues }
    }

    public func queueDepth(including queues: [String]) async throws -> [QueueDepthRow] {
        state.withLock { state in
            let now = state.now
            var rows = [String: QueueDepthRow]()
            for queue in queues { rows[queue] = QueueDepthRow(queue: queue, queued: 0, running: 0, oldestWaitingSeconds: 0) }
            for job in state.jobs.values where job.state == .queued || job.state == .running {
                var row = rows[job.queue] ?? QueueDepthRow(queue: job.queue, queued: 0, running: 0, oldestWaitingSeconds: 0)
                if job.state == .queued {
                    row.queued += 1
                    if job.runAt <= now { row.oldestWaitingSeconds = max(row.oldestWaitingSeconds, now.timeIntervalSince(job.runAt)) }
                } else {
                    row.running += 1
                }
                rows[job.queue] = row
            }
            return rows.values.sorted { $0.queue < $1.queue }
        }
    }

    /// Traces are not modelled: every job's spans derive from its id.
    public func traceFacts(for jobs: [ClaimedJob]) async throws -> [UUID: JobTraceFacts] { [:] }

    public func settleAccount(named name: String?, provider: String) async throws -> String {
        let settled = state.withLock { state -> Result<String, FerryStoreError> in
            if let name {
                guard let account = state.accounts[name] else {
                    return .failure(FerryStoreError(.unknownAccount, "unknown account '\(name)'"))
                }
                guard account.provider == provider else {
                    return .failure(FerryStoreError(.unknownAccount, "account '\(name)' is a \(account.provider) account, not \(provider)"))
                }
                return .success(name)
            }
            let usable = state.accounts.values.filter { $0.provider == provider && $0.status != "revoked" }.map(\.name).sorted()
            guard usable.count == 1 else {
                return .failure(
                    FerryStoreError(.unknownAccount, usable.isEmpty ? "no \(provider) account to use" : "several \(provider) accounts; say which"))
            }
            return .success(usable[0])
        }
        return try settled.get()
    }

    static func seconds(_ duration: Duration) -> TimeInterval {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
