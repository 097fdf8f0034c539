/// What the fault injector decided for one request.
enum FaultDecision: Sendable, Equatable {
    case none
    /// Respond with this 5xx status and do nothing.
    case failure(Int)
    /// Close the connection before doing anything.
    case drop
    /// Do the work, then close the connection without answering.
    case dropAfterApply
    case rateLimit(retryAfter: Int)
    case writeContention
    /// 429 `too_many_write_operations` (a commit route).
    case writeRateLimit(retryAfter: Int)
    /// Keep half of an append's chunk, then close the connection without answering.
    case partialChunk
    /// Commit, but store the file with its first byte changed (and report that file's hash).
    case corruptCommit
    /// 429 `too_many_requests`: the per-second budget is spent.
    case overBudget(retryAfter: Int)

    /// Key used in `faults_injected` statistics.
    var statsKey: String? {
        switch self {
        case .none: return nil
        case .failure: return "failure"
        case .drop: return "drop"
        case .dropAfterApply: return "drop_after_apply"
        case .rateLimit: return "rate_limit"
        case .writeContention: return "write_contention"
        case .writeRateLimit: return "write_rate_limit"
        case .partialChunk: return "partial_chunk"
        case .corruptCommit: return "corrupt_commit"
        case .overBudget: return "rate_budget"
        }
    }
}
