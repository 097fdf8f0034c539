import FerryStore
import Foundation

/// A batch's other jobs, as `ferry.batch_status` counts them.
extension MemoryWorkerStore {
    public func batchSiblings(of job: UUID, batch: String) async throws -> BatchSiblings {
        state.withLock { state in
            let others = state.jobs.values.filter { $0.batch == batch && $0.jobID != job }
            return BatchSiblings(
                unfinished: Int64(others.count { $0.state == .queued || $0.state == .running }),
                unsuccessful: Int64(others.count { $0.state == .failed || $0.state == .cancelled || $0.state == .discarded }))
        }
    }
}
