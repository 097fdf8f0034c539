import FerryStore
import FerryTestSupport
import Foundation
import Postgres
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Issue 30's low findings at the CLI: an operator's slips get a clear error naming the problem and the fix, a
/// documented exit code, and nothing half done.
@Suite("ferry CLI: an operator's slips", .tags(.postgres, .process))
struct OperatorInputTests {
    static func folder(_ name: String) throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("ferry-slips-\(name)-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    /// Events appended by default: what a refused command must leave unchanged.
    static func count(_ db: TestDatabase, _ sql: String = "SELECT count(*) FROM ferry.events") async throws -> Int {
        try await FerryTestSupport.count(db, sql)
    }

    @Test("--max-age beyond 10000 years is a usage error naming the flag, not a crash")
    func hugeMaxAge() async throws {
        let db = try await TestDatabase.make("slips_max_age")
        let dir = try Self.folder("maxage")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        _ = FileManager.default.createFile(atPath: dir + "/a.jpg", contents: Data("a".utf8))
        for age in ["99999999999999999999y", "100000000000000000000000000000000000000d"] {
            let result = try await FerryProcess.run(
                ["enqueue", "upload", dir, "--recursive", "--to", "/srv/out/", "--max-age", age], databaseURL: db.url)
            #expect(result.status == 64, "\(age): \(result.status) \(result.stderr)")
            #expect(result.stderr.contains("--max-age") && result.stderr.contains("longer than 10000 years"), "\(result.stderr)")
            #expect(!result.stderr.contains("Fatal error") && !result.stderr.contains("Backtrace"), "\(result.stderr)")
        }
        #expect(try await Self.count(db) == 0)
        let fine = try await FerryProcess.run(
            ["enqueue", "upload", dir, "--recursive", "--to", "/srv/out/", "--max-age", "100y"], databaseURL: db.url)
        #expect(fine.status == 0, "\(fine.stderr)")
    }

    @Test("--skip-unreadable skips a file whose name is not UTF-8 (and says so); without it the enqueue is refused naming the flag")
    func nonUTF8Names() async throws {
        let db = try await TestDatabase.make("slips_utf8")
        let dir = try Self.folder("utf8")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        _ = FileManager.default.createFile(atPath: dir + "/good.jpg", contents: Data("g".utf8))
        // "bad\xff.jpg": a Latin-1 name from an old archive; FileManager cannot even spell it.
        let name = Array((dir + "/bad").utf8) + [0xFF] + Array(".jpg".utf8) + [0]
        let descriptor = name.withUnsafeBufferPointer { open(UnsafeRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self), O_CREAT | O_WRONLY, 0o600) }
        #expect(descriptor >= 0)
        close(descriptor)

        let refused = try await FerryProcess.run(["enqueue", "upload", dir, "--recursive", "--to", "/srv/out/"], databaseURL: db.url)
        #expect(refused.status == 65, "\(refused.stderr)")
        #expect(refused.stderr.contains("not UTF-8") && refused.stderr.contains("--skip-unreadable"), "\(refused.stderr)")
        #expect(try await Self.count(db) == 0)
        let skipped = try await FerryProcess.run(
            ["enqueue", "upload", dir, "--recursive", "--skip-unreadable", "--to", "/srv/out/"], databaseURL: db.url)
        #expect(skipped.status == 0, "\(skipped.stderr)")
        #expect(skipped.stderr.contains("not UTF-8"), "named as skipped: \(skipped.stderr)")
        #expect(try await Self.count(db, "SELECT count(*) FROM ferry.jobs") == 1)
    }

    @Test("--dry-run and schedule show print a file name's terminal escapes as text, never raw")
    func escapesShownAsText() async throws {
        let db = try await TestDatabase.make("slips_escapes")
        let dir = try Self.folder("escapes")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        _ = FileManager.default.createFile(atPath: dir + "/a\u{1B}]0;pwned\u{07}\u{1B}[2J.jpg", contents: Data("a".utf8))
        let dry = try await FerryProcess.run(["enqueue", "upload", dir, "--recursive", "--to", "/srv/out/", "--dry-run"], databaseURL: db.url)
        #expect(dry.status == 0, "\(dry.stderr)")
        #expect(!dry.stdout.contains("\u{1B}") && !dry.stdout.contains("\u{07}"), "\(dry.stdout)")
        #expect(dry.stdout.contains("\\u{1b}]0;pwned\\u{7}"), "\(dry.stdout)")

        let add = try await FerryProcess.run(
            ["schedule", "add", "esc", "--every", "1h", "--", "fetch", "https://example.com/a.jpg", "--to", "/srv/in\u{1B}[2J/"],
            databaseURL: db.url)
        #expect(add.status == 0, "\(add.stderr)")
        #expect(!add.stdout.contains("\u{1B}"), "\(add.stdout)")
        let show = try await FerryProcess.run(["schedule", "show", "esc"], databaseURL: db.url)
        #expect(show.status == 0, "\(show.stderr)")
        #expect(!show.stdout.contains("\u{1B}") && show.stdout.contains("/srv/in\\u{1b}[2J/"), "\(show.stdout)")
    }

    @Test("--from with --expect 0: an empty input is what was expected (exit 0, nothing enqueued); without --expect it is refused")
    func expectZero() async throws {
        let db = try await TestDatabase.make("slips_expect_zero")
        let empty = try await FerryProcess.run(["enqueue", "--from", "-", "--expect", "0"], databaseURL: db.url, stdin: "")
        #expect(empty.status == 0, "\(empty.stderr)")
        let emptyJSON = try await FerryProcess.run(["enqueue", "--from", "-", "--expect", "0", "--json"], databaseURL: db.url, stdin: "")
        #expect(emptyJSON.status == 0 && emptyJSON.stdout.isEmpty, "JSON Lines: no job, no line: \(emptyJSON.stdout)\(emptyJSON.stderr)")
        let refused = try await FerryProcess.run(["enqueue", "--from", "-"], databaseURL: db.url, stdin: "")
        #expect(refused.status == 65 && refused.stderr.contains("no jobs in the input"), "\(refused.stderr)")
        let one = #"{"kind": "fetch", "source": "https://example.com/a.jpg", "to": "/srv/in/"}"# + "\n"
        let notZero = try await FerryProcess.run(["enqueue", "--from", "-", "--expect", "0"], databaseURL: db.url, stdin: one)
        #expect(notZero.status == 65 && notZero.stderr.contains("1 job(s), not 0"), "\(notZero.stderr)")
        #expect(try await Self.count(db) == 0)
    }

    @Test("--bwlimit that rounds to 0 bytes/s is refused (worker and account update), not taken as no limit")
    func tinyBandwidthLimit() async throws {
        let db = try await TestDatabase.make("slips_bwlimit")
        try await db.query("INSERT INTO ferry.accounts (name, provider) VALUES ('me', 'dropbox')")
        for arguments in [["worker", "--handler", "noop", "--bwlimit", "0.0001K"], ["account", "update", "me", "--bwlimit", "0.0001K"]] {
            let result = try await FerryProcess.run(arguments, databaseURL: db.url, environment: ["FERRY_SECRET_KEY": ""])
            #expect(result.status == 65, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains("--bwlimit") && result.stderr.contains("less than 1 byte per second"), "\(result.stderr)")
        }
        #expect(try await Self.count(db, "SELECT count(*) FROM ferry.account_events") == 0)
        let off = try await FerryProcess.run(
            ["account", "update", "me", "--bwlimit", "0"], databaseURL: db.url, environment: ["FERRY_SECRET_KEY": ""])
        #expect(off.status == 0, "\(off.stderr)")
    }

    @Test("--concurrency -1 and --shutdown-timeout -1 say the value is negative, not 'Missing value'")
    func negativeWorkerNumbers() async throws {
        let db = try await TestDatabase.make("slips_negative")
        for (flag, value) in [("--concurrency", "-1"), ("--shutdown-timeout", "-1"), ("--poll-interval", "-2")] {
            let result = try await FerryProcess.run(["worker", "--handler", "noop", flag, value], databaseURL: db.url)
            #expect(result.status == 65, "\(flag): \(result.stderr)")
            #expect(result.stderr.contains(flag) && result.stderr.contains("negative") && !result.stderr.contains("Missing value"), "\(result.stderr)")
        }
    }

    @Test("account list and show on a database without the schema say to run ferry migrate, with no raw SQLSTATE")
    func accountsWithoutSchema() async throws {
        let db = try await TestDatabase.make("slips_no_schema")
        let emptyName = "slips_empty_\(UInt32.random(in: 0...UInt32.max))"
        try await db.query("CREATE DATABASE \(emptyName)")
        let emptyURL = TestDatabase.replacingDatabase(in: db.url, with: emptyName)
        for arguments in [["account", "list"], ["account", "list", "--json"], ["account", "show", "me"]] {
            let result = try await FerryProcess.run(arguments, databaseURL: emptyURL)
            #expect(result.status == 78, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains("ferry migrate") && !result.stderr.contains("SQLSTATE"), "\(result.stderr)")
        }
    }

    @Test("a producer login running account update is told it needs the schema owner (exit 77); nothing changes")
    func producerAccountUpdate() async throws {
        let db = try await TestDatabase.make("slips_producer_update")
        try await db.query("INSERT INTO ferry.accounts (name, provider) VALUES ('me', 'dropbox')")
        let role = "slips_producer_\(UInt32.random(in: 0...UInt32.max))"
        try await db.query("CREATE ROLE \(role) LOGIN IN ROLE ferry_producer")
        let url = db.url.replacingOccurrences(of: "postgres@", with: "\(role)@")
        for arguments in [["account", "update", "me", "--max-concurrent", "2"], ["account", "remove", "me"]] {
            let result = try await FerryProcess.run(arguments, databaseURL: url, environment: ["FERRY_SECRET_KEY": ""])
            #expect(result.status == 77, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains("needs the schema owner") && result.stderr.contains("ferry_producer"), "\(result.stderr)")
        }
        #expect(try await Self.count(db, "SELECT max_concurrent FROM ferry.accounts") == 4)
    }

    @Test("a tree uploaded into a local folder inside itself is refused (plain path and file: URL); nothing is enqueued")
    func treeIntoItself() async throws {
        let db = try await TestDatabase.make("slips_tree_itself")
        let dir = try Self.folder("itself")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        _ = FileManager.default.createFile(atPath: dir + "/a.jpg", contents: Data("a".utf8))
        for destination in [dir + "/backup/", "file://" + dir + "/backup/", "backup/"] {
            let result = try await FerryProcess.run(
                ["enqueue", "upload", dir, "--recursive", "--to", destination], databaseURL: db.url, currentDirectory: dir)
            #expect(result.status == 65, "\(destination): \(result.stderr)")
            #expect(result.stderr.contains("inside the folder being uploaded"), "\(result.stderr)")
        }
        #expect(try await Self.count(db) == 0)
        let beside = try await FerryProcess.run(["enqueue", "upload", dir, "--recursive", "--to", dir + "-copy/"], databaseURL: db.url)
        #expect(beside.status == 0, "\(beside.stderr)")
    }

    @Test("fetch --to of spaces is refused, not a file named ' ' in the working directory; --to file:///dir/ is that folder")
    func fetchTargets() async throws {
        let db = try await TestDatabase.make("slips_fetch_to")
        let dir = try Self.folder("fetchto")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let blank = try await FerryProcess.run(
            ["enqueue", "fetch", "https://example.com/a.jpg", "--to", " "], databaseURL: db.url, currentDirectory: dir)
        #expect(blank.status == 65 && blank.stderr.contains("blank"), "\(blank.stderr)")
        #expect(try await Self.count(db) == 0)
        let url = try await FerryProcess.run(
            ["enqueue", "fetch", "https://example.com/a.jpg", "--to", "file:///srv/in/"], databaseURL: db.url, currentDirectory: dir)
        #expect(url.status == 0, "\(url.stderr)")
        #expect(try await db.query("SELECT destination FROM ferry.jobs").rows[0].decode(String.self, at: 0) == "/srv/in/a.jpg")
    }
}
