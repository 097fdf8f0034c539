import FerryTestSupport
import Foundation
import Postgres
import Testing

/// `ferry enqueue --from` streams: inputs larger than one chunk (4,096 lines) go to the database in several
/// COPY statements of one transaction. These tests use enough lines for several chunks.
@Suite("ferry CLI: streaming bulk enqueue", .tags(.postgres, .process))
struct StreamingEnqueueTests {
    static let lineCount = 30_000

    static func line(_ index: Int, key: String? = nil, queue: String = "default") -> String {
        var text = #"{"kind":"fetch","source":"https://example.com/p/\#(index).jpg","to":"/srv/in/","batch":"stream","queue":"\#(queue)""#
        if let key { text += #","key":"\#(key)""# }
        return text + "}"
    }

    func counts(_ db: TestDatabase) async throws -> (jobs: Int, events: Int) {
        let row = try await db.query("SELECT (SELECT count(*) FROM ferry.jobs), (SELECT count(*) FROM ferry.events)").rows[0]
        return (try row.decode(Int.self, at: 0), try row.decode(Int.self, at: 1))
    }

    @Test("30,000 lines from standard input: every job, ids in input order, one transaction")
    func manyLinesFromStandardInput() async throws {
        let db = try await TestDatabase.make("stream")
        let input = (0..<Self.lineCount).map { Self.line($0, queue: $0 % 2 == 0 ? "even" : "odd") }.joined(separator: "\n") + "\n"
        let result = try await FerryProcess.run(["enqueue", "--from", "-"], databaseURL: db.url, stdin: input)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.lines.count == Self.lineCount)
        #expect(try await counts(db) == (Self.lineCount, Self.lineCount))
        // The printed ids follow the input: line N's id has line N's source.
        let rows = try await db.query(
            "SELECT job_id::text, source FROM ferry.jobs WHERE job_id = ANY($1::uuid[])",
            [PostgresArray([result.lines[0], result.lines[4_097], result.lines[Self.lineCount - 1]])]).rows
        var sources = [String: String]()
        for row in rows { sources[try row.decode(String.self, at: 0)] = try row.decode(String.self, at: 1) }
        #expect(sources[result.lines[0]] == "https://example.com/p/0.jpg")
        #expect(sources[result.lines[4_097]] == "https://example.com/p/4097.jpg")
        #expect(sources[result.lines[Self.lineCount - 1]] == "https://example.com/p/\(Self.lineCount - 1).jpg")
        // One transaction: every enqueued event shares it.
        let transactions = try await db.query("SELECT count(DISTINCT tx_id) FROM ferry.events").rows[0].decode(Int.self, at: 0)
        #expect(transactions == 1)
        #expect(try await FerryProcess.run(["projection", "verify"], databaseURL: db.url).status == 0)
    }

    @Test("a generator piped into ferry enqueue --from - (a real pipe, written while ferry reads)")
    func generatorPipe() async throws {
        let db = try await TestDatabase.make("streampipe")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        // awk writes the lines as ferry reads them, through a pipe ferry cannot seek or size.
        process.arguments = ["-c", #"awk 'BEGIN { for (i = 0; i < 20000; i++) printf "{\"kind\":\"fetch\",\"source\":\"https://example.com/g/%d.jpg\",\"to\":\"/srv/in/\"}\n", i }' | "$FERRY" enqueue --from - --batch piped > /dev/null"#]
        var environment = ProcessInfo.processInfo.environment
        environment["FERRY"] = FerryProcess.executable
        environment["FERRY_DATABASE_URL"] = db.url
        environment["FERRY_MIGRATIONS_DIR"] = TestDatabase.migrationsDirectory
        process.environment = environment
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do { try process.run() } catch {
                process.terminationHandler = nil
                continuation.resume(throwing: error)
            }
        }
        #expect(status == 0)
        let batch = try await db.query("SELECT count(*) FROM ferry.jobs WHERE batch = 'piped'").rows[0].decode(Int.self, at: 0)
        #expect(batch == 20_000)
    }

    @Test("a bad line after several chunks were sent: exit 65 naming that line, and nothing is enqueued")
    func badLineLateRollsBackEverything() async throws {
        let db = try await TestDatabase.make("streambad")
        var lines = (0..<Self.lineCount).map { Self.line($0) }
        lines[25_000] = #"{"kind":"fetch","source":"ftp://example.com/x","to":"/srv/in/"}"#
        lines[27_000] = #"{"kind":"fetch","to":"/srv/in/"}"#
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("ferry-stream-\(UUID().uuidString).jsonl").path
        try (lines.joined(separator: "\n") + "\n").write(toFile: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: file) }
        let result = try await FerryProcess.run(["enqueue", "--from", file], databaseURL: db.url)
        #expect(result.status == 65)
        #expect(result.stderr.contains("line 25001: source"), "\(result.stderr)")
        #expect(result.stderr.contains("line 27001: source: missing"), "\(result.stderr)")
        #expect(result.stderr.contains("nothing was enqueued"))
        #expect(result.stdout.isEmpty, "no ids are printed for a batch that was rolled back")
        #expect(try await counts(db) == (0, 0))
    }

    @Test("idempotency keys repeat across chunks and across runs: one job each, the same id printed")
    func keysAcrossChunks() async throws {
        let db = try await TestDatabase.make("streamkeys")
        var lines = (0..<10_000).map { Self.line($0, key: "k-\($0)") }
        lines.append(Self.line(3, key: "k-3"))  // line 4 again, two chunks later
        var reused = lines
        reused.append(Self.line(99_999, key: "k-4"))  // line 5's key for another file
        let input = lines.joined(separator: "\n")
        let first = try await FerryProcess.run(["enqueue", "--from", "-", "--json"], databaseURL: db.url, stdin: input)
        #expect(first.status == 0, "\(first.stderr)")
        // JSON Lines, one object per job (as a dry run prints them).
        let items = try first.lines.map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        #expect(items.count == 10_001)
        #expect(items[3]["job_id"] as? String == items[10_000]["job_id"] as? String)
        #expect(items[10_000]["created"] as? Bool == false && items[10_000]["line"] as? Int == 10_001)
        let refused = try await FerryProcess.run(["enqueue", "--from", "-"], databaseURL: db.url, stdin: reused.joined(separator: "\n"))
        #expect(refused.status == 65 && refused.stderr.contains("line 10002: the idempotency key 'k-4' belongs to job"), "\(refused.stderr)")
        #expect(try await counts(db).jobs == 10_000)
        let again = try await FerryProcess.run(["enqueue", "--from", "-"], databaseURL: db.url, stdin: input)
        #expect(again.status == 0)
        #expect(again.lines == items.compactMap { $0["job_id"] as? String })
        #expect(try await counts(db).jobs == 10_000)
    }

    @Test("a key committed by a concurrent producer during a bulk enqueue: exit 75, nothing written, a rerun returns the job")
    func concurrentKeyConflict() async throws {
        let db = try await TestDatabase.make("streamrace")
        // Producer A sends one full chunk (line 1 has key "shared") and keeps its transaction open on stdin.
        let first = Process()
        first.executableURL = URL(fileURLWithPath: FerryProcess.executable)
        first.arguments = ["enqueue", "--from", "-"]
        var environment = ProcessInfo.processInfo.environment
        environment["FERRY_DATABASE_URL"] = db.url
        environment["FERRY_MIGRATIONS_DIR"] = TestDatabase.migrationsDirectory
        first.environment = environment
        let input = Pipe()
        first.standardInput = input
        first.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
        try first.run()
        let chunk = (0..<4_096).map { Self.line($0, key: $0 == 0 ? "shared" : nil) }.joined(separator: "\n") + "\n"
        input.fileHandleForWriting.write(Data(chunk.utf8))
        // Wait until A's first COPY is done and its connection sits idle in the open transaction.
        try await eventually(timeout: .seconds(300), "producer A idle in its open transaction after a COPY") {
            try await db.query("""
                SELECT count(*) FROM pg_stat_activity
                 WHERE datname = current_database() AND state = 'idle in transaction' AND query LIKE 'COPY ferry.events%'
                """).rows[0].decode(Int.self, at: 0) > 0
        }
        // Producer B enqueues the same key: its insert waits for A's transaction, and fails once A commits.
        async let second = FerryProcess.run(["enqueue", "--from", "-"], databaseURL: db.url, stdin: Self.line(0, key: "shared") + "\n")
        try await eventually(timeout: .seconds(300), "producer B waiting on A's key") {
            let rows = try await db.query(
                "SELECT coalesce(state, '') || '/' || coalesce(wait_event_type, '') FROM pg_stat_activity WHERE datname = current_database()"
            ).rows.map { try $0.decode(String.self, at: 0) }
            return rows.contains { $0.hasSuffix("/Lock") }
        }
        try input.fileHandleForWriting.close()
        let b = try await second
        try await eventually(timeout: .seconds(300), "producer A to exit") { !first.isRunning }
        #expect(first.terminationStatus == 0)
        #expect(b.status == 75, "\(b.stderr)")
        #expect(b.stderr.contains("another producer enqueued one of these idempotency keys") && b.stderr.contains("run the same command again"))
        #expect(try await counts(db).jobs == 4_096)
        let again = try await FerryProcess.run(["enqueue", "--from", "-"], databaseURL: db.url, stdin: Self.line(0, key: "shared") + "\n")
        #expect(again.status == 0 && again.lines.count == 1)
        #expect(try await counts(db).jobs == 4_096)
    }

    @Test("empty input, a line over 1 MiB and an unreadable file are refused with the fix")
    func refusedInputs() async throws {
        let db = try await TestDatabase.make("streamrefuse")
        let empty = try await FerryProcess.run(["enqueue", "--from", "-"], databaseURL: db.url, stdin: "\n  \n")
        #expect(empty.status == 65 && empty.stderr.contains("no jobs in the input"))
        let long = Self.line(1) + "\n" + String(repeating: "x", count: 1_100_000) + "\n" + Self.line(2) + "\n"
        let tooLong = try await FerryProcess.run(["enqueue", "--from", "-"], databaseURL: db.url, stdin: long)
        #expect(tooLong.status == 65 && tooLong.stderr.contains("line 2: json: the line is longer than 1 MiB"), "\(tooLong.stderr)")
        let missing = try await FerryProcess.run(["enqueue", "--from", "/nonexistent/jobs.jsonl"], databaseURL: db.url)
        #expect(missing.status == 65 && missing.stderr.contains("cannot read /nonexistent/jobs.jsonl"))
        #expect(try await counts(db) == (0, 0))
    }
}
