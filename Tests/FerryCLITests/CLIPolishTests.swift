import FerryCore
import FerryTestSupport
import Foundation
import Postgres
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// What a new user scripting `ferry` ran into: several sources at once, plain lists of sources, a plain folder
/// as an upload destination, retry's JSON, a wait nobody serves, and help examples that can be copied.
@Suite("ferry CLI: scripting polish", .tags(.postgres, .process))
struct CLIPolishTests {
    static func destinations(_ db: TestDatabase, batch: String) async throws -> [String] {
        try await db.query("SELECT destination FROM ferry.jobs WHERE batch = $1 ORDER BY job_id", [batch]).rows
            .map { try $0.decode(String.self, at: 0) }
    }

    @Test("enqueue fetch takes several sources into one folder, in order; a file destination is refused")
    func severalFetches() async throws {
        let db = try await TestDatabase.make("polish_fetches")
        let urls = (1...3).map { "https://example.com/p/\($0).jpg" }
        let result = try await FerryProcess.run(["enqueue", "fetch"] + urls + ["--to", "/srv/in/", "--batch", "many"], databaseURL: db.url)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.lines.count == 3)
        #expect(try await Self.destinations(db, batch: "many") == ["/srv/in/1.jpg", "/srv/in/2.jpg", "/srv/in/3.jpg"])
        let single = try await FerryProcess.run(["enqueue", "fetch"] + urls + ["--to", "/srv/in/x.jpg"], databaseURL: db.url)
        #expect(single.status == 64 && single.stderr.contains("end --to with /"), "\(single.stderr)")
        let checksum = try await FerryProcess.run(
            ["enqueue", "fetch"] + urls + ["--to", "/srv/in/", "--sha256", String(repeating: "a", count: 64)], databaseURL: db.url)
        #expect(checksum.status == 64 && checksum.stderr.contains("sha256"), "\(checksum.stderr)")
    }

    @Test("--format lines: one URL or path per line (mark, CRLF and empty lines accepted), all or nothing")
    func plainLines() async throws {
        let db = try await TestDatabase.make("polish_lines")
        let dir = try temporaryFolder("lines")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let list = "\u{FEFF}https://example.com/a.jpg\r\n\r\nhttps://example.com/b.jpg\r\n"
        let fetch = try await FerryProcess.run(
            ["enqueue", "fetch", "--from", "-", "--format", "lines", "--to", "/srv/feed/", "--batch", "feed"], databaseURL: db.url, stdin: list)
        #expect(fetch.status == 0, "\(fetch.stderr)")
        #expect(try await Self.destinations(db, batch: "feed") == ["/srv/feed/a.jpg", "/srv/feed/b.jpg"])

        for name in ["one.jpg", "two words.jpg"] { try Data("x".utf8).write(to: URL(fileURLWithPath: dir + "/" + name)) }
        let paths = dir + "/one.jpg\n" + dir + "/two words.jpg\n"
        let upload = try await FerryProcess.run(
            ["enqueue", "upload", "--from", "-", "--format", "lines", "--to", dir + "/out/", "--batch", "up"], databaseURL: db.url, stdin: paths)
        #expect(upload.status == 0, "\(upload.stderr)")
        #expect(try await Self.destinations(db, batch: "up") == ["file://\(dir)/out/one.jpg", "file://\(dir)/out/two%20words.jpg"])

        // A bad line refuses the whole list, naming the line.
        let bad = try await FerryProcess.run(
            ["enqueue", "fetch", "--from", "-", "--format", "lines", "--to", "/srv/feed/", "--batch", "bad"], databaseURL: db.url,
            stdin: "https://example.com/ok.jpg\nftp://example.com/no.jpg\n")
        #expect(bad.status == 65 && bad.stderr.contains("line 2"), "\(bad.stderr)")
        #expect(try await Self.destinations(db, batch: "bad").isEmpty)
        for (arguments, words) in [
            (["enqueue", "--from", "-", "--format", "lines", "--to", "/srv/"], "the kind"),
            (["enqueue", "fetch", "--from", "-", "--format", "lines", "--to", "/srv/x.jpg"], "ending with /"),
            (["enqueue", "fetch", "https://example.com/a.jpg", "--format", "lines", "--to", "/srv/"], "--from"),
        ] {
            let refused = try await FerryProcess.run(arguments, databaseURL: db.url, stdin: "https://example.com/a.jpg\n")
            #expect(refused.status == 64 && refused.stderr.contains(words), "\(arguments): \(refused.stderr)")
        }
    }

    @Test("an upload to a plain folder path goes to the local directory provider, and a worker puts it there")
    func uploadToPlainFolder() async throws {
        let db = try await TestDatabase.make("polish_plain")
        let dir = try temporaryFolder("plain")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Data(repeating: 7, count: 100_000).write(to: URL(fileURLWithPath: dir + "/photo.jpg"))
        let result = try await FerryProcess.run(
            ["enqueue", "upload", "photo.jpg", "--to", "nas/", "--batch", "plain"], databaseURL: db.url, currentDirectory: dir)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try await Self.destinations(db, batch: "plain") == ["file://\(dir)/nas/photo.jpg"])
        let worker = try BackgroundProcess(ferry: ["worker", "--heartbeat-interval", "0.3", "--poll-interval", "0.3"], databaseURL: db.url)
        let wait = try await FerryProcess.run(["wait", "--batch", "plain", "--timeout", "120"], databaseURL: db.url)
        worker.signal(SIGTERM)
        _ = try await worker.waitForExit()
        #expect(wait.status == 0, "\(wait.stdout)\(wait.stderr)")
        #expect(FileManager.default.contents(atPath: dir + "/nas/photo.jpg") == Data(repeating: 7, count: 100_000))
    }

    @Test("retry --json and cancel --json report each job's new state, in enqueue order")
    func commandStates() async throws {
        let db = try await TestDatabase.make("polish_retry")
        let urls = (1...3).map { "https://example.com/r/\($0).jpg" }
        let ids = try await FerryProcess.run(["enqueue", "fetch"] + urls + ["--to", "/srv/r/", "--batch", "r"], databaseURL: db.url).lines
        let cancel = try await FerryProcess.run(["cancel", "--batch", "r", "--json"], databaseURL: db.url)
        #expect(cancel.status == 0, "\(cancel.stderr)")
        let cancelled = try JSONValue.parse(cancel.stdout)
        guard case .array(let items) = cancelled else { Issue.record("not an array: \(cancel.stdout)"); return }
        #expect(items.map { $0["job_id"]?.stringValue } == ids)
        #expect(items.allSatisfy { $0["state"] == .string("cancelled") && $0["action"] == .string("cancelled") })
        let retry = try await FerryProcess.run(["retry", ids[1], "--json"], databaseURL: db.url)
        #expect(retry.status == 0, "\(retry.stderr)")
        guard case .array(let retried) = try JSONValue.parse(retry.stdout), let first = retried.first else {
            Issue.record("not an array: \(retry.stdout)")
            return
        }
        #expect(first["state"] == .string("queued") && first["action"] == .string("requeued"), "\(retry.stdout)")
    }

    @Test("ferry wait says when no live worker serves the batch's queue, and when one starts")
    func waitWithoutWorkers() async throws {
        let db = try await TestDatabase.make("polish_unserved")
        _ = try await FerryProcess.run(
            ["enqueue", "fetch", "https://example.com/u.jpg", "--to", "/srv/u/", "--batch", "lonely", "--queue", "photos"], databaseURL: db.url)
        let waiter = try BackgroundProcess(ferry: ["wait", "--batch", "lonely", "--timeout", "120"], databaseURL: db.url)
        try await eventually(timeout: .seconds(300), "the warning") { waiter.log.contains("no live worker serves queue photos") }
        #expect(waiter.log.contains("ferry worker --queues photos"))
        let worker = try BackgroundProcess(
            ferry: ["worker", "--queues", "photos", "--handler", "noop", "--heartbeat-interval", "0.3", "--poll-interval", "0.3"],
            databaseURL: db.url)
        #expect(try await waiter.waitForExit(timeout: .seconds(120)) == 0, "\(waiter.log)")
        worker.signal(SIGTERM)
        _ = try await worker.waitForExit()
    }

    @Test("--json on every command that prints: migrate, projection, wait, account; each answer is one JSON document")
    func jsonEverywhere() async throws {
        let admin = PostgresClient(configuration: PostgresConfiguration(connectionString: try TestDatabase.adminURL, poolSize: 1))
        let name = "ferry_json_\(UInt32.random(in: 0...UInt32.max))"
        try await admin.withConnection { try $0.execute("CREATE DATABASE \(name)") }
        admin.close()
        let url = TestDatabase.replacingDatabase(in: try TestDatabase.adminURL, with: name)
        func document(_ arguments: [String], stdin: String? = nil, status: Int32 = 0) async throws -> JSONValue {
            let result = try await FerryProcess.run(arguments, databaseURL: url, stdin: stdin, environment: DropboxAccounts.environment)
            #expect(result.status == status, "\(arguments): \(result.stderr)")
            return try JSONValue.parse(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        let migrated = try await document(["migrate", "--json"])
        #expect(migrated["applied"]?.arrayValue?.last?["version"] == migrated["schema_version"])
        #expect((migrated["applied"]?.arrayValue?.count ?? 0) >= 15)
        #expect(try await document(["migrate", "--check", "--json"])["up_to_date"] == .bool(true))

        let ids = try await FerryProcess.run(["enqueue", "fetch", "https://example.com/j.jpg", "--to", "/srv/j/", "--batch", "j"], databaseURL: url).lines
        let verified = try await document(["projection", "verify", "--json"])
        #expect(verified["clean"] == .bool(true) && verified["jobs_checked"] == .int(1))
        #expect(try await document(["projection", "rebuild", "--json"])["rebuilt_jobs"] == .int(1))

        _ = try await FerryProcess.run(["cancel", ids[0]], databaseURL: url)
        let waited = try await document(["wait", "--batch", "j", "--json"], status: 1)
        #expect(waited["outcome"] == .string("unsuccessful") && waited["cancelled"] == .int(1))
        #expect(waited["failures"]?.arrayValue?.first?["job_id"] == .string(ids[0]))

        let added = try await document(
            ["account", "add", "stream", "--provider", "flickr", "--api-key-file", "-", "--no-verify", "--json"], stdin: "key\n")
        #expect(added["account"] == .string("stream") && added["provider"] == .string("flickr"))
        #expect(try await document(["account", "remove", "stream", "--json"])["removed"] == .bool(true))
    }

    @Test("every command's help examples print unwrapped at 80 columns, ready to copy")
    func helpExamples() async throws {
        let commands: [[String]] = [
            ["enqueue"], ["wait"], ["status"], ["cancel"], ["retry"], ["events"], ["worker"], ["migrate"], ["projection"],
            ["archive"], ["account"], ["account", "add"], ["account", "login"], ["dev-server"],
            ["dashboard"],
        ]
        for command in commands {
            let help = try await FerryProcess.run(command + ["--help"], environment: ["COLUMNS": "80"])
            #expect(help.status == 0)
            let lines = help.stdout.components(separatedBy: "\n")
            guard let start = lines.firstIndex(of: "Examples:") else { continue }
            for line in lines[(start + 1)...].prefix(while: { !$0.isEmpty }) {
                #expect(line.hasPrefix("  "), "\(command) example wrapped: '\(line)'")
                #expect(line.count <= 80, "\(command) example too long: '\(line)'")
            }
        }
    }

    @Test("one voice for errors: a mistyped command gets 'error:' and the closest command; enqueue upload alone asks for files first; --help lists every exit code")
    func errorsSpeakAlike() async throws {
        let typo = try await FerryProcess.run(["stauts"])
        #expect(typo.status == 64, "\(typo.stderr)")
        #expect(typo.stderr.hasPrefix("error: ") && typo.stderr.contains("did you mean 'status'?"), "\(typo.stderr)")
        #expect(!typo.stderr.contains("Error:"), "\(typo.stderr)")
        let far = try await FerryProcess.run(["xyzzy"])
        #expect(far.status == 64 && !far.stderr.contains("did you mean"), "\(far.stderr)")
        let option = try await FerryProcess.run(["status", "--bogus"])
        #expect(option.status == 64 && option.stderr.hasPrefix("error: "), "\(option.stderr)")

        let bare = try await FerryProcess.run(["enqueue", "upload"])
        #expect(bare.status == 64 && bare.stderr.contains("name at least one FILE to upload"), "\(bare.stderr)")

        let help = try await FerryProcess.run(["--help"])
        #expect(help.status == 0)
        for code in ["0", "1", "64", "65", "66", "69", "70", "74", "75", "77", "78", "130"] {
            #expect(help.stdout.split(separator: "\n").contains { $0.trimmingCharacters(in: .whitespaces).hasPrefix(code + " ") }, "exit code \(code)")
        }
        let worker = try await FerryProcess.run(["worker", "--help"])
        #expect(!worker.stdout.contains("Default: default."), "said twice: \(worker.stdout)")
    }

    @Test("status honours --limit for the overview's batches; --queue --json is one object like --batch --json; archive list --json")
    func statusShapes() async throws {
        let db = try await TestDatabase.make("polish_status_shapes")
        let lines = (0..<25).map { #"{"kind":"fetch","source":"https://example.com/\#($0).jpg","to":"/srv/in/","batch":"b\#($0)","queue":"photos"}"# }
        let enqueued = try await FerryProcess.run(["enqueue", "--from", "-"], databaseURL: db.url, stdin: lines.joined(separator: "\n"))
        #expect(enqueued.status == 0, "\(enqueued.stderr)")

        let overview = try await FerryProcess.run(["status", "--json", "--limit", "3"], databaseURL: db.url)
        let batches = try #require(try JSONValue.parse(overview.stdout)["batches"]?.arrayValue)
        #expect(batches.count == 3, "\(overview.stdout)")
        let wide = try await FerryProcess.run(["status", "--json", "--limit", "25"], databaseURL: db.url)
        #expect(try JSONValue.parse(wide.stdout)["batches"]?.arrayValue?.count == 25, "more than the old fixed 20")
        #expect(try await FerryProcess.run(["status", "--limit", "0"], databaseURL: db.url).status == 64)

        let queue = try JSONValue.parse(try await FerryProcess.run(["status", "--queue", "photos", "--json", "--limit", "5"], databaseURL: db.url).stdout)
        let batch = try JSONValue.parse(try await FerryProcess.run(["status", "--batch", "b1", "--json"], databaseURL: db.url).stdout)
        guard case .object(let summary)? = queue["queue"], case .object? = batch["batch"] else {
            Issue.record("--queue and --batch must both print an object: \(queue) \(batch)")
            return
        }
        #expect(summary["queue"]?.stringValue == "photos" && summary["jobs"]?.intValue == 25 && summary["paused"] == .bool(false))
        #expect(summary["states"]?.arrayValue?.first?["state"]?.stringValue == "queued")
        #expect(queue["jobs"]?.arrayValue?.count == 5)

        let archives = try await FerryProcess.run(["archive", "list", "--json"], databaseURL: db.url)
        let listed = try JSONValue.parse(archives.stdout)
        #expect(archives.status == 0 && listed == .array([]), "\(archives.stdout) \(archives.stderr)")
    }
}
