import FerryCore
import FerryDevServer
import FerryTestSupport
import Foundation
import Postgres
import Testing

/// Small Dropbox uploads committed together with `upload_session/finish_batch_v2`, in process (`InProcessFleet`):
/// workers as `ferry worker` builds them, the dev server emulating Dropbox's namespace lock, real PostgreSQL. A
/// worker killed between data and commit is in `DropboxBatchCommitProcessTests`.
@Suite("Dropbox batch commit", .tags(.postgres), .serialized)
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

    /// Their uploads to `/Batch/` of `account`, batch `batch`, through `ferry enqueue --from` in a child process.
    static func enqueue(_ db: TestDatabase, _ files: [String], account: String, batch: String, in dir: String) async throws {
        try await DropboxUploadTests.enqueue(
            db, files.map { #"{"kind":"upload","source":"\#($0)","to":"dropbox:\#(account):/Batch/","batch":"\#(batch)","max_attempts":10}"# },
            in: dir)
    }

    /// Their uploads to `/Batch/` of `account`, batch `batch`, through FerryClient.
    static func enqueue(_ fleet: InProcessFleet, _ files: [String], account: String, batch: String) async throws {
        try await fleet.enqueue(files.map { DropboxUploadTests.upload($0, to: "dropbox:\(account):/Batch/", batch: batch, maxAttempts: 10) })
    }

    static func entries(_ stats: JSONValue) -> [Int64] {
        (stats["finish_batch_entries"]?.arrayValue ?? []).compactMap(\.intValue)
    }

    /// Every file is on the server once, byte for byte.
    static func checkStored(_ files: [String], server: any DevServerControl, account: String, stats: JSONValue) throws {
        for file in files {
            let name = (file as NSString).lastPathComponent
            #expect(try DropboxAccounts.sha256(server.storedFile(account: account, path: "/Batch/" + name)) == DropboxAccounts.sha256(file), "\(name)")
            #expect(stats["commits_per_path"]?["/batch/\(name.lowercased())"]?.intValue == 1, "\(name) committed once")
        }
    }

    @Test("many small uploads to one account are committed by finish_batch_v2 calls of several entries, never one by one")
    func smallFilesCommitInBatches() async throws {
        // Commits hold the namespace lock 20 ms: single commits from 16 concurrent uploads would contend.
        try await InProcessFleet.run("dbx_batch", configure: { $0.faults = FaultConfiguration(namespaceLockMilliseconds: 20) }) { fleet in
            try await Self.smallFilesCommitInBatches(fleet)
        }
    }

    static func smallFilesCommitInBatches(_ fleet: InProcessFleet) async throws {
        let server = fleet.server, db = fleet.db
        try await fleet.addDropbox("many", maxConcurrent: 16)
        let dir = try temporaryFolder("batch")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let files = try Self.files(60, in: dir)
        try await Self.enqueue(fleet, files, account: "many", batch: "small")

        let worker = try fleet.worker("batcher", concurrency: 16) { $0.pollInterval = .milliseconds(50) }
        try await fleet.running([worker]) {
            try await eventually(timeout: .seconds(300), interval: .milliseconds(200), "the batch to finish") {
                try await WorkerFixtures.batchDone(db, "small")
            }
        }

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

    @Test("a batch entry that fails fails only its own job; the others of the batch succeed")
    func failingEntry() async throws {
        try await InProcessFleet.run("dbx_batch_fail", configure: { $0.faults = FaultConfiguration(failCommitPaths: ["/batch/bad-"]) }) { fleet in
            try await Self.failingEntry(fleet)
        }
    }

    static func failingEntry(_ fleet: InProcessFleet) async throws {
        let server = fleet.server, db = fleet.db
        try await fleet.addDropbox("mixed", maxConcurrent: 8)
        let dir = try temporaryFolder("batchfail")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let good = try Self.files(7, in: dir, prefix: "good")
        let bad = try Self.files(1, in: dir, prefix: "bad")
        try await Self.enqueue(fleet, good + bad, account: "mixed", batch: "mixed")

        // A long window: the eight uploads meet in one batch.
        let worker = try fleet.uploadWorker("mixed", concurrency: 8, variables: ["FERRY_DROPBOX_BATCH_WINDOW_MS": "2000"]) {
            $0.pollInterval = .milliseconds(50)
        }
        try await fleet.running([worker]) {
            try await eventually(timeout: .seconds(300), interval: .milliseconds(200), "the batch to finish") {
                try await WorkerFixtures.batchDone(db, "mixed")
            }
        }

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
}
