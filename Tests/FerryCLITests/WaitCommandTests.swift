import FerryTestSupport
import Foundation
import Postgres
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `ferry wait`: the real binary, real workers, a real database.
@Suite("ferry wait", .tags(.postgres, .process))
struct WaitCommandTests {
    /// Enqueues fetch jobs (one per queue given) into `batch`; returns their ids in order.
    static func enqueue(_ db: TestDatabase, batch: String, queues: [String]) async throws -> [String] {
        let lines = queues.enumerated().map { index, queue in
            #"{"kind":"fetch","source":"https://example.com/\#(batch)/\#(index).jpg","to":"/srv/","batch":"\#(batch)","queue":"\#(queue)"}"#
        }
        let result = try await FerryProcess.run(["enqueue", "--from", "-"], databaseURL: db.url, stdin: lines.joined(separator: "\n"))
        #expect(result.status == 0, "\(result.stderr)")
        return result.lines
    }

    static func worker(_ db: TestDatabase, _ arguments: [String]) throws -> BackgroundProcess {
        try BackgroundProcess(
            ferry: ["worker", "--heartbeat-interval", "0.3", "--poll-interval", "0.5"] + arguments, databaseURL: db.url)
    }

    static func stop(_ workers: [BackgroundProcess]) async throws {
        for worker in workers { worker.signal(SIGTERM) }
        for worker in workers { #expect(try await worker.waitForExit() == 0, "\(worker.log)") }
    }

    static func noTrace(_ text: String) -> Bool {
        !text.contains("Fatal error") && !text.contains("Stack dump")
    }

    @Test("exit 0 once every job of the batch succeeded, and not before")
    func batchSucceeds() async throws {
        let db = try await TestDatabase.make("waitok")
        _ = try await Self.enqueue(db, batch: "ok", queues: Array(repeating: "default", count: 5))
        let worker = try Self.worker(db, ["--handler", "sleep:200", "--concurrency", "2"])
        let result = try await FerryProcess.run(["wait", "--batch", "ok", "--timeout", "120"], databaseURL: db.url)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("batch ok: all 5 job(s) succeeded"))
        #expect(try await count(db, "SELECT count(*) FROM ferry.jobs WHERE batch = 'ok' AND state = 'succeeded'") == 5)
        try await Self.stop([worker])
    }

    @Test("exit 1 when a job failed, listing it with its last error; ferry wait JOB for each outcome")
    func batchWithFailure() async throws {
        let db = try await TestDatabase.make("waitfail")
        let ids = try await Self.enqueue(db, batch: "mixed", queues: ["good", "good", "bad"])
        let workers = [
            try Self.worker(db, ["--queues", "good", "--handler", "noop"]),
            try Self.worker(db, ["--queues", "bad", "--handler", "fail"]),
        ]
        let result = try await FerryProcess.run(["wait", "--batch", "mixed", "--timeout", "120"], databaseURL: db.url)
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stdout.contains("batch mixed: 2 of 3 job(s) succeeded, 1 failed, 0 cancelled"))
        #expect(result.stderr.contains("1 job(s) of batch mixed did not succeed"))
        #expect(result.stderr.contains("\(ids[2]) failed: scripted: scripted permanent failure"))
        #expect(!result.stderr.contains(ids[0]))

        let good = try await FerryProcess.run(["wait", ids[0]], databaseURL: db.url)
        #expect(good.status == 0 && good.stdout.contains("job \(ids[0]) succeeded"), "\(good.stderr)")
        let bad = try await FerryProcess.run(["wait", ids[2]], databaseURL: db.url)
        #expect(bad.status == 1 && bad.stderr.contains("failed: scripted: scripted permanent failure"), "\(bad.stderr)")
        try await Self.stop(workers)
    }

    @Test("ferry wait JOB blocks until the job finishes")
    func singleJob() async throws {
        let db = try await TestDatabase.make("waitjob")
        let enqueue = try await FerryProcess.run(["enqueue", "fetch", "https://example.com/one.jpg", "--to", "/srv/"], databaseURL: db.url)
        let id = enqueue.lines[0]
        let worker = try Self.worker(db, ["--handler", "sleep:500"])
        let result = try await FerryProcess.run(["wait", id, "--interval", "0.2", "--timeout", "120"], databaseURL: db.url)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try await count(db, "SELECT count(*) FROM ferry.jobs WHERE job_id = $1::uuid AND state = 'succeeded'", [id]) == 1)
        try await Self.stop([worker])
    }

    @Test("exit 75 when --timeout passes while a job stays queued")
    func timesOut() async throws {
        let db = try await TestDatabase.make("waittimeout")
        let ids = try await Self.enqueue(db, batch: "stuck", queues: ["nobody-works-here"])
        let batch = try await FerryProcess.run(["wait", "--batch", "stuck", "--timeout", "1"], databaseURL: db.url)
        #expect(batch.status == 75, "\(batch.stderr)")
        #expect(batch.stderr.contains("timed out") && batch.stderr.contains("1 of 1 job(s) unfinished"))
        let job = try await FerryProcess.run(["wait", ids[0], "--timeout", "0.5"], databaseURL: db.url)
        #expect(job.status == 75, "\(job.stderr)")
    }

    /// (arguments, exit code, words stderr must contain)
    static let refused: [([String], Int32, [String])] = [
        (["wait", "--batch", "no-such-batch"], 66, ["no batch named no-such-batch"]),
        (["wait", "0193a0c4-6f1e-7c55-9b1e-2f8f3b6f9d10"], 66, ["no job"]),
        (["wait"], 64, ["job id or --batch"]),
        (["wait", "not-a-uuid"], 65, ["not a job id"]),
        (["wait", "--batch", "b", "--interval", "0"], 65, ["--interval"]),
        (["wait", "--batch", "b", "--timeout", "0"], 65, ["--timeout"]),
    ]

    @Test("unknown batches and jobs exit 66; bad arguments are refused", arguments: refused.indices)
    func refusals(index: Int) async throws {
        let (arguments, code, words) = Self.refused[index]
        let db = try await TestDatabase.make("waitbad")
        let result = try await FerryProcess.run(arguments, databaseURL: db.url)
        #expect(result.status == code, "\(arguments): \(result.stderr)")
        for word in words { #expect(result.stderr.contains(word), "\(arguments): \(result.stderr)") }
        #expect(Self.noTrace(result.stderr))
    }

    @Test("help explains the exit codes and shows examples")
    func help() async throws {
        let result = try await FerryProcess.run(["wait", "--help"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("USAGE:") && result.stdout.contains("Examples:"))
        // Help text is wrapped to the terminal: compare with single spaces.
        let text = result.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        for code in ["0 every job succeeded", "1 some failed", "66 no such batch or job", "75 --timeout passed first", "130 interrupted"] {
            #expect(text.contains(code), "\(result.stdout)")
        }
    }

    @Test("--progress into a pipe prints plain progress lines, the last one complete")
    func plainProgress() async throws {
        let db = try await TestDatabase.make("waitlines")
        _ = try await Self.enqueue(db, batch: "slow", queues: Array(repeating: "default", count: 4))
        let worker = try Self.worker(db, ["--handler", "sleep:300", "--concurrency", "1"])
        let result = try await FerryProcess.run(["wait", "--batch", "slow", "--progress", "--timeout", "120"], databaseURL: db.url)
        #expect(result.status == 0, "\(result.stderr)")
        let progress = result.lines.filter { $0.hasPrefix("batch slow: ") && $0.contains("jobs finished") }
        #expect(progress.count >= 2, "\(result.stdout)")
        #expect(progress.last?.hasPrefix("batch slow: 4/4 jobs finished, 0 running") == true, "\(result.stdout)")
        #expect(!result.stdout.contains("\r"), "no in-place redraws into a pipe")
        try await Self.stop([worker])
    }

    @Test("partial totals say so: unknown sizes are counted, all bytes sent is not 100% until the job succeeded")
    func partialTotals() async throws {
        let db = try await TestDatabase.make("waitpartial")
        let ids = try await Self.enqueue(db, batch: "part", queues: ["default", "default", "default"])
        // The projection as it stands mid-run (set directly: this checks the views' arithmetic): one job has sent
        // all its 8 MiB and is committing, one has 16 MiB of which 4 are done, one has not started (size unknown).
        try await db.query("""
            UPDATE ferry.jobs SET state = 'running', bytes_total = 8388608, bytes_done = 8388608 WHERE job_id = $1::uuid;
            """, [ids[0]])
        try await db.query("UPDATE ferry.jobs SET state = 'running', bytes_total = 16777216, bytes_done = 4194304 WHERE job_id = $1::uuid", [ids[1]])
        // Set behind the trigger's back: the batch counters are recounted from the rows, as a rebuild does.
        try await db.query("SELECT ferry.recount_batches()")
        let job = try await db.query("SELECT percent::text FROM ferry.job_status WHERE job_id = $1::uuid", [ids[0]]).rows[0]
        #expect(try job.decode(String.self, at: 0) == "99.9", "all bytes sent is not done")
        let batch = try await db.query("SELECT percent::text, sizes_unknown, bytes_total FROM ferry.batch_status WHERE batch = 'part'").rows[0]
        #expect(try batch.decode(String.self, at: 0) == "0.0", "by finished jobs while a size is unknown")
        #expect(try batch.decode(Int.self, at: 1) == 1)
        #expect(try batch.decode(Int64.self, at: 2) == 25_165_824)

        let result = try await FerryProcess.run(["wait", "--batch", "part", "--progress", "--timeout", "1"], databaseURL: db.url)
        #expect(result.status == 75, "\(result.stdout)\(result.stderr)")
        let line = try #require(result.lines.first { $0.hasPrefix("batch part: ") && $0.contains("jobs finished") })
        #expect(line.contains("12.0 MiB of 24.0 MiB+ (1 size unknown)"), "\(line)")
        #expect(!line.contains("ETA 0s"))
        let status = try await FerryProcess.run(["status", "--batch", "part", "--json"], databaseURL: db.url)
        #expect(status.stdout.contains(#""sizes_unknown":1"#), "\(status.stdout)")

        // Everything sent and every size known, but one job still committing: still below 100%.
        try await db.query("UPDATE ferry.jobs SET state = 'succeeded', bytes_done = 16777216 WHERE job_id = $1::uuid", [ids[1]])
        try await db.query("UPDATE ferry.jobs SET state = 'succeeded', bytes_total = 100, bytes_done = 100 WHERE job_id = $1::uuid", [ids[2]])
        try await db.query("SELECT ferry.recount_batches()")
        let almost = try await db.query("SELECT percent::text, done FROM ferry.batch_status WHERE batch = 'part'").rows[0]
        #expect(try almost.decode(String.self, at: 0) == "99.9" && !(try almost.decode(Bool.self, at: 1)))
        try await db.query("UPDATE ferry.jobs SET state = 'succeeded' WHERE job_id = $1::uuid", [ids[0]])
        try await db.query("SELECT ferry.recount_batches()")
        #expect(try await db.query("SELECT percent::text FROM ferry.batch_status WHERE batch = 'part'").rows[0].decode(String.self, at: 0) == "100.0")
    }

    @Test("a completion wakes ferry wait through ferry_batch, not by polling")
    func wakesOnNotification() async throws {
        let db = try await TestDatabase.make("waitnotify")
        _ = try await Self.enqueue(db, batch: "ping", queues: ["default", "default"])
        // Polling every hour: only the notification can end this wait before the timeout (exit 75).
        let waiter = try BackgroundProcess(
            ferry: ["wait", "--batch", "ping", "--interval", "3600", "--timeout", "90"], databaseURL: db.url)
        // Subscribed: the session's last statement checks pg_listening_channels after LISTEN and a fresh read.
        try await eventually(timeout: .seconds(300), "ferry wait to listen") {
            try await count(db, """
                SELECT count(*) FROM pg_stat_activity
                 WHERE datname = current_database() AND state = 'idle' AND query LIKE '%pg_listening_channels%'
                """) == 1
        }
        let worker = try Self.worker(db, ["--handler", "noop"])
        #expect(try await waiter.waitForExit(timeout: .seconds(120)) == 0, "\(waiter.log)")
        try await Self.stop([worker])
    }

    @Test("a PostgreSQL restart while waiting: ferry wait reconnects, keeps waiting, and returns on completion")
    func survivesRestart() async throws {
        try await PrivateCluster.withNew { try await restartScenario($0) }
    }

    func restartScenario(_ cluster: PrivateCluster) async throws {
        let db = try await cluster.migratedDatabase()
        _ = try await Self.enqueue(db, batch: "restart", queues: ["default", "default"])
        let waiter = try BackgroundProcess(
            ferry: ["wait", "--batch", "restart", "--progress", "--interval", "0.3", "--timeout", "120"], databaseURL: db.url)
        try await eventually(timeout: .seconds(300), "the first progress line") { waiter.log.contains("jobs finished") }
        // The private cluster runs without synchronous commit, and the restart is a crash: make the jobs durable.
        try await db.query("CHECKPOINT")
        try await cluster.restart()
        #expect(waiter.isRunning, "still waiting after the restart: \(waiter.log)")
        let worker = try Self.worker(db, ["--handler", "noop"])
        #expect(try await waiter.waitForExit(timeout: .seconds(120)) == 0, "\(waiter.log)")
        #expect(waiter.log.contains("batch restart: all 2 job(s) succeeded"))
        #expect(Self.noTrace(waiter.log))
        try await Self.stop([worker])
    }

    @Test("SIGINT ends a wait with exit 130 and no stack trace")
    func interrupted() async throws {
        let db = try await TestDatabase.make("waitint")
        _ = try await Self.enqueue(db, batch: "forever", queues: ["nobody-works-here"])
        let waiter = try BackgroundProcess(ferry: ["wait", "--batch", "forever", "--progress"], databaseURL: db.url)
        try await eventually(timeout: .seconds(300), "the first progress line") { waiter.log.contains("jobs finished") }
        waiter.signal(SIGINT)
        #expect(try await waiter.waitForExit() == 130, "\(waiter.log)")
        #expect(waiter.log.contains("interrupted"))
        #expect(Self.noTrace(waiter.log))
    }

    @Test("--progress on a terminal redraws one line in place with a bar")
    func liveProgress() async throws {
        let db = try await TestDatabase.make("waittty")
        _ = try await Self.enqueue(db, batch: "tty", queues: Array(repeating: "default", count: 3))
        let worker = try Self.worker(db, ["--handler", "noop"])
        try await eventually(timeout: .seconds(300), "the batch to finish") {
            try await count(db, "SELECT count(*) FROM ferry.jobs WHERE batch = 'tty' AND state = 'succeeded'") == 3
        }
        try await Self.stop([worker])
        // script(1) gives the command a pseudo-terminal and copies what it writes to our pipe.
        let command = "'\(FerryProcess.executable)' wait --batch tty --progress --timeout 60"
        let result = try await Self.runInTerminal(command, databaseURL: db.url)
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains("\rbatch tty [########"), "\(result.output)")
        #expect(result.output.contains("3/3 jobs"))
        #expect(result.output.contains("batch tty: all 3 job(s) succeeded"))
    }

    static func runInTerminal(_ command: String, databaseURL: String) async throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        process.arguments = ["-qec", command, "/dev/null"]
        var environment = ProcessInfo.processInfo.environment
        environment["FERRY_DATABASE_URL"] = databaseURL
        environment["FERRY_MIGRATIONS_DIR"] = TestDatabase.migrationsDirectory
        environment["COLUMNS"] = "120"
        process.environment = environment
        let outputPath = FileManager.default.temporaryDirectory.appendingPathComponent("ferry-tty-\(UUID().uuidString)").path
        _ = FileManager.default.createFile(atPath: outputPath, contents: nil)
        defer { try? FileManager.default.removeItem(atPath: outputPath) }
        let output = try FileHandle(forWritingTo: URL(fileURLWithPath: outputPath))
        defer { try? output.close() }
        process.standardOutput = output
        process.standardError = output
        process.standardInput = FileHandle(forReadingAtPath: "/dev/null")
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do {
                try process.run()
            } catch {
                process.terminationHandler = nil
                continuation.resume(throwing: error)
            }
        }
        return (status, (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "")
    }
}
