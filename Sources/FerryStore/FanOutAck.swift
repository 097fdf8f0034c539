/// The answer to a fan-out step.
public struct FanOutAck: Sendable, Hashable {
    /// False when the parent's claim was lost: nothing was enqueued and the worker must stop.
    public var accepted: Bool
    /// True when someone asked to cancel the parent job.
    public var cancelRequested: Bool
    /// Children newly enqueued (the rest already existed from an earlier run of the listing).
    public var created: Int

    /// An answer as a store gives it.
    public init(accepted: Bool, cancelRequested: Bool, created: Int) {
        self.accepted = accepted
        self.cancelRequested = cancelRequested
        self.created = created
    }
}
