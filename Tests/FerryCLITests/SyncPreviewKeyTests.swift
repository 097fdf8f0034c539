import FerryTestSupport
import Foundation
import Testing

/// A sync's `--dry-run` opens the destination's account to list it: a FERRY_SECRET_KEY that does not open it is a
/// configuration problem the person at the command line fixes (78, the fix named), not an internal error.
@Suite("ferry enqueue sync --dry-run with the wrong secret key", .tags(.postgres, .process))
struct SyncPreviewKeyTests {
    @Test("the wrong FERRY_SECRET_KEY: exit 78, secret_key_mismatch and its fix, nothing enqueued")
    func wrongKey() async throws {
        let db = try await TestDatabase.make("sync_preview_key")
        let dir = try temporaryFolder("sync-preview-key")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createDirectory(atPath: dir + "/docs", withIntermediateDirectories: true)
        try Data("x".utf8).write(to: URL(fileURLWithPath: dir + "/docs/a.txt"))
        try Data("key-id".utf8).write(to: URL(fileURLWithPath: dir + "/key-id"))
        let added = try await FerryProcess.run(
            ["account", "add", "archive", "--provider", "s3", "--region", "us-east-1", "--endpoint-url", "http://127.0.0.1:9",
             "--access-key-id-file", dir + "/key-id", "--secret-access-key-file", "-", "--no-verify"],
            databaseURL: db.url, stdin: "secret\n", environment: DropboxAccounts.environment)
        #expect(added.status == 0, "\(added.stderr)")
        let otherKey = Data((0..<32).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
        let preview = try await FerryProcess.run(
            ["enqueue", "sync", dir + "/docs", "--to", "s3:archive:bucket/docs/", "--dry-run"], databaseURL: db.url,
            environment: ["FERRY_SECRET_KEY": otherKey])
        #expect(preview.status == 78, "\(preview.status): \(preview.stderr)")
        #expect(preview.stderr.contains("secret_key_mismatch") && preview.stderr.contains("FERRY_SECRET_KEY"), "\(preview.stderr)")
        #expect(try await db.query("SELECT count(*) FROM ferry.jobs").rows[0].decode(Int.self, at: 0) == 0)
    }
}
