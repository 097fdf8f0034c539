/// Every event in a job's life. The vocabulary is closed: the database rejects any other type.
public enum JobEventType: String, Sendable, CaseIterable, Codable {
    /// The job was created (always version 1).
    case enqueued
    /// A worker took the job; carries the new lease (fencing token) and the worker's name.
    case claimed
    /// Bytes moved and, for resumable transfers, the session cursor.
    case progress
    /// The attempt failed with a retryable error; the job waits until `run_at`.
    case retryScheduled = "retry_scheduled"
    /// Rate limited: back to the queue until `run_at` without consuming an attempt.
    case deferred
    /// A worker shutting down handed the job back; not a failed attempt.
    case released
    /// The claim's worker stopped heartbeating; another worker put the job back.
    case rescued
    /// Someone asked to cancel a running job; the worker stops at its next step.
    case cancelRequested = "cancel_requested"
    /// The job was cancelled.
    case cancelled
    /// The job finished.
    case succeeded
    /// The job failed for good (attempts exhausted or a non-retryable error).
    case failed
    /// A failed, cancelled or discarded job was put back into the queue (`ferry retry`).
    case requeued
    /// A job enqueued from SQL (`ferry.enqueue`), settled by the first worker that claimed it: canonical
    /// endpoints, account and provider details, which only Ferry's provider code and the file's machine know.
    case resolved
    /// A failed job was given up for good (`ferry discard`): it leaves the failures to act on, its error and
    /// history stay. Only failed jobs can be discarded.
    case discarded

    /// Events only the current claim holder may append: they must carry its lease.
    public var requiresLease: Bool {
        switch self {
        case .progress, .retryScheduled, .deferred, .released, .rescued, .succeeded, .failed, .resolved: true
        case .enqueued, .claimed, .cancelRequested, .cancelled, .requeued, .discarded: false
        }
    }
}
