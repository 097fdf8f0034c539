import FerryCore
import Foundation
import Postgres

extension ScheduleRecord {
    /// The SELECT list `init(row:)` decodes: each name (or alias) is a column name the decoder reads.
    static let columns = """
        name, every_seconds, cron, timezone, template::text, paused, removed, next_tick, last_tick, last_fired_at,
        last_job_id, last_job_state, created_at, changed_at, overlap, run_requested_at, paused_reason
        """

    /// Decodes a row selected with `columns`, by column name.
    init(row: PostgresRow) throws {
        name = try row.decode(String.self, column: "name")
        everySeconds = try row.decode(Int64?.self, column: "every_seconds")
        cron = try row.decode(String?.self, column: "cron")
        timezone = try row.decode(String.self, column: "timezone")
        template = (try? JSONValue.parse(try row.decode(String.self, column: "template"))) ?? .null
        paused = try row.decode(Bool.self, column: "paused")
        removed = try row.decode(Bool.self, column: "removed")
        nextTick = try row.decode(Date?.self, column: "next_tick")
        lastTick = try row.decode(Date?.self, column: "last_tick")
        lastFiredAt = try row.decode(Date?.self, column: "last_fired_at")
        lastJobID = try row.decode(UUID?.self, column: "last_job_id")
        lastJobState = try row.decode(String?.self, column: "last_job_state")
        createdAt = try row.decode(Date.self, column: "created_at")
        changedAt = try row.decode(Date.self, column: "changed_at")
        overlap = ScheduleOverlap(rawValue: try row.decode(String.self, column: "overlap")) ?? .allow
        runRequestedAt = try row.decode(Date?.self, column: "run_requested_at")
        pausedReason = try row.decode(String?.self, column: "paused_reason")
    }
}
