import FerryCore
import FerryStore
import FerryTestSupport
import Foundation
import Testing

/// The trends page of the real `ferry dashboard`: jobs, failures and bytes over an hour, a day and a week, per
/// queue, account and provider, from the rollups and the jobs finished since the last one.
@Suite("ferry dashboard: trends", .tags(.postgres))
struct DashboardTrendsTests {
    static func totals(_ answer: DashboardProbe.Answer) throws -> (finished: Int, failed: Int, bytes: Int) {
        let json = try #require(answer.json as? [String: Any], "\(answer.body)")
        return (json["finished"] as? Int ?? -1, json["failed"] as? Int ?? -1, json["bytes"] as? Int ?? -1)
    }

    @Test("ranges and filters count what finished; a rollup moves jobs into the counters without counting them twice")
    func trendsPage() async throws {
        let db = try await TestDatabase.make("trends")
        let store = db.store()
        defer { store.client.close() }
        _ = try await DashboardTests.seed(store, batch: "pics", queue: "pics", count: 6, failed: 2, succeeded: 3)
        _ = try await DashboardTests.seed(store, batch: "docs", queue: "docs", count: 2, succeeded: 2)
        // A week-old history, as the rollup keeps it (rolled up to half an hour ago): another account and provider,
        // three days ago.
        try await db.query("UPDATE ferry.trend_rollup SET rolled_to = date_trunc('minute', now()) - interval '30 minutes'")
        try await db.query(
            """
            INSERT INTO ferry.trend_hours (bucket, queue, account, provider, succeeded, failed, bytes)
            VALUES (date_trunc('hour', now()) - interval '3 days', 'pics', 'box', 's3', 40, 10, 1073741824)
            """)

        try await DashboardProbe.inProcess(db, token: DashboardTests.token) { dashboard in
            #expect(try Self.totals(try await dashboard.get("/trends?range=1h", json: true)) == (7, 2, 5000))
            #expect(try Self.totals(try await dashboard.get("/trends", json: true)) == (7, 2, 5000), "an hour by default")
            #expect(try Self.totals(try await dashboard.get("/trends?range=1h&queue=docs", json: true)) == (2, 0, 2000))
            #expect(try Self.totals(try await dashboard.get("/trends?range=24h&provider=https", json: true)) == (7, 2, 5000))
            #expect(try Self.totals(try await dashboard.get("/trends?range=7d", json: true)) == (57, 12, 5000 + 1_073_741_824))
            #expect(try Self.totals(try await dashboard.get("/trends?range=7d&account=box", json: true)) == (50, 10, 1_073_741_824))
            #expect(try Self.totals(try await dashboard.get("/trends?range=7d&provider=s3&queue=pics", json: true)) == (50, 10, 1_073_741_824))
            #expect(try Self.totals(try await dashboard.get("/trends?range=7d&queue=no+such+queue", json: true)) == (0, 0, 0))
            let week = try #require(try await dashboard.get("/trends?range=7d", json: true).json as? [String: Any])
            #expect(week["step_seconds"] as? Int == 3600 && (week["buckets"] as? [Any])?.count ?? 0 >= 2, "\(week)")

            // The page: three charts with axes and units, range links, filter menus, the nav link.
            let page = try await dashboard.get("/trends?range=7d&queue=pics")
            #expect(page.status == 200)
            for part in ["id=\"trend-jobs\"", "id=\"trend-bytes\"", "id=\"trend-failures\"", "/h</text>", "GiB/h</text>", "100 %</text>",
                         "UTC</text>", "<b id=\"range-7d\">", "id=\"range-1h\"", "<option value=\"pics\" selected>",
                         "<option value=\"box\">", "<option value=\"s3\">", "href=\"/ferry/trends\">Trends</a>"] {
                #expect(page.body.contains(part), "\(part) in \(page.body.prefix(3000))")
            }

            // Bad input: named, with what is allowed.
            let bad = try await dashboard.get("/trends?range=2y")
            #expect(bad.status == 400 && bad.body.contains("range= must be one of 1h, 24h, 7d"), "\(bad.body)")
            let long = try await dashboard.get("/trends?queue=" + String(repeating: "q", count: 201))
            #expect(long.status == 400 && long.body.contains("queue= is longer than 200 characters"), "\(long.body)")
        }

        // The jobs finished five minutes ago are rolled up once; the readings stay the same.
        try await db.query("ALTER TABLE ferry.jobs DISABLE TRIGGER jobs_written_by_projection_only")
        try await db.query("UPDATE ferry.jobs SET finished_at = finished_at - interval '5 minutes' WHERE finished_at IS NOT NULL")
        try await db.query("ALTER TABLE ferry.jobs ENABLE TRIGGER jobs_written_by_projection_only")
        try await db.query("UPDATE ferry.trend_rollup SET rolled_to = date_trunc('minute', now()) - interval '20 minutes'")
        let hour = Date().addingTimeInterval(-3600)
        let before = try await store.reads.trends(since: hour, stepSeconds: 60)
        #expect(try await store.rollUpTrends() == 7)
        #expect(try await store.rollUpTrends() == 0, "a minute is rolled up once")
        let minutes = try await db.query("SELECT sum(succeeded)::int AS s, sum(failed)::int AS f, sum(bytes)::int AS b FROM ferry.trend_minutes")
        #expect(try minutes.rows[0].decode(Int.self, column: "s") == 5 && minutes.rows[0].decode(Int.self, column: "f") == 2)
        #expect(try minutes.rows[0].decode(Int.self, column: "b") == 5000)
        let after = try await store.reads.trends(since: hour, stepSeconds: 60)
        #expect(after == before && after.reduce(0) { $0 + $1.succeeded + $1.failed } == 7)
        #expect(try await store.reads.trends(since: hour, stepSeconds: 60, filter: TrendFilter(queue: "docs")).reduce(0) { $0 + $1.succeeded } == 2)
        let hours = try await db.query("SELECT sum(succeeded)::int AS s FROM ferry.trend_hours")
        #expect(try hours.rows[0].decode(Int.self, column: "s") == 45)
        // The workers' fold rolls up too, and the keys name what finished.
        _ = try await store.compactCounters()
        let keys = try await store.reads.trendKeys()
        #expect(Set(keys.map(\.queue)) == ["pics", "docs"] && keys.contains(TrendKey(queue: "pics", account: "box", provider: "s3")), "\(keys)")
    }
}
