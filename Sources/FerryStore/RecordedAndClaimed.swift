import Foundation

/// What `WorkerStore.recordThenClaim` did: the outcomes written and refused (as `record` answers), and the jobs
/// claimed after them in the same transaction.
public struct RecordedAndClaimed: Sendable {
    public var accepted: Set<UUID>
    public var rejected: Set<UUID>
    /// In claim order.
    public var claimed: [ClaimedJob]

    public init(accepted: Set<UUID>, rejected: Set<UUID>, claimed: [ClaimedJob]) {
        self.accepted = accepted
        self.rejected = rejected
        self.claimed = claimed
    }
}
