import FerryStore
import FerryTestSupport
import Foundation
import Postgres
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Issue 20's findings at the CLI: each refused with a clear error, a documented exit code, and nothing written.
@Suite("ferry CLI: hostile and careless input", .tags(.postgres, .process))
struct HostileInputTests {
    static let scratch: String = {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("ferry-hostile-\(UUID().uuidString)").path
        try! FileManager.default.createDirectory(atPath: dir + "/inside", withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: dir + "/a.txt", contents: Data("a".utf8))
        symlink(dir + "/loop", dir + "/loop")
        return dir
    }()

    /// Events appended by default: what a refused command must leave unchanged.
    static func count(_ db: TestDatabase, _ sql: String = "SELECT count(*) FROM ferry.events") async throws -> Int {
        try await FerryTestSupport.count(db, sql)
    }

    @Test("'..' in a local path is refused everywhere: a file: URL, a plain folder, a fetch target, a JSON Lines line; a relative ../ source is the producer's own and resolves")
    func dotDot() async throws {
        let db = try await TestDatabase.make("hostile_dotdot")
        let dir = Self.scratch
        for arguments in [
            ["enqueue", "upload", "a.txt", "--to", "file://\(dir)/inside/../escape/"],
            ["enqueue", "upload", "a.txt", "--to", "\(dir)/inside/../escape/"],
            ["enqueue", "fetch", "https://example.com/a.jpg", "--to", "\(dir)/inside/../../etc/"],
        ] {
            let result = try await FerryProcess.run(arguments, databaseURL: db.url, currentDirectory: dir)
            #expect(result.status == 65, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains("'..'"), "\(result.stderr)")
        }
        let lines = #"{"kind": "fetch", "source": "https://example.com/a.jpg", "to": "\#(dir)/inside/../../x/"}"# + "\n"
        let streamed = try await FerryProcess.run(["enqueue", "--from", "-"], databaseURL: db.url, stdin: lines)
        #expect(streamed.status == 65 && streamed.stderr.contains("'..'"), "\(streamed.stderr)")
        #expect(try await Self.count(db) == 0)

        // From a subfolder, ../a.txt names the producer's own file: resolved, not refused.
        let relative = try await FerryProcess.run(
            ["enqueue", "upload", "../a.txt", "--to", "file://\(dir)/out/"], databaseURL: db.url, currentDirectory: dir + "/inside")
        #expect(relative.status == 0, "\(relative.stderr)")
        let source = try await db.query("SELECT source FROM ferry.jobs").rows[0].decode(String.self, at: 0)
        #expect(source == dir + "/a.txt")
    }

    @Test("fetch --to \"\" (an unset $OUTDIR) is refused, not the working directory")
    func emptyTarget() async throws {
        let db = try await TestDatabase.make("hostile_empty_to")
        let result = try await FerryProcess.run(["enqueue", "fetch", "https://example.com/a.jpg", "--to", ""], databaseURL: db.url, currentDirectory: Self.scratch)
        #expect(result.status == 65, "\(result.stderr)")
        #expect(result.stderr.contains("empty"), "\(result.stderr)")
        #expect(try await Self.count(db) == 0)
    }

    @Test("--expect N: a producer that dies mid-stream enqueues nothing; the right count enqueues all")
    func expect() async throws {
        let db = try await TestDatabase.make("hostile_expect")
        let lines = (0..<5).map { #"{"kind": "fetch", "source": "https://example.com/\#($0).jpg", "to": "/srv/in/"}"# }.joined(separator: "\n") + "\n"
        let short = try await FerryProcess.run(["enqueue", "--from", "-", "--expect", "8"], databaseURL: db.url, stdin: lines)
        #expect(short.status == 65, "\(short.stderr)")
        #expect(short.stderr.contains("--expect") && short.stderr.contains("5 job(s), not 8") && short.stderr.contains("nothing was enqueued"), "\(short.stderr)")
        #expect(try await Self.count(db) == 0)
        let exact = try await FerryProcess.run(["enqueue", "--from", "-", "--expect", "5"], databaseURL: db.url, stdin: lines)
        #expect(exact.status == 0, "\(exact.stderr)")
        #expect(try await Self.count(db, "SELECT count(*) FROM ferry.jobs") == 5)
        let alone = try await FerryProcess.run(["enqueue", "fetch", "https://example.com/a.jpg", "--to", "/srv/in/", "--expect", "1"], databaseURL: db.url)
        #expect(alone.status == 64, "\(alone.stderr)")
    }

    @Test("a database without this build's schema: enqueue, cancel and account exit 78 naming ferry migrate, writing nothing")
    func oldSchema() async throws {
        let db = try await TestDatabase.make("hostile_old_schema")
        try await db.query("DELETE FROM ferry.schema_migrations WHERE version > 10")
        let enqueue = try await FerryProcess.run(["enqueue", "fetch", "https://example.com/a.jpg", "--to", "/srv/in/"], databaseURL: db.url)
        #expect(enqueue.status == 78, "\(enqueue.stderr)")
        #expect(enqueue.stderr.contains("schema 10") && enqueue.stderr.contains("ferry migrate"), "\(enqueue.stderr)")
        #expect(try await Self.count(db) == 0)
        let streamed = try await FerryProcess.run(
            ["enqueue", "--from", "-"], databaseURL: db.url, stdin: #"{"kind": "fetch", "source": "https://example.com/a.jpg", "to": "/srv/in/"}"# + "\n")
        #expect(streamed.status == 78, "\(streamed.stderr)")
        #expect(try await Self.count(db) == 0)

        // An empty database: no raw SQLSTATE, the same advice.
        let emptyName = "hostile_empty_\(UInt32.random(in: 0...UInt32.max))"
        try await db.query("CREATE DATABASE \(emptyName)")
        let emptyURL = TestDatabase.replacingDatabase(in: db.url, with: emptyName)
        for arguments in [
            ["enqueue", "fetch", "https://example.com/a.jpg", "--to", "/srv/in/"],
            ["cancel", UUID().uuidString.lowercased()],
            ["account", "remove", "nobody"],
        ] {
            let result = try await FerryProcess.run(arguments, databaseURL: emptyURL)
            #expect(result.status == 78, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains("ferry migrate") && !result.stderr.contains("SQLSTATE"), "\(result.stderr)")
        }
    }

    @Test("negative numbers after a space are values: --priority -5, --max-attempts -5 (refused as out of range, not 'Missing value')")
    func negativeNumbers() async throws {
        let db = try await TestDatabase.make("hostile_negative")
        let ok = try await FerryProcess.run(["enqueue", "fetch", "https://example.com/a.jpg", "--to", "/srv/in/", "--priority", "-5"], databaseURL: db.url)
        #expect(ok.status == 0, "\(ok.stderr)")
        #expect(try await Self.count(db, "SELECT priority FROM ferry.jobs") == -5)
        let attempts = try await FerryProcess.run(["enqueue", "fetch", "https://example.com/b.jpg", "--to", "/srv/in/", "--max-attempts", "-5"], databaseURL: db.url)
        #expect(attempts.status == 65, "\(attempts.stderr)")
        #expect(attempts.stderr.contains("max_attempts") && !attempts.stderr.contains("Missing value"), "\(attempts.stderr)")
    }

    @Test("worker flags that cannot work are refused before it starts: --queues \"\", --name \"\", --shutdown-timeout=-1, --poll-interval 0, --read-idle-timeout 0")
    func workerFlags() async throws {
        let db = try await TestDatabase.make("hostile_worker_flags")
        for (flags, words) in [
            (["--queues", ""], "--queues"), (["--name", ""], "--name"), (["--shutdown-timeout=-1"], "--shutdown-timeout"),
            (["--poll-interval", "0"], "--poll-interval"), (["--queues", "a,,b"], "--queues"),
            (["--read-idle-timeout", "0"], "--read-idle-timeout"),
        ] {
            let result = try await FerryProcess.run(["worker", "--handler", "noop"] + flags, databaseURL: db.url)
            #expect(result.status == 65, "\(flags): \(result.stderr)")
            #expect(result.stderr.contains(words), "\(result.stderr)")
        }
    }

    @Test("credentials in an account's URLs are refused and never echoed")
    func accountURLCredentials() async throws {
        let db = try await TestDatabase.make("hostile_account_urls")
        let secret = Self.scratch + "/app-secret"
        _ = FileManager.default.createFile(atPath: secret, contents: Data("s3cr3t".utf8))
        let result = try await FerryProcess.run(
            ["account", "add", "box", "--provider", "dropbox", "--app-key", "k", "--app-secret-file", secret, "--refresh-token-file", "-",
             "--api-url", "http://alice:hunter2@127.0.0.1:1"],
            databaseURL: db.url, stdin: "token\n", environment: ["FERRY_SECRET_KEY": Data(repeating: 1, count: 32).base64EncodedString()])
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.contains("credentials") && !result.stderr.contains("hunter2"), "\(result.stderr)")
        #expect(try await Self.count(db, "SELECT count(*) FROM ferry.accounts") == 0)
    }

    @Test("ferry status shows a producer's terminal escape codes as text, never raw")
    func terminalEscapes() async throws {
        let db = try await TestDatabase.make("hostile_escapes")
        let job = try await db.query(
            "SELECT ferry.enqueue('fetch', 'https://example.com/a.jpg', $1)", ["/srv/in/\u{1B}]0;pwned\u{07}\u{1B}[2J.jpg"]).rows[0].decode(UUID.self, at: 0)
        for arguments in [["status", job.uuidString.lowercased()], ["status", "--queue", "default"]] {
            let result = try await FerryProcess.run(arguments, databaseURL: db.url)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(!result.stdout.contains("\u{1B}") && !result.stdout.contains("\u{07}"), "\(arguments)")
            #expect(result.stdout.contains("\\u{1b}]0;pwned"), "\(result.stdout)")
        }
    }

    @Test("small things: a Dropbox name ending in a space, a symlink loop, dropbox:acct and s3:acct without a path")
    func smallThings() async throws {
        let db = try await TestDatabase.make("hostile_small")
        try await db.query("INSERT INTO ferry.accounts (name, provider) VALUES ('me', 'dropbox')")
        let dir = Self.scratch
        for (arguments, words) in [
            (["enqueue", "upload", "a.txt", "--to", "dropbox:me:/Photos /"], "ends with a space"),
            (["enqueue", "upload", "loop", "--to", "dropbox:me:/Photos/"], "symbolic link loop"),
            (["enqueue", "upload", "a.txt", "--to", "dropbox:me"], "no path after the account"),
            (["enqueue", "upload", "a.txt", "--to", "s3:me"], "no bucket after the account"),
        ] {
            let result = try await FerryProcess.run(arguments, databaseURL: db.url, currentDirectory: dir)
            #expect(result.status == 65, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains(words), "\(arguments): \(result.stderr)")
        }
        #expect(try await Self.count(db) == 0)
    }
}
