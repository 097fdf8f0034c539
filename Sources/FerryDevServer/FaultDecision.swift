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

    /// Key used in `faults_injected` statistics.
    var statsKey: String? {
        switch self {
        case .none: return nil
        case .failure: return "failure"
        case .drop: return "drop"
        case .dropAfterApply: return "drop_after_apply"
        case .rateLimit: return "rate_limit"
        case .writeContention: return "write_contention"
        }
    }
}
