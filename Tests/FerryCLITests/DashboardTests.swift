import AsyncHTTPClient
import FerryCore
import FerryStore
import FerryTestSupport
import Foundation
import NIOCore
import Postgres
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The real `ferry dashboard` process over loopback against a real database: pages and JSON show what the
/// database holds, keyset pages cover a batch exactly once, the event stream reports changes, and actions are
/// guarded (read-only, token, CSRF) and act like `ferry retry`.
@Suite("ferry dashboard", .tags(.postgres))
struct DashboardTests {
    static let token = "dashboard-secret-0123456789abcdef"

    /// `count` fetch jobs in `batch`; the first `failed` are claimed and failed with "disk full", the next
    /// `succeeded` succeed, the rest stay queued. Returns the ids in id order.
    static func seed(
        _ store: FerryStore, batch: String, queue: String = "default", count: Int, failed: Int = 0, succeeded: Int = 0,
        source: (Int) -> String = { "https://example.com/\($0).jpg" }
    ) async throws -> [UUID] {
        // In id order, which is claim order (same priority and run_at) and page order: index i is the i-th job.
        let ids = (0..<count).map { _ in UUIDv7.make() }.sorted { $0.uuidString.lowercased() < $1.uuidString.lowercased() }
        let specs = (0..<count).map { index in
            JobSpec(
                jobID: ids[index], kind: .fetch, source: source(index), destination: "/srv/in/\(index).jpg", account: nil,
                queue: queue, batch: batch, priority: 0, maxAttempts: 1, runAt: nil, idempotencyKey: nil, metadata: nil,
                bytesTotal: 1000, details: [:])
        }
        for chunk in stride(from: 0, to: specs.count, by: 1000) {
            _ = try await store.enqueue(Array(specs[chunk..<min(chunk + 1000, specs.count)]))
        }
        let finishing = failed + succeeded
        if finishing > 0 {
            let claimed = try await store.claim(worker: "seeder", queues: [queue], limit: finishing)
            let order = Dictionary(uniqueKeysWithValues: specs.enumerated().map { ($1.jobID, $0) })
            _ = try await store.record(claimed.map { job in
                order[job.jobID]! < failed ? .failed(job, error: "disk full") : .succeeded(job, bytes: 1000)
            })
        }
        return specs.map(\.jobID)
    }

    static func state(_ db: TestDatabase, _ id: UUID) async throws -> String {
        try await db.query("SELECT state FROM ferry.jobs WHERE job_id = $1::uuid", [id]).rows[0].decode(String.self, at: 0)
    }

    @Test("every page answers HTML and JSON with what the database holds; read-only shows no buttons and refuses POST")
    func pagesShowTheDatabase() async throws {
        let db = try await TestDatabase.make("dashpages")
        let store = db.store()
        defer { store.client.close() }
        let ids = try await Self.seed(store, batch: "trip", count: 6, failed: 2, succeeded: 1) { index in
            index == 5 ? "https://example.com/<b>bold</b>.jpg" : "https://example.com/\(index).jpg"
        }
        try await DashboardProbe.inProcess(db, readOnly: true) { dashboard in
            // Registered now, not before the dashboard started: a worker counts as alive for 60 s after its
            // heartbeat, and a loaded machine can take that long to start a test's dashboard.
            try await store.register(WorkerRegistration(name: "w-one", queues: ["default", "photos"], concurrency: 3, host: "box", pid: 42))
            let overview = try await dashboard.get("/", json: true)
            #expect(overview.status == 200)
            let queues = try #require((overview.json as? [String: Any])?["queues"] as? [[String: Any]])
            let byState = Dictionary(uniqueKeysWithValues: queues.map { ($0["state"] as! String, $0["jobs"] as! Int) })
            #expect(byState["failed"] == 2 && byState["succeeded"] == 1 && byState["queued"] == 3, "\(byState)")
            #expect((overview.json as? [String: Any])?["workers_alive"] as? Int == 1)

            let html = try await dashboard.get("/")
            #expect(html.status == 200)
            #expect(html.headers.first(name: "content-type")?.hasPrefix("text/html") == true)
            #expect(html.body.contains("trip") && html.body.contains("data-base=\"/ferry\"") && html.body.contains("new EventSource"))

            let batches = try await dashboard.get("/batches", json: true)
            let trip = try #require(((batches.json as? [String: Any])?["batches"] as? [[String: Any]])?.first)
            #expect(trip["batch"] as? String == "trip")
            #expect(trip["jobs"] as? Int == 6 && trip["failed"] as? Int == 2 && trip["succeeded"] as? Int == 1 && trip["queued"] as? Int == 3)

            // Values from the database are escaped, never markup.
            let batchPage = try await dashboard.get("/batches/trip")
            #expect(batchPage.body.contains("&lt;b&gt;bold&lt;/b&gt;"))
            #expect(!batchPage.body.contains("<b>bold</b>"))

            let failedID = ids[0]
            let job = try await dashboard.get("/jobs/\(failedID.uuidString.lowercased())", json: true)
            let object = try #require(job.json as? [String: Any])
            #expect((object["job"] as? [String: Any])?["state"] as? String == "failed")
            #expect((object["job"] as? [String: Any])?["last_error"] as? String == "disk full")
            let events = try #require(object["events"] as? [[String: Any]])
            let stored = try await db.query("SELECT type FROM ferry.events WHERE job_id = $1::uuid ORDER BY version", [failedID])
                .rows.map { try $0.decode(String.self, at: 0) }
            #expect(events.map { $0["type"] as? String ?? "" } == stored)
            #expect(stored.last == "failed")

            let failed = try await dashboard.get("/failed", json: true)
            let groups = try #require((failed.json as? [String: Any])?["groups"] as? [[String: Any]])
            #expect(groups.count == 1 && groups.first?["error"] as? String == "disk full")
            #expect((groups.first?["jobs"] as? [Any])?.count == 2)

            let workers = try await dashboard.get("/workers", json: true)
            let worker = try #require(((workers.json as? [String: Any])?["workers"] as? [[String: Any]])?.first)
            #expect(worker["name"] as? String == "w-one" && worker["host"] as? String == "box")
            #expect(worker["queues"] as? [String] == ["default", "photos"] && worker["running"] as? Int == 0)

            #expect(try await dashboard.get("/jobs/\(UUID().uuidString.lowercased())").status == 404)
            #expect(try await dashboard.get("/batches/trip?status=bogus").status == 400)

            // Read-only: no buttons, no login form, and a POST is refused even with the right credentials.
            let jobPage = try await dashboard.get("/jobs/\(failedID.uuidString.lowercased())")
            #expect(jobPage.status == 200 && jobPage.body.contains("disk full"))
            #expect(!jobPage.body.contains("<button"))
            let post = try await dashboard.request(
                .POST, "/jobs/\(failedID.uuidString.lowercased())/retry", form: [:], headers: ["Authorization": "Bearer \(Self.token)"])
            #expect(post.status == 403)
            #expect(try await Self.state(db, failedID) == "failed")
        }
    }

    @Test("keyset pages walk a batch of 3000 jobs exactly once, also filtered by status and text")
    func keysetPagination() async throws {
        let db = try await TestDatabase.make("dashpages")
        let store = db.store()
        defer { store.client.close() }
        let ids = try await Self.seed(store, batch: "big", count: 3000, failed: 120) { index in
            index % 10 == 0 ? "https://example.com/needle-\(index).jpg" : "https://example.com/\(index).jpg"
        }
        try await DashboardProbe.inProcess(db, readOnly: true) { dashboard in
            func walk(_ query: String) async throws -> [String] {
                var seen = [String]()
                var after: String?
                while true {
                    let path = "/batches/big?" + query + (after.map { "&after=\($0)" } ?? "")
                    let page = try await dashboard.get(path, json: true)
                    #expect(page.status == 200, "\(page.body)")
                    let object = try #require(page.json as? [String: Any])
                    seen += (object["jobs"] as? [[String: Any]] ?? []).map { $0["job_id"] as! String }
                    guard let next = object["next_after"] as? String else { return seen }
                    after = next
                }
            }
            let all = try await walk("")
            #expect(all.count == 3000)
            #expect(all.count == Set(all).count && all == ids.map { $0.uuidString.lowercased() }, "every job once, in id order")

            let failed = try await walk("status=failed")
            let expectedFailed = try await db.query("SELECT job_id FROM ferry.jobs WHERE batch = 'big' AND state = 'failed' ORDER BY job_id")
                .rows.map { try $0.decode(UUID.self, at: 0).uuidString.lowercased() }
            #expect(failed == expectedFailed && failed.count == 120)

            let needles = try await walk("q=NEEDLE")
            #expect(needles.count == 300)
            #expect(Set(needles) == Set(ids.enumerated().filter { $0.offset % 10 == 0 }.map { $0.element.uuidString.lowercased() }))
        }
    }

    @Test("the event stream reports a change after a job changes (notified, and a success seen through the event head); viewers cost no connections", .tags(.process))
    func eventStream() async throws {
        let db = try await TestDatabase.make("dashsse")
        let store = db.store()
        defer { store.client.close() }
        let ids = try await Self.seed(store, batch: "live", count: 1, failed: 1)
        try await DashboardProbe.with(db, ["--read-only"]) { dashboard in
            // The shared listener is subscribed before the change (else the notification would go unheard).
            try await eventually(timeout: .seconds(300), "the dashboard's LISTEN connection") {
                try await db.query(
                    "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'ferry dashboard' AND query ILIKE 'LISTEN%'"
                ).rows[0].decode(Int.self, at: 0) > 0
            }
            let root = dashboard.root
            let http = dashboard.http
            let received = try await withThrowingTaskGroup(of: String.self) { group in
                group.addTask {
                    // A guard against a hang, not a speed check: a starved machine can take minutes.
                    try await Task.sleep(for: .seconds(300))
                    throw TestSupportError("no change event within 300 s")
                }
                group.addTask {
                    var request = HTTPClientRequest(url: root + "/events")
                    request.headers.add(name: "Accept", value: "text/event-stream")
                    let response = try await http.execute(request, timeout: .seconds(300))
                    #expect(response.status.code == 200)
                    #expect(response.headers.first(name: "content-type") == "text/event-stream")
                    var received = ""
                    var iterator = response.body.makeAsyncIterator()
                    // The stream's opening comment shows the subscription is in place before the job changes.
                    while !received.contains("\n\n"), let chunk = try await iterator.next() { received += String(buffer: chunk) }
                    _ = try await store.retry(.job(ids[0]), requestedBy: "test")
                    while !received.contains("event: change"), let chunk = try await iterator.next() { received += String(buffer: chunk) }
                    // A success sends no notification; the dashboard's once-a-second read of the event head reports it.
                    let claimed = try await store.claim(worker: "sse", queues: ["default"], limit: 1)
                    _ = try await store.record(claimed.map { .succeeded($0, bytes: 1000) })
                    while !received.contains(#""channel":"events""#), let chunk = try await iterator.next() {
                        received += String(buffer: chunk)
                    }
                    return received
                }
                let first = try await group.next()!
                group.cancelAll()
                return first
            }
            #expect(received.contains("event: change"))
            #expect(received.contains("ferry_jobs"), "a requeued job wakes workers on ferry_jobs: \(received)")
            // Viewers cost no connections: with 20 more streams open the dashboard holds its pool and one listener at most.
            let streams = try await withThrowingTaskGroup(of: HTTPClientResponse.self, returning: [HTTPClientResponse].self) { group in
                for _ in 0..<20 {
                    group.addTask { try await http.execute(HTTPClientRequest(url: root + "/events"), timeout: .seconds(300)) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(streams.allSatisfy { $0.status.code == 200 })
            _ = try await dashboard.get("/", json: true)
            let connections = try await db.query(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'ferry dashboard'"
            ).rows[0].decode(Int.self, at: 0)
            #expect(connections >= 1 && connections <= 5, "\(connections) connections")

        // SIGTERM ends the open streams and the process exits cleanly.
        dashboard.process.signal(SIGTERM)
        #expect(try await dashboard.process.waitForExit(timeout: .seconds(15)) == 0)
        }
    }

    @Test("actions need the token and a CSRF token; retry makes a failed job queued and a real worker then runs it", .tags(.process))
    func guardedActions() async throws {
        let db = try await TestDatabase.make("dashact")
        let store = db.store()
        defer { store.client.close() }
        let ids = try await Self.seed(store, batch: "fix", queue: "dash", count: 2, failed: 2)
        let (first, second) = (ids[0].uuidString.lowercased(), ids[1].uuidString.lowercased())

        // Without a token (and without --read-only) the command refuses to start.
        let refused = try await FerryProcess.run(["dashboard", "--listen", "127.0.0.1:0"], databaseURL: db.url)
        #expect(refused.status == 64)
        #expect(refused.stderr.contains("FERRY_DASHBOARD_TOKEN"))

        try await DashboardProbe.inProcess(db, token: Self.token) { dashboard in
            let page = try await dashboard.get("/jobs/\(first)")
            // A viewer without a session sees no button that would only answer 401; the login form is there.
            #expect(!page.body.contains("/ferry/jobs/\(first)/retry") && page.body.contains("action=\"/ferry/login\""))
            let csrf = try #require(page.cookies["ferry_csrf"])
            #expect(page.headers["set-cookie"].first?.contains("SameSite=Strict") == true)

            // No credentials, a wrong bearer token, a wrong login: 401 and nothing changes.
            #expect(try await dashboard.request(.POST, "/jobs/\(first)/retry", cookies: ["ferry_csrf": csrf], form: ["csrf": csrf]).status == 401)
            #expect(try await dashboard.request(.POST, "/jobs/\(first)/retry", form: [:], headers: ["Authorization": "Bearer wrong-token-0123456789"]).status == 401)
            let visitor = try await dashboard.visit()
            #expect(try await dashboard.request(.POST, "/login", cookies: visitor.cookies, form: ["csrf": visitor.csrf, "token": "wrong"]).status == 401)
            // A login without the CSRF field is refused too.
            #expect(try await dashboard.request(.POST, "/login", cookies: visitor.cookies, form: ["token": Self.token]).status == 403)
            #expect(try await Self.state(db, ids[0]) == "failed")

            let browser = try await dashboard.login(token: Self.token)
            #expect(try await dashboard.get("/jobs/\(first)", cookies: browser.cookies).body.contains("/ferry/jobs/\(first)/retry"), "a Retry button for a failed job")
            // Logged in, but without the CSRF field, or with another one: 403.
            #expect(try await dashboard.request(.POST, "/jobs/\(first)/retry", cookies: browser.cookies, form: [:]).status == 403)
            #expect(try await dashboard.request(.POST, "/jobs/\(first)/retry", cookies: browser.cookies, form: ["csrf": String(repeating: "0", count: 64)]).status == 403)
            #expect(try await Self.state(db, ids[0]) == "failed")

            // The browser's form: 303 back to the job, which is queued with a `requeued` event like `ferry retry`.
            let retried = try await dashboard.request(.POST, "/jobs/\(first)/retry", cookies: browser.cookies, form: ["csrf": browser.csrf])
            #expect(retried.status == 303, "\(retried.body)")
            #expect(retried.headers.first(name: "location") == "/ferry/jobs/\(first)?done=requeued:1")
            #expect(try await Self.state(db, ids[0]) == "queued")
            let last = try await db.query("SELECT type, data->>'by' FROM ferry.events WHERE job_id = $1::uuid ORDER BY version DESC LIMIT 1", [ids[0]]).rows[0]
            #expect(try last.decode(String.self, at: 0) == "requeued")
            #expect(try last.decode(String.self, at: 1) == "ferry dashboard")

            // A script with the bearer token (JSON answer).
            let scripted = try await dashboard.request(.POST, "/jobs/\(second)/retry", json: true, form: [:], headers: ["Authorization": "Bearer \(Self.token)"])
            #expect(scripted.status == 200, "\(scripted.body)")
            #expect(((scripted.json as? [String: Any])?["jobs"] as? [[String: Any]])?.first?["action"] as? String == "requeued")
            #expect(try await Self.state(db, ids[1]) == "queued")

            // A whole batch: cancel then retry, like `ferry cancel --batch` / `ferry retry --batch`.
            let parked = try await Self.seed(store, batch: "parked", queue: "dash-parked", count: 3)
            let cancelled = try await dashboard.request(.POST, "/batches/parked/cancel", json: true, form: [:], headers: ["Authorization": "Bearer \(Self.token)"])
            #expect(cancelled.status == 200, "\(cancelled.body)")
            #expect(((cancelled.json as? [String: Any])?["jobs"] as? [[String: Any]])?.compactMap { $0["action"] as? String } == ["cancelled", "cancelled", "cancelled"])
            #expect((cancelled.json as? [String: Any])?["result"] as? String == "3 jobs cancelled")
            for id in parked { #expect(try await Self.state(db, id) == "cancelled") }
            let browserRetry = try await dashboard.request(.POST, "/batches/parked/retry", cookies: browser.cookies, form: ["csrf": browser.csrf, "confirm": "3"])
            #expect(browserRetry.status == 303 && browserRetry.headers.first(name: "location") == "/ferry/batches/parked?done=requeued:3")
            for id in parked { #expect(try await Self.state(db, id) == "queued") }
            #expect(try await dashboard.request(.POST, "/batches/nosuch/cancel", form: [:], headers: ["Authorization": "Bearer \(Self.token)"]).status == 404)

            let worker = try BackgroundProcess(
                ferry: ["worker", "--name", "dash-noop", "--handler", "noop", "--queues", "dash", "--poll-interval", "0.2"], databaseURL: db.url)
            try await eventually(timeout: .seconds(300), "the retried jobs to succeed") {
                let first = try await Self.state(db, ids[0])
                let second = try await Self.state(db, ids[1])
                return first == "succeeded" && second == "succeeded"
            }
            worker.signal(SIGTERM)
            _ = try await worker.waitForExit()
            let done = try await dashboard.get("/batches/fix", json: true)
            #expect(((done.json as? [String: Any])?["batch"] as? [String: Any])?["succeeded"] as? Int == 2)
        }
    }
}
