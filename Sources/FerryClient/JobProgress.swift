import FerryCore
import FerryStore
import Foundation

/// One job as `ferry.job_status` shows it.
public struct JobProgress: Sendable, Hashable {
    public var id: UUID
    public var kind: JobKind?
    /// queued, scheduled, retrying, held, running, cancelling, succeeded, failed, cancelled or discarded.
    public var status: String
    public var attempt: Int
    public var batch: String?
    public var source: String
    public var destination: String
    public var bytesDone: Int64
    public var bytesTotal: Int64?
    public var lastError: String?
    public var isFinished: Bool { JobState(rawValue: status)?.isTerminal ?? false }

    init(_ row: JobStatusRow) {
        id = row.jobID
        kind = JobKind(rawValue: row.kind)
        status = row.status
        attempt = row.attempt
        batch = row.batch
        source = row.source
        destination = row.destination
        bytesDone = row.bytesDone
        bytesTotal = row.bytesTotal
        lastError = row.lastError
    }
}
