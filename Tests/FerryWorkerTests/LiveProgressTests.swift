import FerryCore
import FerryTestSupport
import Foundation
import Postgres
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Live byte progress (migration 0026): a running transfer's bytes show in the status views within about a second,
/// a file smaller than a chunk too, while progress events stay the resume points.
@Suite("live byte progress", .tags(.postgres, .process))
struct LiveProgressTests {
    @Test("a 40 MiB upload in one request (below a 48 MiB chunk) shows its bytes in job_status, batch_status and ferry status before it finishes, with no progress event meanwhile")
    func smallFileVisibleWhileRunning() async throws {
        // 1 MiB/s: loopback socket buffers take up to about 10 MiB at once, the rest trickles for about 30 s, a window
        // a test task starved on a loaded machine still sees (at 2 MiB/s a full make test once slept through it).
        let server = try await DevServerProcess(["--upload-bytes-per-second", "1048576"])
        let db = try await TestDatabase.make("live_progress")
        try await DropboxAccounts.add("live", server: server, databaseURL: db.url)
        let dir = try temporaryFolder("live-progress")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let size = 40 * 1024 * 1024
        try DropboxAccounts.randomFile(dir + "/clip.mov", size: size)
        let enqueued = try await FerryProcess.run(
            ["enqueue", "upload", dir + "/clip.mov", "--to", "dropbox:live:/Clips/", "--batch", "clips"], databaseURL: db.url)
        #expect(enqueued.status == 0, "\(enqueued.stderr)")
        let job = try #require(enqueued.lines.first)
        let worker = try TestWorker.transfers(db, name: "live", ["--chunk-size", "48"])

        var seen: (job: Int64, batch: Int64) = (0, 0)
        try await eventually(timeout: .seconds(300), interval: .milliseconds(100), "bytes in flight in the views while the job runs") {
            // One snapshot: the bytes shown and whether any progress event exists yet. Bytes shown while none does
            // can only be live bytes (socket buffers may take much of the file at once, so "less than the size"
            // would depend on the machine).
            let row = try await db.query(
                """
                SELECT j.state, j.bytes_done, b.bytes_done,
                       (SELECT count(*) FROM ferry.events e WHERE e.job_id = j.job_id AND e.type = 'progress')::int
                  FROM ferry.job_status j JOIN ferry.batch_status b ON b.batch = j.batch
                 WHERE j.job_id = $1::uuid
                """, [job]).rows[0]
            guard try row.decode(String.self, at: 0) == "running", try row.decode(Int.self, at: 3) == 0 else { return false }
            seen = (try row.decode(Int64.self, at: 1), try row.decode(Int64.self, at: 2))
            return seen.job > 0 && seen.batch > 0
        }
        #expect(seen.batch == seen.job, "the batch adds the job's live bytes: \(seen)")
        // Live bytes are not events: none was written while the data went up (batch commit records the closed
        // session once every byte is up, with the whole size).
        let progressEvents = try await count(
            db, "SELECT count(*) FROM ferry.events WHERE type = 'progress' AND (data->>'bytes_done')::bigint < $1", [Int64(size)])
        #expect(progressEvents == 0, "live bytes are not events")
        let status = try await FerryProcess.run(["status", job, "--json"], databaseURL: db.url)
        let shown = try JSONValue.parse(status.stdout)["bytes_done"]?.intValue ?? 0
        #expect(shown > 0, "\(status.stdout)")

        try await eventually(timeout: .seconds(300), interval: .milliseconds(200), "the upload to finish") {
            try await WorkerFixtures.batchDone(db, "clips")
        }
        // The finished job's live row goes with the next publication; the views already ignore it.
        try await eventually(timeout: .seconds(60), interval: .milliseconds(200), "the live row to go") {
            try await count(db, "SELECT count(*) FROM ferry.live_progress") == 0
        }
        let done = try await db.query("SELECT bytes_done FROM ferry.batch_status WHERE batch = 'clips'").rows[0].decode(Int64.self, at: 0)
        #expect(done == Int64(size))
        worker.signal(SIGTERM)
        _ = try await worker.waitForExit()
    }
}
