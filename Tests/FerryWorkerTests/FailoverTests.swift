import FerryTestSupport
import Foundation
import Postgres
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Ferry on pg_auto_failover (scripts/failover.sh): two workers uploading to the dev server and a producer
/// enqueueing single jobs in a loop, all on the formation's multi-host URL, through a planned switchover and a
/// kill -9 of the primary and its keeper. Prints the figures docs/operations.md quotes.
@Suite(
    "on pg_auto_failover", .tags(.postgres, .process), .serialized,
    .enabled(
        if: FailoverFormation.isInstalled,
        "pg_auto_failover is not installed (Debian postgresql-15-auto-failover and pg-auto-failover-cli): run scripts/install-deps.sh"))
struct FailoverTests {
    static let batch = "failover"

    static func succeeded(_ db: TestDatabase) async throws -> Int {
        try await count(db, "SELECT count(*) FROM ferry.jobs WHERE batch = $1 AND state = 'succeeded'", [batch])
    }

    /// Seconds from `date` to the first event of `type` (of any type: "") whose transaction began after it
    /// (`recorded_at` is the transaction's start): after a kill of the primary, an event only the new primary can
    /// have written. Nil while there is none, or while the database cannot be reached.
    static func firstEvent(_ db: TestDatabase, _ type: String, after date: Date) async -> Double? {
        let rows = try? await db.query(
            "SELECT extract(epoch FROM min(recorded_at))::float8 FROM ferry.events WHERE ($1 = '' OR type = $1) AND recorded_at > to_timestamp($2::float8)",
            [type, date.timeIntervalSince1970]
        ).rows
        guard let row = rows?.first, let epoch = try? row.decode(Double?.self, at: 0) else { return nil }
        return epoch - date.timeIntervalSince1970
    }

    static func format(_ seconds: Double) -> String { String(format: "%.1f s", seconds) }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    @Test("uploads and a producer in a loop through a switchover and a kill -9 of the primary: no acknowledged job lost, none twice, workers resume by themselves")
    func switchoverAndFailover() async throws {
        let began = ContinuousClock.now
        try await FailoverFormation.withNew { formation in
            let db = TestDatabase(url: formation.url, name: "ferry")
            let migrate = try await FerryProcess.run(["migrate"], databaseURL: db.url)
            try #require(migrate.status == 0, "\(migrate.stderr)")
            // Each upload takes a few hundred milliseconds on the server, so claims are in flight at the kill.
            let server = try await DevServerProcess(["--latency-ms", "250"])
            try await DropboxAccounts.add("photos", server: server, databaseURL: db.url)
            let (dir, files) = try WorkerFixtures.sourceFiles(count: 400, maxSize: 200_000, minSize: 1_000)
            defer { try? FileManager.default.removeItem(atPath: dir) }

            let names = ["failover-a", "failover-b"]
            let workers = try names.map { try TestWorker.transfers(db, name: $0, ["--concurrency", "4"]) }
            let producer = FailoverProducer(url: db.url, files: files, destination: "dropbox:photos:/Failover/", batch: Self.batch)
            let producing = Task { await producer.run() }
            defer { producing.cancel() }

            try await eventually(timeout: .seconds(300), interval: .milliseconds(200), "jobs to finish before the switchover") {
                try await Self.succeeded(db) >= 10
            }

            // (a) A planned switchover.
            let first = try await formation.primary()
            let switchoverStarted = Date()
            try await formation.switchover()
            let switchoverSeconds = Date().timeIntervalSince(switchoverStarted)
            let second = try await formation.primary()
            #expect(second != first, "the primary moved")
            let afterSwitchover = try await Self.succeeded(db)
            try await eventually(timeout: .seconds(300), interval: .milliseconds(200), "jobs to finish after the switchover") {
                try await Self.succeeded(db) >= afterSwitchover + 10
            }

            // (b) kill -9 of the primary and its keeper.
            let (killed, killedAt) = try await formation.killPrimary()
            #expect(killed == second)
            var firstFinished: Double?
            try await eventually(timeout: .seconds(300), interval: .milliseconds(100), "a job to finish on the new primary") {
                firstFinished = await Self.firstEvent(db, "succeeded", after: killedAt)
                return firstFinished != nil
            }
            let firstWrite = await Self.firstEvent(db, "", after: killedAt)
            // The monitor hears of the promotion from the keeper a moment after the node takes writes.
            try await eventually(timeout: .seconds(120), interval: .milliseconds(200), "the monitor to report \(first) primary") {
                (try? await formation.primary()) == first
            }
            try await eventually(timeout: .seconds(300), interval: .milliseconds(200), "the producer to go on after the failover") {
                await producer.acknowledged(after: killedAt) >= 30
            }
            await producer.stop()
            await producing.value

            // Everything acknowledged finishes.
            let wait = try await FerryProcess.run(["wait", "--batch", Self.batch, "--timeout", "300"], databaseURL: db.url)
            #expect(wait.status == 0, "\(wait.stdout)\(wait.stderr)")

            // The same worker processes, never restarted, took jobs again after the failover.
            for (name, worker) in zip(names, workers) {
                #expect(worker.isRunning, "\(name) is still the process started before the failover")
                let claims = try await count(
                    db, "SELECT count(*) FROM ferry.events WHERE type = 'claimed' AND data->>'worker' = $1 AND recorded_at > to_timestamp($2::float8)",
                    [name, killedAt.timeIntervalSince1970])
                #expect(claims > 0, "\(name) claimed nothing after the failover: \(worker.log.suffix(3000))")
            }
            for worker in workers { worker.signal(SIGTERM) }
            for worker in workers { #expect(try await worker.waitForExit() == 0, "\(worker.log.suffix(3000))") }

            // No acknowledged enqueue missing, each exactly once, every job succeeded.
            let calls = await producer.calls
            let acknowledged = await producer.acknowledged
            let failedCalls = calls.filter { $0.id == nil }
            #expect(failedCalls.isEmpty, "enqueue calls without an id: \(failedCalls.map { "\($0.status): \($0.stderr)" })")
            let rows = try await db.query(
                """
                SELECT job_id::text, state,
                       (SELECT count(*) FROM ferry.events e WHERE e.job_id = j.job_id AND e.type = 'succeeded')::int,
                       (SELECT count(*) FROM ferry.events e WHERE e.job_id = j.job_id AND e.type = 'claimed')::int
                  FROM ferry.jobs j WHERE batch = $1
                """, [Self.batch]
            ).rows
            var jobs = [String: (state: String, successes: Int, claims: Int)]()
            for row in rows {
                jobs[try row.decode(String.self, at: 0).lowercased()] = (
                    state: try row.decode(String.self, at: 1), successes: try row.decode(Int.self, at: 2),
                    claims: try row.decode(Int.self, at: 3))
            }
            let missing = acknowledged.filter { jobs[$0.id!.lowercased()] == nil }
            #expect(missing.isEmpty, "acknowledged enqueues missing: \(missing.map { $0.id! })")
            #expect(jobs.count == acknowledged.count, "jobs in the batch: \(jobs.count), acknowledged: \(acknowledged.count)")
            let unfinished = jobs.filter { $0.value.state != "succeeded" }
            #expect(unfinished.isEmpty, "not succeeded: \(unfinished.map { "\($0.key) \($0.value.state)" })")
            let twice = jobs.filter { $0.value.successes != 1 }
            #expect(twice.isEmpty, "jobs without exactly one succeeded event: \(twice.keys)")

            // On the server: each file once per attempt at most, with the source's content.
            let stats = try await server.stats()
            for call in acknowledged {
                guard let job = jobs[call.id!.lowercased()] else { continue }
                let name = (call.file as NSString).lastPathComponent
                let commits = Int(stats["commits_per_path"]?["/failover/\(name.lowercased())"]?.intValue ?? 0)
                #expect(commits >= 1, "\(name) is on the server")
                #expect(commits <= 1 || job.claims >= commits, "\(name) committed \(commits) times in \(job.claims) attempt(s)")
                let stored = server.storedFile(account: "photos", path: "/Failover/\(name)")
                #expect(try DropboxAccounts.sha256(stored) == DropboxAccounts.sha256(call.file), "\(name)")
            }

            let verify = try await FerryProcess.run(["projection", "verify"], databaseURL: db.url)
            #expect(verify.status == 0, "\(verify.stdout)\(verify.stderr)")

            // The figures (measured, never asserted: the machine's load decides them).
            let waited = calls.filter(\.waited)
            let duringSwitchover = calls.filter { $0.started >= switchoverStarted.addingTimeInterval(-1) && $0.started < killedAt }
            let lostClaims = try await count(
                db, "SELECT count(*) FROM ferry.events e JOIN ferry.jobs j USING (job_id) WHERE j.batch = $1 AND e.type IN ('released', 'rescued')",
                [Self.batch])
            print("""
                failover figures: switchover \(Self.format(switchoverSeconds)) (perform → new primary with its synchronous standby), \
                longest enqueue call around it \(Self.format(duringSwitchover.map(\.seconds).max() ?? 0)); \
                kill -9 → first write on the new primary \(firstWrite.map(Self.format) ?? "n/a"), \
                → first job finished on the new primary \(firstFinished.map(Self.format) ?? "n/a"); \
                enqueue calls \(calls.count), waited \(waited.count), longest wait \(Self.format(waited.map(\.seconds).max() ?? 0)); \
                jobs \(jobs.count), claims released or rescued \(lostClaims), \
                test wall time \(Self.format(Self.seconds(ContinuousClock.now - began)))
                """)
        }
    }
}
