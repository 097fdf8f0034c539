import FerryCore
import Postgres

extension BatchEventRecord {
    /// The SELECT list `init(row:)` decodes: each name (or alias) is a column name the decoder reads.
    static let columns = "position, batch, type, data::text, tx_id::text, recorded_at"

    /// Decodes a row selected with `columns`, by column name.
    init(row: PostgresRow) throws {
        position = try row.decode(Int64.self, column: "position")
        batch = try row.decode(String.self, column: "batch")
        guard let kind = Kind(rawValue: try row.decode(String.self, column: "type")) else {
            throw PostgresError(code: .decoding, reason: "unknown batch event type")
        }
        self.kind = kind
        do {
            data = try JSONValue.parse(try row.decode(String.self, column: "data"))
        } catch {
            throw PostgresError(code: .decoding, reason: "batch event data is not JSON")
        }
        transactionID = try row.decode(String.self, column: "tx_id")
        recordedAt = try row.decode(PostgresTimestamp.self, column: "recorded_at")
    }
}
