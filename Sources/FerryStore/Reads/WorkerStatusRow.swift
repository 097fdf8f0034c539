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
    /// The release the worker runs; nil for a worker registered by a release before schema 36.
    public var version: String?

    public var json: JSONValue {
        .object([
            "name": .string(name), "host": .string(host), "pid": .int(Int64(pid)),
            "queues": .array(queues.map { .string($0) }), "concurrency": .int(Int64(concurrency)),
            "heartbeat_age_seconds": .double(heartbeatAgeSeconds), "stopping": .bool(stopping),
            "running": .int(running), "started_at": .string(startedAt.iso8601),
            "version": version.map { .string($0) } ?? .null,
        ])
    }
}
