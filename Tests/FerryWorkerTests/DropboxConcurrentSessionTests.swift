import FerryCore
import FerryTestSupport
import Foundation
import Postgres
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Large Dropbox uploads in `session_type: concurrent` upload sessions: several chunks of one file in flight at once.
@Suite("Dropbox concurrent upload sessions", .tags(.postgres, .process), .serialized)
struct DropboxConcurrentSessionTests {
    static let chunk = 4 * 1024 * 1024

    @Test("a 10-chunk file goes up in one concurrent session, several chunks at once, at multiples of 4 MiB, and arrives exact")
    func parallelChunks() async throws {
        // Bodies read at 16 MiB/s each: chunks stay in flight long enough to overlap.
        let server = try await DevServerProcess(["--upload-bytes-per-second", "16777216"])
        let db = try await TestDatabase.make("dbx_concurrent")
        try await DropboxAccounts.add("wide", server: server, databaseURL: db.url)
        let dir = try temporaryFolder("concurrent")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let size = 9 * Self.chunk + 12_345
        try DropboxAccounts.randomFile(dir + "/wide.bin", size: size)
        try await DropboxUploadTests.enqueue(db, [#"{"kind":"upload","source":"\#(dir)/wide.bin","to":"dropbox:wide:/wide.bin"}"#], in: dir)

        let worker = try TestWorker.transfers(db, name: "wide", ["--chunk-size", "4"])
        try await eventually(timeout: .seconds(300), "the upload to finish") {
            try await count(db, "SELECT count(*) FROM ferry.jobs WHERE state = 'succeeded'") == 1
        }
        worker.signal(SIGTERM)
        _ = try await worker.waitForExit()

        #expect(try DropboxAccounts.sha256(server.storedFile(account: "wide", path: "/wide.bin")) == DropboxAccounts.sha256(dir + "/wide.bin"))
        let stats = try await server.stats()
        #expect(stats["sessions_started"]?.intValue == 1)
        #expect((stats["concurrent_appends_peak"]?.intValue ?? 0) > 1, "chunks overlapped")
        #expect((stats["concurrent_appends_peak"]?.intValue ?? 0) <= 4, "at most four at once")
        guard case .object(let sessions)? = stats["append_offsets_per_session"], let offsets = sessions.values.first?.arrayValue else {
            Issue.record("no appends recorded")
            return
        }
        #expect(Set(offsets.compactMap(\.intValue)) == Set((0..<10).map { Int64($0 * Self.chunk) }), "each chunk once, at its multiple of 4 MiB")
        #expect(stats["bytes_received"]?.intValue == Int64(size), "nothing sent twice")
        #expect(stats["finish_batch_entries"]?.arrayValue?.count == 1, "committed through the batcher")
        let recorded = try await count(
            db, "SELECT count(*) FROM ferry.events WHERE type = 'progress' AND (data->'session'->>'concurrent')::boolean")
        #expect(recorded >= 10, "each accepted chunk recorded")
    }

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
        try await eventually(timeout: .seconds(300), "a few chunks to be recorded") {
            try await count(db, "SELECT count(*) FROM ferry.jobs WHERE bytes_done >= $1", [Int64(5 * Self.chunk)]) == 1
        }
        victim.signal(SIGKILL)
        _ = try await victim.waitForExit()

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
