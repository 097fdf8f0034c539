import Foundation

/// The job a request resulted in.
public struct EnqueueOutcome: Sendable, Hashable {
    public var jobID: UUID
    /// False when the idempotency key already named a job: that job's id is returned, nothing new is written.
    public var created: Bool
    /// 1-based line of the request, when it came from JSON Lines.
    public var line: Int?
    public var idempotencyKey: String?
}
