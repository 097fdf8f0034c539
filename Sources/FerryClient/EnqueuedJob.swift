import Foundation

/// One job ``FerryClient/enqueue(_:)`` wrote (or found by its idempotency key).
public struct EnqueuedJob: Sendable, Hashable {
    public var id: UUID
    /// False when the idempotency key already named this job: nothing new was written.
    public var created: Bool
}
