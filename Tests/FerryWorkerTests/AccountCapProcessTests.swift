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
}
