import FerryCore
import Foundation
import Postgres

extension JobStatusRow {
    /// The SELECT list `init(row:)` decodes: each name (or alias) is a column name the decoder reads.
    static let columns = """
        job_id, kind, queue, batch, status, state, attempt, max_attempts, priority, source, destination, account,
        bytes_done, bytes_total, percent::text, last_error, worker, metadata::text, run_at, enqueued_at, started_at,
        finished_at, updated_at, event_count
        """

    /// Decodes a row selected with `columns`, by column name.
    init(row: PostgresRow) throws {
        jobID = try row.decode(UUID.self, column: "job_id")
        kind = try row.decode(String.self, column: "kind")
        queue = try row.decode(String.self, column: "queue")
        batch = try row.decode(String?.self, column: "batch")
        status = try row.decode(String.self, column: "status")
        state = try row.decode(String.self, column: "state")
        attempt = try row.decode(Int.self, column: "attempt")
        maxAttempts = try row.decode(Int.self, column: "max_attempts")
        priority = try row.decode(Int.self, column: "priority")
        source = try row.decode(String.self, column: "source")
        destination = try row.decode(String.self, column: "destination")
        account = try row.decode(String?.self, column: "account")
        bytesDone = try row.decode(Int64.self, column: "bytes_done")
        bytesTotal = try row.decode(Int64?.self, column: "bytes_total")
        percent = try row.decode(String?.self, column: "percent")
        lastError = try row.decode(String?.self, column: "last_error")
        worker = try row.decode(String?.self, column: "worker")
        metadata = try row.decode(String?.self, column: "metadata")
        runAt = try row.decode(PostgresTimestamp.self, column: "run_at")
        enqueuedAt = try row.decode(PostgresTimestamp.self, column: "enqueued_at")
        startedAt = try row.decode(PostgresTimestamp?.self, column: "started_at")
        finishedAt = try row.decode(PostgresTimestamp?.self, column: "finished_at")
        updatedAt = try row.decode(PostgresTimestamp.self, column: "updated_at")
        eventCount = try row.decode(Int.self, column: "event_count")
    }
}
