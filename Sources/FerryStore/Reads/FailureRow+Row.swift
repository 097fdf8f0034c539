import Foundation
import Postgres

extension FailureRow {
    /// The SELECT list `init(row:)` decodes: each name is a column of `ferry.job_status`.
    static let columns = "job_id, batch, source, destination, last_error, finished_at"

    /// Decodes a row selected with `columns`, by column name.
    init(row: PostgresRow) throws {
        jobID = try row.decode(UUID.self, column: "job_id")
        batch = try row.decode(String?.self, column: "batch")
        source = try row.decode(String.self, column: "source")
        destination = try row.decode(String.self, column: "destination")
        lastError = try row.decode(String?.self, column: "last_error")
        finishedAt = try row.decode(PostgresTimestamp?.self, column: "finished_at")
    }
}
