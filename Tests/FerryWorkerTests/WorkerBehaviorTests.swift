import FerryTestSupport
import Foundation
import Postgres
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite("worker behaviour", .tags(.postgres, .process))
struct WorkerBehaviorTests {
    func enqueueFetches(_ db: TestDatabase, count: Int, batch: String, extra: String = "") async throws {
        let lines = (0..<count).map { #"{"kind":"fetch","source":"https://example.com/\#(batch)/\#($0).jpg","to":"/srv/","batch":"\#(batch)"\#(extra)}"# }
        let result = try await FerryProcess.run(["enqueue", "--from", "-"], databaseURL: db.url, stdin: lines.joined(separator: "\n"))
        #expect(result.status == 0, "\(result.stderr)")
    }

    @Test("retryable failures back off and retry; after max attempts the job fails for good with its last error")
    func retriesThenFails() async throws {
        let db = try await TestDatabase.make("retry")
        try await enqueueFetches(db, count: 3, batch: "ok", extra: #","max_attempts":5"#)
        try await enqueueFetches(db, count: 2, batch: "doomed", extra: #","max_attempts":2"#)
        let worker = try TestWorker.start(db, name: "r", ["--handler", "fail-until:3", "--retry-base", "0.2", "--queues", "default"])
        try await eventually(timeout: .seconds(300), "both batches done") {
            let ok = try await WorkerFixtures.batchDone(db, "ok")
            let doomed = try await WorkerFixtures.batchDone(db, "doomed")
            return ok && doomed
        }
        worker.signal(SIGTERM)
        #expect(try await worker.waitForExit() == 0)
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
        _ = try await FerryProcess.run(["retry", "--batch", "doomed"], databaseURL: db.url)
        #expect(try await count(db, "SELECT count(*) FROM ferry.jobs WHERE batch = 'doomed' AND state = 'queued'") == 2)
    }

    @Test("max attempts exhausted: failed, with the reason in job_status")
    func exhausted() async throws {
        let db = try await TestDatabase.make("exhaust")
        try await enqueueFetches(db, count: 2, batch: "x", extra: #","max_attempts":2"#)
        let worker = try TestWorker.start(db, name: "x", ["--handler", "fail-until:99", "--retry-base", "0.1"])
        try await eventually(timeout: .seconds(300), "batch done") { try await WorkerFixtures.batchDone(db, "x") }
        worker.signal(SIGTERM)
        _ = try await worker.waitForExit()
        let rows = try await db.query("SELECT status, attempt, last_error FROM ferry.job_status WHERE batch = 'x'").rows
        #expect(rows.count == 2)
        for row in rows {
            #expect(try row.decode(String.self, at: 0) == "failed")
            #expect(try row.decode(Int.self, at: 1) == 2)
            #expect(try row.decode(String.self, at: 2).contains("attempts exhausted: 2 of 2"))
        }
        // A non-retryable failure fails at once.
        try await enqueueFetches(db, count: 1, batch: "perm", extra: #","max_attempts":9"#)
        let permanent = try TestWorker.start(db, name: "p", ["--handler", "fail"])
        try await eventually(timeout: .seconds(300), "permanent failure") { try await WorkerFixtures.batchDone(db, "perm") }
        permanent.signal(SIGTERM)
        _ = try await permanent.waitForExit()
        let perm = try await db.query("SELECT state, attempt FROM ferry.jobs WHERE batch = 'perm'").rows[0]
        #expect(try perm.decode(String.self, at: 0) == "failed")
        #expect(try perm.decode(Int.self, at: 1) == 1)
    }

    @Test("rate limiting defers without consuming an attempt")
    func deferral() async throws {
        let db = try await TestDatabase.make("defer")
        try await enqueueFetches(db, count: 3, batch: "d", extra: #","max_attempts":1"#)
        let worker = try TestWorker.start(db, name: "d", ["--handler", "ratelimit-until:2"])
        try await eventually(timeout: .seconds(300), "batch done") { try await WorkerFixtures.batchDone(db, "d") }
        worker.signal(SIGTERM)
        _ = try await worker.waitForExit()
        // Three claims each, two deferrals each, and success on the first (and only) attempt.
        #expect(try await count(db, "SELECT count(*) FROM ferry.events WHERE type = 'deferred'") == 6)
        #expect(try await count(db, "SELECT count(*) FROM ferry.jobs WHERE state = 'succeeded' AND attempt = 1 AND lease = 3") == 3)
    }

    @Test("cancelling a running job stops it promptly and records cancelled; the worker carries on")
    func cancelRunning() async throws {
        let db = try await TestDatabase.make("cancelrun")
        let job = try await FerryProcess.run(["enqueue", "fetch", "https://example.com/slow.jpg", "--to", "/srv/"], databaseURL: db.url).lines[0]
        let worker = try TestWorker.start(db, name: "c", ["--handler", "sleep:60000", "--shutdown-timeout", "1"])
        try await eventually(timeout: .seconds(300), "job running") {
            try await count(db, "SELECT count(*) FROM ferry.jobs WHERE state = 'running'") == 1
        }
        let cancel = try await FerryProcess.run(["cancel", job], databaseURL: db.url)
        #expect(cancel.stdout.contains("cancel_requested"))
        let asked = ContinuousClock.now
        // The bound is generous for a loaded machine and still far below the 60 s the job would take.
        try await eventually(timeout: .seconds(300), "job cancelled") {
            try await count(db, "SELECT count(*) FROM ferry.jobs WHERE state = 'cancelled'") == 1
        }
        #expect(ContinuousClock.now - asked < .seconds(40), "noticed long before the 60 s job would end")
        let last = try await db.query("SELECT type, data->>'lease' FROM ferry.events WHERE job_id = $1::uuid ORDER BY version DESC LIMIT 1", [job]).rows[0]
        #expect(try last.decode(String.self, at: 0) == "cancelled")
        #expect(try last.decode(String.self, at: 1) == "1")
        // Still alive and working.
        _ = try await FerryProcess.run(["enqueue", "fetch", "https://example.com/next.jpg", "--to", "/srv/"], databaseURL: db.url)
        try await eventually(timeout: .seconds(300), "next job running") {
            try await count(db, "SELECT count(*) FROM ferry.jobs WHERE state = 'running'") == 1
        }
        worker.signal(SIGTERM)
        #expect(try await worker.waitForExit() == 0)
    }

    @Test("at most K jobs of one account run at once across all workers (checked from the event log)")
    func perAccountLimit() async throws {
        let db = try await TestDatabase.make("acctlimit")
        try await db.query("INSERT INTO ferry.accounts (name, provider, max_concurrent) VALUES ('busy', 'dropbox', 2), ('calm', 'dropbox', 3)")
        let lines = (0..<24).map { index in
            #"{"kind":"fetch","source":"dropbox:\#(index % 2 == 0 ? "busy" : "calm"):/p/\#(index).jpg","to":"/srv/","batch":"acct"}"#
        }
        _ = try await FerryProcess.run(["enqueue", "--from", "-"], databaseURL: db.url, stdin: lines.joined(separator: "\n"))
        let workers = try (0..<3).map { try TestWorker.start(db, name: "a\($0)", ["--handler", "sleep:300", "--concurrency", "4"]) }
        try await eventually(timeout: .seconds(300), "batch done") { try await WorkerFixtures.batchDone(db, "acct") }
        for worker in workers { worker.signal(SIGTERM) }
        for worker in workers { _ = try await worker.waitForExit() }
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

    @Test("a worker started while PostgreSQL is down waits for it and then works; past --wait-for-schema it exits 69")
    func startWhileDown() async throws {
        try await PrivateCluster.withNew { try await startWhileDownScenario($0) }
    }

    func startWhileDownScenario(_ cluster: PrivateCluster) async throws {
        let db = try await cluster.migratedDatabase()
        try await enqueueFetches(db, count: 5, batch: "down")
        try await cluster.stopServer()

        let impatient = try TestWorker.start(db, name: "impatient", ["--handler", "noop", "--wait-for-schema", "1s"])
        #expect(try await impatient.waitForExit(timeout: .seconds(60)) == 69)
        #expect(impatient.log.contains("waiting for PostgreSQL"), "\(impatient.log)")

        let patient = try TestWorker.start(db, name: "patient", ["--handler", "noop"])
        try await eventually(timeout: .seconds(300), "the worker to say it waits") { patient.log.contains("waiting for PostgreSQL") }
        // Nothing to wait for: it must still be waiting, not exited, a while later.
        try await Task.sleep(for: .seconds(2))
        #expect(patient.isRunning, "still waiting, not exited: \(patient.log)")
        try await cluster.startServer()
        try await eventually(timeout: .seconds(300), "the jobs to finish once PostgreSQL is back") {
            (try? await WorkerFixtures.batchDone(db, "down")) ?? false
        }
        patient.signal(SIGTERM)
        #expect(try await patient.waitForExit() == 0, "\(patient.log)")
        #expect(try await count(db, "SELECT count(*) FROM ferry.jobs WHERE state = 'succeeded'") == 5)
    }

    @Test("PostgreSQL restarted mid-run: workers reconnect and every job finishes")
    func postgresRestart() async throws {
        try await PrivateCluster.withNew { try await restartScenario($0) }
    }

    func restartScenario(_ cluster: PrivateCluster) async throws {
        let db = try await cluster.migratedDatabase()
        try await enqueueFetches(db, count: 300, batch: "pg")
        let workers = try (0..<2).map { try TestWorker.start(db, name: "pg\($0)", ["--handler", "sleep:50", "--concurrency", "4"]) }
        try await eventually(timeout: .seconds(300), "some jobs done") {
            try await count(db, "SELECT count(*) FROM ferry.jobs WHERE state = 'succeeded'") >= 30
        }
        try await cluster.restart()
        try await eventually(timeout: .seconds(300), "all jobs done after the restart") {
            (try? await WorkerFixtures.batchDone(db, "pg")) ?? false
        }
        let survived = workers.allSatisfy { $0.isRunning }
        #expect(survived, "workers survived the restart")
        #expect(try await count(db, "SELECT count(*) FROM ferry.jobs WHERE state = 'succeeded'") == 300)
        #expect(try await FerryProcess.run(["projection", "verify"], databaseURL: db.url).status == 0)
        for worker in workers { worker.signal(SIGTERM) }
        for worker in workers { #expect(try await worker.waitForExit() == 0, "\(worker.log)") }
        // Claims whose reply died with the connection were released, not left running.
        #expect(try await count(db, "SELECT count(*) FROM ferry.jobs WHERE state = 'running'") == 0)
    }

    @Test("heartbeats go on while every job's database write waits on a lock: a live worker is never declared dead")
    func heartbeatsIndependentOfJobs() async throws {
        let db = try await TestDatabase.make("liveness")
        try await enqueueFetches(db, count: 8, batch: "busy")
        // Eight jobs that report progress without pause fill the pool of eight (each on its own connection: batched
        // progress would block one connection only); no rescue can confuse the check.
        let worker = try TestWorker.start(
            db, name: "steady",
            ["--handler", "progress:100000000", "--concurrency", "8", "--rescue-after", "600", "--shutdown-timeout", "1", "--no-progress-batching"])
        try await eventually(timeout: .seconds(300), "all eight running") {
            try await count(db, "SELECT count(*) FROM ferry.jobs WHERE state = 'running'") == 8
        }
        let locker = db.client(poolSize: 1)
        defer { locker.close() }
        try await locker.withHeldTransaction { held in
            // Every append to the log now waits: each job holds its pooled connection until the lock goes.
            try await held.run { try $0.execute("LOCK TABLE ferry.events IN SHARE MODE") }
            try await eventually(timeout: .seconds(300), "every pooled connection waiting on the lock") {
                try await count(db, """
                    SELECT count(*) FROM pg_stat_activity
                     WHERE datname = current_database() AND application_name = 'ferry worker' AND wait_event_type = 'Lock'
                    """) >= 8
            }
            let blockedAt = try await db.query("SELECT clock_timestamp()::text").rows[0].decode(String.self, at: 0)
            try await eventually(timeout: .seconds(300), "a heartbeat after the pool was blocked") {
                try await count(
                    db, "SELECT count(*) FROM ferry.workers WHERE name = 'steady' AND heartbeat_at > $1::timestamptz", [blockedAt]) == 1
            }
            #expect(try await count(db, """
                SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'ferry worker liveness'
                """) == 1)
        }
        worker.signal(SIGTERM)
        #expect(try await worker.waitForExit(timeout: .seconds(60)) == 0, "\(worker.log)")
        #expect(try await count(db, "SELECT count(*) FROM ferry.events WHERE type IN ('rescued', 'failed')") == 0)
    }
}
