import FerryCore
import FerryStore
import Foundation

extension MemoryWorkerStore {
    public func fanOut(_ children: [FanOutChild], from parent: ClaimedJob, progress: JobOutcome, now: Date) async throws -> FanOutAck {
        var created = 0
        let ack = state.withLock { state -> FanOutAck in
            guard var job = state.jobs[parent.jobID], job.state == .running, job.lease == parent.lease else {
                return FanOutAck(accepted: false, cancelRequested: false, created: 0)
            }
            // Children join the parent's batch, queue, priority and attempt budget, and name their parent.
            for child in children {
                var details = child.details
                details["parent"] = .string(parent.jobID.uuidString.lowercased())
                var spec = JobSpec(
                    jobID: state.ids.next(now: now), kind: child.kind, source: child.source, destination: child.destination,
                    account: child.account, queue: job.queue, batch: job.batch, priority: Int64(job.priority),
                    maxAttempts: Int64(job.maxAttempts), runAt: nil, idempotencyKey: child.idempotencyKey,
                    metadata: child.metadata, bytesTotal: child.bytesTotal, details: details)
                spec.traceparent = parent.traceparent
                if Self.insert(spec, into: &state).created { created += 1 }
            }
            _ = Self.apply(progress.type, progress.data, to: &job, at: state.now)
            state.jobs[parent.jobID] = job
            return FanOutAck(accepted: true, cancelRequested: job.cancelRequested, created: created)
        }
        if created > 0 { announce([.jobs]) }
        return ack
    }
}
