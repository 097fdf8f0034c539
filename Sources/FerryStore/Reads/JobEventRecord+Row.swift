import FerryCore
import Foundation
import Postgres

extension JobEventRecord {
    /// The SELECT list `init(row:)` decodes: each name (or alias) is a column name the decoder reads.
    static let columns = "position, job_id, version, type, data::text, tx_id::text, recorded_at"

    /// Decodes a row selected with `columns`, by column name.
    init(row: PostgresRow) throws {
        position = try row.decode(Int64.self, column: "position")
        jobID = try row.decode(UUID.self, column: "job_id")
        version = try row.decode(Int.self, column: "version")
        type = try row.decode(String.self, column: "type")
        data = try row.decode(String.self, column: "data")
        transactionID = try row.decode(String.self, column: "tx_id")
        recordedAt = try row.decode(PostgresTimestamp.self, column: "recorded_at")
    }
}
