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

    static let columns = "queue, state, jobs, due, oldest_waiting_seconds, paused"

    init(row: PostgresRow) throws {
        queue = try row.decode(String.self, at: 0)
        state = try row.decode(String.self, at: 1)
        jobs = try row.decode(Int64.self, at: 2)
        due = try row.decode(Int64.self, at: 3)
        oldestWaitingSeconds = try row.decode(Double.self, at: 4)
        paused = try row.decode(Bool.self, at: 5)
    }

    public var json: JSONValue {
        .object([
            "queue": .string(queue), "state": .string(state), "jobs": .int(jobs), "due": .int(due),
            "oldest_waiting_seconds": .double(oldestWaitingSeconds), "paused": .bool(paused),
        ])
    }
}
