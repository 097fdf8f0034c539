import FerryCore
import Foundation
import Postgres

extension WorkerStatusRow {
    /// Columns of `ferry.worker_status`, a view readers may read (migration 0021; `version` since 0036).
    static let columns = """
        name, host, pid, array_to_string(queues, ',') AS queues, concurrency, heartbeat_age_seconds, stopping, running, started_at, version
        """

    /// Decodes a row selected with `columns`, by column name.
    init(row: PostgresRow) throws {
        name = try row.decode(String.self, column: "name")
        host = try row.decode(String.self, column: "host")
        pid = try row.decode(Int.self, column: "pid")
        queues = try row.decode(String.self, column: "queues").split(separator: ",").map(String.init)
        concurrency = try row.decode(Int.self, column: "concurrency")
        heartbeatAgeSeconds = try row.decode(Double.self, column: "heartbeat_age_seconds")
        stopping = try row.decode(Bool.self, column: "stopping")
        running = try row.decode(Int64.self, column: "running")
        startedAt = try row.decode(PostgresTimestamp.self, column: "started_at")
        version = try row.decode(String?.self, column: "version")
    }
}
