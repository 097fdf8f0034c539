/// A rebuild met an event the fold refuses: the log cannot be folded into a projection.
public struct ProjectionReplayError: Error, Sendable, CustomStringConvertible {
    public var jobID: String
    public var version: Int64
    public var type: String
    /// What `ferry.apply_event` raises for the same event.
    public var error: JobFoldError

    public var description: String {
        "cannot rebuild the projection: job \(jobID) event version \(version) (\(type)) is refused: \(error)"
    }
}
