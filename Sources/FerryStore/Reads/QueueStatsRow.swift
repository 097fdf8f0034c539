import FerryCore
import Postgres

/// One row of `ferry.queue_stats`.
public struct QueueStatsRow: Sendable, Hashable {
    public var queue: String
    public var state: String
    public var jobs: Int64
    public var due: Int64
    public var oldestWaitingSeconds: Double
    /// Claims skip the queue (`ferry queue pause`).
    public var paused: Bool

    public var json: JSONValue {
        .object([
            "queue": .string(queue), "state": .string(state), "jobs": .int(jobs), "due": .int(due),
            "oldest_waiting_seconds": .double(oldestWaitingSeconds), "paused": .bool(paused),
        ])
    }
}
