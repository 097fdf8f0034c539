import FerryCore
import FerryStore
import FerryTestSupport
import FerryTesting
import FerryWorker
import Foundation
import Postgres
import Testing

/// Worker behaviour whose proof is in PostgreSQL (the event log, `ferry.job_status`, claims across workers), run by
/// real `Worker`s in process on a real database with `ferry worker --handler`'s scripts. These were process tests;
/// nothing here needs a process boundary (docs/testing.md).
@Suite("worker behaviour on PostgreSQL, in process", .tags(.postgres))
struct WorkerOnPostgresTests {
    static func enqueue(_ db: TestDatabase, _ specs: [JobSpec]) async throws {
        let store = db.store(poolSize: 1)
        defer { store.client.close() }
        _ = try await store.enqueue(specs)
    }

    /// The test configuration with `ferry worker --retry-base SECONDS`'s policy (its default cap and minimum).
    static func configuration(
        name: String, queues: [String] = ["default"], concurrency: Int = 4, rescueAfter: Duration = .seconds(60), retryBase: Double
    ) -> WorkerConfiguration {
        var configuration = WorkerHarness.configuration(name: name, queues: queues, concurrency: concurrency, rescueAfter: rescueAfter)
        configuration.retryPolicy = RetryPolicy(baseSeconds: retryBase)
        return configuration
    }

    @Test("retryable failures back off and retry; after max attempts the job fails for good; no retry is claimed before its run_at")
    func retriesThenFails() async throws {
        let db = try await TestDatabase.make("retry")
        try await Self.enqueue(db, (0..<3).map { _ in .test(batch: "ok", maxAttempts: 5) } + (0..<2).map { _ in .test(batch: "doomed", maxAttempts: 2) })
        let worker = try PostgresWorker(db, script: "fail-until:3", configuration: Self.configuration(name: "r", retryBase: 0.2))
        try await eventually(timeout: .seconds(300), "both batches done") {
            let ok = try await WorkerFixtures.batchDone(db, "ok")
            let doomed = try await WorkerFixtures.batchDone(db, "doomed")
            return ok && doomed
        }
        try await worker.stop()
        // fail-until:3 succeeds on its third attempt.
        #expect(try await count(db, "SELECT count(*) FROM ferry.jobs WHERE batch = 'ok' AND state = 'succeeded' AND attempt = 3") == 3)
        #expect(try await count(db, "SELECT count(*) FROM ferry.events WHERE type = 'retry_scheduled'") == 3 * 2 + 2 * 1)
        #expect(try await count(db, "SELECT count(*) FROM ferry.jobs WHERE batch = 'doomed' AND state = 'failed' AND attempt = 2") == 2)
        // Backoff is honoured: no retry was claimed before its run_at, and no delay exceeds its ceiling
        // (0.2 s · 2^(attempt-1), plus slack for the batched write).
        let early = try await count(db, """
            SELECT count(*) FROM ferry.events r JOIN ferry.events c ON c.job_id = r.job_id AND c.version = r.version + 1
             WHERE r.type = 'retry_scheduled' AND (c.type <> 'claimed' OR c.recorded_at < (r.data->>'run_at')::timestamptz)
            """)
        #expect(early == 0)
        let tooLong = try await count(db, """
            SELECT count(*) FROM ferry.events r
             WHERE r.type = 'retry_scheduled' AND (r.data->>'run_at')::timestamptz - r.recorded_at > interval '2 seconds'
            """)
        #expect(tooLong == 0)
    }

    @Test("max attempts exhausted: failed, with the reason in job_status; a non-retryable failure fails at once")
    func exhausted() async throws {
        let db = try await TestDatabase.make("exhaust")
        try await Self.enqueue(db, (0..<2).map { _ in .test(batch: "x", maxAttempts: 2) })
        let worker = try PostgresWorker(db, script: "fail-until:99", configuration: Self.configuration(name: "x", retryBase: 0.1))
        try await eventually(timeout: .seconds(300), "batch done") { try await WorkerFixtures.batchDone(db, "x") }
        try await worker.stop()
        let rows = try await db.query("SELECT status, attempt, last_error FROM ferry.job_status WHERE batch = 'x'").rows
        #expect(rows.count == 2)
        for row in rows {
            #expect(try row.decode(String.self, at: 0) == "failed")
            #expect(try row.decode(Int.self, at: 1) == 2)
            #expect(try row.decode(String.self, at: 2).contains("attempts exhausted: 2 of 2"))
        }
        try await Self.enqueue(db, [.test(batch: "perm", maxAttempts: 9)])
        let permanent = try PostgresWorker(db, script: "fail", configuration: Self.configuration(name: "p", retryBase: 0.1))
        try await eventually(timeout: .seconds(300), "permanent failure") { try await WorkerFixtures.batchDone(db, "perm") }
        try await permanent.stop()
        let perm = try await db.query("SELECT state, attempt FROM ferry.jobs WHERE batch = 'perm'").rows[0]
        #expect(try perm.decode(String.self, at: 0) == "failed")
        #expect(try perm.decode(Int.self, at: 1) == 1)
    }

    @Test("cancelling a running job stops it and records cancelled under its lease; the worker carries on")
    func cancelRunning() async throws {
        let db = try await TestDatabase.make("cancelrun")
        let job = JobSpec.test()
        try await Self.enqueue(db, [job])
        // A 10-minute job: only the cancel can end it within the 300 s wait below.
        let worker = try PostgresWorker(db, script: "sleep:600000", configuration: Self.configuration(name: "c", retryBase: 0.2))
        try await eventually(timeout: .seconds(300), "job running") {
            try await count(db, "SELECT count(*) FROM ferry.jobs WHERE state = 'running'") == 1
        }
        let outcomes = try await worker.store.cancel(.job(job.jobID), requestedBy: "test")
        #expect(outcomes.count == 1, "\(outcomes)")
        try await eventually(timeout: .seconds(300), "job cancelled") {
            try await count(db, "SELECT count(*) FROM ferry.jobs WHERE state = 'cancelled'") == 1
        }
        let last = try await db.query(
            "SELECT type, data->>'lease' FROM ferry.events WHERE job_id = $1::uuid ORDER BY version DESC LIMIT 1", [job.jobID]).rows[0]
        #expect(try last.decode(String.self, at: 0) == "cancelled")
        #expect(try last.decode(String.self, at: 1) == "1")
        // Still alive and working.
        try await Self.enqueue(db, [.test()])
        try await eventually(timeout: .seconds(300), "next job running") {
            try await count(db, "SELECT count(*) FROM ferry.jobs WHERE state = 'running'") == 1
        }
        try await worker.stop()
    }

    @Test("at most K jobs of one account run at once across all workers (checked from the event log)")
    func perAccountLimit() async throws {
        let db = try await TestDatabase.make("acctlimit")
        try await db.query("INSERT INTO ferry.accounts (name, provider, max_concurrent) VALUES ('busy', 'dropbox', 2), ('calm', 'dropbox', 3)")
        try await Self.enqueue(db, (0..<24).map { .test(batch: "acct", account: $0 % 2 == 0 ? "busy" : "calm") })
        let workers = try (0..<3).map {
            try PostgresWorker(db, script: "sleep:300", configuration: Self.configuration(name: "a\($0)", retryBase: 0.2))
        }
        try await eventually(timeout: .seconds(300), "batch done") { try await WorkerFixtures.batchDone(db, "acct") }
        for worker in workers { try await worker.stop() }
        // Sweep the log in position order: +1 at a claim, -1 when the claim ends.
        let rows = try await db.query("""
            SELECT j.account, e.type FROM ferry.events e JOIN ferry.jobs j USING (job_id)
             WHERE e.type IN ('claimed', 'succeeded', 'failed', 'retry_scheduled', 'deferred', 'released', 'rescued', 'cancelled')
             ORDER BY e.position
            """).rows
        var running = [String: Int]()
        var peak = [String: Int]()
        for row in rows {
            let account = try row.decode(String.self, at: 0)
            running[account, default: 0] += try row.decode(String.self, at: 1) == "claimed" ? 1 : -1
            peak[account] = max(peak[account, default: 0], running[account]!)
        }
        #expect(peak["busy"] == 2, "\(peak)")
        #expect(peak["calm"] == 3, "\(peak)")
        #expect(try await count(db, "SELECT count(*) FROM ferry.jobs WHERE state = 'succeeded'") == 24)
    }

    @Test("jobs rescued from a dead worker are counted with their kind and queue")
    func rescuedCarriesLabels() async throws {
        let db = try await TestDatabase.make("rescuemetric")
        let specs = (0..<3).map { _ in JobSpec.test(queue: "photos") }
        try await Self.enqueue(db, specs)
        // A worker that claimed every job and died (kill -9): registered, holding the claims, its heartbeat stale.
        let ghost = db.store(poolSize: 1)
        defer { ghost.client.close() }
        try await ghost.register(WorkerRegistration(name: "doomed", queues: ["photos"], concurrency: 4, host: "h", pid: 1))
        #expect(try await ghost.claim(worker: "doomed", queues: ["photos"], limit: 3).count == 3)
        try await db.query("UPDATE ferry.workers SET heartbeat_at = now() - interval '1 hour' WHERE name = 'doomed'")

        // The dead worker's heartbeat is an hour old, so any window finds it; 30 s keeps the rescuer's own lease (and
        // so its own claims) through a loaded machine's stalls (with 4 s it once rescued its own jobs too: 6, not 3).
        let rescuer = try PostgresWorker(
            db, script: "noop", configuration: Self.configuration(name: "rescuer", queues: ["photos"], rescueAfter: .seconds(30), retryBase: 0.2))
        try await eventually(timeout: .seconds(300), "rescued and done") {
            try await count(db, "SELECT count(*) FROM ferry.jobs WHERE state = 'succeeded'") == 3
        }
        let rescued = try await count(db, "SELECT count(*) FROM ferry.events WHERE type = 'rescued'")
        #expect(rescued == 3)
        let scrape = rescuer.scrape()
        try await rescuer.stop()
        #expect(scrape.value("ferry_jobs_rescued_total", ["kind": "fetch", "queue": "photos"]) == Double(rescued), "\(scrape.text)")
        #expect(scrape.value("ferry_jobs_rescued_total", ["kind": "upload", "queue": "photos"]) == 0)
    }
}
