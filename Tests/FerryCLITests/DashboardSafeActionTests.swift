import FerryCore
import FerryStore
import FerryTestSupport
import Foundation
import Postgres
import Testing

/// Acting safely from the dashboard: bulk actions ask first and name their count (without JavaScript), refuse a
/// confirmation whose count no longer holds, say what they did; a viewer without a session sees no action buttons;
/// rows with actions stack on a phone.
@Suite("ferry dashboard safe actions", .tags(.postgres))
struct DashboardSafeActionTests {
    static let token = DashboardTests.token
    static let bearer = ["Authorization": "Bearer \(token)"]
    /// Markup in the error text: the confirmation must show it as text.
    static let error = "disk <img src=x onerror=alert(1)> full"

    static func discardedCount(_ db: TestDatabase) async throws -> Int {
        try await db.query("SELECT count(*) FROM ferry.events WHERE type = 'discarded'").rows[0].decode(Int.self, at: 0)
    }

    @Test("Discard group asks 'Discard 10 failed jobs of the group …?' carrying its count; forged, malformed or stale counts, a missing CSRF token or session and another origin do nothing; the confirmed count acts and the page says what was done")
    func confirmThenDiscard() async throws {
        let db = try await TestDatabase.make("dashconfirm")
        let store = db.store()
        defer { store.client.close() }
        let ids = try await DashboardTests.seed(store, batch: "pics", queue: "conf", count: 11)
        let errors = Array(repeating: Self.error, count: 11)
        try await DashboardConsoleTests.fail(store, queue: "conf", ids: ids, errors: Array(errors.prefix(10)))
        try await DashboardProbe.inProcess(db, token: Self.token) { dashboard in
            let group = try #require(FailureKey.id(of: try await dashboard.get("/failed", json: true), code: ""))
            let path = "/failed/groups/\(group)/discard"
            let browser = try await dashboard.login(token: Self.token)

            // The first POST only asks: the count, the group as text, the same form again with confirm=10, and Back.
            let asked = try await dashboard.request(.POST, path, cookies: browser.cookies, form: ["csrf": browser.csrf])
            #expect(asked.status == 200, "\(asked.body)")
            #expect(asked.body.contains("Discard 10 failed jobs of the group"), "\(asked.body)")
            #expect(asked.body.contains("&lt;img src=x onerror=alert(") && !asked.body.contains("<img src=x"), "\(asked.body)")
            #expect(asked.body.contains("action=\"/ferry\(path)\"") && asked.body.contains("name=\"confirm\" value=\"10\""))
            #expect(asked.body.contains(">Discard 10</button>") && asked.body.contains("href=\"/ferry/failed\">Back</a>"))
            #expect(asked.body.contains("name=\"csrf\" value=\"\(browser.csrf)\""))
            #expect(try await Self.discardedCount(db) == 0, "asking changes nothing")

            // A forged count, counts that are not counts, no CSRF token, no session, another origin: nothing done.
            #expect(try await dashboard.request(.POST, path, cookies: browser.cookies, form: ["csrf": browser.csrf, "confirm": "9"]).status == 409)
            for bad in ["", "-1", "ten", "10 ", "1e1", "0x0a", "9999999999", "１０"] {
                let answer = try await dashboard.request(.POST, path, cookies: browser.cookies, form: ["csrf": browser.csrf, "confirm": bad])
                #expect(answer.status == 400, "confirm=\(bad): \(answer.status) \(answer.body)")
            }
            #expect(try await dashboard.request(.POST, path, cookies: browser.cookies, form: ["confirm": "10"]).status == 403)
            #expect(try await dashboard.request(.POST, path, form: ["confirm": "10"]).status == 401)
            #expect(try await dashboard.request(
                .POST, path, cookies: browser.cookies, form: ["csrf": browser.csrf, "confirm": "10"], headers: ["Origin": "http://evil.example"]).status == 403)
            #expect(try await Self.discardedCount(db) == 0)

            // The group grew since the page was shown: the replayed confirmation is refused, nothing discarded.
            try await DashboardConsoleTests.fail(store, queue: "conf", ids: ids, errors: errors)
            try await eventually(timeout: .seconds(60), "the 11th failure to join the group") {
                try await db.query("SELECT count(*) FROM ferry.jobs WHERE state = 'failed'").rows[0].decode(Int.self, at: 0) == 11
            }
            let stale = try await dashboard.request(.POST, path, cookies: browser.cookies, form: ["csrf": browser.csrf, "confirm": "10"])
            #expect(stale.status == 409 && stale.body.contains("nothing was done") && stale.body.contains("11"), "\(stale.body)")
            #expect(try await Self.discardedCount(db) == 0)

            // The count it would act on now: done, and the page it goes back to says so.
            let done = try await dashboard.request(.POST, path, cookies: browser.cookies, form: ["csrf": browser.csrf, "confirm": "11"])
            #expect(done.status == 303 && done.headers.first(name: "location") == "/ferry/failed?done=discarded:11", "\(done.body)")
            #expect(try await Self.discardedCount(db) == 11)
            let back = try await dashboard.get("/failed?done=discarded:11", cookies: browser.cookies)
            #expect(back.body.contains("<p id=\"flash\" role=\"status\">11 jobs discarded</p>"))
            // Replayed once more: the group is gone.
            #expect(try await dashboard.request(.POST, path, cookies: browser.cookies, form: ["csrf": browser.csrf, "confirm": "11"]).status == 404)

            // The result message takes only known outcomes and counts from the address: no text of an attacker's.
            for forged in ["%3Cscript%3Ealert(1)%3C%2Fscript%3E", "discarded:1%3Cb%3E", "discarded:99999999999", "owned:3", "discarded:-1"] {
                let page = try await dashboard.get("/failed?done=\(forged)", cookies: browser.cookies)
                #expect(page.status == 200 && !page.body.contains("id=\"flash\""), "\(forged)")
            }
        }
    }

    @Test("bulk actions by filter and selection, and batch actions, ask first; hostile filter text goes back escaped; scripts act at once or may confirm; JSON answers say what was done")
    func bulkAndBatch() async throws {
        let db = try await TestDatabase.make("dashconfirmbulk")
        let store = db.store()
        defer { store.client.close() }
        // 0-3 failed, 4-7 queued.
        let ids = try await DashboardTests.seed(store, batch: "trip", queue: "cb", count: 8, failed: 4)
        let text = ids.map { $0.uuidString.lowercased() }
        try await DashboardProbe.inProcess(db, token: Self.token) { dashboard in
            let browser = try await dashboard.login(token: Self.token)
            let hostile = "\"><script>alert(1)</script>"
            let filter = try await dashboard.request(
                .POST, "/bulk/discard", cookies: browser.cookies,
                pairs: [("scope", "filter"), ("batch", "trip"), ("status", "failed"), ("q", hostile), ("csrf", browser.csrf)])
            #expect(filter.status == 200 && filter.body.contains("Discard 0 failed jobs of batch “trip” matching status failed and text"))
            #expect(!filter.body.contains("<script>alert") && filter.body.contains("text “&quot;&gt;&lt;script&gt;"), "\(filter.body)")
            #expect(!filter.body.contains("id=\"confirm-button\""), "nothing to act on: no button")
            // Every field goes back in the confirmation's form, names and values escaped.
            let carried = try await dashboard.request(
                .POST, "/bulk/discard", cookies: browser.cookies,
                pairs: [("scope", "filter"), ("batch", "trip"), ("status", "failed"), ("x\"><b>", hostile), ("csrf", browser.csrf)])
            #expect(carried.body.contains("Discard 4 failed jobs of batch “trip” matching status failed?"), "\(carried.body)")
            #expect(carried.body.contains("<input type=\"hidden\" name=\"x&quot;&gt;&lt;b&gt;\" value=\"&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;\">"))
            #expect(!carried.body.contains("<script>alert") && !carried.body.contains("x\"><b>"))

            let cancel = try await dashboard.request(.POST, "/batches/trip/cancel", cookies: browser.cookies, form: ["csrf": browser.csrf])
            #expect(cancel.status == 200 && cancel.body.contains("Cancel 4 queued or running jobs of batch “trip”?"), "\(cancel.body)")
            #expect(cancel.body.contains("href=\"/ferry/batches/trip\">Back</a>"))
            for index in 4..<8 { #expect(try await DashboardTests.state(db, ids[index]) == "queued") }

            // A selection: three named, two of them failed.
            let selection = [("job", text[0]), ("job", text[1]), ("job", text[5])]
            let asked = try await dashboard.request(.POST, "/bulk/discard", cookies: browser.cookies, pairs: selection + [("csrf", browser.csrf)])
            #expect(asked.body.contains("Discard 2 failed jobs among the 3 selected?"), "\(asked.body)")
            for id in text[0...1] + [text[5]] { #expect(asked.body.contains("name=\"job\" value=\"\(id)\"")) }
            // A confirmation whose count does not fit the selection sent with it (two of these four are failed).
            let swapped = [("job", text[2]), ("job", text[3]), ("job", text[5]), ("job", text[6])]
            let confirmed = try await dashboard.request(
                .POST, "/bulk/discard", cookies: browser.cookies, pairs: swapped + [("csrf", browser.csrf), ("confirm", "3")])
            #expect(confirmed.status == 409)

            // A retry with options names them (escaped) and carries them to the confirmation's form.
            let options = try await dashboard.request(
                .POST, "/batches/trip/retry", cookies: browser.cookies, form: ["csrf": browser.csrf, "options": "mode=<overwrite>"])
            #expect(options.body.contains("Retry 4 failed or cancelled jobs of batch “trip” with options “mode=&lt;overwrite&gt;”?"), "\(options.body)")
            #expect(options.body.contains("name=\"options\" value=\"mode=&lt;overwrite&gt;\""))

            // A session asking for JSON gets the question as JSON.
            let json = try await dashboard.request(.POST, "/batches/trip/retry", json: true, cookies: browser.cookies, form: ["csrf": browser.csrf])
            let question = (json.json as? [String: Any])?["confirm"] as? [String: Any]
            #expect(question?["jobs"] as? Int == 4 && question?["action"] as? String == "retry", "\(json.body)")

            // Scripts: a stale confirm is refused as JSON; without one they act at once and read what was done.
            let stale = try await dashboard.request(.POST, "/batches/trip/retry", form: ["confirm": "5"], headers: Self.bearer)
            #expect(stale.status == 409 && (stale.json as? [String: Any])?["error"] != nil)
            let retried = try await dashboard.request(.POST, "/batches/trip/retry", form: ["confirm": "4"], headers: Self.bearer)
            let answer = try #require(retried.json as? [String: Any])
            #expect(answer["result"] as? String == "4 jobs requeued" && (answer["counts"] as? [String: Any])?["requeued"] as? Int == 4)
            let cancelled = try await dashboard.request(.POST, "/batches/trip/cancel", form: [:], headers: Self.bearer)
            #expect((cancelled.json as? [String: Any])?["result"] as? String == "8 jobs cancelled", "\(cancelled.body)")
        }
    }

    @Test("a viewer without a session sees no action buttons, only the login form; rows with actions stack on a narrow screen")
    func viewerAndPhone() async throws {
        let db = try await TestDatabase.make("dashviewer")
        let store = db.store()
        defer { store.client.close() }
        let ids = try await DashboardTests.seed(store, batch: "view", queue: "vq", count: 3, failed: 2)
        try await DashboardProbe.inProcess(db, token: Self.token) { dashboard in
            for path in ["/", "/failed", "/queues", "/schedules", "/batches/view", "/jobs/\(ids[0].uuidString.lowercased())"] {
                let page = try await dashboard.get(path)
                #expect(page.status == 200, "\(path)")
                #expect(!page.body.contains("class=\"action") && !page.body.contains("type=\"checkbox\" name=\"job\""), "\(path): a button for a viewer")
                #expect(page.body.contains("action=\"/ferry/login\""), "\(path): the login form")
            }
            let browser = try await dashboard.login(token: Self.token)
            let failed = try await dashboard.get("/failed", cookies: browser.cookies)
            #expect(failed.body.contains("Discard group") && failed.body.contains("Retry group"))
            // At 390 px the group rows become blocks of labelled lines, their buttons inside the screen.
            #expect(failed.body.contains("<table class=\"stack\"><tr><th>error</th>"))
            #expect(failed.body.contains("@media (max-width:760px){table.stack,table.stack tbody,table.stack tr,table.stack td{display:block;width:100%}"))
            #expect(failed.body.contains("<td data-label=\"jobs\"><b class=\"group-count\">2</b></td>"))
            let queues = try await dashboard.get("/queues", cookies: browser.cookies)
            #expect(queues.body.contains("<table class=\"stack\"><tr><th>queue</th>") && queues.body.contains(">Pause</button>"))
            #expect(try await dashboard.get("/schedules", cookies: browser.cookies).body.contains("<table class=\"stack\"><tr><th>schedule</th>"))
        }
    }
}
