import FerryCore
import Postgres

/// One row of `ferry.batch_events`: a batch completed, or a complete batch got new or requeued jobs.
public struct BatchEventRecord: Sendable, Hashable {
    /// What happened to the batch.
    public enum Kind: String, Sendable {
        /// No job of the batch was left queued or running.
        case completed
        /// A complete batch got new or requeued jobs.
        case reopened
    }

    public var position: Int64
    public var batch: String
    public var kind: Kind
    /// The event's payload: counts for `completed` (`jobs`, `succeeded`, `failed`, `cancelled`, `bytes`),
    /// `unfinished` for `reopened`.
    public var data: JSONValue
    public var transactionID: String
    public var recordedAt: PostgresTimestamp

    static let columns = "position, batch, type, data::text, tx_id::text, recorded_at"

    init(row: PostgresRow) throws {
        position = try row.decode(Int64.self, at: 0)
        batch = try row.decode(String.self, at: 1)
        guard let kind = Kind(rawValue: try row.decode(String.self, at: 2)) else {
            throw PostgresError(code: .decoding, reason: "unknown batch event type")
        }
        self.kind = kind
        do {
            data = try JSONValue.parse(try row.decode(String.self, at: 3))
        } catch {
            throw PostgresError(code: .decoding, reason: "batch event data is not JSON")
        }
        transactionID = try row.decode(String.self, at: 4)
        recordedAt = try row.decode(PostgresTimestamp.self, at: 5)
    }

    /// A count from `data` (for example `succeeded`), if present.
    public func count(_ name: String) -> Int64? {
        data[name]?.intValue
    }

    public var json: JSONValue {
        .object([
            "position": .int(position), "batch": .string(batch), "type": .string(kind.rawValue), "data": data,
            "tx_id": .string(transactionID), "recorded_at": .string(recordedAt.iso8601),
        ])
    }
}
