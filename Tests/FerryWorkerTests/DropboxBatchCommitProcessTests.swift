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
}
