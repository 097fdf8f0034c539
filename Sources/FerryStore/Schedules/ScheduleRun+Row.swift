import FerryCore
import Foundation
import Postgres

extension ScheduleRun {
    /// The SELECT list `init(row:)` decodes: each name (or alias) is a column name the decoder reads.
    static let columns = "schedule, tick_at, fired_at, job_id, job_state, missed, first_missed, error, worker, skipped_for, manual"

    /// Decodes a row selected with `columns`, by column name.
    init(row: PostgresRow) throws {
        schedule = try row.decode(String.self, column: "schedule")
        tickAt = try row.decode(Date.self, column: "tick_at")
        firedAt = try row.decode(Date.self, column: "fired_at")
        jobID = try row.decode(UUID?.self, column: "job_id")
        jobState = try row.decode(String?.self, column: "job_state")
        missed = try row.decode(Int64.self, column: "missed")
        firstMissed = try row.decode(Date?.self, column: "first_missed")
        error = try row.decode(String?.self, column: "error")
        worker = try row.decode(String?.self, column: "worker")
        skippedFor = try row.decode(UUID?.self, column: "skipped_for")
        manual = try row.decode(Bool.self, column: "manual")
    }
}
