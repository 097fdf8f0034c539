import FerryCore
import FerryStore
import FerryTestSupport
import Foundation
import Postgres
import Testing

/// The dashboard's second wave: the last hour's throughput, batch pace and ETA, jobs held by accounts that need a
/// login, a job's resume cursor and timeline, a read-only dashboard that runs as `ferry_reader`, and a throttle on
/// wrong tokens. A real `ferry dashboard` process against a real database.
@Suite("ferry dashboard insight", .tags(.postgres))
struct DashboardInsightTests {
    @Test("overview and batches: throughput per minute, busy slots, batch rate and ETA, held jobs, all from the database")
    func overviewInsight() async throws {
        let db = try await TestDatabase.make("dashinsight")
        let store = db.store()
        defer { store.client.close() }
        _ = try await DashboardTests.seed(store, batch: "trip", count: 10, failed: 1, succeeded: 4)
        try await db.query("INSERT INTO ferry.accounts (name, provider, status, status_reason) VALUES ('box', 'dropbox', 'needs_reauth', 'refresh token revoked')")
        let held = (0..<3).map { index in
            JobSpec(jobID: UUIDv7.make(), kind: .fetch, source: "dropbox:box:/a\(index).jpg", destination: "/srv/in/a\(index).jpg",
                    account: "box", queue: "photos", batch: nil, priority: 0, maxAttempts: 3, runAt: nil, idempotencyKey: nil,
                    metadata: nil, bytesTotal: nil, details: [:])
        }
        _ = try await store.enqueue(held)

        try await DashboardProbe.inProcess(db, readOnly: true) { dashboard in
            // Registered now, not before the dashboard started: a worker counts as alive for 60 s after its
            // heartbeat, and a loaded machine can take that long to start a test's dashboard.
            try await store.register(WorkerRegistration(name: "w1", queues: ["default"], concurrency: 4, host: "box", pid: 7))
            _ = try await store.claim(worker: "w1", queues: ["default"], limit: 2)
            let overview = try #require(try await dashboard.get("/", json: true).json as? [String: Any])
            let minutes = try #require(overview["throughput"] as? [[String: Any]])
            #expect(minutes.reduce(0) { $0 + ($1["succeeded"] as? Int ?? 0) } == 4, "\(minutes)")
            #expect(minutes.reduce(0) { $0 + ($1["failed"] as? Int ?? 0) } == 1)
            #expect(minutes.reduce(0) { $0 + ($1["bytes"] as? Int ?? 0) } == 4000)
            #expect(overview["busy_slots"] as? Int == 2 && overview["slots"] as? Int == 4)
            let accounts = try #require(overview["accounts_needing_login"] as? [[String: Any]])
            #expect(accounts.count == 1 && accounts[0]["name"] as? String == "box" && accounts[0]["held_jobs"] as? Int == 3)

            let html = try await dashboard.get("/")
            #expect(html.body.contains("id=\"chart-jobs\"") && html.body.contains("<rect"), "the chart draws bars")
            #expect(html.body.contains("/min</text>") && html.body.contains("UTC</text>"), "with a value axis in its unit and UTC times")
            #expect(html.body.contains("3 jobs held") && html.body.contains("ferry account login"))

            let batch = try #require((try await dashboard.get("/batches/trip", json: true).json as? [String: Any])?["batch"] as? [String: Any])
            let pace = try #require(batch["pace"] as? [String: Any])
            #expect((pace["jobs_per_second"] as? Double ?? 0) > 0, "\(pace)")
            #expect((pace["eta_seconds"] as? Double ?? -1) >= 0, "an unfinished batch has an ETA: \(pace)")

            let failed = try #require(try await dashboard.get("/failed", json: true).json as? [String: Any])
            let heldJobs = try #require(failed["held"] as? [[String: Any]])
            #expect(Set(heldJobs.compactMap { $0["job_id"] as? String }) == Set(held.map { $0.jobID.uuidString.lowercased() }))
            #expect(heldJobs.allSatisfy { $0["state"] as? String == "queued" && $0["waiting"] as? String == "held" && $0["status"] == nil })
            let failedHTML = try await dashboard.get("/failed")
            #expect(failedHTML.body.contains("refresh token revoked") && failedHTML.body.contains("Held jobs"))
        }
    }

    @Test("a job page shows the resume cursor and each event's worker and lease")
    func jobCursor() async throws {
        let db = try await TestDatabase.make("dashcursor")
        let store = db.store()
        defer { store.client.close() }
        let id = try await DashboardTests.seed(store, batch: "one", count: 1)[0]
        let job = try #require(try await store.claim(worker: "w-cursor", queues: ["default"], limit: 1).first)
        _ = try await store.recordProgress(.progress(job, bytesDone: 512, bytesTotal: 1000, session: .object(["offset": .int(512)])))
        try await DashboardProbe.inProcess(db, readOnly: true) { dashboard in
            let page = try #require(try await dashboard.get("/jobs/\(id.uuidString.lowercased())", json: true).json as? [String: Any])
            #expect((page["resume_cursor"] as? [String: Any])?["offset"] as? Int == 512, "\(page)")
            let html = try await dashboard.get("/jobs/\(id.uuidString.lowercased())")
            #expect(html.body.contains("Resume cursor") && html.body.contains("&quot;offset&quot;:512") || html.body.contains("\"offset\":512"))
            #expect(html.body.contains("<td>w-cursor</td>"), "the claim's worker in the timeline")
        }
    }

    @Test("a read-only dashboard connected as a ferry_reader login shows every page", .tags(.process))
    func readerRole() async throws {
        let db = try await TestDatabase.make("dashreader")
        let store = db.store()
        defer { store.client.close() }
        let ids = try await DashboardTests.seed(store, batch: "trip", count: 4, failed: 1, succeeded: 1)
        try await store.register(WorkerRegistration(name: "w-read", queues: ["default"], concurrency: 2, host: "box", pid: 9))
        let role = "dash_reader_\(UInt32.random(in: 0...UInt32.max))"
        try await db.query("CREATE ROLE \(role) LOGIN IN ROLE ferry_reader")
        try await db.query("INSERT INTO ferry.accounts (name, provider) VALUES ('shown', 'dropbox')")
        let url = db.url.replacingOccurrences(of: "postgres@", with: "\(role)@")
        try await DashboardProbe.with(db, ["--read-only", "--database-url", url]) { dashboard in
            for path in ["/", "/batches", "/batches/trip", "/jobs/\(ids[0].uuidString.lowercased())", "/failed", "/workers", "/accounts"] {
                let answer = try await dashboard.get(path, json: true)
                #expect(answer.status == 200, "\(path): \(answer.status) \(answer.body.prefix(300))")
            }
            // The accounts page reads running jobs per account through ferry.job_status, which the reader may read.
            let accounts = try #require((try await dashboard.get("/accounts", json: true).json as? [String: Any])?["accounts"] as? [[String: Any]])
            #expect(accounts.first?["name"] as? String == "shown" && accounts.first?["running"] as? Int == 0, "\(accounts)")
            let workers = try #require((try await dashboard.get("/workers", json: true).json as? [String: Any])?["workers"] as? [[String: Any]])
            #expect(workers.first?["name"] as? String == "w-read")
            let job = try #require(try await dashboard.get("/jobs/\(ids[0].uuidString.lowercased())", json: true).json as? [String: Any])
            #expect((job["events"] as? [Any])?.count == 3, "enqueued, claimed, failed: the timeline through ferry.job_timeline")
        }
    }

    @Test("wrong tokens are throttled per client: after 10 within a minute wrong ones get 429 with Retry-After, the right one still works; cookies are Secure behind HTTPS")
    func tokenThrottle() async throws {
        let db = try await TestDatabase.make("dashthrottle")
        let store = db.store()
        defer { store.client.close() }
        let ids = try await DashboardTests.seed(store, batch: "t", count: 1, failed: 1)
        try await DashboardProbe.inProcess(db, token: DashboardTests.token) { dashboard in
            // Behind a TLS-terminating proxy the cookies are Secure; on plain loopback they are not.
            let plain = try await dashboard.get("/")
            #expect(!(plain.headers["set-cookie"].first ?? "").lowercased().contains("secure"))
            let proxied = try await dashboard.request(.GET, "/", headers: ["X-Forwarded-Proto": "https"])
            #expect((proxied.headers["set-cookie"].first ?? "").lowercased().contains("secure"), "\(proxied.headers)")

            let retry = "/jobs/\(ids[0].uuidString.lowercased())/retry"
            // At once, so all ten fall in the throttle's minute however slowly this test task is scheduled.
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for attempt in 0..<10 {
                    group.addTask {
                        try await dashboard.request(.POST, retry, json: true, headers: ["Authorization": "Bearer wrong-\(attempt)"]).status
                    }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(statuses == Array(repeating: 401, count: 10))
            let refused = try await dashboard.request(.POST, retry, json: true, headers: ["Authorization": "Bearer wrong-11"])
            #expect(refused.status == 429)
            #expect(Int(refused.headers.first(name: "retry-after") ?? "") ?? 0 > 0)
            #expect(try await DashboardTests.state(db, ids[0]) == "failed", "nothing was done by wrong tokens")
            // The right token is never locked out by wrong ones.
            let allowed = try await dashboard.request(.POST, retry, json: true, headers: ["Authorization": "Bearer \(DashboardTests.token)"])
            #expect(allowed.status == 200, "\(allowed.body)")
            #expect(try await DashboardTests.state(db, ids[0]) == "queued")
        }
    }
}
