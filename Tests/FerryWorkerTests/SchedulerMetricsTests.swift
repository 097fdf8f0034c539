import FerryTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The scheduler's counters on the worker's metrics endpoint agree with the schedule history in the database.
@Suite("scheduler metrics", .tags(.postgres, .process))
struct SchedulerMetricsTests {
    @Test("ferry_schedule_ticks_total and ferry_schedule_missed_ticks_total count what the worker fired and caught up")
    func countersFollowTheHistory() async throws {
        let db = try await TestDatabase.make("schedmetrics")
        let add = try await FerryProcess.run(
            ["schedule", "add", "m", "--every", "1s", "--overlap", "allow", "--", "fetch", "https://example.com/m.jpg", "--to", "/srv/m/"],
            databaseURL: db.url, environment: ["FERRY_SCHEDULE_MIN_INTERVAL": "1"])
        #expect(add.status == 0, "\(add.stderr)")
        try await eventually(timeout: .seconds(300), "three ticks to pass unfired") {
            try await count(db, "SELECT count(*) FROM ferry.schedules WHERE now() - next_tick > interval '3 s'") == 1
        }
        let worker = try TestWorker.start(
            db, name: "metered-scheduler",
            ["--handler", "noop", "--schedule-interval", "0.2", "--metrics-listen", "127.0.0.1:0", "--log-format", "json"])
        defer { if worker.isRunning { worker.signal(SIGKILL) } }
        let probe = try await MetricsProbe.of(worker)
        try await eventually(timeout: .seconds(300), "three ticks fired") {
            try await count(db, "SELECT count(*) FROM ferry.schedule_ticks") >= 3
        }
        #expect(try await FerryProcess.run(["schedule", "pause", "m"], databaseURL: db.url).status == 0)
        let fired = try await count(db, "SELECT count(*) FROM ferry.schedule_ticks")
        let missed = try await count(db, "SELECT sum(missed)::int FROM ferry.schedule_ticks")
        #expect(missed >= 3, "the catch-up skipped the ticks that passed unfired")
        // The pause may land while a firing is under way: the counters settle on the database's numbers.
        try await eventually(timeout: .seconds(300), "the counters to match the history") {
            let metrics = try await probe.scrape()
            let nowFired = try await count(db, "SELECT count(*) FROM ferry.schedule_ticks")
            let nowMissed = try await count(db, "SELECT sum(missed)::int FROM ferry.schedule_ticks")
            return metrics.value("ferry_schedule_ticks_total", ["outcome": "enqueued"]) == Double(nowFired)
                && metrics.value("ferry_schedule_missed_ticks_total") == Double(nowMissed)
                && metrics.value("ferry_schedule_ticks_total", ["outcome": "error"]) == 0
        }
        #expect(fired >= 3)
        let help = try await probe.scrape().help
        #expect(help["ferry_schedule_ticks_total"] != nil || help["ferry_schedule_ticks"] != nil)
        worker.signal(SIGTERM)
        #expect(try await worker.waitForExit() == 0)
    }
}
