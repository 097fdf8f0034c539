import FerryCore
import Postgres

/// One minute of one queue's finished work (`ferry.throughput`).
public struct ThroughputRow: Sendable, Hashable {
    public var minute: PostgresTimestamp
    public var queue: String
    public var succeeded: Int64
    public var failed: Int64
    /// Bytes of the jobs that succeeded in that minute.
    public var bytes: Int64

    public var json: JSONValue {
        .object([
            "minute": .string(minute.iso8601), "queue": .string(queue), "succeeded": .int(succeeded),
            "failed": .int(failed), "bytes": .int(bytes),
        ])
    }
}
