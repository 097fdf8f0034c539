import FerryTestSupport
import Foundation
import Postgres
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Ferry behind PgBouncer in transaction pooling mode (scripts/pgbouncer.sh): producers, workers, `ferry wait`,
/// `ferry status` and the dashboard go through the pooler; `ferry projection verify` runs directly.
@Suite("behind PgBouncer", .tags(.postgres, .process))
struct PgBouncerTests {
    static func worker(_ db: TestDatabase, _ arguments: [String]) throws -> BackgroundProcess {
        try BackgroundProcess(ferry: ["worker", "--heartbeat-interval", "0.5", "--handler", "noop"] + arguments, databaseURL: db.url)
    }

    static func stop(_ workers: [BackgroundProcess]) async throws {
        for worker in workers { worker.signal(SIGTERM) }
        for worker in workers { #expect(try await worker.waitForExit() == 0, "\(worker.log)") }
    }

    @Test("migrate, a bulk enqueue, two --poll-only workers, wait, status and the dashboard through PgBouncer; verify clean")
    func wholeFlow() async throws {
        // An empty database, migrated through the pooler.
        let name = "ferry_bouncer_\(UInt32.random(in: 0...UInt32.max))"
        let admin = PostgresClient(configuration: PostgresConfiguration(connectionString: try TestDatabase.adminURL, poolSize: 1))
        defer { admin.close() }
        try await admin.withConnection { try $0.execute("CREATE DATABASE \(PostgresIdentifier(name).quoted)") }
        let db = TestDatabase(url: TestDatabase.replacingDatabase(in: try TestDatabase.adminURL, with: name), name: name)
        try await PgBouncerProcess.withNew(upstream: try TestDatabase.adminURL, poolSize: 10) { bouncer in
            let pooled = bouncer.url(of: db)
            // Two at once, as a deployment might: each file once, and no advisory lock left on a pooled connection.
            async let first = FerryProcess.run(["migrate"], databaseURL: pooled.url)
            async let second = FerryProcess.run(["migrate"], databaseURL: pooled.url)
            for migrate in try await [first, second] { #expect(migrate.status == 0, "\(migrate.stderr)") }
            // This database's locks only: other tests of the same cluster may hold their own.
            #expect(try await count(
                db, "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND database = (SELECT oid FROM pg_database WHERE datname = current_database())") == 0)
            #expect(try await FerryProcess.run(["migrate", "--check"], databaseURL: db.url).status == 0)

            let jobs = 3000
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("ferry-bouncer-\(UUID().uuidString).jsonl").path
            defer { try? FileManager.default.removeItem(atPath: file) }
            try (0..<jobs).map { #"{"kind":"fetch","source":"https://example.com/pool/\#($0).jpg","to":"/srv/pool/","batch":"pool"}"# }
                .joined(separator: "\n").write(toFile: file, atomically: true, encoding: .utf8)
            let enqueue = try await FerryProcess.run(["enqueue", "--from", file], databaseURL: pooled.url)
            #expect(enqueue.status == 0, "\(enqueue.stderr)")
            #expect(enqueue.lines.count == jobs)

            let workers = try (0..<2).map { _ in
                try Self.worker(pooled, ["--poll-only", "--poll-interval", "0.2", "--concurrency", "16"])
            }
            let wait = try await FerryProcess.run(["wait", "--batch", "pool", "--timeout", "600"], databaseURL: pooled.url)
            #expect(wait.status == 0, "\(wait.stderr)")
            #expect(wait.stdout.contains("all \(jobs) job(s) succeeded"), "\(wait.stdout)")

            let status = try await FerryProcess.run(["status", "--batch", "pool", "--json"], databaseURL: pooled.url)
            #expect(status.status == 0, "\(status.stderr)")
            let summary = (try? JSONSerialization.jsonObject(with: Data(status.stdout.utf8))) as? [String: Any]
            let batch = summary?["batch"] as? [String: Any]
            #expect(batch?["succeeded"] as? Int == jobs, "\(status.stdout.prefix(500))")

            try await DashboardProbe.with(pooled, ["--read-only"]) { dashboard in
                let overview = try await dashboard.get("/", json: true)
                #expect(overview.status == 200)
                let queues = (overview.json as? [String: Any])?["queues"] as? [[String: Any]] ?? []
                let succeeded = queues.filter { $0["state"] as? String == "succeeded" }.compactMap { $0["jobs"] as? Int }.reduce(0, +)
                #expect(succeeded == jobs, "\(overview.body.prefix(500))")
            }
            try await Self.stop(workers)
            for worker in workers {
                #expect(!worker.log.contains("error"), "\(worker.log.suffix(2000))")
            }
            #expect(try await count(db, "SELECT count(*) FROM ferry.jobs WHERE batch = 'pool' AND state = 'succeeded'") == jobs)
            let verify = try await FerryProcess.run(["projection", "verify"], databaseURL: db.url)
            #expect(verify.status == 0, "\(verify.stdout)\(verify.stderr)")
        }
    }

    @Test("a worker without --poll-only behind PgBouncer notices that notifications never come, warns once and polls often")
    func unheardNotifications() async throws {
        let db = try await TestDatabase.make("unheard")
        let warning = "notifications do not reach this worker"
        try await PgBouncerProcess.withNew(upstream: try TestDatabase.adminURL) { bouncer in
            let pooled = bouncer.url(of: db)
            let worker = try Self.worker(pooled, ["--poll-interval", "300"])
            try await eventually(timeout: .seconds(120), "the worker's warning") { worker.log.contains(warning) }
            #expect(worker.log.contains("--poll-only") && worker.log.contains("PgBouncer"), "\(worker.log)")
            // An idle worker in its 300 s poll interval: the job must not wait for it (the bound is generous for a
            // loaded machine, and far below the interval).
            let enqueued = ContinuousClock.now
            let enqueue = try await FerryProcess.run(["enqueue", "fetch", "https://example.com/one.jpg", "--to", "/srv/"], databaseURL: pooled.url)
            #expect(enqueue.status == 0, "\(enqueue.stderr)")
            try await eventually(timeout: .seconds(120), "the job to succeed") {
                try await count(db, "SELECT count(*) FROM ferry.jobs WHERE state = 'succeeded'") == 1
            }
            let took = ContinuousClock.now - enqueued
            #expect(took < .seconds(120), "finished after \(took), as if waiting out the 300 s poll interval")
            try await Self.stop([worker])
            #expect(worker.log.components(separatedBy: warning).count == 2, "warned once: \(worker.log)")
        }
        // Directly connected, the probe comes back: no warning.
        let direct = try Self.worker(db, ["--poll-interval", "30"])
        try await eventually(timeout: .seconds(120), "the worker to start") { direct.log.contains("worker started") }
        try await Task.sleep(for: .seconds(7))
        try await Self.stop([direct])
        #expect(!direct.log.contains(warning), "\(direct.log)")
    }
}
