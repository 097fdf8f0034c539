import FerryTestSupport
import Foundation
import Postgres
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// What only a `ferry worker` process shows: PostgreSQL down at its start (exit 69 past `--wait-for-schema`) or
/// restarted under it, and the binary's own liveness connection. Worker behaviour that needs no process runs in
/// process: `WorkerInProcessTests` (memory store) and `WorkerOnPostgresTests` (PostgreSQL).
@Suite("worker behaviour", .tags(.postgres, .process))
struct WorkerBehaviorTests {
    func enqueueFetches(_ db: TestDatabase, count: Int, batch: String, extra: String = "") async throws {
        let lines = (0..<count).map { #"{"kind":"fetch","source":"https://example.com/\#(batch)/\#($0).jpg","to":"/srv/","batch":"\#(batch)"\#(extra)}"# }
        let result = try await FerryProcess.run(["enqueue", "--from", "-"], databaseURL: db.url, stdin: lines.joined(separator: "\n"))
        #expect(result.status == 0, "\(result.stderr)")
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
