import FerryCore
import Postgres

extension QueueStatsRow {
    /// The SELECT list `init(row:)` decodes: each name (or alias) is a column name the decoder reads.
    static let columns = "queue, state, jobs, due, oldest_waiting_seconds, paused"

    /// Decodes a row selected with `columns`, by column name.
    init(row: PostgresRow) throws {
        queue = try row.decode(String.self, column: "queue")
        state = try row.decode(String.self, column: "state")
        jobs = try row.decode(Int64.self, column: "jobs")
        due = try row.decode(Int64.self, column: "due")
        oldestWaitingSeconds = try row.decode(Double.self, column: "oldest_waiting_seconds")
        paused = try row.decode(Bool.self, column: "paused")
    }
}
