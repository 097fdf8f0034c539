import FerryStore

/// Does the work of a job. Providers return theirs from `ProviderHandlers.handler(for:environment:)`; a
/// benchmark runs every job through a scripted one.
///
/// Throw `JobFailure` to say how a failure should be treated (retry with backoff, fail now, or defer when rate
/// limited); any other error counts as retryable. Report progress through the context: it records resumable
/// state and is where cancellation and lost claims are noticed.
public protocol JobHandler: Sendable {
    /// A short name for logs and metrics (low cardinality).
    var name: String { get }
    /// Runs one attempt.
    func run(_ job: ClaimedJob, context: JobContext) async throws -> JobResult
    /// Whether the handler reads or writes the local paths the job names (upload sources, local folders, fetch
    /// targets). Those paths are checked against the worker's local roots before it runs. Default: true.
    var usesLocalFiles: Bool { get }
}

extension JobHandler {
    public var usesLocalFiles: Bool { true }
}
