/// A queue and state whose maintained counter disagrees with the projection (found by `projection verify`).
public struct QueueCountDifference: Sendable, Equatable {
    public var queue: String
    public var state: String
    /// What `ferry.queue_stats` says.
    public var counted: Int
    /// How many jobs `ferry.jobs` holds.
    public var actual: Int

    public init(queue: String, state: String, counted: Int, actual: Int) {
        self.queue = queue
        self.state = state
        self.counted = counted
        self.actual = actual
    }
}
