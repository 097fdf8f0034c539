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
        // A relative folder means nothing to a worker elsewhere: refused, naming the absolute path it meant here.
        let relative = try await FerryProcess.run(
            ["enqueue", "upload", "photo.jpg", "--to", "nas/", "--batch", "plain"], databaseURL: db.url, currentDirectory: dir)
        #expect(relative.status == 65 && relative.stderr.contains("nas/ is a relative path") && relative.stderr.contains("\(dir)/nas/"),
                "\(relative.stderr)")
        let result = try await FerryProcess.run(
            ["enqueue", "upload", "photo.jpg", "--to", dir + "/nas/", "--batch", "plain"], databaseURL: db.url, currentDirectory: dir)
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

    /// Every command whose help shows examples, in the order their examples are run (retry re-queues the batch
    /// the others read, and rekey changes the secret key: they come last).
    static let commandsWithExamples: [[String]] = [
        [], ["migrate"], ["enqueue"], ["status"], ["events"], ["cancel"], ["wait"], ["discard"], ["projection", "verify"],
        ["projection", "rebuild"], ["archive"], ["archive", "restore"], ["queue"], ["schedule"], ["schedule", "run"], ["account"],
        ["account", "add"], ["account", "login"], ["account", "update"], ["worker"], ["dev-server"], ["dashboard"], ["retry"],
        ["account", "rekey"], ["ls"], ["lsf"], ["size"], ["check"],
    ]

    /// The examples of `command`'s help: each from a line indented by two spaces through the lines its trailing
    /// backslashes continue, as a shell reads them.
    static func examples(of command: [String], columns: Int = 200) async throws -> [String] {
        let help = try await FerryProcess.run(command + ["--help"], environment: ["COLUMNS": String(columns)])
        #expect(help.status == 0, "\(command): \(help.stderr)")
        let lines = help.stdout.components(separatedBy: "\n")
        guard let start = lines.firstIndex(where: { $0.trimmingCharacters(in: .whitespaces) == "Examples:" }) else { return [] }
        let indent = String(repeating: " ", count: lines[start].prefix { $0 == " " }.count + 2)
        var examples = [String]()
        var continued = false
        for line in lines[(start + 1)...].prefix(while: { !$0.trimmingCharacters(in: .whitespaces).isEmpty }) {
            let starts = !continued && line.hasPrefix(indent) && line.dropFirst(indent.count).first != " "
            if starts || examples.isEmpty {
                examples.append(String(line.dropFirst(indent.count)))
            } else {
                examples[examples.count - 1] += "\n" + line
            }
            continued = line.hasSuffix("\\")
        }
        return examples
    }

    @Test("every command's help examples print unwrapped at 80 columns, ready to copy")
    func helpExamples() async throws {
        for command in Self.commandsWithExamples {
            let help = try await FerryProcess.run(command + ["--help"], environment: ["COLUMNS": "80"])
            #expect(help.status == 0)
            let lines = help.stdout.components(separatedBy: "\n")
            guard let start = lines.firstIndex(where: { $0.trimmingCharacters(in: .whitespaces) == "Examples:" }) else {
                Issue.record("\(command): no examples in its help")
                continue
            }
            let indent = String(lines[start].prefix { $0 == " " }) + "  "
            for line in lines[(start + 1)...].prefix(while: { !$0.isEmpty }) {
                #expect(line.hasPrefix(indent), "\(command) example wrapped: '\(line)'")
                #expect(line.count <= 80, "\(command) example too long: '\(line)'")
            }
        }
    }

    /// How each help example is run: the exit codes it may end with (each documented in docs/cli.md#exit-codes),
    /// keyed by the start of the example; or why it is not run here.
    enum ExampleRun {
        case exits(Set<Int32>)
        case skipped(String)
    }

    static let exampleRuns: [(start: String, run: ExampleRun)] = [
        ("ferry ls /srv", .exits([0])),
        ("ferry lsf /srv", .exits([0])),
        ("ferry size /srv", .exits([0])),
        ("ferry ls ", .skipped("lists an account's folder at the service, over the network (ListingCommandTests lists the dev server's)")),
        ("ferry lsf ", .skipped("lists an account's folder at the service, over the network")),
        ("ferry size ", .skipped("lists an account's folder at the service, over the network")),
        ("ferry check", .skipped("compares with an account's folder at the service, over the network (ListingCommandTests checks the dev server's)")),
        // A sync's --dry-run lists the destination at the service (S3 over the network here), after the rekey above.
        ("ferry enqueue sync", .skipped("its --dry-run lists the destination at the service, over the network (SyncTests run it)")),
        // enqueue runs each example with --dry-run: every check (files, accounts, options), nothing written.
        ("ferry enqueue", .exits([0])),
        ("find ~/Photos", .exits([0])),
        ("ferry migrate", .exits([0])),
        // status, events, wait, cancel and discard read and change the test's batch "trip" (its jobs cancelled).
        ("ferry status", .exits([0])),
        ("ferry events", .exits([0])),
        // cancel: the job is already cancelled, and the batch has nothing left to cancel: both said, exit 0.
        ("ferry cancel", .exits([0])),
        // wait: the batch and the job ended cancelled, a negative answer.
        ("ferry wait", .exits([1])),
        // discard: only failed jobs can be, and the batch's are cancelled: a negative answer for the ids, nothing to
        // discard for the batch.
        ("ferry discard 0", .exits([1])),
        ("ferry discard --batch", .exits([0])),
        ("ferry projection", .exits([0])),
        ("ferry archive --", .exits([0])),
        ("ferry archive list", .exits([0])),
        ("ferry archive restore", .skipped("needs an archive file, and nothing in a fresh database is old enough to archive")),
        ("ferry queue", .exits([0])),
        // No worker runs here: a run asked for and waited on is not fired (75, the request stays); --no-wait asks only.
        ("ferry schedule run nightly --timeout", .exits([75])),
        ("ferry schedule", .exits([0])),
        ("ferry account add", .skipped("checks the credentials with Dropbox or Flickr over the network; the test adds its accounts with --no-verify")),
        ("pass show", .skipped("needs pass(1) and a Dropbox token in it")),
        ("ferry account login", .skipped("OAuth in a browser, against Dropbox")),
        ("ferry account revoke", .skipped("revokes the token at Dropbox, over the network")),
        ("ferry account list", .exits([0])),
        ("ferry account update", .exits([0])),
        ("ferry account rekey", .exits([0])),
        ("head -c 32 /dev/urandom", .exits([0])),
        ("ferry worker", .skipped("a worker runs until stopped (the worker and chaos suites run real ones)")),
        ("ferry --generate-completion-script", .exits([0])),
        ("ferry dev-server", .skipped("a server runs until stopped (DevServerProcess runs it in the provider tests)")),
        ("ferry dashboard", .skipped("a server runs until stopped (the dashboard suites run it)")),
        ("FERRY_DASHBOARD_TOKEN=", .skipped("a server runs until stopped (the dashboard suites run it)")),
        ("curl ", .skipped("asks a running dashboard (the dashboard suites do)")),
        // retry: the cancelled job and batch are queued again; the last example retries that job once more, which
        // finds it queued: a negative answer (1).
        ("ferry retry", .exits([0, 1])),
    ]

    /// Runs `script` with /bin/sh (at most 2 minutes), the built ferry first on PATH, stdin empty; stdout and stderr
    /// together.
    static func shell(_ script: String, in folder: String, environment: [String: String]) async throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/timeout")
        process.arguments = ["120", "/bin/sh", "-c", script]
        var env = ProcessInfo.processInfo.environment
        env["PATH"] = FerryProcess.binDirectory + ":" + (env["PATH"] ?? "/usr/bin:/bin")
        env.removeValue(forKey: "DATABASE_URL")
        for (key, value) in environment { env[key] = value }
        process.environment = env
        process.currentDirectoryURL = URL(fileURLWithPath: folder)
        let output = folder + "/.example-output"
        _ = FileManager.default.createFile(atPath: output, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: output))
        defer { try? handle.close() }
        process.standardOutput = handle
        process.standardError = handle
        process.standardInput = FileHandle.nullDevice
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do {
                try process.run()
            } catch {
                process.terminationHandler = nil
                continuation.resume(throwing: error)
            }
        }
        return (status, (try? String(contentsOfFile: output, encoding: .utf8)) ?? "")
    }

    @Test("every command's help examples run against a real database and end as documented, but those that need a server or the network")
    func helpExamplesRun() async throws {
        let db = try await TestDatabase.make("polish_examples")
        let home = try temporaryFolder("examples")
        defer { try? FileManager.default.removeItem(atPath: home) }
        // The accounts are sealed under the test's usual key; the examples run with a new one, which
        // `ferry account rekey --old-key-file old.key` (re-seal under FERRY_SECRET_KEY) moves them to.
        let newKey = Data((0..<32).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
        func file(_ path: String, _ text: String = "x\n") throws {
            let url = URL(fileURLWithPath: home + "/" + path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url)
        }
        // The files the examples name, relative to the current folder or ~ (both the test's folder).
        for path in ["IMG_0001.jpg", "IMG_0002.jpg", "report.pdf", "backup.tar", "big.mov", "site/index.html", "Pictures/a.jpg",
                     "Photos/a.jpg", "Photos/cache/b.jpg", "srv/photos/a.jpg", "token", "token.txt", "t.txt", "key-id"] {
            try file(path)
        }
        try file("urls.txt", "https://example.com/u1.jpg\nhttps://example.com/u2.jpg\n")
        try file("jobs.jsonl", #"{"kind":"fetch","source":"https://example.com/j.jpg","to":"/srv/j/"}"# + "\n")
        try file("old.key", DropboxAccounts.secretKey)
        try file("etc/secret-key", newKey)
        try FileManager.default.createDirectory(atPath: home + "/archive", withIntermediateDirectories: true)

        // The accounts the examples send to, and the batch "trip" (queue photos) they read, its jobs cancelled.
        let accounts: [[String]] = [
            ["photos", "--provider", "dropbox", "--app-key", "k", "--refresh-token-file", "-"],
            ["work", "--provider", "dropbox", "--app-key", "k", "--refresh-token-file", "-"],
            ["me", "--provider", "dropbox", "--app-key", "k", "--refresh-token-file", "-"],
            ["dev", "--provider", "dropbox", "--app-key", "k", "--refresh-token-file", "-"],
            ["flickr", "--provider", "flickr", "--api-key-file", "-"],
            ["web", "--provider", "s3", "--region", "us-east-1", "--access-key-id-file", "key-id", "--secret-access-key-file", "-"],
            ["archive", "--provider", "s3", "--region", "us-east-1", "--access-key-id-file", "key-id", "--secret-access-key-file", "-"],
        ]
        for account in accounts {
            let added = try await FerryProcess.run(
                ["account", "add"] + account + ["--no-verify"], databaseURL: db.url, stdin: "secret\n",
                environment: DropboxAccounts.environment, currentDirectory: home)
            #expect(added.status == 0, "\(account): \(added.stderr)")
        }
        let enqueued = try await FerryProcess.run(
            ["enqueue", "fetch", "https://example.com/t1.jpg", "https://example.com/t2.jpg", "--to", "/srv/t/", "--batch", "trip",
             "--queue", "photos"], databaseURL: db.url)
        #expect(enqueued.status == 0 && enqueued.lines.count == 2, "\(enqueued.stderr)")
        #expect(try await FerryProcess.run(["cancel", "--batch", "trip"], databaseURL: db.url).status == 0)
        let ids = enqueued.lines

        let hasJQ = FileManager.default.isExecutableFile(atPath: "/usr/bin/jq")
        var ran = 0
        for command in Self.commandsWithExamples {
            for example in try await Self.examples(of: command) {
                let flat = example.replacingOccurrences(of: "\\\n", with: " ")
                guard let rule = Self.exampleRuns.first(where: { flat.hasPrefix($0.start) }) else {
                    Issue.record("\(command): no rule says how to run the example '\(flat)': add one to exampleRuns")
                    continue
                }
                guard case .exits(let statuses) = rule.run else { continue }
                if flat.contains("| jq") && !hasJQ { continue }
                // The example's placeholders made real: its job ids, its servers, its folders.
                var script = example
                    .replacingOccurrences(of: "0193a0c4-6f1e-7c55-9b1e-2f8f3b6f9d10", with: ids[0])
                    .replacingOccurrences(of: "0193a0c4-7a02-7c55-9b1e-2f8f3b6f9d11", with: ids[1])
                    // Starts of an id (ferry retry 0193a0c4-6f1e): a start only the first job has.
                    .replacingOccurrences(of: "0193a0c4-6f1e", with: String(ids[0].prefix(34)))
                    .replacingOccurrences(of: "0193a0c4", with: String(ids[0].prefix(35)))
                    .replacingOccurrences(of: "postgresql://standby/ferry", with: db.url)
                    .replacingOccurrences(of: "postgresql://admin@db/ferry", with: db.url)
                    .replacingOccurrences(of: "/usr/share/ferry/migrations", with: TestDatabase.migrationsDirectory)
                    .replacingOccurrences(of: "/var/lib/ferry/archive", with: home + "/archive")
                    .replacingOccurrences(of: "/etc/ferry/", with: home + "/etc/")
                    .replacingOccurrences(of: " /srv/", with: " \(home)/srv/")
                    .replacingOccurrences(of: "9f86d0…", with: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08")
                if !script.contains("--dry-run") {
                    script = script.replacingOccurrences(of: "ferry enqueue ", with: "ferry enqueue --dry-run ")
                }
                let result = try await Self.shell(script, in: home, environment: [
                    "HOME": home, "FERRY_DATABASE_URL": db.url, "FERRY_MIGRATIONS_DIR": TestDatabase.migrationsDirectory,
                    "FERRY_SECRET_KEY": newKey,
                ])
                #expect(statuses.contains(result.status), "\(command): '\(flat)' exited \(result.status): \(result.output)")
                ran += 1
            }
        }
        #expect(ran >= 60, "ran \(ran) examples")
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
