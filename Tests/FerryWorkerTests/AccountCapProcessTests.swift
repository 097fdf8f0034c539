import FerryCore
import FerryTestSupport
import Foundation
import Postgres
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// An account's cap across `ferry worker` processes: a slot freed by a job of a capped account is taken again at
/// once in another process too, not at the next poll; and `ferry account update`'s own answers (JSON, exit codes).
/// One worker's behaviour under a cap or a budget runs in process, in `AccountCapTests`.
@Suite("account caps without idle workers (processes)", .tags(.postgres, .process))
struct AccountCapProcessTests {
    @Test("300 small uploads to an account at its cap, workers polling only every 60 s: done well within one poll interval, never above the cap")
    func capWithoutPolling() async throws {
        let server = try await DevServerProcess()
        let db = try await TestDatabase.make("cap_no_poll")
        try await DropboxAccounts.add("capped", server: server, databaseURL: db.url, extra: ["--max-concurrent", "2"])
        let dir = try temporaryFolder("cap-no-poll")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try await AccountCapTests.enqueueSmallFiles(db, count: 300, account: "capped", batch: "small", in: dir)

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
        // The cap held: never more than 2 transfers of the account at once, across both processes.
        let peak = try await AccountCapTests.peakTransfers(db)
        #expect(peak <= 2, "peak \(peak) transfers")
    }

    @Test("ferry account update answers the changed cap and budgets as JSON; an unknown account, a bad value or nothing to change exits non-zero")
    func updateAnswers() async throws {
        let db = try await TestDatabase.make("cap_update_cli")
        try await db.query("INSERT INTO ferry.accounts (name, provider) VALUES ('narrow', 'dropbox')")
        func update(_ arguments: [String]) async throws -> FerryProcess.Result {
            try await FerryProcess.run(["account", "update"] + arguments, databaseURL: db.url, environment: ["FERRY_SECRET_KEY": ""])
        }
        let cap = try await update(["narrow", "--max-concurrent", "6", "--json"])
        #expect(cap.status == 0 && cap.stdout.contains(#""max_concurrent":6"#), "\(cap.stdout) \(cap.stderr)")
        let tps = try await update(["narrow", "--tps-limit", "5", "--json"])
        #expect(tps.status == 0 && tps.stdout.contains(#""tps_limit":5"#), "\(tps.stdout) \(tps.stderr)")
        let rate = try await update(["narrow", "--bwlimit", "1M", "--json"])
        #expect(rate.status == 0 && rate.stdout.contains(#""bwlimit":1048576"#), "\(rate.stdout) \(rate.stderr)")
        let removed = try await update(["narrow", "--bwlimit", "0", "--json"])
        #expect(removed.status == 0 && removed.stdout.contains(#""bwlimit":null"#), "\(removed.stdout)")

        let missing = try await update(["nobody", "--max-concurrent", "2"])
        #expect(missing.status == 65, "\(missing.stderr)")
        let nothing = try await update(["narrow"])
        #expect(nothing.status == 64, "\(nothing.stderr)")
        let negative = try await update(["narrow", "--tps-limit", "-1"])
        #expect(negative.status == 65, "\(negative.stderr)")
        let bad = try await update(["narrow", "--bwlimit", "fast"])
        #expect(bad.status == 65 && bad.stderr.contains("--bwlimit"), "\(bad.stderr)")
        #expect(try await count(db, "SELECT count(*) FROM ferry.account_events WHERE account = 'narrow' AND type = 'updated'") == 4)
    }

    // A rate a worker holds is measured on a worker process of its own: in the test's process a worker shares the
    // cooperative pool's two threads with every other test running, and a loaded run moved less than the floor.
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
