import FerryCore
import FerryTestSupport
import Foundation
import Postgres
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Small Dropbox uploads committed together with `upload_session/finish_batch_v2`: real `ferry` workers, a real
/// `ferry dev-server` emulating Dropbox's namespace lock, real PostgreSQL.
@Suite("Dropbox batch commit", .tags(.postgres, .process), .serialized)
struct DropboxBatchCommitTests {
    static let size = 64 * 1024

    /// `count` random 64 KiB files named `prefix-N.bin`, and their upload jobs (batch `batch`) to `/Batch/`.
    static func files(_ count: Int, in dir: String, prefix: String = "f") throws -> [String] {
        try (0..<count).map { index in
            let path = "\(dir)/\(prefix)-\(index).bin"
            try DropboxAccounts.randomFile(path, size: size)
            return path
        }
    }

    static func enqueue(_ db: TestDatabase, _ files: [String], account: String, batch: String, in dir: String) async throws {
        try await DropboxUploadTests.enqueue(
            db, files.map { #"{"kind":"upload","source":"\#($0)","to":"dropbox:\#(account):/Batch/","batch":"\#(batch)","max_attempts":10}"# },
            in: dir)
    }

    static func entries(_ stats: JSONValue) -> [Int64] {
        (stats["finish_batch_entries"]?.arrayValue ?? []).compactMap(\.intValue)
    }

    /// Every file is on the server once, byte for byte.
    static func checkStored(_ files: [String], server: DevServerProcess, account: String, stats: JSONValue) throws {
        for file in files {
            let name = (file as NSString).lastPathComponent
            #expect(try DropboxAccounts.sha256(server.storedFile(account: account, path: "/Batch/" + name)) == DropboxAccounts.sha256(file), "\(name)")
            #expect(stats["commits_per_path"]?["/batch/\(name.lowercased())"]?.intValue == 1, "\(name) committed once")
        }
    }

    @Test("many small uploads to one account are committed by finish_batch_v2 calls of several entries, never one by one")
    func smallFilesCommitInBatches() async throws {
        // Commits hold the namespace lock 20 ms: single commits from 16 concurrent uploads would contend.
        let server = try await DevServerProcess(["--namespace-lock-ms", "20"])
        let db = try await TestDatabase.make("dbx_batch")
        try await DropboxAccounts.add("many", server: server, databaseURL: db.url, extra: ["--max-concurrent", "16"])
        let dir = try temporaryFolder("batch")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let files = try Self.files(60, in: dir)
        try await Self.enqueue(db, files, account: "many", batch: "small", in: dir)

        let worker = try TestWorker.transfers(db, name: "batcher", ["--concurrency", "16", "--poll-interval", "0.05"])
        try await eventually(timeout: .seconds(300), interval: .milliseconds(200), "the batch to finish") {
            try await WorkerFixtures.batchDone(db, "small")
        }
        worker.signal(SIGTERM)
        _ = try await worker.waitForExit()

        let failed = try await count(db, "SELECT count(*) FROM ferry.jobs WHERE batch = 'small' AND state <> 'succeeded'")
        #expect(failed == 0)
        let stats = try await server.stats()
        let sizes = Self.entries(stats)
        #expect(sizes.reduce(0, +) == Int64(files.count), "every file went through finish_batch_v2: \(sizes)")
        #expect(sizes.contains { $0 > 1 }, "batches of more than one entry: \(sizes)")
        #expect(sizes.count < files.count / 2, "fewer commit calls than half the files: \(sizes)")
        #expect(stats["single_commits"]?.intValue == 0, "no single-file commit")
        #expect(stats["requests_per_route"]?["files/upload"] == nil)
        #expect(stats["sessions_started"]?.intValue == Int64(files.count), "one closed session per file")
        try Self.checkStored(files, server: server, account: "many", stats: stats)
        // The closed session was recorded before each commit.
        let closed = try await count(
            db, "SELECT count(DISTINCT job_id) FROM ferry.events WHERE type = 'progress' AND (data->'session'->>'closed')::boolean")
        #expect(closed == files.count)
    }

    @Test("the account cap bounds concurrent transfers, not the batch: uploads whose data is up wait for their commit outside the cap")
    func capCountsTransfers() async throws {
        let server = try await DevServerProcess([])
        // 64 KiB at 640 KiB/s: each body takes about 100 ms, so transfers overlap if the cap lets them.
        try await server.setFaults(["upload_bytes_per_second": .int(640 * 1024)])
        let db = try await TestDatabase.make("dbx_batch_cap")
        try await DropboxAccounts.add("capped", server: server, databaseURL: db.url, extra: ["--max-concurrent", "2"])
        let dir = try temporaryFolder("batchcap")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let files = try Self.files(16, in: dir)
        try await Self.enqueue(db, files, account: "capped", batch: "capped", in: dir)

        // A long window: a batch gathers every upload whose data went up meanwhile; the poll interval is long, so
        // only the wake-up on a finished transfer claims the next job in time.
        let worker = try BackgroundProcess(
            ferry: ["worker", "--name", "capped", "--concurrency", "16", "--poll-interval", "60", "--log-level", "info"],
            databaseURL: db.url, environment: DropboxAccounts.environment.merging(["FERRY_DROPBOX_BATCH_WINDOW_MS": "3000"]) { $1 })
        try await eventually(timeout: .seconds(300), interval: .milliseconds(200), "the batch to finish") {
            try await WorkerFixtures.batchDone(db, "capped")
        }
        worker.signal(SIGTERM)
        _ = try await worker.waitForExit()

        #expect(try await count(db, "SELECT count(*) FROM ferry.jobs WHERE batch = 'capped' AND state <> 'succeeded'") == 0)
        let stats = try await server.stats()
        let peak = stats["upload_bodies_peak"]?.intValue ?? 0
        #expect(peak >= 1 && peak <= 2, "at most the cap's 2 transfers at once: \(peak)")
        let sizes = Self.entries(stats)
        #expect(sizes.reduce(0, +) == Int64(files.count), "\(sizes)")
        #expect((sizes.max() ?? 0) > 2, "a commit batch larger than the cap: \(sizes)")
        try Self.checkStored(files, server: server, account: "capped", stats: stats)
    }

    @Test("a batch entry that fails fails only its own job; the others of the batch succeed")
    func failingEntry() async throws {
        let server = try await DevServerProcess([])
        try await server.setFaults(["fail_commit_paths": .array([.string("/batch/bad-")])])
        let db = try await TestDatabase.make("dbx_batch_fail")
        try await DropboxAccounts.add("mixed", server: server, databaseURL: db.url, extra: ["--max-concurrent", "8"])
        let dir = try temporaryFolder("batchfail")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let good = try Self.files(7, in: dir, prefix: "good")
        let bad = try Self.files(1, in: dir, prefix: "bad")
        try await Self.enqueue(db, good + bad, account: "mixed", batch: "mixed", in: dir)

        // A long window: the eight uploads meet in one batch.
        let worker = try BackgroundProcess(
            ferry: ["worker", "--name", "mixed", "--concurrency", "8", "--poll-interval", "0.05", "--log-level", "info", "--retry-base", "0.2"],
            databaseURL: db.url, environment: DropboxAccounts.environment.merging(["FERRY_DROPBOX_BATCH_WINDOW_MS": "2000"]) { $1 })
        try await eventually(timeout: .seconds(300), interval: .milliseconds(200), "the batch to finish") {
            try await WorkerFixtures.batchDone(db, "mixed")
        }
        worker.signal(SIGTERM)
        _ = try await worker.waitForExit()

        let rows = try await db.query("SELECT source, state, last_error FROM ferry.jobs WHERE batch = 'mixed'").rows
        for row in rows {
            let source = try row.decode(String.self, at: 0)
            let state = try row.decode(String.self, at: 1)
            if source.hasSuffix("bad-0.bin") {
                #expect(state == "failed")
                #expect(try row.decode(String?.self, at: 2)?.contains("insufficient_space") == true)
            } else {
                #expect(state == "succeeded", "\(source)")
            }
        }
        let stats = try await server.stats()
        #expect(Self.entries(stats).contains(8), "all eight in one call: \(Self.entries(stats))")
        #expect(stats["single_commits"]?.intValue == 0)
        try Self.checkStored(good, server: server, account: "mixed", stats: stats)
        #expect(!FileManager.default.fileExists(atPath: server.storedFile(account: "mixed", path: "/Batch/bad-0.bin")))
    }

    @Test("kill -9 between data and batch commit: the next attempt commits the recorded sessions without sending data again, none twice")
    func killBeforeCommit() async throws {
        let server = try await DevServerProcess([])
        try await server.setFaults(["hold_commits": .bool(true)])
        let db = try await TestDatabase.make("dbx_batch_kill")
        try await DropboxAccounts.add("held", server: server, databaseURL: db.url, extra: ["--max-concurrent", "8"])
        let dir = try temporaryFolder("batchkill")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let files = try Self.files(8, in: dir)
        try await Self.enqueue(db, files, account: "held", batch: "held", in: dir)

        let victim = try TestWorker.transfers(db, name: "victim", ["--concurrency", "8", "--poll-interval", "0.05"])
        // The data of every file is up and recorded, and a batch commit is in flight (held by the server).
        try await eventually(timeout: .seconds(300), interval: .milliseconds(100), "closed sessions recorded and a commit held") {
            let closed = try await count(
                db, "SELECT count(*) FROM ferry.jobs WHERE batch = 'held' AND (session::jsonb->>'closed')::boolean")
            let stats = try await server.stats()
            return closed == files.count && (stats["requests_per_route"]?["files/upload_session/finish_batch_v2"]?.intValue ?? 0) >= 1
        }
        victim.signal(SIGKILL)
        _ = try await victim.waitForExit()
        // The held call commits once released, its answer going nowhere: like a commit whose answer was lost.
        try await server.setFaults([:])

        let survivor = try TestWorker.transfers(db, name: "survivor", ["--concurrency", "8", "--poll-interval", "0.05"])
        try await eventually(timeout: .seconds(300), interval: .milliseconds(200), "the batch to finish") {
            try await WorkerFixtures.batchDone(db, "held")
        }
        survivor.signal(SIGTERM)
        _ = try await survivor.waitForExit()

        let failed = try await count(db, "SELECT count(*) FROM ferry.jobs WHERE batch = 'held' AND state <> 'succeeded'")
        #expect(failed == 0)
        let retried = try await count(db, "SELECT count(*) FROM ferry.jobs WHERE batch = 'held' AND attempt = 2")
        #expect(retried == files.count, "every job was taken over by a second attempt")
        let stats = try await server.stats()
        #expect(stats["sessions_started"]?.intValue == Int64(files.count), "no file's data was sent again")
        #expect(stats["bytes_received"]?.intValue == Int64(files.count * Self.size))
        #expect(stats["single_commits"]?.intValue == 0)
        #expect(stats["files_committed"]?.intValue == Int64(files.count))
        try Self.checkStored(files, server: server, account: "held", stats: stats)
        // Each second attempt looks first (issue 36): it finds its file committed by the released call and records it
        // unchanged, or, looking before that call landed, commits its recorded session.
        #expect(
            survivor.log.contains("committing the upload session an earlier attempt closed")
                || survivor.log.contains("an earlier attempt stored this content already"))
    }
}
