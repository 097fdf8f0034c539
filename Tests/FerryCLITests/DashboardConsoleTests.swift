import FerryCore
import FerryStore
import FerryTestSupport
import Foundation
import Postgres
import Testing

/// The operator's console in the real `ferry dashboard` over loopback against a real database: failures grouped by
/// code and normalized message with a group retry, the queues page with pause and resume, the job summary, sorted
/// batch lists, progress that agrees with its bar, the layout's basics, and the JSON API's answers to scripts.
@Suite("ferry dashboard console", .tags(.postgres))
struct DashboardConsoleTests {
    static let token = DashboardTests.token

    /// Fails the first `errors.count` queued jobs of `queue` with those errors (claim order is id order).
    static func fail(_ store: FerryStore, queue: String, ids: [UUID], errors: [String]) async throws {
        let claimed = try await store.claim(worker: "seeder", queues: [queue], limit: errors.count)
        let index = Dictionary(uniqueKeysWithValues: ids.enumerated().map { ($1, $0) })
        _ = try await store.record(claimed.map { .failed($0, error: errors[index[$0.jobID]!]) })
    }

    @Test("30 jobs failing with a 404 on distinct URLs are one group; Retry group requeues all 30 as by the dashboard, and nothing else")
    func groupRetry() async throws {
        let db = try await TestDatabase.make("dashgroup")
        let store = db.store()
        defer { store.client.close() }
        let ids = try await DashboardTests.seed(store, batch: "photos", queue: "pics", count: 33)
        let errors = (0..<30).map { "http_not_found: GET https://example.com/photos/\($0)-\(UUID().uuidString).jpg answered 404" }
            + ["disk full", "disk full", "destination_exists: /srv/in/32.jpg already exists with different content"]
        try await Self.fail(store, queue: "pics", ids: ids, errors: errors)
        try await DashboardProbe.inProcess(db, token: Self.token) { dashboard in
            let page = try await dashboard.get("/failed", json: true)
            let groups = try #require((page.json as? [String: Any])?["groups"] as? [[String: Any]])
            #expect(groups.count == 3, "\(groups.map { $0["error"] ?? "" })")
            let notFound = try #require(groups.first { $0["code"] as? String == "http_not_found" })
            #expect(notFound["count"] as? Int == 30)
            #expect(notFound["message"] as? String == "GET <url> answered 404")
            #expect((notFound["jobs"] as? [Any])?.count == 20)
            let id = try #require(notFound["id"] as? String)
            let browser = try await dashboard.login(token: Self.token)
            let html = try await dashboard.get("/failed", cookies: browser.cookies)
            #expect(html.body.contains("/ferry/failed/groups/\(id)/retry") && html.body.contains("Retry group"))
            #expect(html.body.contains("<b class=\"group-count\">30</b>"))
            // Without the session's CSRF field: refused, nothing requeued.
            #expect(try await dashboard.request(.POST, "/failed/groups/\(id)/retry", cookies: browser.cookies, form: [:]).status == 403)
            let retried = try await dashboard.request(
                .POST, "/failed/groups/\(id)/retry", cookies: browser.cookies, form: ["csrf": browser.csrf, "confirm": "30"])
            #expect(retried.status == 303 && retried.headers.first(name: "location") == "/ferry/failed?done=requeued:30", "\(retried.body)")
            let requeued = try await db.query("""
                SELECT job_id FROM ferry.events WHERE type = 'requeued' AND data->>'by' = 'ferry dashboard' ORDER BY job_id
                """).rows.map { try $0.decode(UUID.self, at: 0) }
            #expect(requeued == Array(ids[0..<30]))
            for index in [30, 31, 32] { #expect(try await DashboardTests.state(db, ids[index]) == "failed") }
            // The group is gone: a second retry of it is a 404; the remaining groups are the other two.
            #expect(try await dashboard.request(.POST, "/failed/groups/\(id)/retry", form: [:], headers: ["Authorization": "Bearer \(Self.token)"]).status == 404)
            let after = try await dashboard.get("/failed", json: true)
            #expect(((after.json as? [String: Any])?["groups"] as? [Any])?.count == 2)
            // A script retries the "disk full" group and gets the two outcomes as JSON.
            let disk = FailureKey.id(of: after, code: "")
            let scripted = try await dashboard.request(.POST, "/failed/groups/\(try #require(disk))/retry", form: [:],
                                                       headers: ["Authorization": "Bearer \(Self.token)"])
            #expect(scripted.status == 200)
            #expect(((scripted.json as? [String: Any])?["jobs"] as? [[String: Any]])?.map { $0["action"] as? String } == ["requeued", "requeued"])
            #expect((scripted.json as? [String: Any])?["result"] as? String == "2 jobs requeued")
        }
    }

    @Test("Retry with options: the fix a failure names (existing=replace) goes with the retry's event; an option the job's provider does not take, or a bad value, retries nothing (422)")
    func retryWithOptions() async throws {
        let db = try await TestDatabase.make("dashretryopt")
        let store = db.store()
        defer { store.client.close() }
        let ids = try await DashboardTests.seed(store, batch: "kept", queue: "kept", count: 3)
        try await Self.fail(store, queue: "kept", ids: ids, errors: (0..<3).map { "destination_exists: /srv/in/\($0).jpg exists with different content" })
        try await DashboardProbe.inProcess(db, token: Self.token) { dashboard in
            let browser = try await dashboard.login(token: Self.token)
            let failed = try await dashboard.get("/failed", cookies: browser.cookies)
            let group = try #require(FailureKey.id(of: try await dashboard.get("/failed", json: true), code: "destination_exists"))
            #expect(failed.body.contains("action=\"/ferry/failed/groups/\(group)/retry\"") && failed.body.contains("name=\"options\""))
            #expect(try await dashboard.get("/jobs/\(ids[0].uuidString.lowercased())", cookies: browser.cookies).body.contains("Retry with options"))

            // Refused before anything is appended: an option web fetches do not take, a value not among the choices,
            // a true/false option given another word.
            for (options, words) in [("mode=overwrite", "mode"), ("existing=sometimes", "sometimes"), ("existing=replace,existing=ignore", "twice")] {
                let refused = try await dashboard.request(
                    .POST, "/failed/groups/\(group)/retry", cookies: browser.cookies, form: ["csrf": browser.csrf, "options": options, "confirm": "3"])
                #expect(refused.status == 422, "\(options): \(refused.status) \(refused.body)")
                #expect(refused.body.contains(words) && refused.body.contains("nothing was retried"), "\(refused.body)")
            }
            #expect(try await db.query("SELECT count(*) FROM ferry.events WHERE type = 'requeued'").rows[0].decode(Int.self, at: 0) == 0)

            // One job with the fix its error names, then the rest of the group with none.
            let one = try await dashboard.request(
                .POST, "/jobs/\(ids[0].uuidString.lowercased())/retry", cookies: browser.cookies,
                form: ["csrf": browser.csrf, "options": "existing=replace"])
            #expect(one.status == 303, "\(one.body)")
            let event = try await db.query(
                "SELECT data->'options'->>'existing', data->'spec'->>'existing', data->>'by' FROM ferry.events WHERE type = 'requeued' AND job_id = $1::uuid",
                [ids[0]]).rows
            #expect(event.count == 1)
            #expect(try event.first?.decode(String?.self, at: 0) == "replace")
            #expect(try event.first?.decode(String?.self, at: 1) == "replace", "the spec the retry makes carries it")
            #expect(try event.first?.decode(String?.self, at: 2) == "ferry dashboard")
            let rest = try await dashboard.request(
                .POST, "/failed/groups/\(group)/retry", form: ["options": " "], headers: ["Authorization": "Bearer \(Self.token)"])
            #expect(rest.status == 200, "\(rest.body)")
            #expect(try await db.query("SELECT count(*) FROM ferry.events WHERE type = 'requeued' AND data ? 'options'").rows[0].decode(Int.self, at: 0) == 1)
            #expect(try await db.query("SELECT count(*) FROM ferry.events WHERE type = 'requeued'").rows[0].decode(Int.self, at: 0) == 3)
        }
    }

    @Test("Discard group and Discard on a job append discarded as by the dashboard; the failures page and batch count follow")
    func discard() async throws {
        let db = try await TestDatabase.make("dashdiscard")
        let store = db.store()
        defer { store.client.close() }
        let ids = try await DashboardTests.seed(store, batch: "photos", queue: "pics", count: 6)
        let errors = (0..<4).map { "http_not_found: GET https://example.com/p/\($0).jpg answered 404" } + ["disk full", "disk full"]
        try await Self.fail(store, queue: "pics", ids: ids, errors: errors)
        try await DashboardProbe.inProcess(db, token: Self.token) { dashboard in
            let page = try await dashboard.get("/failed", json: true)
            let id = try #require(FailureKey.id(of: page, code: "http_not_found"))
            let browser = try await dashboard.login(token: Self.token)
            let html = try await dashboard.get("/failed", cookies: browser.cookies)
            #expect(html.body.contains("/ferry/failed/groups/\(id)/discard") && html.body.contains("Discard group"))
            #expect(html.body.contains("/ferry/jobs/\(ids[4].uuidString.lowercased())/discard"))
            #expect(try await dashboard.request(.POST, "/failed/groups/\(id)/discard", cookies: browser.cookies, form: [:]).status == 403)
            let discarded = try await dashboard.request(
                .POST, "/failed/groups/\(id)/discard", cookies: browser.cookies, form: ["csrf": browser.csrf, "confirm": "4"])
            #expect(discarded.status == 303 && discarded.headers.first(name: "location") == "/ferry/failed?done=discarded:4", "\(discarded.body)")
            let appended = try await db.query("""
                SELECT job_id FROM ferry.events WHERE type = 'discarded' AND data->>'by' = 'ferry dashboard' ORDER BY job_id
                """).rows.map { try $0.decode(UUID.self, at: 0) }
            #expect(appended == Array(ids[0..<4]))
            let after = try await dashboard.get("/failed", json: true)
            #expect(((after.json as? [String: Any])?["groups"] as? [Any])?.count == 1, "only disk full is left")

            // One job by a script: JSON outcome; a second discard of it changes nothing.
            let bearer = ["Authorization": "Bearer \(Self.token)"]
            let job = ids[4].uuidString.lowercased()
            let scripted = try await dashboard.request(.POST, "/jobs/\(job)/discard", form: [:], headers: bearer)
            #expect(scripted.status == 200)
            #expect(((scripted.json as? [String: Any])?["jobs"] as? [[String: Any]])?.first?["action"] as? String == "discarded")
            let twice = try await dashboard.request(.POST, "/jobs/\(job)/discard", form: [:], headers: bearer)
            #expect(((twice.json as? [String: Any])?["jobs"] as? [[String: Any]])?.first?["action"] as? String == "unchanged")
            let batch = try await dashboard.get("/batches/photos", json: true)
            let summary = try #require((batch.json as? [String: Any])?["batch"] as? [String: Any])
            #expect(summary["discarded"] as? Int == 5 && summary["failed"] as? Int == 1)
            // The job page of a discarded job offers Retry, not Discard; the batch filter knows the state.
            let jobPage = try await dashboard.get("/jobs/\(job)", cookies: browser.cookies)
            #expect(jobPage.body.contains("/ferry/jobs/\(job)/retry") && !jobPage.body.contains("/ferry/jobs/\(job)/discard"))
            let filtered = try await dashboard.get("/batches/photos?status=discarded", json: true)
            #expect(((filtered.json as? [String: Any])?["jobs"] as? [Any])?.count == 5)
        }
    }

    @Test("bulk actions: a selection from the batch page (session and CSRF), everything matching a filter (bearer, JSON), the failures page's selection; read-only refuses")
    func bulkActions() async throws {
        let db = try await TestDatabase.make("dashbulk")
        let store = db.store()
        defer { store.client.close() }
        // 0-5 failed (0-2 on /a/ paths, 3-5 on /b/), 6-7 succeeded, 8-11 queued.
        let ids = try await DashboardTests.seed(store, batch: "trip", queue: "bq", count: 12, failed: 6, succeeded: 2) { index in
            "https://example.com/\(index < 3 ? "a" : "b")/\(index).jpg"
        }
        let text = ids.map { $0.uuidString.lowercased() }
        try await DashboardProbe.inProcess(db, token: Self.token) { dashboard in
            let browser = try await dashboard.login(token: Self.token)
            let page = try await dashboard.get("/batches/trip?status=failed&q=%2Fa%2F", cookies: browser.cookies)
            #expect(page.body.contains("<form class=\"bulk\" id=\"bulk\"") && page.body.contains("formaction=\"/ferry/bulk/discard\""))
            #expect(page.body.contains("name=\"job\" value=\"\(text[0])\" form=\"bulk\""))
            #expect(page.body.contains("name=\"status\" value=\"failed\"") && page.body.contains("every job of the batch failed"))

            // The selection: two failed jobs and a succeeded one, retried; without the CSRF field nothing happens.
            let selection = [("job", text[0]), ("job", text[1]), ("job", text[6])]
            #expect(try await dashboard.request(.POST, "/bulk/retry", cookies: browser.cookies, pairs: selection).status == 403)
            let retried = try await dashboard.request(
                .POST, "/bulk/retry", cookies: browser.cookies, pairs: selection + [("csrf", browser.csrf), ("batch", "trip"), ("confirm", "2")])
            #expect(retried.status == 303 && retried.headers.first(name: "location") == "/ferry/batches/trip?done=requeued:2,unchanged:1", "\(retried.body)")
            let requeued = try await db.query("""
                SELECT job_id FROM ferry.events WHERE type = 'requeued' AND data->>'by' = 'ferry dashboard' ORDER BY job_id
                """).rows.map { try $0.decode(UUID.self, at: 0) }
            #expect(requeued == [ids[0], ids[1]])
            #expect(try await DashboardTests.state(db, ids[6]) == "succeeded")

            // Everything matching the filter (failed, text /b/) by a script: one discarded event per job, as JSON.
            let bearer = ["Authorization": "Bearer \(Self.token)"]
            let filtered = try await dashboard.request(
                .POST, "/bulk/discard", pairs: [("scope", "filter"), ("batch", "trip"), ("status", "failed"), ("q", "/b/")], headers: bearer)
            #expect(filtered.status == 200, "\(filtered.body)")
            let outcomes = try #require((filtered.json as? [String: Any])?["jobs"] as? [[String: Any]])
            #expect(outcomes.compactMap { $0["job_id"] as? String } == [text[3], text[4], text[5]])
            #expect(outcomes.allSatisfy { $0["action"] as? String == "discarded" && $0["state"] as? String == "discarded" })
            #expect(try await DashboardTests.state(db, ids[2]) == "failed", "job 2 is failed but not on a /b/ path")
            // A browser's filter action goes back to the filtered page; cancel every queued job.
            let cancelled = try await dashboard.request(
                .POST, "/bulk/cancel", cookies: browser.cookies,
                pairs: [("scope", "filter"), ("batch", "trip"), ("status", "queued"), ("csrf", browser.csrf), ("confirm", "6")])
            // Six: the four never run and the two retried above.
            #expect(cancelled.headers.first(name: "location") == "/ferry/batches/trip?status=queued&done=cancelled:6", "\(cancelled.body)")
            for index in [0, 1] + Array(8..<12) { #expect(try await DashboardTests.state(db, ids[index]) == "cancelled") }

            // The failures page: its group jobs carry boxes for the failures' bulk form.
            let failed = try await dashboard.get("/failed", cookies: browser.cookies)
            #expect(failed.body.contains("id=\"bulk-failed\"") && failed.body.contains("name=\"job\" value=\"\(text[2])\" form=\"bulk-failed\""))
            let fromFailures = try await dashboard.request(
                .POST, "/bulk/discard", cookies: browser.cookies, pairs: [("job", text[2]), ("csrf", browser.csrf), ("confirm", "1")])
            #expect(fromFailures.headers.first(name: "location") == "/ferry/failed?done=discarded:1")
            #expect(try await DashboardTests.state(db, ids[2]) == "discarded")

            // Bad requests: nothing selected, a filter without its batch, an unknown action, a bad id.
            #expect(try await dashboard.request(.POST, "/bulk/retry", pairs: [("batch", "trip")], headers: bearer).status == 400)
            #expect(try await dashboard.request(.POST, "/bulk/retry", pairs: [("scope", "filter")], headers: bearer).status == 400)
            #expect(try await dashboard.request(.POST, "/bulk/delete", pairs: [("job", text[0])], headers: bearer).status == 404)
            #expect(try await dashboard.request(.POST, "/bulk/retry", pairs: [("job", "x")], headers: bearer).status == 400)
        }
        try await DashboardProbe.inProcess(db, readOnly: true) { dashboard in
            let page = try await dashboard.get("/batches/trip")
            #expect(!page.body.contains("type=\"checkbox\" name=\"job\"") && !page.body.contains("/bulk/"))
            #expect(try await dashboard.request(.POST, "/bulk/retry", pairs: [("job", text[5])]).status == 403)
        }
    }

    @Test("search across batches: the overview's box, /search by text, id, error code, error text and metadata, HTML and JSON, paged; spaces as + or %20")
    func search() async throws {
        let db = try await TestDatabase.make("dashsearch")
        let store = db.store()
        defer { store.client.close() }
        let north = try await DashboardTests.seed(store, batch: "north", queue: "sq", count: 55) { "https://example.com/trip/IMG_\(1000 + $0).jpg" }
        let south = try await DashboardTests.seed(store, batch: "south", queue: "sq2", count: 3) { "https://example.com/trip/IMG_\(2000 + $0).jpg" }
        try await Self.fail(store, queue: "sq", ids: north, errors: ["http_not_found: GET https://example.com/x answered 404", "disk full"])
        try await DashboardProbe.inProcess(db, token: Self.token) { dashboard in
            #expect(try await dashboard.get("/").body.contains("action=\"/ferry/search\""))
            let page = try await dashboard.get("/search?q=img_")
            #expect(page.status == 200 && page.body.contains("job(s) by path or error text") && page.body.contains("href=\"/ferry/batches/south\""))
            let json = try await dashboard.get("/search?q=img_", json: true)
            let object = try #require(json.json as? [String: Any])
            #expect((object["jobs"] as? [Any])?.count == 50 && object["kind"] as? String == "text")
            let next = try #require(object["next_before"] as? String)
            let older = try await dashboard.get("/search?q=img_&before=\(next)", json: true)
            #expect(((older.json as? [String: Any])?["jobs"] as? [Any])?.count == 8, "58 jobs: 50, then 8")
            // Newest first: the south batch's jobs were enqueued last.
            let firstID = ((object["jobs"] as? [[String: Any]])?.first?["job_id"] as? String)
            #expect(firstID == south.map { $0.uuidString.lowercased() }.max())

            let byID = try await dashboard.get("/search?q=\(south[1].uuidString.lowercased())", json: true)
            #expect(((byID.json as? [String: Any])?["jobs"] as? [[String: Any]])?.map { $0["job_id"] as? String } == [south[1].uuidString.lowercased()])
            let byError = try await dashboard.get("/search?q=error%3Ahttp_not_found", json: true)
            #expect(((byError.json as? [String: Any])?["jobs"] as? [[String: Any]])?.map { $0["job_id"] as? String } == [north[0].uuidString.lowercased()])
            // A browser's GET form sends a space as +, a link as %20: both are a space; error text is searchable.
            func found(_ query: String) async throws -> [String?]? {
                ((try await dashboard.get("/search?q=\(query)", json: true).json as? [String: Any])?["jobs"] as? [[String: Any]])?.map { $0["job_id"] as? String }
            }
            let diskFull = [north[1].uuidString.lowercased()]
            #expect(try await found("disk+full") == diskFull)
            #expect(try await found("DISK%20Full") == diskFull)
            #expect(try await found("error%3Adisk+full") == diskFull)
            #expect(try await found("error:disk+fu%6Cl") == diskFull)
            #expect(try await found("disk%2Bfull") == [], "%2B is a plus, not a space")
            let kind = try await dashboard.get("/search?q=error%3Adisk+full")
            #expect(kind.body.contains("job(s) by error text") && kind.body.contains("value=\"error:disk full\""))
            // Hostile text: escaped on the page, bound in SQL, bounded in length (FormFieldsTests: an undecodable %).
            let script = try await dashboard.get("/search?q=%3Cscript%3Ealert(1)%3C%2Fscript%3E+%27%3B+--")
            #expect(script.status == 200 && !script.body.contains("<script>alert") && script.body.contains("&lt;script&gt;"))
            #expect(try await found("100%25+off") == [], "% is literal")
            let long = try await dashboard.get("/search?q=\(String(repeating: "x", count: 5000))", json: true)
            #expect((long.json as? [String: Any])?["code"] as? String == "too_long")
            let short = try await dashboard.get("/search?q=ab", json: true)
            #expect((short.json as? [String: Any])?["code"] as? String == "too_short")
            #expect(try await dashboard.get("/search?q=ab").body.contains("id=\"search-error\""))
            #expect(try await dashboard.get("/search?q=img_&before=nope").status == 400)

            // Filters across batches: state, queue and account, each bound; a bad state or an overlong value refused.
            func listed(_ query: String) async throws -> Set<String> {
                let page = try await dashboard.get("/search?\(query)", json: true)
                #expect(page.status == 200, "\(query): \(page.body)")
                return Set(((page.json as? [String: Any])?["jobs"] as? [[String: Any]])?.compactMap { $0["job_id"] as? String } ?? [])
            }
            let failed = Set(north.prefix(2).map { $0.uuidString.lowercased() })
            #expect(try await listed("state=failed") == failed)
            #expect(try await listed("state=failed&queue=sq&account=") == failed)
            #expect(try await listed("state=failed&queue=sq2").isEmpty)
            #expect(try await listed("state=queued&queue=sq2") == Set(south.map { $0.uuidString.lowercased() }))
            #expect(try await listed("account=%27+OR+1%3D1+--").isEmpty)
            #expect(try await listed("provider=%27+OR+1%3D1+--&state=failed").isEmpty, "jobs without an account have no provider")
            let filtered = try await dashboard.get("/search?q=img_&state=failed&queue=%3Cxq%3E")
            #expect(filtered.body.contains("id=\"filter-state\"") && filtered.body.contains("value=\"failed\" selected"))
            #expect(filtered.body.contains("Listed by the filters only") && !filtered.body.contains("<xq>") && filtered.body.contains("&lt;xq&gt;"))
            #expect(try await dashboard.get("/search?state=lost").status == 400)
            #expect(try await dashboard.get("/search?queue=\(String(repeating: "q", count: 201))").status == 400)
        }
    }

    @Test("the queues page pauses and resumes a queue through ferry.queue_events; the overview's paused badge links there; read-only hides the buttons")
    func queuePauseResume() async throws {
        let db = try await TestDatabase.make("dashqueue")
        let store = db.store()
        defer { store.client.close() }
        _ = try await DashboardTests.seed(store, batch: "vids", queue: "videos", count: 4)
        try await DashboardProbe.inProcess(db, token: Self.token) { dashboard in
            let before = try await dashboard.get("/queues", json: true)
            let row = try #require(((before.json as? [String: Any])?["queues"] as? [[String: Any]])?.first { $0["queue"] as? String == "videos" })
            #expect(row["paused"] as? Bool == false && row["queued"] as? Int == 4)
            let browser = try await dashboard.login(token: Self.token)
            let page = try await dashboard.get("/queues", cookies: browser.cookies)
            #expect(page.body.contains("/ferry/queues/videos/pause") && page.body.contains("name=\"reason\""))

            let paused = try await dashboard.request(
                .POST, "/queues/videos/pause", cookies: browser.cookies, form: ["csrf": browser.csrf, "reason": "Dropbox maintenance"])
            #expect(paused.status == 303 && paused.headers.first(name: "location") == "/ferry/queues", "\(paused.body)")
            let events = try await db.query("SELECT type, data->>'reason', data->>'by' FROM ferry.queue_events WHERE queue = 'videos' ORDER BY position")
            #expect(events.rows.count == 1)
            #expect(try events.rows[0].decode(String.self, at: 0) == "paused")
            #expect(try events.rows[0].decode(String.self, at: 1) == "Dropbox maintenance")
            #expect(try events.rows[0].decode(String.self, at: 2) == "ferry dashboard")
            let now = try await dashboard.get("/queues", json: true)
            let pausedRow = try #require(((now.json as? [String: Any])?["queues"] as? [[String: Any]])?.first { $0["queue"] as? String == "videos" })
            #expect(pausedRow["paused"] as? Bool == true && pausedRow["reason"] as? String == "Dropbox maintenance")
            let overview = try await dashboard.get("/")
            #expect(overview.body.contains("href=\"/ferry/queues\">paused</a>"))
            #expect(try await dashboard.get("/queues", cookies: browser.cookies).body.contains("/ferry/queues/videos/resume"))

            let resumed = try await dashboard.request(.POST, "/queues/videos/resume", form: [:], headers: ["Authorization": "Bearer \(Self.token)"])
            #expect(resumed.status == 200 && (resumed.json as? [String: Any])?["changed"] as? Bool == true, "\(resumed.body)")
            let types = try await db.query("SELECT type FROM ferry.queue_events WHERE queue = 'videos' ORDER BY position").rows.map { try $0.decode(String.self, at: 0) }
            #expect(types == ["paused", "resumed"])
            // A queue nobody knows is refused, as `ferry queue pause` refuses it without --create.
            #expect(try await dashboard.request(.POST, "/queues/phtos/pause", form: [:], headers: ["Authorization": "Bearer \(Self.token)"]).status == 404)
            #expect(try await db.query("SELECT count(*) FROM ferry.queue_events WHERE queue = 'phtos'").rows[0].decode(Int.self, at: 0) == 0)
        }
        try await DashboardProbe.inProcess(db, readOnly: true) { dashboard in
            let page = try await dashboard.get("/queues")
            #expect(page.status == 200 && page.body.contains("videos") && !page.body.contains("<button"))
        }
    }

    @Test("a bearer POST without Accept answers JSON, not 303; a batch retry with nothing to retry answers []")
    func jsonAPIAnswers() async throws {
        let db = try await TestDatabase.make("dashjson")
        let store = db.store()
        defer { store.client.close() }
        let ids = try await DashboardTests.seed(store, batch: "calm", queue: "calm", count: 3, failed: 1)
        try await DashboardProbe.inProcess(db, token: Self.token) { dashboard in
            let bearer = ["Authorization": "Bearer \(Self.token)"]
            let retried = try await dashboard.request(.POST, "/jobs/\(ids[0].uuidString.lowercased())/retry", form: [:], headers: bearer)
            #expect(retried.status == 200, "\(retried.status) \(retried.body)")
            #expect(retried.headers.first(name: "content-type") == "application/json")
            #expect(((retried.json as? [String: Any])?["jobs"] as? [[String: Any]])?.first?["action"] as? String == "requeued")
            // Nothing failed or cancelled is left in the batch.
            let nothing = try await dashboard.request(.POST, "/batches/calm/retry", form: [:], headers: bearer)
            let none = nothing.json as? [String: Any]
            #expect(nothing.status == 200 && (none?["jobs"] as? [Any])?.isEmpty == true && none?["result"] as? String == "Nothing changed", "\(nothing.body)")
            // A refusal to a script is JSON too.
            let wrong = try await dashboard.request(.POST, "/batches/calm/retry", form: [:], headers: ["Authorization": "Bearer wrong-token-0123456789"])
            #expect(wrong.status == 401 && (wrong.json as? [String: Any])?["error"] != nil)
        }
    }

    @Test("job summary, sorted batch lists, progress that agrees with its bar, binary units, humanized times, viewport and log-in indicator")
    func pagesForPeople() async throws {
        let db = try await TestDatabase.make("dashpeople")
        let store = db.store()
        defer { store.client.close() }
        // 4 jobs of 1000 bytes: 1 fails, 2 succeed, 1 stays queued; then 3 more queued and one of them running.
        let ids = try await DashboardTests.seed(store, batch: "mix", queue: "mix", count: 4, failed: 1, succeeded: 2)
        let more = try await DashboardTests.seed(store, batch: "mix", queue: "mix", count: 3)
        _ = try await store.claim(worker: "runner-1", queues: ["mix"], limit: 1)
        let running = try await db.query("SELECT job_id FROM ferry.jobs WHERE state = 'running'").rows[0].decode(UUID.self, at: 0)
        try await DashboardProbe.inProcess(db, token: Self.token) { dashboard in
            let job = try await dashboard.get("/jobs/\(ids[0].uuidString.lowercased())")
            #expect(job.body.contains("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"))
            let summary = try #require(job.body.range(of: "<dl class=\"summary\" id=\"summary\">").map { String(job.body[$0.lowerBound...]) })
            let fields = try #require(job.body.range(of: "<h3>All fields</h3>"))
            #expect(job.body.range(of: "id=\"summary\"")!.lowerBound < fields.lowerBound, "the summary comes first")
            #expect(summary.contains("<span class=\"s-failed\">failed</span>") && summary.contains("1 of 1"))
            #expect(summary.contains("id=\"job-error\">disk full</div>") && summary.contains("id=\"job-fix\">fix: "))
            #expect(summary.contains("https://example.com/0.jpg → /srv/in/0.jpg"))
            #expect(summary.contains("0 B of 1000 B"))
            #expect(summary.range(of: #"<time datetime="\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC" title="[^"]+ UTC">(just now|\d+ s ago|\d+ min ago)</time>"#, options: .regularExpression) != nil)

            // 1 failed and 2 succeeded of 7 jobs: 28.6 % blue and 14.3 % red, 42.9 % in all, beside the bar and in it.
            let batch = try await dashboard.get("/batches/mix")
            #expect(batch.body.contains("aria-label=\"42.9%\""), "\(batch.body.prefix(3000))")
            #expect(batch.body.contains("<rect class=\"failed\" x=\"28.6\" width=\"14.3\""))
            #expect(batch.body.contains("<span class=\"pct\">42.9%</span>"))
            #expect(batch.body.contains("6.8 KiB") && !batch.body.contains(" KB"))

            func order(_ query: String) async throws -> [String] {
                let page = try await dashboard.get("/batches/mix?" + query, json: true)
                #expect(page.status == 200, "\(page.body)")
                return ((page.json as? [String: Any])?["jobs"] as? [[String: Any]] ?? []).map { $0["state"] as? String ?? "" }
            }
            #expect(try await order("sort=status") == ["running", "queued", "queued", "queued", "failed", "succeeded", "succeeded"])
            let started = try await dashboard.get("/batches/mix?sort=started", json: true)
            let firstStarted = ((started.json as? [String: Any])?["jobs"] as? [[String: Any]])?.first?["job_id"] as? String
            #expect(firstStarted == running.uuidString.lowercased())
            #expect(try await order("sort=size").count == 7)
            #expect(try await dashboard.get("/batches/mix?sort=bogus").status == 400)
            #expect(more.count == 3)

            let browser = try await dashboard.login(token: Self.token)
            let overview = try await dashboard.get("/", cookies: browser.cookies)
            #expect(overview.body.contains("<span id=\"logged-in\">logged in</span>") && overview.body.contains("id=\"logout\""))
            #expect(!(try await dashboard.get("/").body.contains("id=\"logged-in\"")))
        }
    }

    @Test("status-sorted pages walk a batch of 260 jobs exactly once, running first")
    func statusKeyset() async throws {
        let db = try await TestDatabase.make("dashsort")
        let store = db.store()
        defer { store.client.close() }
        let ids = try await DashboardTests.seed(store, batch: "deep", queue: "deep", count: 260, failed: 30, succeeded: 40)
        _ = try await store.claim(worker: "runner", queues: ["deep"], limit: 5)
        try await DashboardProbe.inProcess(db, readOnly: true) { dashboard in
            var seen = [String]()
            var states = [String]()
            var after: String?
            while true {
                let page = try await dashboard.get("/batches/deep?sort=status" + (after.map { "&after=\($0)" } ?? ""), json: true)
                let object = try #require(page.json as? [String: Any])
                let jobs = object["jobs"] as? [[String: Any]] ?? []
                seen += jobs.map { $0["job_id"] as! String }
                states += jobs.map { $0["state"] as! String }
                guard let next = object["next_after"] as? String else { break }
                after = next
            }
            #expect(seen.count == 260 && Set(seen) == Set(ids.map { $0.uuidString.lowercased() }))
            let ranks = states.map { BatchJobOrder.statusOrder.firstIndex(of: $0)! }
            #expect(ranks == ranks.sorted() && states.prefix(5).allSatisfy { $0 == "running" })
        }
    }
}

/// Finds a group's id in a failed page's JSON.
enum FailureKey {
    static func id(of page: DashboardProbe.Answer, code: String) -> String? {
        ((page.json as? [String: Any])?["groups"] as? [[String: Any]])?.first { $0["code"] as? String == code }?["id"] as? String
    }
}
