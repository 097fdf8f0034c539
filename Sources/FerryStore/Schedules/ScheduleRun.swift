import FerryCore
import Foundation
import Postgres

/// One row of `ferry.schedule_runs`: a fired tick, its job (and the job's state now), why there is none or the run it
/// gave way to, and the ticks missed before it.
public struct ScheduleRun: Sendable, Hashable {
    public var schedule: String
    public var tickAt: Date
    public var firedAt: Date
    public var jobID: UUID?
    public var jobState: String?
    public var missed: Int64
    public var firstMissed: Date?
    public var error: String?
    public var worker: String?
    /// The job of an earlier tick that was still going, when this tick was skipped (overlap `skip`).
    public var skippedFor: UUID?
    /// A run asked for with `ferry schedule run` (or the dashboard's Run now), not a tick of the recurrence.
    public var manual: Bool

    public var json: JSONValue {
        .object([
            "schedule": .string(schedule), "tick_at": .string(ScheduleTime.iso8601(tickAt)),
            "fired_at": .string(ScheduleTime.iso8601(firedAt)),
            "job_id": jobID.map { .string($0.uuidString.lowercased()) } ?? .null,
            "job_state": jobState.map(JSONValue.string) ?? .null, "missed": .int(missed),
            "first_missed": firstMissed.map { .string(ScheduleTime.iso8601($0)) } ?? .null,
            "error": error.map(JSONValue.string) ?? .null, "worker": worker.map(JSONValue.string) ?? .null,
            "skipped_for": skippedFor.map { .string($0.uuidString.lowercased()) } ?? .null,
            "manual": .bool(manual),
        ])
    }
}
