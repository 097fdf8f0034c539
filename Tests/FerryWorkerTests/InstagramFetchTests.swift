import FerryCore
import FerryTestSupport
import Foundation
import Postgres
import Testing

@testable import FerryWorker

#if canImport(Glibc)
    import Glibc
#endif

/// Workers reading an Instagram feed from the dev server and fetching every file, in process (`InProcessFleet`):
/// the proof is in the jobs, the views, the server's counts and the files.
@Suite("Instagram fetches", .tags(.postgres))
struct InstagramFetchTests {
    /// Makes a dev-server user with `count` posts; answers its user id, token and the number of files.
    static func makeUser(_ server: any DevServerControl, count: Int, hostile: Bool = false) async throws -> (userID: String, token: String, files: Int) {
        let reply = try await server.request(
            "POST", "/__dev/instagram/users",
            json: .object(["username": .string("ferry.tester"), "count": .int(Int64(count)), "refresh_min_age_s": .int(0), "hostile": .bool(hostile)]))
        guard let userID = reply["user_id"]?.stringValue, let token = reply["access_token"]?.stringValue, let files = reply["files"]?.intValue else {
            throw TestSupportError("no user in the answer: \(reply)")
        }
        return (userID, token, Int(files))
    }

    /// `ferry account add NAME --provider instagram --token-file - --api-url SERVER`.
    static func addAccount(_ name: String, token: String, fleet: InProcessFleet) async throws {
        try await fleet.addAccount(name, provider: "instagram", values: ["api-url": fleet.server.baseURL], secrets: ["token": token])
    }

    /// `ferry enqueue fetch instagram:ig --to TARGET/ --batch BATCH`, then a worker until the batch is done.
    static func run(_ fleet: InProcessFleet, batch: String, target: String) async throws {
        try await fleet.enqueue(.fetch, "instagram:ig", to: target + "/", batch: batch)
        let worker = try fleet.worker("ig-\(batch)", concurrency: 6)
        try await eventually(timeout: .seconds(300), interval: .milliseconds(200), "batch \(batch) to finish") {
            try await WorkerFixtures.batchDone(fleet.db, batch)
        }
        try await fleet.stop([worker])
    }

    @Test("a 120-post feed: every image, video and album child once, metadata in job_status, links expiring and the token refreshed mid-run; a second run takes only new posts")
    func feed() async throws {
        try await InProcessFleet.run("instagram_feed") { fleet in try await Self.feed(fleet) }
    }

    static func feed(_ fleet: InProcessFleet) async throws {
        let server = fleet.server, db = fleet.db
        let parent = try temporaryFolder("instagram-feed")
        defer { try? FileManager.default.removeItem(atPath: parent) }
        let target = parent + "/ig"
        let user = try await Self.makeUser(server, count: 120, hostile: true)
        try await Self.addAccount("ig", token: user.token, fleet: fleet)
        // The token is due for its refresh (as a day after it was added): the first call refreshes it.
        _ = try await db.query("UPDATE ferry.accounts SET access_token_expires_at = now() WHERE name = 'ig'")
        // Every link listed so far expires after the 10th download: the rest of the first page's files meet expired links.
        _ = try await server.request("POST", "/__dev/instagram/expire-links", json: .object(["after_downloads": .int(10)]))

        try await Self.run(fleet, batch: "ig1", target: target)
        #expect(try await count(db, "SELECT count(*) FROM ferry.jobs WHERE state <> 'succeeded'") == 0)
        #expect(try await count(db, "SELECT count(*) FROM ferry.jobs WHERE batch = 'ig1' AND source LIKE 'instagram:ig/media/%'") == user.files)
        let names = Set(FlickrFetchTests.tree(parent))
        #expect(names.count == user.files + 1, "\(names.count) entries for \(user.files) files")
        #expect(names.allSatisfy { $0 == "ig/" || ($0.hasPrefix("ig/") && !$0.dropFirst(3).contains("/")) })

        var stats = try await server.request("GET", "/__dev/instagram/stats")
        let downloads = stats["downloads_per_path"]?.objectValue ?? [:]
        #expect(downloads.count == user.files && downloads.values.allSatisfy { $0.intValue == 1 }, "\(downloads.values.filter { $0.intValue != 1 })")
        #expect((stats["expired_links"]?.intValue ?? 0) >= 1 && (stats["item_reads"]?.intValue ?? 0) >= 1, "\(stats)")
        #expect(stats["refreshes"]?.intValue == 1, "\(stats)")
        let usedTokens = stats["calls_per_token_prefix"]?.objectValue?.keys.filter { !user.token.hasPrefix($0) } ?? []
        #expect(usedTokens.count == 1, "the refreshed token was used")

        // Username, time and likes are visible in SQL; the hostile posts made no job and no file.
        let rows = try await db.query(
            "SELECT metadata->>'username', metadata->>'posted', (metadata->>'like_count')::int FROM ferry.job_status WHERE batch = 'ig1' AND metadata ? 'instagram_id'").rows
        #expect(rows.count == user.files)
        for row in rows {
            #expect(try row.decode(String.self, at: 0) == "ferry.tester")
            #expect(try row.decode(String.self, at: 1).hasSuffix("Z"))
            #expect(try row.decode(Int?.self, at: 2) != nil)
        }
        #expect(try await count(db, "SELECT count(*) FROM ferry.job_status WHERE source LIKE '%escape%' OR metadata::text LIKE '%\\\\u001b%'") == 0)
        #expect(!FileManager.default.fileExists(atPath: parent + "/escape"))

        // Ten new posts: the second run fetches their files and nothing else.
        let added = try await server.request("POST", "/__dev/instagram/posts", json: .object(["user_id": .string(user.userID), "count": .int(10)]))
        let newFiles = Int(added["files"]?.intValue ?? -1)
        try await Self.run(fleet, batch: "ig2", target: target)
        #expect(try await count(db, "SELECT count(*) FROM ferry.jobs WHERE batch = 'ig2' AND source LIKE 'instagram:ig/media/%'") == newFiles)
        stats = try await server.request("GET", "/__dev/instagram/stats")
        let after = stats["downloads_per_path"]?.objectValue ?? [:]
        #expect(after.count == user.files + newFiles && after.values.allSatisfy { $0.intValue == 1 })
        #expect(FlickrFetchTests.tree(parent).count == user.files + newFiles + 1)
    }

    @Test("an expired token holds the feed job (no attempt used) until the account is given a new token")
    func expiredTokenHolds() async throws {
        try await InProcessFleet.run("instagram_held") { fleet in
            let server = fleet.server, db = fleet.db
            let target = try temporaryFolder("instagram-held")
            defer { try? FileManager.default.removeItem(atPath: target) }
            let user = try await Self.makeUser(server, count: 3)
            try await Self.addAccount("ig", token: user.token, fleet: fleet)
            _ = try await server.request("POST", "/__dev/instagram/expire-token", json: .object(["access_token": .string(user.token)]))
            try await fleet.enqueue(.fetch, "instagram:ig", to: target + "/", batch: "held")
            let worker = try fleet.worker("ig-held")
            try await eventually(timeout: .seconds(120), interval: .milliseconds(200), "the account to need a new token") {
                try await count(db, "SELECT count(*) FROM ferry.accounts WHERE name = 'ig' AND status <> 'active'") == 1
            }
            try await fleet.stop([worker])
            #expect(try await count(db, "SELECT count(*) FROM ferry.jobs WHERE state IN ('failed', 'succeeded')") == 0)
            #expect(try await count(db, "SELECT coalesce(sum(attempt), 0)::int FROM ferry.jobs") == 0, "no attempt was used")
            let errors = try await db.query("SELECT coalesce(string_agg(last_error, ' '), '') FROM ferry.jobs").rows[0].decode(String.self, at: 0)
            #expect(!errors.contains(user.token))
        }
    }

    @Test("a throttled account (code 4) defers its feed without using an attempt")
    func throttleDefers() async throws {
        try await InProcessFleet.run("instagram_throttle") { fleet in
            let server = fleet.server, db = fleet.db
            let target = try temporaryFolder("instagram-throttle")
            defer { try? FileManager.default.removeItem(atPath: target) }
            let user = try await Self.makeUser(server, count: 2)
            try await Self.addAccount("ig", token: user.token, fleet: fleet)
            _ = try await server.request("POST", "/__dev/instagram/usage", json: .object(["user_id": .string(user.userID), "throttle": .int(4)]))
            try await fleet.enqueue(.fetch, "instagram:ig", to: target + "/", batch: "slow")
            let worker = try fleet.worker("ig-throttle")
            try await eventually(timeout: .seconds(120), interval: .milliseconds(200), "the feed to be deferred by the rate limit") {
                try await count(
                    db, "SELECT count(*) FROM ferry.events WHERE type = 'deferred' AND data::text LIKE '%rate limit (code 4)%'") == 1
            }
            try await fleet.stop([worker])
            #expect(try await count(db, "SELECT count(*) FROM ferry.jobs WHERE state = 'queued' AND attempt = 0 AND run_at > now()") == 1)
            #expect(try await count(db, "SELECT count(*) FROM ferry.jobs WHERE state IN ('failed', 'succeeded')") == 0)
        }
    }
}
