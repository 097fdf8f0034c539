/// The other jobs of a job's batch, as a job that must wait for them sees them (a sync's deletions run only after
/// every copy of its run succeeded).
public struct BatchSiblings: Sendable, Hashable {
    /// Queued or running, the asking job left out.
    public var unfinished: Int64
    /// Failed, cancelled or discarded.
    public var unsuccessful: Int64

    public init(unfinished: Int64, unsuccessful: Int64) {
        self.unfinished = unfinished
        self.unsuccessful = unsuccessful
    }
}
