/// A `WorkerHarness` wait that ran out: what it waited for and how long.
public struct HarnessTimeout: Error, CustomStringConvertible {
    public var waitingFor: String
    public var after: Duration

    public init(waitingFor: String, after: Duration) {
        self.waitingFor = waitingFor
        self.after = after
    }

    public var description: String { "timed out after \(after) waiting for \(waitingFor)" }
}
