import FerryStore
import FerryWorker

/// A handler made of a closure, for tests that script a job's work in place: succeed, throw `JobFailure`,
/// report progress, wait for cancellation, or fan out through the context.
public struct TestHandler: JobHandler {
    public let name: String
    /// Test handlers touch no local path unless told so.
    public let usesLocalFiles: Bool
    private let body: @Sendable (ClaimedJob, JobContext) async throws -> JobResult

    public init(
        name: String = "test", usesLocalFiles: Bool = false,
        _ body: @escaping @Sendable (ClaimedJob, JobContext) async throws -> JobResult
    ) {
        self.name = name
        self.usesLocalFiles = usesLocalFiles
        self.body = body
    }

    public func run(_ job: ClaimedJob, context: JobContext) async throws -> JobResult {
        try await body(job, context)
    }
}
