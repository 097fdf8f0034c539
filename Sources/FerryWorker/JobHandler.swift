import FerryStore

/// Does the work of a job. Providers plug in here; a benchmark registers a no-op handler.
///
/// Throw `JobFailure` to say how a failure should be treated (retry with backoff, fail now, or defer when rate
/// limited); any other error counts as retryable. Report progress through the context: it records resumable
/// state and is where cancellation and lost claims are noticed.
public protocol JobHandler: Sendable {
    /// A short name for logs and metrics (low cardinality).
    var name: String { get }
    /// True when this handler takes the job (by kind and endpoints).
    func canHandle(_ job: ClaimedJob) -> Bool
    /// Runs one attempt.
    func run(_ job: ClaimedJob, context: JobContext) async throws -> JobResult
}
