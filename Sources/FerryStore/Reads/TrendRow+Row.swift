import Postgres

extension TrendRow {
    /// The SELECT list `init(row:)` decodes.
    static let columns = "bucket, succeeded, failed, bytes"

    /// Decodes a row selected with `columns`, by column name.
    init(row: PostgresRow) throws {
        bucket = try row.decode(PostgresTimestamp.self, column: "bucket")
        succeeded = try row.decode(Int64.self, column: "succeeded")
        failed = try row.decode(Int64.self, column: "failed")
        bytes = try row.decode(Int64.self, column: "bytes")
    }
}
