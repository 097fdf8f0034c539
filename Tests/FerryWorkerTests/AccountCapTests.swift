import FerryCore
import FerryDevServer
import FerryStore
import FerryTestSupport
import Foundation
import Postgres
import Testing

@testable import FerryWorker

/// An account's concurrency cap limits transfers, never the pace, and `ferry account update` changes the cap and the
/// account's request and byte budgets for running workers: one worker in process (`InProcessFleet`), accounts
/// changed through the store as the command changes them. Several worker processes, and the command's own answers,
/// are in `AccountCapProcessTests`.
@Suite("account caps without idle workers", .tags(.postgres))
struct AccountCapTests {
    /// `count` small files (8 KiB and up) in `dir`, whose uploads to `/Small/` of `account` make batch `batch`.
    static func smallFiles(count: Int, account: String, batch: String, in dir: String) -> [JobRequest] {
        (0..<count).map { index in
            let path = "\(dir)/small-\(index).jpg"
            _ = FileManager.default.createFile(atPath: path, contents: Data(repeating: UInt8(index % 251), count: 8_192 + index))
            return DropboxUploadTests.upload(path, to: "dropbox:\(account):/Small/", batch: batch)
        }
    }

    /// Their uploads, through `ferry enqueue --from` in a child process.
    static func enqueueSmallFiles(_ db: TestDatabase, count: Int, account: String, batch: String, in dir: String) async throws {
        let lines = smallFiles(count: count, account: account, batch: batch, in: dir).map {
            #"{"kind":"upload","source":"\#($0.source)","to":"dropbox:\#(account):/Small/","batch":"\#(batch)"}"#
        }
        try await DropboxUploadTests.enqueue(db, lines, in: dir)
    }

    /// The most transfers of any account at once, from the event log: a transfer runs from its claim to the first of
    /// its attempt's progress event with every byte up (then it waits only for its batch commit, outside the cap) or
    /// the attempt's end, in the log's order.
    static func peakTransfers(_ db: TestDatabase) async throws -> Int {
        try await count(
            db,
            """
            SELECT coalesce(max(running), 0)::int FROM (
              SELECT sum(d) OVER (ORDER BY position) AS running FROM (
                SELECT position, 1 AS d FROM ferry.events WHERE type = 'claimed'
                UNION ALL
                SELECT min(position), -1 FROM ferry.events
                 WHERE type IN ('succeeded', 'failed', 'retry_scheduled', 'deferred', 'released', 'rescued', 'cancelled')
                    OR (type = 'progress' AND (data->>'bytes_total')::bigint > 0
                        AND (data->>'bytes_done')::bigint >= (data->>'bytes_total')::bigint)
                 GROUP BY job_id, data->>'lease') t
            ) r
            """)
    }

    /// First start to last finish of `batch`'s jobs, in seconds, from the database's timestamps.
    static func span(_ db: TestDatabase, batch: String) async throws -> Double {
        try await db.query(
            "SELECT extract(epoch FROM max(finished_at) - min(started_at))::float8 FROM ferry.jobs WHERE batch = $1", [batch]
        ).rows[0].decode(Double.self, at: 0)
    }

    @Test("ferry account update --max-concurrent raises the cap for running workers without a restart")
    func updateCapForRunningWorkers() async throws {
        // Each upload takes a while (latency per request), so running jobs can be counted.
        // Bodies take a while too (8 KiB at 64 KiB/s), so concurrent transfers overlap at the server.
        try await InProcessFleet.run("cap_update", configure: {
            $0.faults = FaultConfiguration(latencyMilliseconds: 300, uploadBytesPerSecond: 65536)
        }) { fleet in try await Self.updateCapForRunningWorkers(fleet) }
    }

    static func updateCapForRunningWorkers(_ fleet: InProcessFleet) async throws {
        let server = fleet.server, db = fleet.db
        try await fleet.addDropbox("narrow", maxConcurrent: 1)
        let dir = try temporaryFolder("cap-update")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // Enough work (cap 1, two requests of at least 300 ms each per file: three minutes) that the batch is far from
        // done when the cap changes, however slow the machine.
        try await fleet.enqueue(Self.smallFiles(count: 300, account: "narrow", batch: "wide", in: dir))
        // Slots to spare beyond the new cap: jobs waiting for their batch commit hold a slot (not a transfer), and on
        // a loaded machine several may wait at once. Polling only every 60 s: the cap's change wakes the worker.
        let worker = try fleet.worker("cap-update", concurrency: 16) { $0.pollInterval = .seconds(60) }
        try await fleet.running([worker]) {
            try await eventually(timeout: .seconds(300), interval: .milliseconds(50), "the first job to run") {
                try await count(db, "SELECT count(*) FROM ferry.jobs WHERE state = 'running'") >= 1
            }
            // The cap counts transfers (jobs whose data is up and that wait for their batch commit do not), and the
            // server counts the upload bodies it receives at once: one at a time so far.
            #expect(try await count(db, "SELECT ferry.account_transfers('narrow')::int") <= 1)
            #expect(try await server.stats()["upload_bodies_peak"]?.intValue ?? 0 <= 1)

            let updated = try await fleet.updateAccount("narrow", AccountChanges(maxConcurrent: 6))
            #expect(updated.maxConcurrent == 6)
            try await eventually(timeout: .seconds(300), interval: .milliseconds(200), "the batch to finish") {
                try await WorkerFixtures.batchDone(db, "wide")
            }
        }
        // From the event log, not by polling a window this test task could sleep through on a loaded machine. At
        // cap 1 never more than one; so more than one at once happened after the update, and never more than 6.
        let peak = try await Self.peakTransfers(db)
        #expect(peak > 1 && peak <= 6, "transfers at once after the update: \(peak)")
        let events = try await db.query(
            "SELECT data->>'max_concurrent' FROM ferry.account_events WHERE account = 'narrow' AND type = 'updated'").rows
        let changed = try events.first?.decode(String?.self, at: 0)
        #expect(events.count == 1 && changed == "6", "the change is in the account history")
    }

    @Test("--tps-limit paces one worker's requests to an account: 20 single-request uploads at 5 per second take at least 3.8 s")
    func requestsPerSecond() async throws {
        try await InProcessFleet.run("cap_tps") { fleet in try await Self.requestsPerSecond(fleet) }
    }

    static func requestsPerSecond(_ fleet: InProcessFleet) async throws {
        let db = fleet.db
        try await fleet.addDropbox("paced", maxConcurrent: 16)
        let updated = try await fleet.updateAccount("paced", AccountChanges(tpsLimit: 5))
        #expect(updated.settings["tps_limit"]?.jsonText == "5", "\(updated.settings)")
        let dir = try temporaryFolder("cap-tps")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try await fleet.enqueue(Self.smallFiles(count: 20, account: "paced", batch: "paced", in: dir))
        let worker = try fleet.worker("paced", concurrency: 16)
        try await fleet.running([worker]) {
            try await eventually(timeout: .seconds(300), interval: .milliseconds(100), "the batch to finish") {
                try await WorkerFixtures.batchDone(db, "paced")
            }
        }
        #expect(try await count(db, "SELECT count(*) FROM ferry.jobs WHERE state = 'succeeded'") == 20)
        // 20 requests, one every 200 ms: the last starts at least 3.8 s after the first (a lower bound: a slow
        // machine only adds to it).
        let span = try await Self.span(db, batch: "paced")
        #expect(span >= 3.8, "20 uploads took \(span) s")
    }

}
