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
