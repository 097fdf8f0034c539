import FerryCore
import FerryTestSupport
import Foundation
import Postgres
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A `ferry worker` process killed between an upload's data and its batch commit: the next attempt, in another
/// process, commits what was recorded. The batch commit's behaviour runs in process, in `DropboxBatchCommitTests`.
@Suite("Dropbox batch commit (processes)", .tags(.postgres, .process), .serialized)
struct DropboxBatchCommitProcessTests {
    @Test("kill -9 between data and batch commit: the next attempt commits the recorded sessions without sending data again, none twice")
    func killBeforeCommit() async throws {
        let server = try await DevServerProcess([])
        try await server.setFaults(["hold_commits": .bool(true)])
        let db = try await TestDatabase.make("dbx_batch_kill")
        try await DropboxAccounts.add("held", server: server, databaseURL: db.url, extra: ["--max-concurrent", "8"])
        let dir = try temporaryFolder("batchkill")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let files = try DropboxBatchCommitTests.files(8, in: dir)
        try await DropboxBatchCommitTests.enqueue(db, files, account: "held", batch: "held", in: dir)

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
        #expect(stats["bytes_received"]?.intValue == Int64(files.count * DropboxBatchCommitTests.size))
        #expect(stats["single_commits"]?.intValue == 0)
        #expect(stats["files_committed"]?.intValue == Int64(files.count))
        try DropboxBatchCommitTests.checkStored(files, server: server, account: "held", stats: stats)
        // Each second attempt looks first (issue 36): it finds its file committed by the released call and records it
        // unchanged, or, looking before that call landed, commits its recorded session.
        #expect(
            survivor.log.contains("committing the upload session an earlier attempt closed")
                || survivor.log.contains("an earlier attempt stored this content already"))
    }

    // How many uploads gather in one commit depends on how fast their data goes up beside the others: measured on a
    // worker process of its own, not on the test process's two cooperative threads shared with every other test.
    @Test("the account cap bounds concurrent transfers, not the batch: uploads whose data is up wait for their commit outside the cap")
    func capCountsTransfers() async throws {
        let server = try await DevServerProcess([])
        // 64 KiB at 640 KiB/s: each body takes about 100 ms, so transfers overlap if the cap lets them.
        try await server.setFaults(["upload_bytes_per_second": .int(640 * 1024)])
        let db = try await TestDatabase.make("dbx_batch_cap")
        try await DropboxAccounts.add("capped", server: server, databaseURL: db.url, extra: ["--max-concurrent", "2"])
        let dir = try temporaryFolder("batchcap")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let files = try DropboxBatchCommitTests.files(16, in: dir)
        try await DropboxBatchCommitTests.enqueue(db, files, account: "capped", batch: "capped", in: dir)

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
        let sizes = DropboxBatchCommitTests.entries(stats)
        #expect(sizes.reduce(0, +) == Int64(files.count), "\(sizes)")
        #expect((sizes.max() ?? 0) > 2, "a commit batch larger than the cap: \(sizes)")
        try DropboxBatchCommitTests.checkStored(files, server: server, account: "capped", stats: stats)
    }
}
