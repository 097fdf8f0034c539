import FerryCore
import FerryProviders
import FerryStore
import FerryTestSupport
import Foundation
import Testing

/// A schedule makes a batch per run: the dashboard lists its runs as one row per schedule
/// (Batches, overview) and the schedule's page holds the run history with outcome counts.
@Suite("ferry dashboard: schedules' runs grouped", .tags(.postgres))
struct DashboardScheduleRunsTests {
    @Test("runs grouped under their schedule, other batches listed alone; the schedule page counts each run's outcome")
    func grouped() async throws {
        let db = try await TestDatabase.make("dashruns")
        let store = db.store()
        defer { store.client.close() }
        _ = try await DashboardTests.seed(store, batch: "plain", queue: "elsewhere", count: 2)
        try await TestSchedules.add(
            store, "ticker", everySeconds: 86_400,
            template: JobRequest(kind: .fetch, source: "https://example.com/t.jpg", to: "/srv/t/", queue: "ticks", maxAttempts: 1),
            overlap: .allow)
        // Three runs, each fired as a worker's scheduler fires one and failed as a worker fails its job; a fourth
        // fired and still queued.
        for run in 0..<4 {
            _ = try await store.schedules.requestRun("ticker")
            let firing = try await store.schedules.fire("ticker", worker: "ticker-worker") { request in
                Result { () throws(ValidationIssue) -> JobSpec in
                    try request.validated(
                        jobID: UUIDv7.make(), now: Date(), currentDirectory: "/",
                        inspectFile: { _ in .failure(.notRegularFile(kind: "directory")) }, providers: ProviderRegistry.standard)
                }
            }
            #expect(firing?.jobID != nil, "run \(run) fired: \(String(describing: firing))")
            guard run < 3 else { continue }
            let claimed = try await store.claim(worker: "ticker-worker", queues: ["ticks"], limit: 1)
            #expect(try await store.record(claimed.map { .failed($0, error: "no such photo") }).accepted.count == 1)
        }
        let failedRuns = try await count(
            db, "SELECT count(DISTINCT batch) FROM ferry.jobs WHERE queue = 'ticks' AND state = 'failed'")
        let runs = try await count(db, "SELECT count(DISTINCT batch) FROM ferry.jobs WHERE queue = 'ticks'")
        #expect(failedRuns == 3 && runs == 4)

        try await DashboardProbe.inProcess(db, token: DashboardTests.token) { dashboard in
            for path in ["/batches", "/"] {
                let page = try #require(try await dashboard.get(path, json: true).json as? [String: Any])
                let batches = try #require(page["batches"] as? [[String: Any]])
                #expect(batches.map { $0["batch"] as? String } == ["plain"], "\(path): runs are not listed one by one: \(batches)")
                let groups = try #require(page["schedule_runs"] as? [[String: Any]])
                #expect(groups.count == 1 && groups[0]["schedule"] as? String == "ticker", "\(groups)")
                #expect(groups[0]["runs"] as? Int == runs && groups[0]["unsuccessful_runs"] as? Int == failedRuns, "\(groups)")
                #expect((groups[0]["last_batch"] as? String)?.hasPrefix("schedule:ticker:") == true)
            }
            let html = try await dashboard.get("/batches").body
            #expect(html.contains("id=\"runs-ticker\"") && html.contains("href=\"/ferry/schedules/ticker\""), "\(html.prefix(3000))")

            let page = try #require(try await dashboard.get("/schedules/ticker", json: true).json as? [String: Any])
            let outcomes = try #require(page["outcomes"] as? [String: Any])
            #expect(outcomes["unsuccessful"] as? Int == failedRuns, "\(outcomes)")
            let history = try #require(page["runs"] as? [[String: Any]])
            #expect(history.count == runs, "\(history.count) of \(runs)")
            let newest = try #require(history.first?["batch"] as? [String: Any])
            #expect((newest["batch"] as? String)?.hasPrefix("schedule:ticker:") == true && newest["jobs"] as? Int == 1, "\(newest)")
            let schedulePage = try await dashboard.get("/schedules/ticker")
            #expect(schedulePage.body.contains("\(failedRuns) with failures"), "\(schedulePage.body.prefix(3000))")
            #expect(try await dashboard.get("/schedules").body.contains("href=\"/ferry/schedules/ticker\""))
            #expect(try await dashboard.get("/schedules/nosuch").status == 404)
        }
    }
}
