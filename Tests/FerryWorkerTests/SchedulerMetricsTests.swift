import FerryCore
import FerryProviders
import FerryStore
import FerryTestSupport
import Foundation
import Testing

/// The scheduler's counters on the worker's metrics registry (the one `ferry worker` serves on /metrics) agree with
/// the schedule history in the database. The worker and its scheduler run in process on PostgreSQL.
@Suite("scheduler metrics", .tags(.postgres))
struct SchedulerMetricsTests {
    @Test("ferry_schedule_ticks_total and ferry_schedule_missed_ticks_total count what the worker fired and caught up")
    func countersFollowTheHistory() async throws {
        let db = try await TestDatabase.make("schedmetrics")
        let store = db.store(poolSize: 1)
        defer { store.client.close() }
        // `ferry schedule add m --every 1s --overlap allow -- fetch https://example.com/m.jpg --to /srv/m/`.
        let template = JobRequest(kind: .fetch, source: "https://example.com/m.jpg", to: "/srv/m/")
        let now = Date()
        let probe = try template.validated(
            jobID: UUIDv7.make(), now: now, currentDirectory: "/", inspectFile: { _ in .failure(.notRegularFile(kind: "directory")) },
            providers: ProviderRegistry.standard)
        _ = try await store.schedules.add(
            name: "m", recurrence: .every(seconds: 1), template: template, probe: probe, overlap: .allow, replace: false, now: now)
        try await eventually(timeout: .seconds(300), "three ticks to pass unfired") {
            try await count(db, "SELECT count(*) FROM ferry.schedules WHERE now() - next_tick > interval '3 s'") == 1
        }
        // `ferry worker --handler noop --schedule-interval 0.2`.
        let worker = try PostgresWorker(db, script: "noop", scheduleInterval: .milliseconds(200))
        try await eventually(timeout: .seconds(300), "three ticks fired") {
            try await count(db, "SELECT count(*) FROM ferry.schedule_ticks") >= 3
        }
        #expect(try await store.schedules.setPaused("m", paused: true, now: Date()))
        let fired = try await count(db, "SELECT count(*) FROM ferry.schedule_ticks")
        let missed = try await count(db, "SELECT sum(missed)::int FROM ferry.schedule_ticks")
        #expect(missed >= 3, "the catch-up skipped the ticks that passed unfired")
        // The pause may land while a firing is under way: the counters settle on the database's numbers.
        try await eventually(timeout: .seconds(300), "the counters to match the history") {
            let metrics = worker.scrape()
            let nowFired = try await count(db, "SELECT count(*) FROM ferry.schedule_ticks")
            let nowMissed = try await count(db, "SELECT sum(missed)::int FROM ferry.schedule_ticks")
            return metrics.value("ferry_schedule_ticks_total", ["outcome": "enqueued"]) == Double(nowFired)
                && metrics.value("ferry_schedule_missed_ticks_total") == Double(nowMissed)
                && metrics.value("ferry_schedule_ticks_total", ["outcome": "error"]) == 0
        }
        #expect(fired >= 3)
        let help = worker.scrape().help
        #expect(help["ferry_schedule_ticks_total"] != nil || help["ferry_schedule_ticks"] != nil)
        try await worker.stop()
    }
}
