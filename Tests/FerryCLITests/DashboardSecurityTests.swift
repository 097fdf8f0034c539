import FerryCore
import FerryStore
import FerryTestSupport
import Foundation
import Testing

/// The dashboard against the attacks of the security review (issue 20): a neighbour on the same host planting
/// CSRF cookies, cross-origin posts, wrong tokens locking the operator out, sessions that never end, missing
/// browser-hardening headers, HEAD, bad base paths, and batch names that need percent-encoding. A real
/// `ferry dashboard` process over loopback against a real database.
@Suite("ferry dashboard security", .tags(.postgres))
struct DashboardSecurityTests {
    static let token = DashboardTests.token

    /// The dashboard's origin, e.g. "http://127.0.0.1:PORT" (its root without the base path).
    static func origin(_ dashboard: DashboardProbe) -> String {
        String(dashboard.root.dropLast("/ferry".count))
    }

    static func port(_ dashboard: DashboardProbe) -> Int {
        URL(string: dashboard.root)!.port!
    }

    static let asciiAlphanumerics = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")

    static func bearer(_ token: String = token) -> [String: String] { ["Authorization": "Bearer \(token)"] }

    @Test("a CSRF cookie and field planted by a neighbour on the same host are refused; the session-bound token works, even beside a shadowing cookie")
    func neighbourCSRFCookie() async throws {
        let db = try await TestDatabase.make("dashsec")
        let store = db.store()
        defer { store.client.close() }
        let id = try await DashboardTests.seed(store, batch: "keep", queue: "dash-sec", count: 1)[0]
        let cancel = "/jobs/\(id.uuidString.lowercased())/cancel"
        try await DashboardProbe.inProcess(db, token: Self.token) { dashboard in
            let browser = try await dashboard.login(token: Self.token)
            let session = browser.cookies["ferry_session"]!
            let login = browser.cookies["ferry_csrf"]!

            // What the neighbour's page did: its own ferry_csrf cookie (a narrower path, so the browser sends it
            // first) and the same value in the form, with the operator's session cookie riding along.
            let planted = String(repeating: "ab", count: 32)
            let attack = try await dashboard.request(
                .POST, cancel, form: ["csrf": planted],
                headers: ["Cookie": "ferry_csrf=\(planted); ferry_csrf=\(login); ferry_session=\(session)"])
            #expect(attack.status == 403, "\(attack.status) \(attack.body)")
            // The old double submit with the browser's real cookie value is no token either.
            #expect(try await dashboard.request(.POST, cancel, cookies: browser.cookies, form: ["csrf": login]).status == 403)
            // Nor is the login form's token, nor a neighbour's own session id.
            let visitor = try await dashboard.visit()
            #expect(try await dashboard.request(.POST, cancel, cookies: browser.cookies, form: ["csrf": visitor.csrf]).status == 403)
            #expect(try await DashboardTests.state(db, id) == "queued", "nothing was cancelled")

            // A planted session cookie in front of the real one neither breaks nor hijacks the operator's session.
            let shadowed = try await dashboard.request(
                .POST, cancel, form: ["csrf": browser.csrf],
                headers: ["Cookie": "ferry_session=\(String(repeating: "cd", count: 32)); ferry_csrf=\(login); ferry_session=\(session)"])
            #expect(shadowed.status == 303, "\(shadowed.status) \(shadowed.body)")
            #expect(try await DashboardTests.state(db, id) == "cancelled")
        }
    }

    @Test("a POST from another origin is refused whatever its credentials (Origin, Sec-Fetch-Site); same-origin and scripts work")
    func crossOrigin() async throws {
        let db = try await TestDatabase.make("dashsec")
        let store = db.store()
        defer { store.client.close() }
        let ids = try await DashboardTests.seed(store, batch: "origin", queue: "dash-sec", count: 2)
        let cancel = "/jobs/\(ids[0].uuidString.lowercased())/cancel"
        try await DashboardProbe.inProcess(db, token: Self.token) { dashboard in
            let browser = try await dashboard.login(token: Self.token)
            let own = Self.origin(dashboard)
            let neighbour = "http://127.0.0.1:\(Self.port(dashboard) + 1)"
            let refusals: [[String: String]] = [
                ["Origin": neighbour],
                ["Origin": "null"],
                ["Origin": "http://evil.example"],
                ["Sec-Fetch-Site": "same-site"],
                ["Sec-Fetch-Site": "cross-site"],
                ["Origin": own, "Sec-Fetch-Site": "same-site"],
            ]
            for headers in refusals {
                let answer = try await dashboard.request(.POST, cancel, cookies: browser.cookies, form: ["csrf": browser.csrf], headers: headers)
                #expect(answer.status == 403, "\(headers): \(answer.status) \(answer.body)")
            }
            // A bearer request from another origin is refused too (a page holding the token is no script).
            let bearer = try await dashboard.request(.POST, cancel, json: true, form: [:], headers: Self.bearer().merging(["Origin": neighbour]) { $1 })
            #expect(bearer.status == 403)
            // A cross-origin login gets no session, even with the right token.
            let visitor = try await dashboard.visit()
            let login = try await dashboard.request(
                .POST, "/login", cookies: visitor.cookies, form: ["csrf": visitor.csrf, "token": Self.token], headers: ["Origin": neighbour])
            #expect(login.status == 403 && login.cookies["ferry_session"] == nil)
            #expect(try await DashboardTests.state(db, ids[0]) == "queued", "nothing was cancelled")

            // The dashboard's own pages: same origin.
            let own1 = try await dashboard.request(
                .POST, cancel, cookies: browser.cookies, form: ["csrf": browser.csrf], headers: ["Origin": own, "Sec-Fetch-Site": "same-origin"])
            #expect(own1.status == 303, "\(own1.body)")
            #expect(try await DashboardTests.state(db, ids[0]) == "cancelled")
            // A script: bearer token, no Origin, no cookies, no CSRF.
            let script = try await dashboard.request(.POST, "/jobs/\(ids[1].uuidString.lowercased())/cancel", json: true, form: [:], headers: Self.bearer())
            #expect(script.status == 200, "\(script.body)")
            #expect(try await DashboardTests.state(db, ids[1]) == "cancelled")
        }
    }

    @Test("50 wrong tokens from one client never lock out the right one: throttled per client address, the right token works at once everywhere")
    func throttlePerClient() async throws {
        let db = try await TestDatabase.make("dashsec")
        let store = db.store()
        defer { store.client.close() }
        let ids = try await DashboardTests.seed(store, batch: "guess", queue: "dash-sec", count: 2, failed: 2)
        let retry = "/jobs/\(ids[0].uuidString.lowercased())/retry"
        try await DashboardProbe.inProcess(db, token: Self.token) { dashboard in
            let port = Self.port(dashboard)
            // Another client (127.0.0.2) guesses 50 times: 10 are answered, the rest throttled.
            var statuses = [Int]()
            for attempt in 0..<50 {
                statuses.append(try LoopbackClient.status(
                    from: "127.0.0.2", port: port, method: "POST", path: "/ferry" + retry, headers: Self.bearer("wrong-\(attempt)")))
            }
            #expect(statuses.prefix(10).allSatisfy { $0 == 401 } && statuses.dropFirst(10).allSatisfy { $0 == 429 }, "\(statuses)")

            // This client (127.0.0.1) has its own budget: a wrong token is just wrong, the login form works.
            #expect(try await dashboard.request(.POST, retry, json: true, headers: Self.bearer("wrong-here")).status == 401)
            _ = try await dashboard.login(token: Self.token)
            // The guessing client itself: the right token is accepted at once.
            let right = try LoopbackClient.status(
                from: "127.0.0.2", port: port, method: "POST", path: "/ferry" + retry, headers: Self.bearer().merging(["Accept": "application/json"]) { $1 })
            #expect(right == 200)
            #expect(try await DashboardTests.state(db, ids[0]) == "queued")

            // 50 wrong logins from one browser: throttled, and the right token still logs that browser in.
            let visitor = try await dashboard.visit()
            var logins = [Int]()
            for attempt in 0..<50 {
                logins.append(try await dashboard.request(
                    .POST, "/login", cookies: visitor.cookies, form: ["csrf": visitor.csrf, "token": "wrong-\(attempt)"]).status)
            }
            #expect(logins.last == 429 && logins.filter { $0 == 401 }.count <= 10, "\(logins)")
            let login = try await dashboard.request(.POST, "/login", cookies: visitor.cookies, form: ["csrf": visitor.csrf, "token": Self.token])
            #expect(login.status == 303 && login.cookies["ferry_session"] != nil, "\(login.status) \(login.body)")
        }
    }

    @Test("sessions end at log-out, after the idle timeout (live refreshes do not count) and at their lifetime however busy")
    func sessionsEnd() async throws {
        let db = try await TestDatabase.make("dashsec")
        let store = db.store()
        defer { store.client.close() }
        let id = try await DashboardTests.seed(store, batch: "expiry", queue: "dash-sec", count: 1, failed: 1)[0]
        let retry = "/jobs/\(id.uuidString.lowercased())/retry"
        func loggedIn(_ dashboard: DashboardProbe, _ browser: DashboardProbe.Browser, live: Bool = false) async throws -> Bool {
            let page = try await dashboard.request(.GET, "/", cookies: browser.cookies, headers: live ? ["X-Ferry-Live": "1"] : [:])
            return page.body.contains("id=\"logout\"")
        }
        func acts(_ dashboard: DashboardProbe, _ browser: DashboardProbe.Browser) async throws -> Int {
            try await dashboard.request(.POST, retry, json: true, cookies: browser.cookies, form: ["csrf": browser.csrf]).status
        }

        // Log out (default timeouts: nothing here depends on the machine's speed). The button is in the header; it
        // needs the session's CSRF token; the session ends server-side.
        try await DashboardProbe.inProcess(db, token: Self.token) { dashboard in
            let leaving = try await dashboard.login(token: Self.token)
            #expect(try await loggedIn(dashboard, leaving))
            #expect(try await dashboard.request(.POST, "/logout", cookies: leaving.cookies, form: [:]).status == 403)
            let out = try await dashboard.request(.POST, "/logout", cookies: leaving.cookies, form: ["csrf": leaving.csrf])
            #expect(out.status == 303)
            #expect(out.headers["set-cookie"].contains { $0.hasPrefix("ferry_session=;") && $0.contains("Max-Age=0") }, "\(out.headers)")
            #expect(try await acts(dashboard, leaving) == 401, "the old cookie is no session any more")
            #expect(try await !loggedIn(dashboard, leaving))
        }

        // Idle timeout 3 s: a session unused (or only refreshed by the page's live updates) for longer has ended. Each
        // check comes after the deadline has surely passed, so a slow machine only makes it later, never wrong.
        try await DashboardProbe.inProcess(db, token: Self.token, sessionIdleTimeout: .seconds(3)) { dashboard in
            let idle = try await dashboard.login(token: Self.token)
            let watching = try await dashboard.login(token: Self.token)
            let busy = try await dashboard.login(token: Self.token)
            let start = ContinuousClock.now
            // The server sees a use somewhere between a request's send and its answer: the longest stretch it may
            // have seen between two uses is from one request's send to the next one's answer.
            var lastSent = ContinuousClock.now
            var longestGap = Duration.zero
            var busyPastIdle = false
            while ContinuousClock.now - start < .seconds(5) {
                // Time is the subject: the idle timeout of a dashboard process, whose clock a test cannot move.
                try await Task.sleep(for: .milliseconds(300))
                let sent = ContinuousClock.now
                let busyNow = try await loggedIn(dashboard, busy)
                longestGap = max(longestGap, ContinuousClock.now - lastSent)
                lastSent = sent
                if sent - start > .seconds(3) { busyPastIdle = busyPastIdle || busyNow }
                _ = try await loggedIn(dashboard, watching, live: true)
            }
            // Only a machine that kept the busy session's gaps under the idle timeout can judge it.
            if longestGap < .seconds(3) {
                #expect(busyPastIdle, "a session in use outlives the idle timeout")
            }
            #expect(try await acts(dashboard, idle) == 401, "idle for 5 s with a 3 s idle timeout")
            #expect(try await acts(dashboard, watching) == 401, "live refreshes alone do not keep a session")
        }

        // Lifetime 3 s: however busy, a session ends 3 s after its login.
        try await DashboardProbe.inProcess(db, token: Self.token, sessionLifetime: .seconds(3)) { dashboard in
            let busy = try await dashboard.login(token: Self.token)
            let start = ContinuousClock.now
            while ContinuousClock.now - start < .seconds(4) {
                _ = try await loggedIn(dashboard, busy)
                // Time is the subject: a use every 300 ms through the session's lifetime.
                try await Task.sleep(for: .milliseconds(300))
            }
            #expect(try await acts(dashboard, busy) == 401, "in use, but past its 3 s lifetime")
            #expect(try await DashboardTests.state(db, id) == "failed")
            // A new login works as ever.
            let again = try await dashboard.login(token: Self.token)
            #expect(try await acts(dashboard, again) == 200)
        }
    }

    @Test("every response carries CSP, X-Frame-Options, X-Content-Type-Options and Referrer-Policy; no inline style attributes; HEAD answers like GET without a body")
    func headersAndHead() async throws {
        let db = try await TestDatabase.make("dashsec")
        let store = db.store()
        defer { store.client.close() }
        _ = try await DashboardTests.seed(store, batch: "trip", count: 3, failed: 1, succeeded: 1)
        try await DashboardProbe.inProcess(db, token: Self.token) { dashboard in
            var answers = [("GET /", try await dashboard.get("/")), ("GET / json", try await dashboard.get("/", json: true)),
                           ("GET /batches/trip", try await dashboard.get("/batches/trip")),
                           ("404", try await dashboard.get("/nosuch")), ("job 404", try await dashboard.get("/jobs/\(UUID())")),
                           ("POST 401", try await dashboard.request(.POST, "/batches/trip/cancel", form: [:]))]
            answers.append(("HEAD /", try await dashboard.request(.HEAD, "/")))
            for (what, answer) in answers {
                let csp = answer.headers.first(name: "content-security-policy") ?? ""
                #expect(csp.contains("default-src 'none'") && csp.contains("frame-ancestors 'none'") && csp.contains("script-src 'sha256-"),
                        "\(what): \(csp)")
                #expect(!csp.contains("unsafe-inline"), "\(what)")
                #expect(answer.headers.first(name: "x-frame-options") == "DENY", "\(what)")
                #expect(answer.headers.first(name: "x-content-type-options") == "nosniff", "\(what)")
                #expect(answer.headers.first(name: "referrer-policy") == "same-origin", "\(what)")
            }
            let page = try await dashboard.get("/batches/trip")
            #expect(!page.body.contains("style=\""), "inline style attributes would need 'unsafe-inline'")

            for path in ["/", "/batches", "/batches/trip", "/failed", "/workers"] {
                let get = try await dashboard.get(path)
                let head = try await dashboard.request(.HEAD, path)
                #expect(head.status == 200 && head.body.isEmpty, "HEAD \(path): \(head.status)")
                #expect(head.headers.first(name: "content-type") == get.headers.first(name: "content-type"), "HEAD \(path)")
            }
            let stream = try await dashboard.request(.HEAD, "/events")
            #expect(stream.status == 200 && stream.body.isEmpty && stream.headers.first(name: "content-type") == "text/event-stream")
            #expect(try await dashboard.request(.HEAD, "/nosuch").status == 404)
        }
    }

    @Test("with --secure-cookies the cookies are __Host- prefixed, Secure and at path /, and the dashboard's origin is https")
    func secureCookies() async throws {
        let db = try await TestDatabase.make("dashsec")
        let store = db.store()
        defer { store.client.close() }
        let id = try await DashboardTests.seed(store, batch: "tls", queue: "dash-sec", count: 1)[0]
        try await DashboardProbe.inProcess(db, token: Self.token, secureCookies: true) { dashboard in
            let page = try await dashboard.get("/")
            let cookie = try #require(page.headers["set-cookie"].first)
            // Attributes are a set: Hummingbird writes them in no fixed order.
            let attributes = Set(cookie.split(separator: ";").dropFirst().map { $0.trimmingCharacters(in: .whitespaces) })
            #expect(cookie.hasPrefix("__Host-ferry_csrf=") && attributes.isSuperset(of: ["Secure", "Path=/", "HttpOnly", "SameSite=Strict"]),
                    "\(cookie)")
            let login = try #require(page.cookies["__Host-ferry_csrf"])
            let csrf = try #require(DashboardProbe.csrfField(page.body))
            let host = String(Self.origin(dashboard).dropFirst("http://".count))
            // The browser is on https (the proxy in front): its Origin is https://HOST, and http://HOST is another origin.
            let plain = try await dashboard.request(
                .POST, "/login", cookies: ["__Host-ferry_csrf": login], form: ["csrf": csrf, "token": Self.token], headers: ["Origin": "http://\(host)"])
            #expect(plain.status == 403, "\(plain.body)")
            let answer = try await dashboard.request(
                .POST, "/login", cookies: ["__Host-ferry_csrf": login], form: ["csrf": csrf, "token": Self.token], headers: ["Origin": "https://\(host)"])
            #expect(answer.status == 303, "\(answer.body)")
            let session = try #require(answer.cookies["__Host-ferry_session"])
            #expect(answer.headers["set-cookie"].first?.contains("; Secure") == true)
            let cookies = ["__Host-ferry_csrf": login, "__Host-ferry_session": session]
            let token = try #require(DashboardProbe.csrfField(try await dashboard.get("/", cookies: cookies).body))
            // An unprefixed cookie (what a neighbour over plain HTTP could set) is no session.
            #expect(try await dashboard.request(
                .POST, "/jobs/\(id.uuidString.lowercased())/cancel", cookies: ["ferry_session": session], form: ["csrf": token]).status == 401)
            let cancelled = try await dashboard.request(.POST, "/jobs/\(id.uuidString.lowercased())/cancel", cookies: cookies, form: ["csrf": token])
            #expect(cancelled.status == 303, "\(cancelled.body)")
            #expect(try await DashboardTests.state(db, id) == "cancelled")
        }
    }

    @Test("--base-path refuses dot and empty segments, a missing leading slash and characters outside the unreserved ones, with exit 64", .tags(.process))
    func badBasePaths() async throws {
        // Nothing listens on port 1: a base path that passes gets as far as the database and exits 69.
        let unreachable = "postgresql://ferry@127.0.0.1:1/none"
        let cases = [
            ("/../x", ".."), ("/a/./b", "."), ("/ferry/..", ".."), ("ferry", "start with /"), ("/a//b", "empty segment"),
            ("/a b", "\" \""), ("/a%2e%2e", "\"%\""), ("/a?b", "\"?\""), ("/日本", "\"日\""),
        ]
        for (path, problem) in cases {
            let result = try await FerryProcess.run(
                ["dashboard", "--read-only", "--listen", "127.0.0.1:0", "--base-path", path], databaseURL: unreachable)
            #expect(result.status == 64, "\(path): \(result.status) \(result.stderr)")
            #expect(result.stderr.contains("--base-path") && result.stderr.contains(problem), "\(path): \(result.stderr)")
            #expect(result.stderr.contains("/ferry"), "the error shows a good example: \(result.stderr)")
        }
        for path in ["/", "/ops/ferry-1.v2~x/", "/ferry"] {
            let result = try await FerryProcess.run(
                ["dashboard", "--read-only", "--listen", "127.0.0.1:0", "--base-path", path], databaseURL: unreachable)
            #expect(result.status == 69, "\(path) is a good base path: \(result.status) \(result.stderr)")
        }
    }

    @Test("--shared-read-age outside 0.1-60 seconds is refused with exit 64 and the range", .tags(.process))
    func badSharedReadAge() async throws {
        let unreachable = "postgresql://ferry@127.0.0.1:1/none"
        for age in ["0", "0.05", "61", "nan", "-1"] {
            let result = try await FerryProcess.run(
                ["dashboard", "--read-only", "--listen", "127.0.0.1:0", "--shared-read-age=\(age)"], databaseURL: unreachable)
            #expect(result.status == 64, "\(age): \(result.status) \(result.stderr)")
            #expect(result.stderr.contains("--shared-read-age"), "\(age): \(result.stderr)")
        }
        let good = try await FerryProcess.run(
            ["dashboard", "--read-only", "--listen", "127.0.0.1:0", "--shared-read-age", "2.5"], databaseURL: unreachable)
        #expect(good.status == 69, "2.5 s passes and reaches the database: \(good.status) \(good.stderr)")
    }

    @Test("batches whose names need percent-encoding are reachable from the overview's links and by direct URL, and their actions work")
    func encodedBatchNames() async throws {
        let db = try await TestDatabase.make("dashsec")
        let store = db.store()
        defer { store.client.close() }
        let names = ["schedule:nightly:2026-11-26T00:00Z", "a b", "x/y", "100%", "what?", "日本"]
        var jobs = [String: UUID]()
        for name in names { jobs[name] = try await DashboardTests.seed(store, batch: name, queue: "dash-enc", count: 1)[0] }
        try await DashboardProbe.inProcess(db, token: Self.token) { dashboard in
            let browser = try await dashboard.login(token: Self.token)
            let overview = try await dashboard.get("/")
            let links = overview.body.matches(of: #/href="/ferry(/batches/[^"]+)"/#).map { String($0.output.1) }
            for name in names {
                let link = try #require(links.first { $0.dropFirst("/batches/".count).removingPercentEncoding == name }, "\(name) in \(links)")
                let page = try await dashboard.get(link, json: true)
                #expect(page.status == 200, "\(name) via \(link): \(page.status) \(page.body)")
                #expect(((page.json as? [String: Any])?["batch"] as? [String: Any])?["batch"] as? String == name)
                let html = try await dashboard.get(link, cookies: browser.cookies)
                #expect(html.status == 200 && html.body.contains("Batch \(name.replacingOccurrences(of: "&", with: "&amp;"))"), "\(name)")

                // Typed by hand, encoded by another encoder (only ASCII letters and digits left as they are).
                let direct = "/batches/" + name.addingPercentEncoding(withAllowedCharacters: Self.asciiAlphanumerics)!
                #expect(try await dashboard.get(direct, json: true).status == 200, "\(name) via \(direct)")

                // The page's own Cancel button posts to an address the dashboard understands.
                let action = "/ferry" + link + "/cancel"
                #expect(html.body.contains("action=\"\(action)\""), "\(name): a Cancel batch form")
                let cancelled = try await dashboard.request(.POST, link + "/cancel", json: true, form: [:], headers: Self.bearer())
                #expect(cancelled.status == 200, "\(name): \(cancelled.body)")
                #expect(try await DashboardTests.state(db, jobs[name]!) == "cancelled", "\(name)")
            }
            // A job's page links back to its batch the same way.
            let jobPage = try await dashboard.get("/jobs/\(jobs["x/y"]!.uuidString.lowercased())")
            #expect(jobPage.body.contains("href=\"/ferry/batches/x%2Fy\""))
        }
    }
}
