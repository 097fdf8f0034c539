/// Several jobs of one enqueue that would write the same file (see `BulkEnqueue.destinationCollisions`).
public struct DestinationCollision: Sendable, Hashable {
    /// The destination, as the first job spells it.
    public var destination: String
    /// How many jobs target it.
    public var jobs: Int
    /// Their sources in enqueue order (at most 50).
    public var sources: [String]

    public init(destination: String, jobs: Int, sources: [String]) {
        self.destination = destination
        self.jobs = jobs
        self.sources = sources
    }
}
