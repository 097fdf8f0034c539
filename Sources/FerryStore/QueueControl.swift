import FerryCore
import Postgres

/// Whether a queue is paused (`ferry.queue_controls`), since when and why.
public struct QueueControl: Sendable, Hashable {
    public var queue: String
    public var paused: Bool
    public var changedAt: PostgresTimestamp
    public var reason: String?

    public var json: JSONValue {
        .object([
            "queue": .string(queue), "paused": .bool(paused), "changed_at": .string(changedAt.iso8601),
            "reason": reason.map(JSONValue.string) ?? .null,
        ])
    }
}
