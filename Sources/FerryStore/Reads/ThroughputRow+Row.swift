import FerryCore
import Postgres

extension ThroughputRow {
    /// The SELECT list `init(row:)` decodes: each name (or alias) is a column name the decoder reads.
    static let columns = "minute, queue, succeeded, failed, bytes"

    /// Decodes a row selected with `columns`, by column name.
    init(row: PostgresRow) throws {
        minute = try row.decode(PostgresTimestamp.self, column: "minute")
        queue = try row.decode(String.self, column: "queue")
        succeeded = try row.decode(Int64.self, column: "succeeded")
        failed = try row.decode(Int64.self, column: "failed")
        bytes = try row.decode(Int64.self, column: "bytes")
    }
}
