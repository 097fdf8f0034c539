import FerryStore

/// Succeeds at once (optionally after a delay): for benchmarks of the queue itself and for rehearsing a
/// deployment without moving data.
public struct NoopHandler: JobHandler {
    public let delay: Duration

    public init(delay: Duration = .zero) {
        self.delay = delay
    }

    public var name: String { "noop" }
    public var usesLocalFiles: Bool { false }


    public func run(_ job: ClaimedJob, context: JobContext) async throws -> JobResult {
        if delay > .zero {
            try await Task.sleep(for: delay)
        }
        return JobResult()
    }
}
