import FerryCore
import Foundation
import Postgres

/// One registered worker as the dashboard shows it: identity, queues, heartbeat age and running jobs.
public struct WorkerStatusRow: Sendable, Hashable {
    public var name: String
    public var host: String
    public var pid: Int
    public var queues: [String]
    public var concurrency: Int
    public var heartbeatAgeSeconds: Double
    public var stopping: Bool
    public var running: Int64
    public var startedAt: PostgresTimestamp

    /// Columns of `ferry.worker_status`, a view readers may read (migration 0021).
    static let columns = """
        name, host, pid, array_to_string(queues, ','), concurrency, heartbeat_age_seconds, stopping, running, started_at
        """

    init(row: PostgresRow) throws {
        name = try row.decode(String.self, at: 0)
        host = try row.decode(String.self, at: 1)
        pid = try row.decode(Int.self, at: 2)
        queues = try row.decode(String.self, at: 3).split(separator: ",").map(String.init)
        concurrency = try row.decode(Int.self, at: 4)
        heartbeatAgeSeconds = try row.decode(Double.self, at: 5)
        stopping = try row.decode(Bool.self, at: 6)
        running = try row.decode(Int64.self, at: 7)
        startedAt = try row.decode(PostgresTimestamp.self, at: 8)
    }

    public var json: JSONValue {
        .object([
            "name": .string(name), "host": .string(host), "pid": .int(Int64(pid)),
            "queues": .array(queues.map { .string($0) }), "concurrency": .int(Int64(concurrency)),
            "heartbeat_age_seconds": .double(heartbeatAgeSeconds), "stopping": .bool(stopping),
            "running": .int(running), "started_at": .string(startedAt.iso8601),
        ])
    }
}
