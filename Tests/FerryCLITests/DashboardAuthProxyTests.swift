import FerryStore
import FerryTestSupport
import Foundation
import Testing

/// `ferry dashboard --auth-proxy-header`: behind a sign-in proxy, viewers read and operators act; the header is
/// believed only from the trusted proxy's address; bad flags are refused naming the fix.
@Suite("ferry dashboard behind a sign-in proxy", .tags(.postgres, .process))
struct DashboardAuthProxyTests {
    static let header = "X-Forwarded-Email"

    @Test("a viewer sees the page without buttons and is refused an action; an operator acts with the page's CSRF token")
    func viewersReadOperatorsAct() async throws {
        let db = try await TestDatabase.make("dashproxy")
        let store = db.store()
        defer { store.client.close() }
        _ = try await DashboardTests.seed(store, batch: "vids", queue: "videos", count: 2)
        let flags = ["--auth-proxy-header", Self.header, "--trusted-proxy", "127.0.0.1", "--trusted-proxy", "::1", "--operator", "alice@example.com"]
        try await DashboardProbe.with(db, flags) { dashboard in
            // A viewer: named, no buttons, no token form; an action is refused (403, nothing appended).
            let viewer = try await dashboard.request(.GET, "/queues", headers: [Self.header: "bob@example.com"])
            #expect(viewer.status == 200 && viewer.body.contains("bob@example.com (viewer)"), "\(viewer.body)")
            #expect(!viewer.body.contains("/ferry/queues/videos/pause") && !viewer.body.contains("dashboard token"))
            // A viewer's page has no form at all; whatever token a viewer sends, the answer is no.
            let viewerCSRF = String(repeating: "0", count: 64)
            let refused = try await dashboard.request(
                .POST, "/queues/videos/pause", form: ["csrf": viewerCSRF], headers: [Self.header: "bob@example.com"])
            #expect(refused.status == 403 && refused.body.contains("may only read"), "\(refused.body)")

            // An operator: buttons, and the action goes through with the CSRF token of their page, not without it.
            let page = try await dashboard.request(.GET, "/queues", headers: [Self.header: "alice@example.com"])
            #expect(page.body.contains("/ferry/queues/videos/pause") && !page.body.contains("(viewer)"))
            let csrf = try #require(DashboardProbe.csrfField(page.body))
            let forged = try await dashboard.request(
                .POST, "/queues/videos/pause", form: ["csrf": viewerCSRF], headers: [Self.header: "alice@example.com"])
            #expect(forged.status == 403, "a made-up CSRF token: \(forged.body)")
            let paused = try await dashboard.request(.POST, "/queues/videos/pause", form: ["csrf": csrf], headers: [Self.header: "alice@example.com"])
            #expect(paused.status == 303, "\(paused.body)")
            #expect(try await db.query("SELECT count(*) FROM ferry.queue_events WHERE queue = 'videos'").rows[0].decode(Int.self, at: 0) == 1)

            // A value the client appended to the proxy's is another name, not the operator's; no header, nobody.
            let appended = try await dashboard.request(.GET, "/queues", headers: [Self.header: "alice@example.com, mallory"])
            #expect(appended.body.contains("(viewer)") && !appended.body.contains("/ferry/queues/videos/resume"), "\(appended.body)")
            let anonymous = try await dashboard.request(.GET, "/queues")
            #expect(!anonymous.body.contains("/ferry/queues/videos/resume") && !anonymous.body.contains("(viewer)"))
        }
    }

    @Test("the header from an address that is not the proxy's names nobody")
    func untrustedPeer() async throws {
        let db = try await TestDatabase.make("dashproxy_untrusted")
        let flags = ["--auth-proxy-header", Self.header, "--trusted-proxy", "10.0.0.0/8", "--operator", "alice@example.com"]
        try await DashboardProbe.with(db, flags) { dashboard in
            let page = try await dashboard.request(.GET, "/queues", headers: [Self.header: "alice@example.com"])
            #expect(page.status == 200 && !page.body.contains("alice@example.com"), "\(page.body)")
            let csrf = try #require(DashboardProbe.csrfField(page.body))
            let refused = try await dashboard.request(.POST, "/queues/default/pause", form: ["csrf": csrf], headers: [Self.header: "alice@example.com"])
            #expect(refused.status == 403 || refused.status == 401, "\(refused.body)")
        }
    }

    @Test("bad proxy flags are refused naming the fix: no trusted address, a bad address or header, operators without a header")
    func badFlags() async throws {
        let db = try await TestDatabase.make("dashproxy_flags")
        let cases: [([String], String)] = [
            (["--auth-proxy-header", Self.header], "--trusted-proxy"),
            (["--auth-proxy-header", Self.header, "--trusted-proxy", "proxy.local"], "is not an IP address"),
            (["--auth-proxy-header", "X User", "--trusted-proxy", "127.0.0.1"], "HTTP header name"),
            (["--auth-proxy-header", "Authorization", "--trusted-proxy", "127.0.0.1"], "cannot be Authorization"),
            (["--operator", "alice"], "go with --auth-proxy-header"),
        ]
        for (flags, message) in cases {
            let result = try await FerryProcess.run(["dashboard", "--listen", "127.0.0.1:0"] + flags, databaseURL: db.url)
            #expect(result.status == 64 && result.stderr.contains(message), "\(flags): \(result.status) \(result.stderr)")
        }
    }
}
