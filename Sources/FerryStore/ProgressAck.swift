/// The answer to a progress event.
public struct ProgressAck: Sendable, Hashable {
    /// False when the claim was lost: the worker must stop without writing anything else.
    public var accepted: Bool
    /// True when someone asked to cancel the job: the worker should stop and record `cancelled`.
    public var cancelRequested: Bool

    /// An answer as a store gives it.
    public init(accepted: Bool, cancelRequested: Bool) {
        self.accepted = accepted
        self.cancelRequested = cancelRequested
    }
}
