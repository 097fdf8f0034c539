import FerryCore
import FerryTestSupport
import Foundation
import Testing

/// `ferry account update --endpoint-url` moves an S3 account to another store; the dev-server example of
/// `account add --help` names the app secret the dev server needs.
@Suite("account update --endpoint-url and the dev-server example", .tags(.postgres, .process))
struct AccountEndpointTests {
    @Test("an S3 account's endpoint changes in place (recorded in its history); another kind's is refused, nothing changed")
    func endpointUpdate() async throws {
        let db = try await TestDatabase.make("acctendpoint")
        let home = try temporaryFolder("acctendpoint")
        defer { try? FileManager.default.removeItem(atPath: home) }
        try Data("AKIDEXAMPLE".utf8).write(to: URL(fileURLWithPath: home + "/key-id"))
        for account in [["archive", "--provider", "s3", "--region", "us-east-1", "--endpoint-url", "http://127.0.0.1:9000",
                         "--access-key-id-file", home + "/key-id", "--secret-access-key-file", "-"],
                        ["box", "--provider", "dropbox", "--app-key", "k", "--refresh-token-file", "-"]] {
            let added = try await FerryProcess.run(
                ["account", "add"] + account + ["--no-verify"], databaseURL: db.url, stdin: "secret\n", environment: DropboxAccounts.environment)
            #expect(added.status == 0, "\(added.stderr)")
        }
        let moved = try await FerryProcess.run(
            ["account", "update", "archive", "--endpoint-url", "http://minio.internal:9000", "--json"], databaseURL: db.url)
        #expect(moved.status == 0, "\(moved.stderr)")
        #expect(moved.stdout.contains(#""endpoint_url":"http://minio.internal:9000""#), "\(moved.stdout)")
        let stored = try await db.query("SELECT settings->>'endpoint_url', settings->>'region' FROM ferry.accounts WHERE name = 'archive'").rows[0]
        #expect(try stored.decode(String.self, at: 0) == "http://minio.internal:9000")
        #expect(try stored.decode(String.self, at: 1) == "us-east-1", "the other settings stay")
        let history = try await db.query(
            "SELECT data->>'endpoint_url' FROM ferry.account_events WHERE account = 'archive' AND type = 'updated'").rows
        #expect(try history.last?.decode(String.self, at: 0) == "http://minio.internal:9000")

        let wrongKind = try await FerryProcess.run(["account", "update", "box", "--endpoint-url", "http://x:9000"], databaseURL: db.url)
        #expect(wrongKind.status == 64 && wrongKind.stderr.contains("--endpoint-url is an S3 account's"), "\(wrongKind.stderr)")
        let boxSettings = try await db.query("SELECT settings ? 'endpoint_url' FROM ferry.accounts WHERE name = 'box'").rows[0]
        #expect(try boxSettings.decode(Bool.self, at: 0) == false)
        for bad in ["ftp://x", "http://user:pw@x:9000"] {
            let refused = try await FerryProcess.run(["account", "update", "archive", "--endpoint-url", bad], databaseURL: db.url)
            #expect(refused.status == 64, "\(bad): \(refused.stderr)")
        }
    }

    @Test("account add --help: the dev-server example gives the app secret (the dev server refuses a refresh without it)")
    func devServerExample() async throws {
        let help = try await FerryProcess.run(["account", "add", "--help"])
        let example = help.stdout.components(separatedBy: "ferry account add dev ").dropFirst().first ?? ""
        #expect(example.prefix(200).contains("--app-secret-file"), "\(help.stdout)")
        #expect(help.stdout.contains("ferry-dev-secret"))
    }
}
