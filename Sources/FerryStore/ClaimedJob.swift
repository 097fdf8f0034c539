import FerryCore
import Foundation
import Postgres

/// A job a worker now holds, with everything its handler needs.
public struct ClaimedJob: JobAssignmentCarrier, Sendable, Hashable {
    public var jobID: UUID
    /// Fencing token of this claim: every event the worker appends carries it.
    public var lease: Int64
    /// The attempt this claim runs (1-based).
    public var attempt: Int
    public var maxAttempts: Int
    /// What the job was enqueued to do (read as `job.kind`, `job.source`, `job.spec` and so on).
    public var assignment: JobAssignment
    public var bytesDone: Int64
    public var bytesTotal: Int64?
    /// The resumable-transfer cursor of an earlier attempt (JSON), if any.
    public var session: String?
    public var enqueuedAt: PostgresTimestamp
    /// When the claim was recorded (the claiming transaction's time).
    public var claimedAt: PostgresTimestamp
    /// Higher runs first.
    public var priority: Int
    /// Not before this time.
    public var runAt: PostgresTimestamp
    /// The trace context this attempt's work joins (set by the worker when tracing is on; fan-out children
    /// inherit it). Not read by the claim.
    public var traceparent: TraceParent?

    /// A claim as a store other than PostgreSQL hands it out (`MemoryWorkerStore`, tests).
    public init(
        jobID: UUID, lease: Int64, attempt: Int, maxAttempts: Int, kind: JobKind, queue: String, batch: String? = nil,
        source: String, destination: String, account: String? = nil, spec: String = "{}", metadata: String? = nil,
        bytesDone: Int64 = 0, bytesTotal: Int64? = nil, session: String? = nil, enqueuedAt: PostgresTimestamp,
        claimedAt: PostgresTimestamp, priority: Int = 0, runAt: PostgresTimestamp, traceparent: TraceParent? = nil
    ) {
        self.jobID = jobID
        self.lease = lease
        self.attempt = attempt
        self.maxAttempts = maxAttempts
        self.assignment = JobAssignment(
            kind: kind, queue: queue, batch: batch, source: source, destination: destination, account: account, spec: spec,
            metadata: metadata)
        self.bytesDone = bytesDone
        self.bytesTotal = bytesTotal
        self.session = session
        self.enqueuedAt = enqueuedAt
        self.claimedAt = claimedAt
        self.priority = priority
        self.runAt = runAt
        self.traceparent = traceparent
    }

    /// Claim order: highest priority first, then oldest `run_at`, then job id (as PostgreSQL orders uuids).
    public static func claimOrder(_ lhs: ClaimedJob, _ rhs: ClaimedJob) -> Bool {
        if lhs.priority != rhs.priority { return lhs.priority > rhs.priority }
        if lhs.runAt != rhs.runAt { return lhs.runAt < rhs.runAt }
        return lhs.jobID.uuidString.lowercased() < rhs.jobID.uuidString.lowercased()
    }
}
