import FerryCore
import FerryTestSupport
import Foundation
import Postgres
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A `ferry worker` process killed in the middle of a concurrent upload session: the next attempt, in another
/// process, sends only the chunks not recorded. The sessions' behaviour runs in process, in
/// `DropboxConcurrentSessionTests`.
@Suite("Dropbox concurrent upload sessions (processes)", .tags(.postgres, .process), .serialized)
struct DropboxConcurrentSessionProcessTests {
    static let chunk = DropboxConcurrentSessionTests.chunk

    @Test("kill -9 in the middle of a concurrent session: the next attempt sends only the chunks not recorded")
    func resumeAfterKill() async throws {
        // 512 KiB/s per request, 2 MiB/s with four chunks in flight: the kill lands after 5 chunks with about 20 s of
        // the upload left, however late the test task wakes (the throttle is per request, so 2 MiB/s each left 5 s).
        let server = try await DevServerProcess(["--upload-bytes-per-second", "524288"])
        let db = try await TestDatabase.make("dbx_concurrent_kill")
        try await DropboxAccounts.add("wide", server: server, databaseURL: db.url)
        let dir = try temporaryFolder("concurrentkill")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let size = 15 * Self.chunk + 99
        try DropboxAccounts.randomFile(dir + "/big.bin", size: size)
        try await DropboxUploadTests.enqueue(db, [#"{"kind":"upload","source":"\#(dir)/big.bin","to":"dropbox:wide:/big.bin"}"#], in: dir)

        let victim = try TestWorker.transfers(db, name: "victim", ["--chunk-size", "4"])
        try await WorkerFixtures.kill(victim, in: db, when: "SELECT count(*) FROM ferry.jobs WHERE bytes_done >= \(5 * Self.chunk)")

        let survivor = try TestWorker.transfers(db, name: "survivor", ["--chunk-size", "4"])
        try await eventually(timeout: .seconds(300), "the upload to finish") {
            try await count(db, "SELECT count(*) FROM ferry.jobs WHERE state = 'succeeded'") == 1
        }
        survivor.signal(SIGTERM)
        _ = try await survivor.waitForExit()

        #expect(try DropboxAccounts.sha256(server.storedFile(account: "wide", path: "/big.bin")) == DropboxAccounts.sha256(dir + "/big.bin"))
        let stats = try await server.stats()
        #expect(stats["sessions_started"]?.intValue == 1, "resumed, not restarted")
        let extra = (stats["bytes_received"]?.intValue ?? 0) - Int64(size)
        #expect(extra <= Int64(4 * Self.chunk), "re-sent at most the four chunks in flight (\(extra) bytes)")
        #expect(survivor.log.contains("resuming concurrent upload session"))
        #expect(try await count(db, "SELECT attempt FROM ferry.jobs") == 2)
    }
}
