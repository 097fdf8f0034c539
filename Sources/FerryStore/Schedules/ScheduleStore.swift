import FerryCore
import Foundation
import Postgres

/// The schedule aggregate: recurring enqueues, their history and firing (one firing per tick across the fleet).
/// Reached as `store.schedules`.
public struct ScheduleStore: Sendable {
    let client: PostgresClient

    /// The idempotency key of the job a schedule enqueues for a tick: unique per schedule and tick.
    public static func scheduleKey(_ name: String, tick: Date) -> String {
        "schedule:\(name):\(ScheduleTime.iso8601(tick))"
    }

    /// Every change of a schedule and every firing take this transaction lock first, then read the schedule
    /// again: a replace or pause never interleaves with a firing of the old definition.
    static let scheduleLockSQL = "hashtext('ferry.schedule'), hashtext($1)"

    /// Adds a schedule (or, with `replace`, replaces one) by appending to `ferry.schedule_events`.
    ///
    /// `probe` is the template validated as a job: it is enqueued inside a savepoint and rolled back, so the
    /// database's own checks (accounts exist and belong to the right provider) refuse a bad template before
    /// anything is stored.
    public func add(
        name: String, recurrence: ScheduleRecurrence, template: JobRequest, probe: JobSpec, overlap: ScheduleOverlap = .skip,
        replace: Bool, now: Date
    ) async throws -> ScheduleRecord {
        guard let nextTick = recurrence.next(after: now) else {
            throw ValidationIssue(field: "--cron", problem: "the expression never matches a date", fix: "check the day and month fields")
        }
        var data: [String: JSONValue] = [
            "template": template.template, "next_tick": .string(ScheduleTime.iso8601(nextTick)), "overlap": .string(overlap.rawValue),
        ]
        switch recurrence {
        case .every(let seconds):
            data["every_seconds"] = .int(seconds)
            data["timezone"] = .string("UTC")
        case .cron(let expression, let zone):
            data["cron"] = .string(expression.text)
            data["timezone"] = .string(zone.identifier)
        }
        let payload = JSONValue.object(data).jsonText
        do {
            return try await client.withTransaction { connection in
                _ = try connection.query("SELECT pg_advisory_xact_lock(\(Self.scheduleLockSQL))", [name])
                let existing = try connection.query("SELECT removed FROM ferry.schedules WHERE name = $1", [name]).rows
                let live = try existing.first.map { try !$0.decode(Bool.self, column: "removed") } ?? false
                if live && !replace {
                    throw FerryStoreError(
                        .scheduleExists, "a schedule named '\(name)' exists already",
                        fix: "pick another name, or pass --replace to replace its definition (its history stays)")
                }
                try connection.execute("SAVEPOINT schedule_probe")
                _ = try FerryStore.enqueue([probe], lines: nil, on: connection)
                try connection.execute("ROLLBACK TO SAVEPOINT schedule_probe")
                _ = try connection.query(
                    "INSERT INTO ferry.schedule_events (schedule, type, data) VALUES ($1, $2, $3::jsonb)",
                    [name, live ? "replaced" : "added", PostgresJSON(text: payload)])
                return try Self.schedule(name, on: connection)!
            }
        } catch {
            throw FerryStore.translate(error)
        }
    }

    /// Pauses or resumes a schedule from its next tick. Answers false when it was already in that state. A resumed
    /// schedule's next tick is the first after now: ticks that fell while it was paused are not caught up.
    public func setPaused(_ name: String, paused: Bool, now: Date) async throws -> Bool {
        do {
            return try await client.withTransaction { connection in
                _ = try connection.query("SELECT pg_advisory_xact_lock(\(Self.scheduleLockSQL))", [name])
                guard let record = try Self.schedule(name, on: connection), !record.removed else { throw Self.noSchedule(name) }
                guard record.paused != paused else { return false }
                var data = [String: JSONValue]()
                if !paused, let next = record.recurrence?.next(after: now) {
                    data["next_tick"] = .string(ScheduleTime.iso8601(next))
                }
                _ = try connection.query(
                    "INSERT INTO ferry.schedule_events (schedule, type, data) VALUES ($1, $2, $3::jsonb)",
                    [name, paused ? "paused" : "resumed", PostgresJSON(text: JSONValue.object(data).jsonText)])
                return true
            }
        } catch {
            throw FerryStore.translate(error)
        }
    }

    /// Removes a schedule: it fires no more ticks; its history stays (and the name can be added again).
    public func remove(_ name: String) async throws {
        do {
            try await client.withTransaction { connection in
                _ = try connection.query("SELECT pg_advisory_xact_lock(\(Self.scheduleLockSQL))", [name])
                guard let record = try Self.schedule(name, on: connection), !record.removed else { throw Self.noSchedule(name) }
                _ = try connection.query("INSERT INTO ferry.schedule_events (schedule, type) VALUES ($1, 'removed')", [name])
            }
        } catch {
            throw FerryStore.translate(error)
        }
    }

    /// Schedules by name; removed ones only when asked.
    public func all(includeRemoved: Bool = false) async throws -> [ScheduleRecord] {
        do {
            return try await client.withConnection { connection in
                try connection.query(
                    "SELECT \(ScheduleRecord.columns) FROM ferry.schedule_status WHERE $1 OR NOT removed ORDER BY name",
                    [includeRemoved]
                ).rows.map(ScheduleRecord.init(row:))
            }
        } catch {
            throw FerryStore.translate(error)
        }
    }

    /// One schedule (removed too) and its newest `limit` runs, newest first.
    public func named(_ name: String, runs limit: Int) async throws -> (ScheduleRecord, [ScheduleRun]) {
        do {
            return try await client.withConnection { connection in
                guard let record = try Self.schedule(name, on: connection) else { throw Self.noSchedule(name) }
                let runs = try connection.query(
                    "SELECT \(ScheduleRun.columns) FROM ferry.schedule_runs WHERE schedule = $1 ORDER BY tick_at DESC LIMIT $2",
                    [name, limit]
                ).rows.map(ScheduleRun.init(row:))
                return (record, runs)
            }
        } catch {
            throw FerryStore.translate(error)
        }
    }

    static func schedule(_ name: String, on connection: PostgresConnection) throws -> ScheduleRecord? {
        try connection.query("SELECT \(ScheduleRecord.columns) FROM ferry.schedule_status WHERE name = $1", [name])
            .rows.first.map(ScheduleRecord.init(row:))
    }

    static func noSchedule(_ name: String) -> FerryStoreError {
        FerryStoreError(.notFound, "no schedule named '\(name)'", fix: "see ferry schedule list")
    }

    /// Asks for a run of schedule `name` now (`ferry schedule run`, the dashboard's Run now), paused or not: appends
    /// `run_requested`, which wakes the workers' schedulers; the first fires one run for the request's time, as a
    /// due tick would (template validated, overlap honoured), recorded in `ferry.schedule_runs` with `manual`.
    /// Answers the request's time, which is the run's `tick_at`; a request while another waits answers that one.
    public func requestRun(_ name: String) async throws -> Date {
        do {
            return try await client.withTransaction { connection in
                _ = try connection.query("SELECT pg_advisory_xact_lock(\(Self.scheduleLockSQL))", [name])
                guard let record = try Self.schedule(name, on: connection), !record.removed else { throw Self.noSchedule(name) }
                _ = try connection.query("INSERT INTO ferry.schedule_events (schedule, type) VALUES ($1, 'run_requested')", [name])
                return try connection.query("SELECT run_requested_at FROM ferry.schedules WHERE name = $1", [name])
                    .rows[0].decode(Date.self, column: "run_requested_at")
            }
        } catch {
            throw FerryStore.translate(error)
        }
    }

    /// The run that answered a request made at `tick` (`requestRun`), once a worker fired it.
    public func manualRun(_ name: String, tick: Date) async throws -> ScheduleRun? {
        do {
            return try await client.withConnection { connection in
                try connection.query(
                    "SELECT \(ScheduleRun.columns) FROM ferry.schedule_runs WHERE schedule = $1 AND tick_at = $2 AND manual",
                    [name, tick]
                ).rows.first.map(ScheduleRun.init(row:))
            }
        } catch {
            throw FerryStore.translate(error)
        }
    }

    /// The earliest live schedules by next tick (from `schedules_due_idx`), and those asked to run now (from
    /// `schedules_run_requested_idx`, paused ones too), with the database's time: what is due now and when the
    /// next one falls.
    public func upcoming(limit: Int) async throws -> (names: [(String, Date)], now: Date) {
        do {
            return try await client.withConnection { connection in
                let rows = try connection.query(
                    """
                    SELECT name, min(due) AS next_tick, now() AS now FROM (
                        (SELECT name, next_tick AS due FROM ferry.schedules
                          WHERE NOT paused AND NOT removed AND next_tick IS NOT NULL
                          ORDER BY next_tick LIMIT $1)
                        UNION ALL
                        (SELECT name, run_requested_at FROM ferry.schedules
                          WHERE run_requested_at IS NOT NULL AND NOT removed
                          ORDER BY run_requested_at LIMIT $1)
                    ) due
                     GROUP BY name ORDER BY 2 LIMIT $1
                    """, [limit]
                ).rows
                let now = try rows.first?.decode(Date.self, column: "now")
                    ?? connection.query("SELECT now() AS now").rows[0].decode(Date.self, column: "now")
                return (try rows.map { (try $0.decode(String.self, column: "name"), try $0.decode(Date.self, column: "next_tick")) }, now)
            }
        } catch {
            throw FerryStore.translate(error)
        }
    }

    /// The job of the schedule's last run when that run is still going: the job itself, or any job of its batch
    /// (the children a listing fanned out), is queued or running. Read from the newest tick that enqueued a job and
    /// the batch counters, so it costs the same whatever the size of the run.
    static func runStillGoing(_ name: String, on connection: PostgresConnection) throws -> UUID? {
        let rows = try connection.query(
            """
            SELECT t.job_id,
                   j.state IN ('queued', 'running')
                   OR coalesce((SELECT NOT b.done FROM ferry.batch_status b WHERE b.batch = j.batch), false) AS going
              FROM ferry.schedule_ticks t
              LEFT JOIN ferry.jobs j ON j.job_id = t.job_id
             WHERE t.schedule = $1 AND t.job_id IS NOT NULL
             ORDER BY t.tick_at DESC
             LIMIT 1
            """, [name]
        ).rows
        // An archived job (no row any more) finished long ago.
        guard let row = rows.first, try row.decode(Bool?.self, column: "going") == true else { return nil }
        return try row.decode(UUID.self, column: "job_id")
    }

    /// Fires schedule `name` if it is still due, in one transaction: enqueues the job for its latest due tick (key
    /// `schedule:NAME:TICK`), records the tick (and the earlier ones nobody fired, as missed) in
    /// `ferry.schedule_ticks`, and advances its next tick. With overlap `skip` and the previous run still going, the
    /// tick enqueues nothing and is recorded as skipped for that run. Answers nil when another worker holds or just
    /// fired it.
    ///
    /// Before the transaction, under the schedule's session lock, the firing records an attempt that it removes when
    /// it ends (`ferry.begin_schedule_attempt`): attempts left behind are firings whose worker died. At
    /// `poisonAfter` of them the schedule is paused with the reason instead (`quarantined`), so a template that kills
    /// its worker does not kill every worker of the fleet, again at each restart.
    ///
    /// - Parameter prepare: validates the template as a job for the tick (the worker's providers), or says why not.
    public func fire(
        _ name: String, worker: String, poisonAfter: Int = 3,
        prepare: @escaping @Sendable (JobRequest) -> Result<JobSpec, ValidationIssue>
    ) async throws -> ScheduleFiring? {
        do {
            return try await client.withConnection { connection in
                guard try connection.query("SELECT pg_try_advisory_lock(\(Self.scheduleLockSQL)) AS locked", [name])
                    .rows[0].decode(Bool.self, column: "locked")
                else { return nil }
                defer { _ = try? connection.query("SELECT pg_advisory_unlock(\(Self.scheduleLockSQL))", [name]) }
                let begun = try connection.query(
                    "SELECT attempt, paused_reason, now() AS now FROM ferry.begin_schedule_attempt($1, $2, $3)", [name, worker, poisonAfter]
                ).rows[0]
                if let reason = try begun.decode(String?.self, column: "paused_reason") {
                    return ScheduleFiring(
                        schedule: name, tick: try begun.decode(Date.self, column: "now"), jobID: nil, error: reason, missed: 0,
                        nextTick: nil, quarantined: true)
                }
                guard let attempt = try begun.decode(Int64?.self, column: "attempt") else { return nil }
                // Ended well or badly, the firing was not a death: only a worker that dies leaves its attempt.
                defer { _ = try? connection.query("SELECT ferry.end_schedule_attempt($1, $2)", [attempt, worker]) }
                return try connection.transaction { connection in
                    try Self.fireDue(name, worker: worker, prepare: prepare, on: connection)
                }
            }
        } catch let error as PostgresError where error.sqlState == .uniqueViolation && error.constraint == "schedule_ticks_once" {
            // Already fired (cannot happen under the lock; the constraint is the last word): nothing was kept.
            return nil
        } catch {
            throw FerryStore.translate(error)
        }
    }

    /// The firing itself, inside the caller's transaction and under the schedule's lock.
    static func fireDue(
        _ name: String, worker: String, prepare: @escaping @Sendable (JobRequest) -> Result<JobSpec, ValidationIssue>,
        on connection: PostgresConnection
    ) throws -> ScheduleFiring? {
        guard try connection.query("SELECT pg_try_advisory_xact_lock(\(Self.scheduleLockSQL)) AS locked", [name])
            .rows[0].decode(Bool.self, column: "locked")
        else { return nil }
        // Read again under the lock (a fresh snapshot): a firing committed meanwhile moved next_tick on.
        let rows = try connection.query(
            """
            SELECT every_seconds, cron, timezone, template::text, next_tick, now() AS now, overlap, run_requested_at,
                   (NOT paused AND next_tick <= now()) AS tick_due
              FROM ferry.schedules
             WHERE name = $1 AND NOT removed AND ((NOT paused AND next_tick <= now()) OR run_requested_at <= now())
            """, [name]
        ).rows
        guard let row = rows.first else { return nil }
        let now = try row.decode(Date.self, column: "now")
        if let requested = try row.decode(Date?.self, column: "run_requested_at"), requested <= now {
            // Asked to run now: one run for the request's time; the regular ticks stay (the loop fires a
            // tick that is due as well right after, as its own run).
            var firing = ScheduleFiring(
                schedule: name, tick: requested, jobID: nil, error: nil, missed: 0,
                nextTick: try row.decode(Date?.self, column: "next_tick"), manual: true)
            try Self.run(
                &firing, template: try row.decode(String.self, column: "template"),
                overlap: try row.decode(String.self, column: "overlap"), firstMissed: nil, worker: worker,
                prepare: prepare, on: connection)
            return firing
        }
        guard try row.decode(Bool?.self, column: "tick_due") == true else { return nil }
        let due = try row.decode(Date.self, column: "next_tick")
        let timezone = try row.decode(String.self, column: "timezone")
        let recurrence: ScheduleRecurrence?
        if let every = try row.decode(Int64?.self, column: "every_seconds") {
            recurrence = .every(seconds: every)
        } else if let cron = try row.decode(String?.self, column: "cron"), let zone = TimeZone(identifier: timezone),
            let expression = try? CronExpression(cron)
        {
            recurrence = .cron(expression, zone: zone)
        } else {
            recurrence = nil
        }
        var firing = ScheduleFiring(schedule: name, tick: due, jobID: nil, error: nil, missed: 0, nextTick: nil)
        if let recurrence {
            let (tick, missed) = recurrence.catchUp(due: due, now: now)
            firing.tick = tick
            firing.missed = missed
            firing.nextTick = recurrence.next(after: now)
        } else {
            // Unreadable here (a zone this machine's tz database lacks): record it once a day, not each poll.
            firing.nextTick = now.addingTimeInterval(86_400)
            firing.error = "the schedule's time zone '\(timezone)' or cron expression is unknown to this worker"
        }
        try Self.run(
            &firing, template: try row.decode(String.self, column: "template"), overlap: try row.decode(String.self, column: "overlap"),
            firstMissed: firing.missed > 0 ? due : nil, worker: worker, prepare: prepare, on: connection)
        return firing
    }

    /// Enqueues the schedule's run for `firing.tick` (unless the template no longer validates, or overlap `skip`
    /// finds the previous run still going) and records the tick in `ferry.schedule_ticks`, whose trigger moves the
    /// schedule's next tick to `firing.nextTick`. Runs inside the caller's transaction, under the schedule's lock.
    static func run(
        _ firing: inout ScheduleFiring, template templateText: String, overlap overlapText: String, firstMissed: Date?,
        worker: String, prepare: @escaping @Sendable (JobRequest) -> Result<JobSpec, ValidationIssue>, on connection: PostgresConnection
    ) throws {
        let name = firing.schedule
        let template = (try? JSONValue.parse(templateText)).flatMap(JobRequest.init(template:))
        let overlap = ScheduleOverlap(rawValue: overlapText) ?? .allow
        if firing.error == nil && overlap == .skip {
            firing.skippedFor = try Self.runStillGoing(name, on: connection)
        }
        if firing.error == nil && firing.skippedFor == nil {
            if var request = template {
                request.idempotencyKey = Self.scheduleKey(name, tick: firing.tick)
                // Each run is a batch of its own unless the template names one: its fan-out children join
                // it, so progress, `ferry wait --batch` and the overlap check see the whole run.
                if request.batch == nil { request.batch = request.idempotencyKey }
                switch prepare(request) {
                case .success(let spec):
                    try connection.execute("SAVEPOINT schedule_fire")
                    do {
                        let outcome = try FerryStore.enqueue([spec], lines: nil, on: connection)
                        firing.jobID = outcome.first?.jobID
                        try connection.execute("RELEASE SAVEPOINT schedule_fire")
                        ScheduleCrashPoint.reach(.enqueued)
                    } catch let error as FerryStoreError {
                        try connection.execute("ROLLBACK TO SAVEPOINT schedule_fire")
                        firing.error = error.description
                    }
                case .failure(let issue):
                    firing.error = issue.description
                }
            } else {
                firing.error = "the stored job template cannot be read"
            }
        }
        _ = try connection.query(
            """
            INSERT INTO ferry.schedule_ticks (schedule, tick_at, job_id, missed, first_missed, error, next_tick, worker,
                                              skipped_for, manual)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
            """,
            [name, firing.tick, firing.jobID, firing.missed, firstMissed, firing.error, firing.nextTick, worker,
             firing.skippedFor, firing.manual])
    }
}
