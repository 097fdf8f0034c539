import FerryTestSupport
import Foundation
import Postgres
import Testing

/// `ferry enqueue copy`: what a copy between providers accepts and refuses at enqueue (the CLI, JSON Lines and
/// SQL), each refusal naming the problem and the fix, with nothing written.
@Suite("ferry CLI: copy between providers", .tags(.postgres, .process))
struct CopyEnqueueTests {
    /// A database with a Dropbox account `box` and an S3 account `arc`, neither checked with a provider.
    static func database(_ label: String) async throws -> TestDatabase {
        let db = try await TestDatabase.make(label)
        let keyFile = try temporaryFolder("copy-keys") + "/key-id"
        defer { try? FileManager.default.removeItem(atPath: (keyFile as NSString).deletingLastPathComponent) }
        try "AKIAEXAMPLE".write(toFile: keyFile, atomically: true, encoding: .utf8)
        for (name, arguments, stdin) in [
            ("box", ["--provider", "dropbox", "--app-key", "k", "--app-secret-file", "-"], "secret\n"),
            ("arc", ["--provider", "s3", "--region", "us-east-1", "--access-key-id-file", keyFile, "--secret-access-key-file", "-"], "s3secret\n"),
        ] {
            let added = try await FerryProcess.run(
                ["account", "add", name] + arguments + ["--no-verify"], databaseURL: db.url, stdin: stdin,
                environment: DropboxAccounts.environment)
            #expect(added.status == 0, "\(added.stderr)")
        }
        return db
    }

    func jobs(_ db: TestDatabase) async throws -> Int {
        try await db.query("SELECT count(*) FROM ferry.jobs").rows[0].decode(Int.self, at: 0)
    }

    @Test("a folder copy and a file copy resolve both sides: the job's account is the destination's, the source's travels in the spec")
    func accepted() async throws {
        let db = try await Self.database("copy_ok")
        let folder = try await FerryProcess.run(
            ["enqueue", "copy", "dropbox:box:/Camera", "--recursive", "--to", "s3:arc:bucket/cam/", "--exclude", "*.tmp", "--dry-run", "--json"],
            databaseURL: db.url)
        #expect(folder.status == 0, "\(folder.stderr)")
        #expect(folder.stdout.contains(#""source":"dropbox:box:/Camera/""#) && folder.stdout.contains(#""destination":"s3:arc:bucket/cam/""#), "\(folder.stdout)")
        #expect(try await jobs(db) == 0, "a dry run writes nothing")

        let file = try await FerryProcess.run(["enqueue", "copy", "s3:arc:bucket/in/a.jpg", "--to", "dropbox:box:/Photos/"], databaseURL: db.url)
        #expect(file.status == 0, "\(file.stderr)")
        let row = try await db.query("SELECT kind, source, destination, account, spec::text FROM ferry.jobs").rows[0]
        #expect(try row.decode(String.self, at: 0) == "copy")
        #expect(try row.decode(String.self, at: 2) == "dropbox:box:/Photos/a.jpg", "a folder destination gets the source's name")
        #expect(try row.decode(String.self, at: 3) == "box", "the job's account is the destination's")
        let spec = try row.decode(String.self, at: 4)
        #expect(spec.contains(#""from": {"#) && spec.contains(#""account": "arc""#) && spec.contains(#""if_changed": true"#), "\(spec)")

        // From SQL, as a producer's application would: the same kind, checked by the same rules.
        let id = try await db.query("SELECT ferry.enqueue('copy', 's3:arc:bucket/in/b.jpg', 'dropbox:box:/Photos/b.jpg')::text").rows[0]
            .decode(String.self, at: 0)
        #expect(!id.isEmpty)

        // A nightly copy: a schedule's template may be a copy (each tick lists the folder; unchanged files cost nothing).
        let schedule = try await FerryProcess.run(
            ["schedule", "add", "nightly", "--every", "1d", "--", "copy", "dropbox:box:/Camera", "--recursive", "--to", "s3:arc:bucket/cam/"],
            databaseURL: db.url)
        #expect(schedule.status == 0, "\(schedule.stderr)")
        let template = try await db.query("SELECT template::text FROM ferry.schedules WHERE name = 'nightly'").rows[0].decode(String.self, at: 0)
        #expect(template.contains(#""kind": "copy""#) && template.contains("dropbox:box:/Camera/"), "\(template)")
    }

    @Test("refused with the problem and the fix, nothing written: local sides, a folder into a file, unknown accounts, filters on one file, raw events")
    func refused() async throws {
        let db = try await Self.database("copy_refused")
        let cases: [([String], String)] = [
            (["copy", "dropbox:box:/Camera/a.jpg", "--to", "/srv/in/"], "a copy goes to another provider, not a local folder"),
            (["copy", "dropbox:box:/Camera/a.jpg", "--to", "file:///srv/in/"], "ferry enqueue fetch"),
            (["copy", "/etc/passwd", "--to", "s3:arc:bucket/x/"], "ferry enqueue upload"),
            (["copy", "https://example.com/a.jpg", "--to", "s3:arc:bucket/x/"], "no provider copies from 'https:'"),
            (["copy", "dropbox:box:/Camera/", "--to", "s3:arc:bucket/cam"], "a folder is copied into a folder"),
            (["copy", "dropbox:box:/Camera", "--recursive", "--to", "s3:arc:bucket/cam"], "end --to with /"),
            (["copy", "dropbox:nobody:/Camera/a.jpg", "--to", "s3:arc:bucket/x/"], "unknown account 'nobody'"),
            (["copy", "dropbox:arc:/Camera/a.jpg", "--to", "s3:arc:bucket/x/"], "is a s3 account, not dropbox"),
            (["copy", "s3:arc:bucket/a.jpg", "--to", "s3:arc:bucket/"], "would write over its own source"),
            (["copy", "s3:arc:bucket/photos/", "--to", "s3:arc:bucket/photos/backup/"], "inside the folder being copied"),
            (["copy", "dropbox:box:/Camera", "--recursive", "--to", "dropbox:box:/camera/Copy/"], "inside the folder being copied"),
            (["copy", "s3:arc:bucket/a.jpg", "--to", "dropbox:box:/x/", "--include", "*.jpg"], "a copy of one file has nothing to choose from"),
            (["copy", "s3:arc:bucket/a.jpg", "--to", "dropbox:box:/x/", "--option", "storage_class=GLACIER"], "storage_class"),
        ]
        for (arguments, message) in cases {
            let result = try await FerryProcess.run(["enqueue"] + arguments, databaseURL: db.url)
            #expect(result.status != 0, "\(arguments) was accepted")
            #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
            #expect(!result.stderr.contains("Fatal error") && !result.stderr.contains("Stack"), "\(result.stderr)")
        }
        #expect(try await jobs(db) == 0)

        // From SQL: local sides and unknown source accounts are refused with SQLSTATE 22023.
        for (source, destination) in [("/etc/shadow", "s3:arc:bucket/x"), ("s3:arc:bucket/a", "/srv/in/a"), ("s3:ghost:bucket/a", "dropbox:box:/a")] {
            await #expect(throws: PostgresError.self) {
                _ = try await db.query("SELECT ferry.enqueue('copy', $1, $2)", [source, destination])
            }
        }
        // A raw event naming a local side is refused whoever appends it.
        let raw = #"{"kind":"copy","queue":"default","priority":0,"max_attempts":3,"source":"s3:arc:b/a","destination":"file:///etc/cron.d/x"}"#
        let check = try await db.query("SELECT ferry.enqueued_ok($1::jsonb)", [raw]).rows[0].decode(Bool.self, at: 0)
        #expect(!check)
        #expect(try await jobs(db) == 0)
    }
}
