import FerryCore
import FerryStore
import Foundation

/// A job as `MemoryWorkerStore` holds it: the columns of `ferry.jobs` the worker's side reads and writes, and the
/// types of its events in order (the event log's shape, without payloads).
public struct MemoryJob: JobAssignmentCarrier, Sendable, Hashable {
    public var jobID: UUID
    /// What the job was enqueued to do, as a claim carries it (read as `job.source`, `job.spec` and so on).
    public var assignment: JobAssignment
    public var priority: Int
    public var maxAttempts: Int
    public var idempotencyKey: String?
    public var state: JobState
    public var attempt: Int
    /// The current claim's fencing token (0 before the first claim).
    public var lease: Int64
    /// The claim holder while running.
    public var worker: String?
    public var runAt: Date
    public var enqueuedAt: Date
    public var updatedAt: Date
    public var finishedAt: Date?
    public var bytesDone: Int64
    public var bytesTotal: Int64?
    public var session: JSONValue?
    public var cancelRequested: Bool
    public var lastError: String?
    public var result: JSONValue?
    public var traceparent: TraceParent?
    /// Every event appended to the job, oldest first.
    public var events: [JobEventType]

    /// Whether the job counts against its account's cap: running and still moving bytes (as
    /// `ferry.account_transfers`: a job whose every byte is up waits only for its commit; size unknown counts).
    var isTransferring: Bool {
        guard state == .running else { return false }
        if let total = bytesTotal, total > 0, bytesDone >= total { return false }
        return true
    }
}
