import Foundation

/// A job put back (or failed) because its worker stopped heartbeating.
public struct RescuedJob: Sendable, Hashable {
    public var jobID: UUID
    /// `rescued` or `failed` (attempts exhausted).
    public var outcome: String
    /// The worker that lost it.
    public var worker: String?
}
