import FerryCore
import Foundation
import Postgres

extension ClaimedJob {
    /// The columns of `ferry.claim_jobs` a claim carries (the claim's time is the row's `updated_at`).
    static let columns = """
        job_id, lease, attempt, max_attempts, kind, queue, batch, source, destination, account, spec::text,
        metadata::text, bytes_done, bytes_total, session::text, enqueued_at,
        updated_at AS claimed_at, priority, run_at
        """

    /// Decodes a row selected with `columns`, by column name.
    init(row: PostgresRow) throws {
        jobID = try row.decode(UUID.self, column: "job_id")
        lease = try row.decode(Int64.self, column: "lease")
        attempt = try row.decode(Int.self, column: "attempt")
        maxAttempts = try row.decode(Int.self, column: "max_attempts")
        guard let kind = JobKind(rawValue: try row.decode(String.self, column: "kind")) else {
            throw PostgresError(code: .decoding, reason: "unknown job kind")
        }
        assignment = JobAssignment(
            kind: kind, queue: try row.decode(String.self, column: "queue"), batch: try row.decode(String?.self, column: "batch"),
            source: try row.decode(String.self, column: "source"), destination: try row.decode(String.self, column: "destination"),
            account: try row.decode(String?.self, column: "account"), spec: try row.decode(String.self, column: "spec"),
            metadata: try row.decode(String?.self, column: "metadata"))
        bytesDone = try row.decode(Int64.self, column: "bytes_done")
        bytesTotal = try row.decode(Int64?.self, column: "bytes_total")
        session = try row.decode(String?.self, column: "session")
        enqueuedAt = try row.decode(PostgresTimestamp.self, column: "enqueued_at")
        claimedAt = try row.decode(PostgresTimestamp.self, column: "claimed_at")
        priority = try row.decode(Int.self, column: "priority")
        runAt = try row.decode(PostgresTimestamp.self, column: "run_at")
    }
}
