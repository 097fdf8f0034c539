import FerryCore
import FerryTestSupport
import Foundation
import Postgres
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// An account's concurrency cap limits transfers, never the pace: a slot freed by a job of a capped account is
/// taken again at once (in the worker and across workers), not at the next poll; `ferry account update` changes
/// the cap for running workers.
@Suite("account caps without idle workers", .tags(.postgres, .process))
struct AccountCapTests {
    static func enqueueSmallFiles(_ db: TestDatabase, count: Int, account: String, batch: String, in dir: String) async throws {
        var lines = [String]()
        for index in 0..<count {
            let path = "\(dir)/small-\(index).jpg"
            _ = FileManager.default.createFile(atPath: path, contents: Data(repeating: UInt8(index % 251), count: 8_192 + index))
            lines.append(#"{"kind":"upload","source":"\#(path)","to":"dropbox:\#(account):/Small/","batch":"\#(batch)"}"#)
        }
        try await DropboxUploadTests.enqueue(db, lines, in: dir)
    }

    @Test("300 small uploads to an account at its cap, workers polling only every 60 s: done well within one poll interval, never above the cap")
    func capWithoutPolling() async throws {
        let server = try await DevServerProcess()
        let db = try await TestDatabase.make("cap_no_poll")
        try await DropboxAccounts.add("capped", server: server, databaseURL: db.url, extra: ["--max-concurrent", "2"])
        let dir = try temporaryFolder("cap-no-poll")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try await Self.enqueueSmallFiles(db, count: 300, account: "capped", batch: "small", in: dir)

        let workers = try (0..<2).map {
            try TestWorker.transfers(db, name: "cap-\($0)", ["--concurrency", "16", "--poll-interval", "60"])
        }
        try await eventually(timeout: .seconds(300), interval: .milliseconds(200), "the batch to finish") {
            try await WorkerFixtures.batchDone(db, "small")
        }
        for worker in workers { worker.signal(SIGTERM) }
        for worker in workers { _ = try await worker.waitForExit() }

        #expect(try await count(db, "SELECT count(*) FROM ferry.jobs WHERE batch = 'small' AND state = 'succeeded'") == 300)
        // Without wake-ups each claim that came back short at the cap waited the 60 s poll: 300 jobs, 2 at a time,
        // would take over an hour. The whole batch ran inside one poll interval.
        let span = try await db.query(
            "SELECT extract(epoch FROM max(finished_at) - min(started_at))::float8 FROM ferry.jobs WHERE batch = 'small'"
        ).rows[0].decode(Double.self, at: 0)
        #expect(span < 60, "first start to last finish took \(span) s")
        // The cap held: never more than 2 transfers of the account at once. A transfer runs from its claim to the
        // first of its attempt's progress event with every byte up (then it waits only for its batch commit, outside
        // the cap) or the attempt's end, in the log's order.
        let peak = try await count(
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
        #expect(peak <= 2, "peak \(peak) transfers")
    }

    @Test("ferry account update --max-concurrent raises the cap for running workers without a restart")
    func updateCapForRunningWorkers() async throws {
        // Each upload takes a while (latency per request), so running jobs can be counted.
        // Bodies take a while too (8 KiB at 64 KiB/s), so concurrent transfers overlap at the server.
        let server = try await DevServerProcess(["--latency-ms", "300", "--upload-bytes-per-second", "65536"])
        let db = try await TestDatabase.make("cap_update")
        try await DropboxAccounts.add("narrow", server: server, databaseURL: db.url, extra: ["--max-concurrent", "1"])
        let dir = try temporaryFolder("cap-update")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // Enough work (cap 1, two requests of at least 300 ms each per file: three minutes) that the batch is far from
        // done when the cap changes, however slow the machine (a full run under load once took longer than a minute
        // of work to get there).
        try await Self.enqueueSmallFiles(db, count: 300, account: "narrow", batch: "wide", in: dir)
        // Slots to spare beyond the new cap: jobs waiting for their batch commit hold a slot (not a transfer), and on
        // a loaded machine several may wait at once.
        let worker = try TestWorker.transfers(db, name: "cap-update", ["--concurrency", "16", "--poll-interval", "60"])

        try await eventually(timeout: .seconds(300), interval: .milliseconds(50), "the first job to run") {
            try await count(db, "SELECT count(*) FROM ferry.jobs WHERE state = 'running'") >= 1
        }
        // The cap counts transfers (jobs whose data is up and that wait for their batch commit do not), and the
        // server counts the upload bodies it receives at once: one at a time so far.
        #expect(try await count(db, "SELECT ferry.account_transfers('narrow')::int") <= 1)
        #expect(try await server.stats()["upload_bodies_peak"]?.intValue ?? 0 <= 1)

        let update = try await FerryProcess.run(["account", "update", "narrow", "--max-concurrent", "6", "--json"], databaseURL: db.url)
        #expect(update.status == 0, "\(update.stderr)")
        #expect(update.stdout.contains(#""max_concurrent":6"#), "\(update.stdout)")
        try await eventually(timeout: .seconds(300), interval: .milliseconds(200), "the batch to finish") {
            try await WorkerFixtures.batchDone(db, "wide")
        }
        // From the event log, not by polling a window this test task could sleep through on a loaded machine: a
        // transfer runs from its claim to its attempt's first event with every byte up, or the attempt's end. At
        // cap 1 never more than one; so more than one at once happened after the update, and never more than 6.
        let peak = try await count(
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
        #expect(peak > 1 && peak <= 6, "transfers at once after the update: \(peak)")
        worker.signal(SIGTERM)
        _ = try await worker.waitForExit()
        let events = try await db.query(
            "SELECT data->>'max_concurrent' FROM ferry.account_events WHERE account = 'narrow' AND type = 'updated'").rows
        let changed = try events.first?.decode(String?.self, at: 0)
        #expect(events.count == 1 && changed == "6", "the change is in the account history")

        let missing = try await FerryProcess.run(["account", "update", "nobody", "--max-concurrent", "2"], databaseURL: db.url)
        #expect(missing.status == 65, "\(missing.stderr)")
        let nothing = try await FerryProcess.run(["account", "update", "narrow"], databaseURL: db.url)
        #expect(nothing.status == 64, "\(nothing.stderr)")
    }

    @Test("--tps-limit paces one worker's requests to an account: 20 single-request uploads at 5 per second take at least 3.8 s")
    func requestsPerSecond() async throws {
        let server = try await DevServerProcess()
        let db = try await TestDatabase.make("cap_tps")
        try await DropboxAccounts.add("paced", server: server, databaseURL: db.url, extra: ["--max-concurrent", "16"])
        let update = try await FerryProcess.run(["account", "update", "paced", "--tps-limit", "5", "--json"], databaseURL: db.url)
        #expect(update.status == 0 && update.stdout.contains(#""tps_limit":5"#), "\(update.stdout) \(update.stderr)")
        let dir = try temporaryFolder("cap-tps")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try await Self.enqueueSmallFiles(db, count: 20, account: "paced", batch: "paced", in: dir)
        let worker = try TestWorker.transfers(db, name: "paced", ["--concurrency", "16"])
        try await eventually(timeout: .seconds(300), interval: .milliseconds(100), "the batch to finish") {
            try await WorkerFixtures.batchDone(db, "paced")
        }
        worker.signal(SIGTERM)
        _ = try await worker.waitForExit()
        #expect(try await count(db, "SELECT count(*) FROM ferry.jobs WHERE state = 'succeeded'") == 20)
        // 20 requests, one every 200 ms: the last starts at least 3.8 s after the first (a lower bound: a slow
        // machine only adds to it).
        let span = try await db.query(
            "SELECT extract(epoch FROM max(finished_at) - min(started_at))::float8 FROM ferry.jobs WHERE batch = 'paced'"
        ).rows[0].decode(Double.self, at: 0)
        #expect(span >= 3.8, "20 uploads took \(span) s")
        let bad = try await FerryProcess.run(["account", "update", "paced", "--tps-limit", "-1"], databaseURL: db.url)
        #expect(bad.status == 65, "\(bad.stderr)")
    }

    @Test("account update --bwlimit 1M: that account's uploads hold the rate within 10 % over 20 s; another account's run free")
    func accountBandwidth() async throws {
        let server = try await DevServerProcess()
        let db = try await TestDatabase.make("cap_bw")
        try await DropboxAccounts.add("slow", server: server, databaseURL: db.url, extra: ["--max-concurrent", "4"])
        try await DropboxAccounts.add("free", server: server, databaseURL: db.url, extra: ["--max-concurrent", "4"])
        let update = try await FerryProcess.run(["account", "update", "slow", "--bwlimit", "1M", "--json"], databaseURL: db.url)
        #expect(update.status == 0 && update.stdout.contains(#""bwlimit":1048576"#), "\(update.stdout) \(update.stderr)")
        let dir = try temporaryFolder("cap-bw")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var lines = [String]()
        for account in ["slow", "free"] {
            for index in 0..<10 {
                let path = "\(dir)/\(account)-\(index).bin"
                try DropboxAccounts.randomFile(path, size: 2 * 1024 * 1024)
                lines.append(#"{"kind":"upload","source":"\#(path)","to":"dropbox:\#(account):/Bw/","batch":"\#(account)"}"#)
            }
        }
        try await DropboxUploadTests.enqueue(db, lines, in: dir)
        let worker = try TestWorker.transfers(db, name: "bw", ["--concurrency", "8"])
        for batch in ["slow", "free"] {
            try await eventually(timeout: .seconds(300), interval: .milliseconds(200), "batch \(batch) to finish") {
                try await WorkerFixtures.batchDone(db, batch)
            }
        }
        worker.signal(SIGTERM)
        _ = try await worker.waitForExit()
        #expect(try await count(db, "SELECT count(*) FROM ferry.jobs WHERE state = 'succeeded'") == 20)

        // Rates from the database's timestamps (first start to last finish), not this test's clock.
        func rate(_ batch: String) async throws -> Double {
            let seconds = try await db.query(
                "SELECT extract(epoch FROM max(finished_at) - min(started_at))::float8 FROM ferry.jobs WHERE batch = $1", [batch]
            ).rows[0].decode(Double.self, at: 0)
            return Double(20 * 1024 * 1024) / seconds
        }
        // 1 MiB/s, low enough that a loaded machine (a debug worker hashing beside the dev server) still moves the
        // free account's bytes well above it: at 2 MiB/s a loaded run once moved only 2.5 MiB/s unlimited.
        let limit = Double(1024 * 1024)
        let slow = try await rate("slow")
        #expect(slow <= 1.1 * limit, "moved \(slow / 1_048_576) MiB/s, limit 1 MiB/s")
        #expect(slow >= 0.75 * limit, "moved \(slow / 1_048_576) MiB/s, limit 1 MiB/s")
        // The limit is the account's, not the process's: the other account's uploads were not held to it.
        let free = try await rate("free")
        #expect(free >= 1.5 * limit, "the unlimited account moved \(free / 1_048_576) MiB/s")
        let events = try await db.query("SELECT data->>'bwlimit' FROM ferry.account_events WHERE account = 'slow' AND type = 'updated'").rows
        #expect(try events.first?.decode(String?.self, at: 0) == "1048576", "the change is in the account history")

        let removed = try await FerryProcess.run(["account", "update", "slow", "--bwlimit", "0", "--json"], databaseURL: db.url)
        #expect(removed.status == 0 && removed.stdout.contains(#""bwlimit":null"#), "\(removed.stdout)")
        let bad = try await FerryProcess.run(["account", "update", "slow", "--bwlimit", "fast"], databaseURL: db.url)
        #expect(bad.status == 65 && bad.stderr.contains("--bwlimit"), "\(bad.stderr)")
    }
}
