import FerryStore
import Foundation

/// A batch as `ferry.batch_status` shows it.
public struct BatchProgress: Sendable, Hashable {
    public var name: String
    public var jobs: Int64
    public var queued: Int64
    public var running: Int64
    public var succeeded: Int64
    public var failed: Int64
    public var cancelled: Int64
    /// Failed jobs given up on (`ferry discard`).
    public var discarded: Int64
    public var bytesDone: Int64
    /// The sum of the known sizes: partial while ``sizesUnknown`` is above zero.
    public var bytesTotal: Int64?
    public var sizesUnknown: Int64
    /// 0…100; 100 only once every job finished.
    public var percent: Double
    /// No job is queued or running.
    public var isDone: Bool
    /// Jobs of the batch `ferry archive` moved out of PostgreSQL (in none of the counts above), their bytes and
    /// files.
    public var archived: BatchStatusRow.ArchivedShare
    /// Done, and every job succeeded.
    public var succeededWhole: Bool { isDone && failed == 0 && cancelled == 0 && discarded == 0 }

    init(_ row: BatchStatusRow) {
        name = row.batch
        jobs = row.jobs
        queued = row.queued
        running = row.running
        succeeded = row.succeeded
        failed = row.failed
        cancelled = row.cancelled
        discarded = row.discarded
        bytesDone = row.bytesDone
        bytesTotal = row.bytesTotal
        sizesUnknown = row.sizesUnknown
        percent = Double(row.percent) ?? 0
        isDone = row.done
        archived = row.archived
    }
}
