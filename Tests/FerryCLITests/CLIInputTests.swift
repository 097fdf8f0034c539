import FerryStore
import FerryTestSupport
import Foundation
#if canImport(Glibc)
    import Glibc
#endif
import Postgres
import Testing

/// The real `ferry` binary against a real database.
@Suite("ferry CLI: producer commands", .tags(.postgres, .process))
struct CLIInputTests {
    static let scratch: String = {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("ferry-cli-\(UUID().uuidString)").path
        try! FileManager.default.createDirectory(atPath: dir + "/folder", withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: dir + "/a.jpg", contents: Data(repeating: 7, count: 1000))
        _ = FileManager.default.createFile(atPath: dir + "/b.jpg", contents: Data(repeating: 8, count: 2000))
        // A named pipe: not a regular file, whoever runs the tests (root reads any permission bits).
        mkfifo(dir + "/pipe.jpg", 0o600)
        return dir
    }()

    func jobCount(_ db: TestDatabase) async throws -> Int {
        try await db.query("SELECT (SELECT count(*) FROM ferry.events) + (SELECT count(*) FROM ferry.jobs)").rows[0].decode(Int.self, at: 0)
    }

    @Test("ferry --version names the release and the schema version it expects")
    func version() async throws {
        let result = try await FerryProcess.run(["--version"])
        #expect(result.status == 0)
        #expect(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == FerryRelease.description)
        #expect(result.stdout.contains("schema \(FerryRelease.schemaVersion)"))
    }

    @Test("upload and fetch enqueue, print ids, and show up in status and events")
    func happyPath() async throws {
        let db = try await TestDatabase.make("cli")
        try await db.query("INSERT INTO ferry.accounts (name, provider) VALUES ('photos', 'dropbox')")
        let dir = Self.scratch
        let upload = try await FerryProcess.run(
            ["enqueue", "upload", "a.jpg", "b.jpg", "--to", "dropbox:photos:/Camera/2026/", "--batch", "trip", "--priority", "5"],
            databaseURL: db.url, currentDirectory: dir)
        #expect(upload.status == 0, "\(upload.stderr)")
        #expect(upload.lines.count == 2)
        #expect(upload.lines.allSatisfy { UUID(uuidString: $0) != nil })
        let fetch = try await FerryProcess.run(
            ["enqueue", "fetch", "https://example.com/p.jpg", "--to", "/srv/in/", "--json", "--key", "k-1"], databaseURL: db.url)
        #expect(fetch.status == 0, "\(fetch.stderr)")
        #expect(fetch.stdout.contains(#""created":true"#))
        let repeated = try await FerryProcess.run(
            ["enqueue", "fetch", "https://example.com/p.jpg", "--to", "/srv/in/", "--json", "--key", "k-1"], databaseURL: db.url)
        #expect(repeated.status == 0)
        #expect(repeated.stdout.contains(#""created":false"#))
        #expect(try await db.query("SELECT count(*) FROM ferry.jobs").rows[0].decode(Int.self, at: 0) == 3)

        let status = try await FerryProcess.run(["status", "--batch", "trip"], databaseURL: db.url)
        #expect(status.status == 0)
        #expect(status.stdout.contains("dropbox:photos:/Camera/2026/a.jpg"))
        #expect(status.stdout.contains("2.9 KiB"))
        let detail = try await FerryProcess.run(["status", upload.lines[0], "--json"], databaseURL: db.url)
        #expect(detail.stdout.contains(#""priority":5"#) && detail.stdout.contains(#""bytes_total":1000"#))
        let events = try await FerryProcess.run(["events", upload.lines[0]], databaseURL: db.url)
        #expect(events.stdout.contains("enqueued") && events.stdout.contains("mtime_ns"))
        let cancel = try await FerryProcess.run(["cancel", "--batch", "trip"], databaseURL: db.url)
        #expect(cancel.status == 0 && cancel.lines.count == 2 && cancel.stdout.contains("cancelled"))
        let retry = try await FerryProcess.run(["retry", upload.lines[0]], databaseURL: db.url)
        #expect(retry.status == 0 && retry.stdout.contains("requeued"))
        let retryAgain = try await FerryProcess.run(["retry", upload.lines[0]], databaseURL: db.url)
        #expect(retryAgain.status == 1 && retryAgain.stderr.contains("error: job is queued; only failed, cancelled or discarded"))
        let verify = try await FerryProcess.run(["projection", "verify"], databaseURL: db.url)
        #expect(verify.status == 0 && verify.stdout.contains("0 differences"))
    }

    @Test("JSON Lines: all lines enqueue in one go, or none, with errors naming line and field")
    func bulkAllOrNothing() async throws {
        let db = try await TestDatabase.make("bulk")
        var lines = (0..<300).map { #"{"kind":"fetch","source":"https://example.com/\#($0).jpg","to":"/srv/in/","batch":"bulk"}"# }
        lines.insert(#"{"kind":"fetch","source":"https://example.com/x.jpg","to":"/srv/in/","max_attempts":0}"#, at: 150)
        let bad = try await FerryProcess.run(["enqueue", "--from", "-"], databaseURL: db.url, stdin: lines.joined(separator: "\n"))
        #expect(bad.status == 65)
        #expect(bad.stderr.contains("line 151: max_attempts"))
        #expect(bad.stderr.contains("nothing was enqueued"))
        #expect(try await jobCount(db) == 0)
        lines.remove(at: 150)
        let good = try await FerryProcess.run(["enqueue", "--from", "-", "--queue", "photos"], databaseURL: db.url, stdin: lines.joined(separator: "\n") + "\n\n")
        #expect(good.status == 0, "\(good.stderr)")
        #expect(good.lines.count == 300)
        let queues = try await db.query("SELECT count(*) FROM ferry.jobs WHERE queue = 'photos' AND batch = 'bulk'")
        #expect(try queues.rows[0].decode(Int.self, at: 0) == 300)
    }

    @Test("a spreadsheet export (byte order mark, CRLF line ends) enqueues like plain JSON Lines")
    func byteOrderMarkAndCRLF() async throws {
        let db = try await TestDatabase.make("bom")
        let lines = (0..<3).map { #"{"kind":"fetch","source":"https://example.com/\#($0).jpg","to":"/srv/in/","batch":"sheet"}"# }
        let export = "\u{FEFF}" + lines.joined(separator: "\r\n") + "\r\n"
        #expect(Array(export.utf8.prefix(3)) == [0xEF, 0xBB, 0xBF])
        let result = try await FerryProcess.run(["enqueue", "--from", "-"], databaseURL: db.url, stdin: export)
        #expect(result.status == 0, "\(result.stderr)")
        let rows = try await db.query("SELECT source FROM ferry.job_status WHERE batch = 'sheet' ORDER BY source").rows
        #expect(try rows.map { try $0.decode(String.self, at: 0) } == (0..<3).map { "https://example.com/\($0).jpg" })
        // A mark anywhere but the start is still refused: it is not whitespace in JSON.
        let inner = try await FerryProcess.run(["enqueue", "--from", "-"], databaseURL: db.url, stdin: lines[0] + "\n\u{FEFF}" + lines[1] + "\n")
        #expect(inner.status == 65 && inner.stderr.contains("line 2"), "\(inner.stderr)")
    }

    /// (arguments, stdin, expected exit code, words the error must contain)
    static let malformed: [([String], String?, Int32, [String])] = [
        (["enqueue", "upload", "missing.jpg", "--to", "dropbox:photos:/x/"], nil, 65, ["source", "no such file"]),
        (["enqueue", "upload", "folder", "--to", "dropbox:photos:/x/"], nil, 65, ["directory", "regular"]),
        (["enqueue", "upload", "pipe.jpg", "--to", "dropbox:photos:/x/"], nil, 65, ["pipe", "not a regular file"]),
        (["enqueue", "upload", "a.jpg", "--to", "dropbox:nobody:/x/"], nil, 65, ["unknown account", "nobody"]),
        (["enqueue", "upload", "a.jpg", "--to", "s3://bucket/"], nil, 65, ["to: ", "s3:ACCOUNT:bucket/key"]),
        (["enqueue", "upload", "a.jpg", "--to", "dropbox:photos:Photos/"], nil, 65, ["must start with /"]),
        (["enqueue", "upload", "a.jpg", "--to", "dropbox:photos:/a/../b/"], nil, 65, [".."]),
        (["enqueue", "upload", "a.jpg", "--to", "dropbox:photos:/a//b/"], nil, 65, ["empty component"]),
        (["enqueue", "upload", "a.jpg", "--to", "dropbox:bad name:/x/"], nil, 65, ["account name"]),
        (["enqueue", "upload", "a.jpg", "--to", "file://server/share/"], nil, 65, ["three slashes"]),
        (["enqueue", "upload", "a.jpg", "b.jpg", "--to", "dropbox:photos:/x"], nil, 64, ["end --to with /"]),
        (["enqueue", "upload", "a.jpg", "--to", "dropbox:photos:/x/", "--queue", "Upper Case"], nil, 65, ["queue"]),
        (["enqueue", "upload", "a.jpg", "--to", "dropbox:photos:/x/", "--priority", "1000"], nil, 65, ["priority", "-100 to 100"]),
        (["enqueue", "upload", "a.jpg", "--to", "dropbox:photos:/x/", "--priority", "high"], nil, 64, ["priority"]),
        (["enqueue", "upload", "a.jpg", "--to", "dropbox:photos:/x/", "--max-attempts", "0"], nil, 65, ["max_attempts"]),
        (["enqueue", "upload", "a.jpg", "--to", "dropbox:photos:/x/", "--run-at", "tomorrow-ish"], nil, 65, ["run_at", "ISO 8601"]),
        (["enqueue", "upload", "a.jpg", "--to", "dropbox:photos:/x/", "--run-at", "+900d"], nil, 65, ["run_at", "year"]),
        (["enqueue", "fetch", "ftp://example.com/a.jpg", "--to", "/srv/"], nil, 65, ["no provider takes 'ftp:'", "https://example.com/photo.jpg"]),
        (["enqueue", "fetch", "https://user:hunter2@example.com/a.jpg", "--to", "/srv/"], nil, 65, ["credentials"]),
        (["enqueue", "fetch", "https:///a.jpg", "--to", "/srv/"], nil, 65, ["no host"]),
        (["enqueue", "fetch", "https://example.com/a.jpg"], nil, 64, ["missing --to"]),
        (["enqueue", "teleport", "x", "--to", "/srv/"], nil, 64, ["unknown job kind"]),
        (["enqueue"], nil, 64, ["say what to enqueue"]),
        (["enqueue", "--from", "-"], "not json at all\n", 65, ["line 1", "not valid JSON"]),
        (["enqueue", "--from", "-"], "{\"kind\":\"fetch\",\"source\":\"https://e.com/a\",\"to\":\"/in/\",\"colour\":1}\n", 65, ["line 1", "colour", "unknown field"]),
        (["enqueue", "--from", "-"], "{\"kind\":\"fetch\",\"source\":\"https://e.com/a\",\"to\":\"/in/\"}\n{\"kind\":\"fetch\",\"source\":42,\"to\":\"/in/\"}\n", 65, ["line 2", "source", "string"]),
        (["enqueue", "--from", "-"], "{\"kind\":\"fetch\",\"source\":\"https://e.com/a\"}\n", 65, ["line 1", "to", "missing"]),
        (["enqueue", "--from", "-"], "\n\n", 65, ["no jobs"]),
        (["enqueue", "--from", "/nonexistent/jobs.jsonl"], nil, 65, ["cannot read"]),
        (["enqueue", "--from", "-"], "{\"kind\":\"fetch\",\"source\":\"https://e.com/a\",\"to\":\"/in/\",\"key\":\"\"}\n", 65, ["key"]),
        (["enqueue", "fetch", "https://example.com/..%2F..%2Fetc%2Fpasswd", "--to", "/srv/"], nil, 65, ["to", "file name"]),
        (["enqueue", "fetch", "https://example.com/a.jpg", "--to", "/srv/", "--recursive"], nil, 65, ["recursive", "not an option"]),
        (["enqueue", "fetch", "https://example.com/a.jpg", "--to", "/srv/", "--sha256", "xyz"], nil, 65, ["sha256", "64 hexadecimal"]),
        (["enqueue", "fetch", "dropbox:photos:/P", "--to", "/srv/", "--thumbnail", "w9h9"], nil, 65, ["thumbnail", "w256h256"]),
        (["enqueue", "fetch", "flickr:1234@N00", "--to", "/srv/"], nil, 65, ["no flickr account", "ferry account add NAME --provider flickr"]),
        (["enqueue", "fetch", "flickr:1234@N00", "--to", "/srv/", "--account", "photos"], nil, 65, ["dropbox account, not flickr"]),
        (["enqueue", "fetch", "flickr:1234@N00", "--to", "/srv/", "--size", "huge"], nil, 65, ["size", "z"]),
        (["enqueue", "--from", "-", "--sha256", String(repeating: "a", count: 64)], "{}\n", 64, ["sha256"]),
        (["status", "not-a-uuid"], nil, 65, ["not a job id"]),
        (["status", "0193a0c4-6f1e-7c55-9b1e-2f8f3b6f9d10"], nil, 66, ["no job"]),
        (["cancel"], nil, 64, ["job id or --batch"]),
        (["cancel", "--batch", "no-such-batch"], nil, 66, ["no jobs match"]),
    ]

    @Test("a feed's fetch lines keep their metadata, visible in ferry.job_status")
    func feedMetadata() async throws {
        let db = try await TestDatabase.make("feed")
        let feed = """
            {"kind":"fetch","source":"https://photos.example.com/p/1.jpg","metadata":{"title":"Harbour at dawn","poster":"ana","posted":"2026-11-20T07:12:00Z","likes":42}}
            {"kind":"fetch","source":"https://photos.example.com/p/2.jpg","metadata":{"title":"Fog","poster":"ben","likes":3}}
            """
        let result = try await FerryProcess.run(
            ["enqueue", "--from", "-", "--to", "/srv/feed/", "--batch", "feed"], databaseURL: db.url, stdin: feed)
        #expect(result.status == 0, "\(result.stderr)")
        let rows = try await db.query("""
            SELECT destination, metadata->>'title', metadata->>'poster', (metadata->>'likes')::int, metadata->>'posted'
              FROM ferry.job_status WHERE batch = 'feed' ORDER BY destination
            """).rows
        #expect(rows.count == 2)
        #expect(try rows[0].decode(String.self, at: 0) == "/srv/feed/1.jpg")
        #expect(try rows[0].decode(String.self, at: 1) == "Harbour at dawn")
        #expect(try rows[0].decode(String.self, at: 2) == "ana")
        #expect(try rows[0].decode(Int.self, at: 3) == 42)
        #expect(try rows[0].decode(String.self, at: 4) == "2026-11-20T07:12:00Z")
        #expect(try rows[1].decode(String.self, at: 1) == "Fog")
    }

    @Test("malformed input is refused with a clear message, a distinct exit code and nothing written", arguments: malformed.indices)
    func refusesMalformedInput(index: Int) async throws {
        let (arguments, stdin, code, words) = Self.malformed[index]
        let db = try await TestDatabase.make("bad")
        try await db.query("INSERT INTO ferry.accounts (name, provider) VALUES ('photos', 'dropbox')")
        let result = try await FerryProcess.run(arguments, databaseURL: db.url, stdin: stdin, currentDirectory: Self.scratch)
        #expect(result.status == code, "\(arguments): \(result.stderr)")
        for word in words {
            #expect(result.stderr.contains(word), "\(arguments) stderr lacks '\(word)': \(result.stderr)")
        }
        #expect(!result.stderr.contains("hunter2"), "secrets are never echoed")
        #expect(!result.stderr.contains("Fatal error") && !result.stderr.contains("Stack dump"))
        #expect(try await jobCount(db) == 0)
    }

    @Test("an unreachable database is exit code 69 with a hint, not a stack trace")
    func databaseUnavailable() async throws {
        let result = try await FerryProcess.run(
            ["enqueue", "fetch", "https://example.com/a.jpg", "--to", "/srv/", "--database-url", "postgresql://127.0.0.1:1/ferry"])
        #expect(result.status == 69)
        #expect(result.stderr.contains("PostgreSQL is unavailable"))
        #expect(result.stderr.contains("FERRY_DATABASE_URL"))
    }

    @Test("an unmigrated database says to run ferry migrate (78), and migrate fixes it")
    func notMigrated() async throws {
        let admin = PostgresClient(configuration: PostgresConfiguration(connectionString: try TestDatabase.adminURL, poolSize: 1))
        let name = "ferry_empty_\(UInt32.random(in: 0...UInt32.max))"
        try await admin.withConnection { try $0.execute("CREATE DATABASE \(name)") }
        admin.close()
        let url = TestDatabase.replacingDatabase(in: try TestDatabase.adminURL, with: name)
        let before = try await FerryProcess.run(["status"], databaseURL: url)
        #expect(before.status == 78 && before.stderr.contains("ferry migrate"))
        let migrate = try await FerryProcess.run(["migrate"], databaseURL: url)
        // One line by default; --verbose lists each file.
        #expect(migrate.status == 0 && migrate.stdout.split(separator: "\n").count == 1, "\(migrate.stdout)")
        #expect(migrate.stdout.contains("is up to date (\(FerryRelease.schemaVersion) migrations applied now, 0 before"), "\(migrate.stdout)")
        let again = try await FerryProcess.run(["migrate", "--verbose"], databaseURL: url)
        #expect(again.status == 0 && again.stdout.contains("(0 migrations applied now, \(FerryRelease.schemaVersion) before"), "\(again.stdout)")
        let check = try await FerryProcess.run(["migrate", "--check"], databaseURL: url)
        #expect(check.status == 0)
        let after = try await FerryProcess.run(["status"], databaseURL: url)
        #expect(after.status == 0)
    }

    @Test("projection verify exits 1 with a readable report after a hand edit; rebuild repairs it")
    func verifyExitCodes() async throws {
        let db = try await TestDatabase.make("verifycli")
        let enqueue = try await FerryProcess.run(["enqueue", "fetch", "https://example.com/a.jpg", "--to", "/srv/"], databaseURL: db.url)
        try await db.query("UPDATE ferry.jobs SET priority = 42")
        let verify = try await FerryProcess.run(["projection", "verify"], databaseURL: db.url)
        #expect(verify.status == 1)
        #expect(verify.stdout.contains("job \(enqueue.lines[0])"))
        #expect(verify.stdout.contains("priority: stored 42, replayed 0"))
        let rebuild = try await FerryProcess.run(["projection", "rebuild"], databaseURL: db.url)
        #expect(rebuild.status == 0 && rebuild.stdout.contains("1 jobs"))
        #expect(try await FerryProcess.run(["projection", "verify"], databaseURL: db.url).status == 0)

        // Search terms lost (migration 0037): search would not find the job; verify says so, rebuild makes them.
        try await db.query("DELETE FROM ferry.job_search_terms")
        let lost = try await FerryProcess.run(["projection", "verify"], databaseURL: db.url)
        #expect(lost.status == 1 && lost.stdout.contains("search terms of job \(enqueue.lines[0]): missing"), "\(lost.stdout)")
        #expect(lost.stdout.contains("fix: run ferry projection rebuild"))
        #expect(try await FerryProcess.run(["projection", "rebuild"], databaseURL: db.url).status == 0)
        #expect(try await FerryProcess.run(["projection", "verify"], databaseURL: db.url).status == 0)
    }

    @Test("help for every command is complete and shows examples", arguments: [
        ["--help"], ["enqueue", "--help"], ["status", "--help"], ["events", "--help"], ["cancel", "--help"],
        ["retry", "--help"], ["discard", "--help"], ["migrate", "--help"], ["projection", "verify", "--help"], ["projection", "rebuild", "--help"],
    ])
    func help(arguments: [String]) async throws {
        let result = try await FerryProcess.run(arguments)
        #expect(result.status == 0)
        #expect(result.stdout.contains("Examples:"))
        #expect(result.stdout.contains("USAGE:"))
    }
}
