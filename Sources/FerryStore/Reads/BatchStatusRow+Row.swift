import FerryCore
import Foundation
import Postgres

extension BatchStatusRow {
    /// The SELECT list `init(row:)` decodes: each name (or alias) is a column name the decoder reads.
    static let columns = """
        batch, jobs, queued, running, succeeded, failed, cancelled, bytes_done, bytes_total, percent::text, done,
        enqueued_at, started_at, finished_at, sizes_unknown, first_job_id, unchanged, unchanged_bytes,
        discarded
        """

    /// `columns` of `ferry.batch_status` as `b`, with what of each batch is archived (one index probe per batch).
    static func select(where condition: String, order: String = "") -> String {
        """
        SELECT \(columns), coalesce(a.archived_jobs, 0) AS archived_jobs, coalesce(a.archived_bytes, 0) AS archived_bytes,
               coalesce(a.archived_unsized, 0) AS archived_unsized, coalesce(array_to_json(a.files)::text, '[]') AS archive_files
          FROM (SELECT * FROM ferry.batch_status \(condition) \(order)) b
          LEFT JOIN LATERAL (SELECT t.jobs AS archived_jobs, t.bytes AS archived_bytes, t.unsized AS archived_unsized, t.files
                               FROM ferry.batch_archive_totals t
                              WHERE t.batch = b.batch) a ON true
        """
    }

    /// Decodes a row selected with `columns`, by column name.
    init(row: PostgresRow) throws {
        batch = try row.decode(String.self, column: "batch")
        jobs = try row.decode(Int64.self, column: "jobs")
        queued = try row.decode(Int64.self, column: "queued")
        running = try row.decode(Int64.self, column: "running")
        succeeded = try row.decode(Int64.self, column: "succeeded")
        failed = try row.decode(Int64.self, column: "failed")
        cancelled = try row.decode(Int64.self, column: "cancelled")
        bytesDone = try row.decode(Int64.self, column: "bytes_done")
        bytesTotal = try row.decode(Int64?.self, column: "bytes_total")
        percent = try row.decode(String.self, column: "percent")
        done = try row.decode(Bool.self, column: "done")
        enqueuedAt = try row.decode(PostgresTimestamp.self, column: "enqueued_at")
        startedAt = try row.decode(PostgresTimestamp?.self, column: "started_at")
        finishedAt = try row.decode(PostgresTimestamp?.self, column: "finished_at")
        sizesUnknown = try row.decode(Int64.self, column: "sizes_unknown")
        firstJobID = try row.decode(UUID?.self, column: "first_job_id")
        unchanged = try row.decode(Int64.self, column: "unchanged")
        unchangedBytes = try row.decode(Int64.self, column: "unchanged_bytes")
        discarded = try row.decode(Int64.self, column: "discarded")
        if let files = row[column: "archive_files"] {
            archived = ArchivedShare(
                jobs: try row.decode(Int64.self, column: "archived_jobs"), bytes: try row.decode(Int64.self, column: "archived_bytes"),
                unsized: try row.decode(Int64.self, column: "archived_unsized"),
                files: (try? JSONValue.parse(files))?.arrayValue?.compactMap(\.stringValue) ?? [])
        }
    }
}
