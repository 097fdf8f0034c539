import Foundation

/// A job whose search terms (`ferry.job_search_terms`, migration 0037) disagree with its row in `ferry.jobs`
/// (found by `projection verify`; `projection rebuild` makes them again).
public struct SearchTermDifference: Sendable, Equatable {
    public enum Problem: String, Sendable {
        /// The job has no terms: search cannot find it.
        case missing
        /// The terms hold other endpoints or metadata than the job.
        case stale
        /// Terms of a job that is not in the projection.
        case orphaned
    }

    public var jobID: UUID
    public var problem: Problem

    public init(jobID: UUID, problem: Problem) {
        self.jobID = jobID
        self.problem = problem
    }
}
