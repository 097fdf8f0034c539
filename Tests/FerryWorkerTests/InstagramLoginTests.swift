import FerryCore
import FerryTestSupport
import Foundation
import Postgres
import Testing

/// The way back for a held Instagram account: `ferry account login ACCOUNT --token-file` with a new token, between
/// real `ferry` processes and a real `ferry dev-server`.
@Suite("Instagram login", .tags(.postgres, .process))
struct InstagramLoginTests {
    @Test("an expired token holds the feed; ferry account login with a fresh token releases it and the feed finishes; no token is ever shown")
    func loginReleasesHeldJobs() async throws {
        let server = try await DevServerProcess()
        let db = try await TestDatabase.make("instagram_login")
        let target = try temporaryFolder("instagram-login")
        defer { try? FileManager.default.removeItem(atPath: target) }
        let user = try await InstagramFetchTests.makeUser(server, count: 5)
        try await Self.addAccount("ig", token: user.token, server: server, db: db)
        _ = try await server.request("POST", "/__dev/instagram/expire-token", json: .object(["access_token": .string(user.token)]))
        let enqueue = try await FerryProcess.run(["enqueue", "fetch", "instagram:ig", "--to", target + "/", "--batch", "held"], databaseURL: db.url)
        #expect(enqueue.status == 0, "\(enqueue.stderr)")
        let workers = try [TestWorker.transfers(db, name: "ig-login", ["--concurrency", "4"])]
        try await eventually(timeout: .seconds(120), interval: .milliseconds(200), "the account to need a new token, its feed held by the provider's code") {
            try await count(
                db,
                """
                SELECT (SELECT count(*) FROM ferry.accounts WHERE name = 'ig' AND status <> 'active')
                     + (SELECT count(*) FROM ferry.events WHERE type = 'released' AND data->>'reason' LIKE 'instagram_token:%')
                """) == 2
        }

        // The expired token is refused, and says what to do; nothing changes.
        let refused = try await Self.login(token: user.token, db: db, file: target + "/../old-token")
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("code 190"), "\(refused.stderr)")
        #expect(try await count(db, "SELECT count(*) FROM ferry.accounts WHERE name = 'ig' AND status = 'active'") == 0)

        let fresh = try await server.request("POST", "/__dev/instagram/tokens", json: .object(["user_id": .string(user.userID)]))
        let token = try #require(fresh["access_token"]?.stringValue)
        let login = try await Self.login(token: token, db: db, file: target + "/../new-token")
        #expect(login.status == 0, "\(login.stderr)")
        #expect(login.stdout.contains("linked ig"), "\(login.stdout)")
        try await eventually(timeout: .seconds(120), interval: .milliseconds(200), "the held feed to finish") {
            try await WorkerFixtures.batchDone(db, "held")
        }
        try await URLFetchTests.stop(workers)
        #expect(try await count(db, "SELECT count(*) FROM ferry.jobs WHERE batch = 'held' AND state = 'succeeded'") == user.files + 1)
        let files = try FileManager.default.contentsOfDirectory(atPath: target).filter { !$0.hasPrefix(".") }
        #expect(files.count == user.files)

        // Neither token anywhere a person or a log reader sees.
        let seen = try await db.query(
            """
            SELECT coalesce((SELECT string_agg(coalesce(last_error, '') || coalesce(metadata::text, '') || coalesce(session::text, ''), ' ') FROM ferry.jobs), '')
                || coalesce((SELECT string_agg(data::text, ' ') FROM ferry.events), '')
                || coalesce((SELECT string_agg(data::text, ' ') FROM ferry.account_events), '')
            """).rows[0].decode(String.self, at: 0)
        for secret in [user.token, token] {
            #expect(!seen.contains(secret))
            #expect(!login.stdout.contains(secret) && !login.stderr.contains(secret))
            #expect(!refused.stdout.contains(secret) && !refused.stderr.contains(secret))
            #expect(!workers[0].log.contains(secret))
        }
    }

    /// `ferry account add NAME --provider instagram --token-file -`: the token is never echoed.
    static func addAccount(_ name: String, token: String, server: DevServerProcess, db: TestDatabase) async throws {
        let result = try await FerryProcess.run(
            ["account", "add", name, "--provider", "instagram", "--token-file", "-", "--api-url", server.baseURL],
            databaseURL: db.url, stdin: token + "\n", environment: DropboxAccounts.environment)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.stdout.contains(token) && !result.stderr.contains(token))
    }

    /// Runs `ferry account login ig --token-file FILE` with `token` written to a private file, removed after.
    static func login(token: String, db: TestDatabase, file: String) async throws -> FerryProcess.Result {
        _ = FileManager.default.createFile(atPath: file, contents: Data((token + "\n").utf8), attributes: [.posixPermissions: 0o600])
        defer { try? FileManager.default.removeItem(atPath: file) }
        return try await FerryProcess.run(
            ["account", "login", "ig", "--token-file", file], databaseURL: db.url, environment: DropboxAccounts.environment)
    }
}
