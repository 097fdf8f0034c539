import FerryCore
import Postgres

/// One bucket of the trends (`ferry.trends`): jobs that finished in it, how many failed, and the bytes of those
/// that succeeded.
public struct TrendRow: Sendable, Hashable {
    /// The bucket's start.
    public var bucket: PostgresTimestamp
    public var succeeded: Int64
    public var failed: Int64
    public var bytes: Int64

    public init(bucket: PostgresTimestamp, succeeded: Int64, failed: Int64, bytes: Int64) {
        self.bucket = bucket
        self.succeeded = succeeded
        self.failed = failed
        self.bytes = bytes
    }

    public var json: JSONValue {
        .object([
            "bucket": .string(bucket.iso8601), "succeeded": .int(succeeded), "failed": .int(failed), "bytes": .int(bytes),
        ])
    }
}
