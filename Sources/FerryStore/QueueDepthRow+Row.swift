import Postgres

extension QueueDepthRow {
    /// The SELECT list `init(row:)` decodes: each name (or alias) is a column name the decoder reads.
    static let columns = "queue, queued, running, oldest_waiting_seconds"

    /// Decodes a row selected with `columns`, by column name.
    init(row: PostgresRow) throws {
        queue = try row.decode(String.self, column: "queue")
        queued = try row.decode(Int64.self, column: "queued")
        running = try row.decode(Int64.self, column: "running")
        oldestWaitingSeconds = try row.decode(Double.self, column: "oldest_waiting_seconds")
    }
}
