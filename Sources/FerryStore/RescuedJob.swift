import FerryCore
import Foundation

/// A job put back (or failed) because its worker stopped heartbeating.
public struct RescuedJob: Sendable, Hashable {
    public var jobID: UUID
    /// `rescued`, `failed` (attempts exhausted) or `poison` (failed: its claimers kept dying, see
    /// `WorkerStore.rescueStaleJobs(staleAfter:poisonAfter:)`).
    public var outcome: String
    /// The worker that lost it.
    public var worker: String?
    /// The job's kind and queue (nil only if the job left the database meanwhile).
    public var kind: JobKind?
    public var queue: String?

    public init(jobID: UUID, outcome: String, worker: String?, kind: JobKind? = nil, queue: String? = nil) {
        self.jobID = jobID
        self.outcome = outcome
        self.worker = worker
        self.kind = kind
        self.queue = queue
    }
}
