import FerryCore
import FerryTestSupport
import Foundation
import Postgres
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Dropbox fetches across a worker's death: `kill -9` of a real `ferry worker` mid-listing and mid-download, and
/// the next worker resuming where the dead one's checkpoint says. The rest of the Dropbox fetches run in process
/// (`DropboxFetchTests`).
@Suite("Dropbox fetches across a killed worker", .tags(.postgres, .process), .serialized)
struct DropboxFetchProcessTests {
    @Test("kill -9 of the listing worker mid-listing: the next attempt resumes at the recorded cursor, no duplicates")
    func killMidListing() async throws {
        let server = try await DevServerProcess()
        let db = try await TestDatabase.make("dbx_fetch_kill")
        try await DropboxAccounts.add("box", server: server, databaseURL: db.url)
        try await DropboxFetchTests.seed(server, account: "box", folder: "/Big", count: 2500, size: 64)
        // Slow pages leave time to kill the worker between two of them (latency applies to every route).
        try await server.setFaults(["latency_milliseconds": .int(4000)])
        let dir = try temporaryFolder("kill-list")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let parent = try await DropboxFetchTests.enqueueFetch(db, "dropbox:box:/Big", to: dir + "/out/", ["--page-size", "1000", "--batch", "crash"])

        let victim = try TestWorker.transfers(db, name: "victim", ["--concurrency", "4"])
        // Killed by a process of its own as soon as the first page is fanned out: this test's task, starved for
        // seconds beside in-process fleets, once killed only after the last of the 4 s pages.
        let firstPage = "SELECT count(*) FROM ferry.jobs WHERE job_id = '\(parent)'::uuid AND session ? 'cursor'"
        let killer = try WorkerFixtures.killWhen(db, pid: victim.pid, count: firstPage, reaches: 1)
        _ = try await victim.waitForExit(timeout: .seconds(600))
        try await eventually(timeout: .seconds(300), "the killer to exit") { !killer.isRunning }
        let recorded = try await count(db, "SELECT (session->>'listed')::bigint FROM ferry.jobs WHERE job_id = $1::uuid", [parent])
        #expect(recorded >= 1000 && recorded < 2500, "killed mid-listing (\(recorded) listed)")
        try await server.setFaults([:])

        let survivors = try (0..<2).map { try TestWorker.transfers(db, name: "survivor-\($0)", ["--concurrency", "8"]) }
        try await DropboxFetchTests.waitForBatch(db, "crash")
        try await DropboxFetchTests.stop(survivors)

        #expect(try await count(db, "SELECT attempt FROM ferry.jobs WHERE job_id = $1::uuid", [parent]) == 2)
        #expect(try await count(db, "SELECT count(*) FROM ferry.jobs WHERE batch = 'crash' AND state <> 'succeeded'") == 0)
        #expect(try await DropboxFetchTests.childCount(db, "crash") == 2500)
        #expect(try await DropboxFetchTests.childCount(db, "crash", "source") == 2500)
        #expect(try await DropboxFetchTests.childCount(db, "crash", "idempotency_key") == 2500)
        let stats = try await server.stats()
        #expect(stats["requests_per_route"]?["files/list_folder"]?.intValue == 1, "the second attempt continued from the cursor")
        try DropboxFetchTests.expectMirror(server, account: "box", remote: "/Big", local: dir + "/out", count: 2500)
    }

    @Test("kill -9 during a throttled download: the next attempt resumes with Range at the recorded offset")
    func resumeDownload() async throws {
        let server = try await DevServerProcess()
        let db = try await TestDatabase.make("dbx_fetch_resume")
        try await DropboxAccounts.add("box", server: server, databaseURL: db.url)
        let size = 40 * 1024 * 1024
        try await DropboxFetchTests.seed(server, account: "box", folder: "/Video", count: 1, size: size)
        // Minutes for the whole file: a busy test task still kills it midway. The throttle is lifted for the retry.
        try await server.setFaults(["download_bytes_per_second": .int(256 * 1024)])
        let dir = try temporaryFolder("resume")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let job = try await DropboxFetchTests.enqueueFetch(db, "dropbox:box:/Video/\(DropboxFetchTests.seededName(0))", to: dir + "/out/", [])

        let victim = try TestWorker.transfers(db, name: "victim")
        try await eventually(timeout: .seconds(300), interval: .milliseconds(100), "a checkpoint to be recorded") {
            try await count(db, "SELECT count(*) FROM ferry.jobs WHERE (session->>'offset')::bigint > 0") == 1
        }
        victim.signal(SIGKILL)
        _ = try await victim.waitForExit()
        let offset = Int64(try await count(db, "SELECT (session->>'offset')::bigint FROM ferry.jobs"))
        #expect(offset > 0 && offset < Int64(size))
        // What the first attempt made the server send, once the server has noticed the closed connection.
        var sentBefore: Int64 = -1
        try await eventually(timeout: .seconds(300), interval: .seconds(1), "the server to stop sending") {
            let sent = try await server.stats()["bytes_sent"]?.intValue ?? 0
            defer { sentBefore = sent }
            return sent == sentBefore
        }
        try await server.setFaults([:])

        let survivor = try TestWorker.transfers(db, name: "survivor")
        try await eventually(timeout: .seconds(300), interval: .milliseconds(200), "the fetch to finish") {
            try await count(db, "SELECT count(*) FROM ferry.jobs WHERE state IN ('succeeded', 'failed')") == 1
        }
        try await DropboxFetchTests.stop([survivor])

        #expect(try await count(db, "SELECT count(*) FROM ferry.jobs WHERE state = 'succeeded'") == 1)
        #expect(try await count(db, "SELECT attempt FROM ferry.jobs") == 2)
        let sentAfter = try await server.stats()["bytes_sent"]?.intValue ?? 0
        #expect(sentAfter - sentBefore == Int64(size) - offset, "the second attempt asked for bytes \(offset)– only")
        #expect(survivor.log.contains("resuming download"))
        let name = DropboxFetchTests.seededName(0)
        #expect(
            FileManager.default.contents(atPath: dir + "/out/" + name)
                == FileManager.default.contents(atPath: server.storedFile(account: "box", path: "/Video/" + name)))
        #expect(DropboxFetchTests.localFiles(dir + "/out") == [name], "no temporary file left")
        let result = try await DropboxFetchTests.result(db, job)
        #expect(result["bytes"]?.intValue == Int64(size), "\(result)")
        #expect(result["content_hash"]?.stringValue?.count == 64, "\(result)")
    }
}
