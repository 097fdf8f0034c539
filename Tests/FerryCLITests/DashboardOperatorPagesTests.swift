import FerryCore
import FerryStore
import FerryTestSupport
import Foundation
import Testing

/// The operator's pages of the dashboard, served in the test's process over loopback: accounts (state, cap, limits, running and held
/// jobs, the command that fixes them), schedules (with pause and resume as by the dashboard), and workers with the
/// jobs they run and their uptime.
@Suite("ferry dashboard: accounts, schedules and workers pages", .tags(.postgres))
struct DashboardOperatorPagesTests {
    static let token = DashboardTests.token

    @Test("accounts show their state, cap, limits, running and held jobs and the fix; schedules pause and resume by the dashboard; workers list the jobs they run")
    func operatorPages() async throws {
        let db = try await TestDatabase.make("dashops")
        let store = db.store()
        defer { store.client.close() }
        // An account whose refresh token was refused, with two jobs held; another one active and limited.
        try await db.query("INSERT INTO ferry.accounts (name, provider) VALUES ('box', 'dropbox'), ('arc', 's3')")
        try await db.query("UPDATE ferry.accounts SET max_concurrent = 12, settings = '{\"tps_limit\": 5, \"bwlimit\": 1048576}' WHERE name = 'arc'")
        for index in 0..<2 {
            try await db.query("SELECT ferry.enqueue('upload', $1, 'dropbox:box:/Camera/')", ["/srv/photos/\(index).jpg"])
        }
        try await db.query("UPDATE ferry.accounts SET status = 'needs_reauth', status_reason = 'the refresh token was refused' WHERE name = 'box'")
        try await TestSchedules.add(
            store, "nightly", everySeconds: 86_400, template: JobRequest(kind: .fetch, source: "https://example.com/a.jpg", to: "/srv/in/"))
        // A worker running one job.
        let ids = try await DashboardTests.seed(store, batch: "run", queue: "pics", count: 1)
        try await store.register(WorkerRegistration(name: "w-ops", queues: ["pics"], concurrency: 4, host: "box", pid: 11))
        _ = try await store.claim(worker: "w-ops", queues: ["pics"], limit: 1)

        try await DashboardProbe.inProcess(db, token: Self.token) { dashboard in
            let accounts = try #require((try await dashboard.get("/accounts", json: true).json as? [String: Any])?["accounts"] as? [[String: Any]])
            let box = try #require(accounts.first { $0["name"] as? String == "box" })
            #expect(box["status"] as? String == "needs_reauth" && box["held_jobs"] as? Int == 2, "\(box)")
            #expect(box["fix"] as? String == "ferry account login box")
            let arc = try #require(accounts.first { $0["name"] as? String == "arc" })
            #expect(arc["max_concurrent"] as? Int == 12 && arc["tps_limit"] as? Double == 5 && arc["bwlimit"] as? Int == 1_048_576, "\(arc)")
            #expect(arc["fix"] is NSNull && arc["running"] as? Int == 0)
            let page = try await dashboard.get("/accounts")
            #expect(page.body.contains("ferry account login box") && page.body.contains("1.0 MiB/s per worker"), "\(page.body.prefix(2000))")
            #expect(page.body.contains("href=\"/ferry/schedules\"") && page.body.contains("href=\"/ferry/accounts\""))

            let workers = try #require(try await dashboard.get("/workers", json: true).json as? [String: Any])
            let worker = try #require((workers["workers"] as? [[String: Any]])?.first { $0["name"] as? String == "w-ops" })
            #expect(worker["jobs"] as? [String] == [ids[0].uuidString.lowercased()], "\(worker)")
            #expect((worker["uptime_seconds"] as? Double ?? -1) >= 0)
            #expect(worker["version"] as? String == FerryRelease.version, "each worker shows the release it runs")
            #expect(try await dashboard.get("/workers").body.contains("<td>\(FerryRelease.version)</td>"))
            #expect(try await dashboard.get("/workers").body.contains("https://example.com/0.jpg"))

            // Schedules: listed, paused and resumed as by the dashboard (CSRF and token as for every action).
            let listed = try #require((try await dashboard.get("/schedules", json: true).json as? [String: Any])?["schedules"] as? [[String: Any]])
            #expect(listed.first?["name"] as? String == "nightly" && listed.first?["paused"] as? Bool == false, "\(listed)")
            let browser = try await dashboard.login(token: Self.token)
            #expect(try await dashboard.request(.POST, "/schedules/nightly/pause", cookies: browser.cookies, form: [:]).status == 403)
            let pause = try await dashboard.request(.POST, "/schedules/nightly/pause", cookies: browser.cookies, form: ["csrf": browser.csrf])
            #expect(pause.status == 303)
            #expect(try await store.schedules.all().first?.paused == true)
            let resume = try await dashboard.request(
                .POST, "/schedules/nightly/resume", json: true, headers: ["Authorization": "Bearer \(Self.token)"])
            #expect(resume.status == 200 && (resume.json as? [String: Any])?["changed"] as? Bool == true, "\(resume.body)")
            #expect(try await store.schedules.all().first?.paused == false)
            #expect(try await dashboard.request(.POST, "/schedules/nope/pause", json: true, headers: ["Authorization": "Bearer \(Self.token)"]).status == 404)

            // Run now: refused without the CSRF token, then asked for (a worker fires it: ScheduleCommandTests).
            #expect(try await dashboard.get("/schedules", cookies: browser.cookies).body.contains("Run now"))
            #expect(try await dashboard.request(.POST, "/schedules/nightly/run", cookies: browser.cookies, form: [:]).status == 403)
            #expect(try await store.schedules.all().first?.runRequestedAt == nil)
            let run = try await dashboard.request(.POST, "/schedules/nightly/run", cookies: browser.cookies, form: ["csrf": browser.csrf])
            #expect(run.status == 303)
            #expect(try await store.schedules.all().first?.runRequestedAt != nil)
            #expect(try await dashboard.get("/schedules").body.contains("run requested"))
            #expect(try await dashboard.request(.POST, "/schedules/nope/run", json: true, headers: ["Authorization": "Bearer \(Self.token)"]).status == 404)
        }
    }
}
