import FerryCore
import Foundation
import Postgres

/// One row of `ferry.schedule_status`: a schedule's definition, state, next tick and last job.
public struct ScheduleRecord: Sendable, Hashable {
    public var name: String
    public var everySeconds: Int64?
    public var cron: String?
    public var timezone: String
    public var template: JSONValue
    public var paused: Bool
    public var removed: Bool
    public var nextTick: Date?
    public var lastTick: Date?
    public var lastFiredAt: Date?
    public var lastJobID: UUID?
    public var lastJobState: String?
    public var createdAt: Date
    public var changedAt: Date
    /// What a tick does while the previous run is still going.
    public var overlap: ScheduleOverlap
    /// When someone asked for a run now (`ferry schedule run`) that no worker fired yet.
    public var runRequestedAt: Date?
    /// Why a worker paused the schedule (its firings kept ending with their worker dead); nil for an operator's pause.
    public var pausedReason: String?

    /// `every 1h` or `cron 0 * * * *`, as the user wrote it.
    public var spec: String {
        if let cron { return "cron \(cron)" }
        return "every " + ScheduleRecurrence.formatInterval(everySeconds ?? 0)
    }

    /// The recurrence, or nil when the stored zone is unknown to this machine's tz database or the expression
    /// does not parse (written by a newer Ferry).
    public var recurrence: ScheduleRecurrence? {
        if let everySeconds { return .every(seconds: everySeconds) }
        guard let cron, let zone = TimeZone(identifier: timezone), let expression = try? CronExpression(cron) else { return nil }
        return .cron(expression, zone: zone)
    }

    public var json: JSONValue {
        func time(_ date: Date?) -> JSONValue { date.map { .string(ScheduleTime.iso8601($0)) } ?? .null }
        return .object([
            "name": .string(name), "spec": .string(spec), "every_seconds": everySeconds.map(JSONValue.int) ?? .null,
            "cron": cron.map(JSONValue.string) ?? .null, "timezone": .string(timezone), "template": template,
            "paused": .bool(paused), "removed": .bool(removed), "next_tick": time(nextTick), "last_tick": time(lastTick),
            "last_fired_at": time(lastFiredAt), "last_job_id": lastJobID.map { .string($0.uuidString.lowercased()) } ?? .null,
            "last_job_state": lastJobState.map(JSONValue.string) ?? .null, "created_at": time(createdAt),
            "changed_at": time(changedAt), "overlap": .string(overlap.rawValue),
            "run_requested_at": runRequestedAt.map(time) ?? .null, "paused_reason": pausedReason.map(JSONValue.string) ?? .null,
        ])
    }
}
