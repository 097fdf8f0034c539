import FerryCore
import FerryDevServer
import FerryTestSupport
import Foundation
import Postgres
import Testing

/// Live byte progress (migration 0026): a running transfer's bytes show in the status views within about a second,
/// a file smaller than a chunk too, while progress events stay the resume points. In process (`InProcessFleet`).
@Suite("live byte progress", .tags(.postgres))
struct LiveProgressTests {
    @Test("a 40 MiB upload in one request (below a 48 MiB chunk) shows its bytes in job_status, batch_status and ferry status before it finishes, with no progress event meanwhile")
    func smallFileVisibleWhileRunning() async throws {
        // 1 MiB/s: loopback socket buffers take up to about 10 MiB at once, the rest trickles for about 30 s, a window
        // a test task starved on a loaded machine still sees (at 2 MiB/s a full make test once slept through it).
        try await InProcessFleet.run("live_progress", configure: { $0.faults = FaultConfiguration(uploadBytesPerSecond: 1 << 20) }) { fleet in
            try await Self.smallFileVisibleWhileRunning(fleet)
        }
    }

    static func smallFileVisibleWhileRunning(_ fleet: InProcessFleet) async throws {
        let db = fleet.db
        try await fleet.addDropbox("live")
        let dir = try temporaryFolder("live-progress")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let size = 40 * 1024 * 1024
        try DropboxAccounts.randomFile(dir + "/clip.mov", size: size)
        let job = try await fleet.enqueue(.upload, dir + "/clip.mov", to: "dropbox:live:/Clips/", batch: "clips")
        let worker = try fleet.uploadWorker("live", chunkMiB: 48)
        try await fleet.running([worker]) {
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
            // What `ferry status JOB --json` prints: the job's status row as JSON.
            let jobID = try #require(UUID(uuidString: job))
            let status = try #require(try await fleet.store.reads.jobStatus(.job(jobID)).first)
            #expect((status.json["bytes_done"]?.intValue ?? 0) > 0, "\(status.json.jsonText)")

            try await eventually(timeout: .seconds(300), interval: .milliseconds(200), "the upload to finish") {
                try await WorkerFixtures.batchDone(db, "clips")
            }
            // The finished job's live row goes with the next publication; the views already ignore it.
            try await eventually(timeout: .seconds(60), interval: .milliseconds(200), "the live row to go") {
                try await count(db, "SELECT count(*) FROM ferry.live_progress") == 0
            }
        }
        let done = try await db.query("SELECT bytes_done FROM ferry.batch_status WHERE batch = 'clips'").rows[0].decode(Int64.self, at: 0)
        #expect(done == Int64(size))
    }
}
