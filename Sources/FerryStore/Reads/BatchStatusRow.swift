import FerryCore
import Foundation
import Postgres

/// One row of `ferry.batch_status`.
public struct BatchStatusRow: Sendable, Hashable {
    public var batch: String
    public var jobs: Int64
    public var queued: Int64
    public var running: Int64
    public var succeeded: Int64
    public var failed: Int64
    public var cancelled: Int64
    public var bytesDone: Int64
    /// Sum of the known sizes: partial while ``sizesUnknown`` is above zero.
    public var bytesTotal: Int64?
    /// Jobs whose size is not known yet (fetches that have not started).
    public var sizesUnknown: Int64
    public var percent: String
    public var done: Bool
    public var enqueuedAt: PostgresTimestamp
    public var startedAt: PostgresTimestamp?
    public var finishedAt: PostgresTimestamp?
    /// The lowest job id the batch ever had: a walk of its jobs in id order starts here.
    public var firstJobID: UUID?
    /// Jobs that succeeded without moving data (the destination held the same content), and their bytes: part of
    /// `succeeded` and `bytesDone`, not transferred.
    public var unchanged: Int64 = 0
    public var unchangedBytes: Int64 = 0
    /// Failed jobs the operator discarded (`ferry discard`): finished, not counted in `failed`.
    public var discarded: Int64 = 0
    /// Jobs of the batch `ferry archive` moved out of PostgreSQL: not in any count above.
    public var archived = ArchivedShare()

    /// The part of a batch in archive files (`ferry.batch_archive_totals`).
    public struct ArchivedShare: Sendable, Hashable {
        public var jobs: Int64 = 0
        /// Bytes done of the archived jobs whose size was recorded.
        public var bytes: Int64 = 0
        /// Archived before sizes were recorded: their bytes are not in `bytes`.
        public var unsized: Int64 = 0
        /// The archive files, oldest first.
        public var files: [String] = []

        public init(jobs: Int64 = 0, bytes: Int64 = 0, unsized: Int64 = 0, files: [String] = []) {
            (self.jobs, self.bytes, self.unsized, self.files) = (jobs, bytes, unsized, files)
        }

        public var json: JSONValue {
            .object(["jobs": .int(jobs), "bytes": .int(bytes), "unsized": .int(unsized), "files": .array(files.map { .string($0) })])
        }
    }

    public var json: JSONValue {
        .object([
            "batch": .string(batch), "jobs": .int(jobs), "queued": .int(queued), "running": .int(running),
            "succeeded": .int(succeeded), "failed": .int(failed), "cancelled": .int(cancelled),
            "bytes_done": .int(bytesDone), "bytes_total": bytesTotal.map { .int($0) } ?? .null, "sizes_unknown": .int(sizesUnknown),
            "percent": Double(percent).map { .double($0) } ?? .null, "done": .bool(done),
            "enqueued_at": .string(enqueuedAt.iso8601),
            "started_at": startedAt.map { .string($0.iso8601) } ?? .null,
            "finished_at": finishedAt.map { .string($0.iso8601) } ?? .null,
            "unchanged": .int(unchanged), "unchanged_bytes": .int(unchangedBytes), "discarded": .int(discarded),
            "archived": archived.json,
        ])
    }
}
