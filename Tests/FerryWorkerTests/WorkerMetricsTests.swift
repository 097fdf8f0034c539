import FerryStore
import FerryTestSupport
import FerryWorker
import Foundation
import Postgres
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A real worker process, scraped over loopback: metric values against the database, names and HELP lines,
/// and the probes.
@Suite("worker metrics and probes", .tags(.postgres, .process))
struct WorkerMetricsTests {
    static let outcomes = ["claimed", "succeeded", "failed", "retried", "deferred", "released", "held", "cancelled", "rescued"]

    @Test("/metrics before, during (jobs held running) and after a batch drained by cancel equals the database; gauges return to 0")
    func metricsFollowTheDatabase() async throws {
        let db = try await TestDatabase.make("metered")
        let worker = try TestWorker.start(
            db, name: "metered",
            ["--handler", "sleep:600000", "--queues", "photos", "--concurrency", "2", "--metrics-listen", "127.0.0.1:0",
             "--queue-stats-interval", "0.2", "--log-format", "json"])
        let probe = try await MetricsProbe.of(worker)
        let labels = ["kind": "fetch", "queue": "photos"]

        // Before: zeros, and every series an alert needs exists already.
        var before = PrometheusText("")
        try await eventually(timeout: .seconds(300), "the first queue depth read") {
            before = try await probe.scrape()
            return before.value("ferry_queue_depth_read_timestamp_seconds") != nil
        }
        #expect(before.value("ferry_queue_depth", ["queue": "photos", "state": "queued"]) == 0)
        #expect(before.value("ferry_queue_depth", ["queue": "photos", "state": "running"]) == 0)
        #expect(before.value("ferry_queue_oldest_waiting_seconds", ["queue": "photos"]) == 0)
        #expect(before.value("ferry_queue_paused", ["queue": "photos"]) == 0)
        for outcome in Self.outcomes {
            for kind in ["upload", "fetch"] {
                #expect(before.value("ferry_jobs_\(outcome)_total", ["kind": kind, "queue": "photos"]) == 0,
                        "ferry_jobs_\(outcome)_total{kind=\"\(kind)\"} exported at 0 before any job")
            }
        }
        #expect(before.value("ferry_worker_slots") == 2)
        #expect(before.value("ferry_worker_slots_busy") == 0)
        Self.expectConventions(before)
        #expect(await probe.get("/health") == (200, "ok\n"))
        let ready = await probe.get("/ready")
        #expect(ready.status == 200, "\(ready.body)")
        #expect(ready.body.contains("schema \(FerryRelease.schemaVersion)"))

        // During: 5 jobs; the worker holds 2 running (they would take 10 minutes) and 3 wait, so the state is
        // stable however slow the machine is.
        let lines = (1...5).map { #"{"kind":"fetch","source":"https://example.com/\#($0).jpg","to":"/srv/in/","queue":"photos","batch":"metered"}"# }
        let enqueue = try await FerryProcess.run(["enqueue", "--from", "-"], databaseURL: db.url, stdin: lines.joined(separator: "\n"))
        #expect(enqueue.status == 0, "\(enqueue.stderr)")
        var during = PrometheusText("")
        var waited = 0.0
        var elapsed = Duration.zero
        try await eventually(timeout: .seconds(300), "gauges equal to the database while jobs run") {
            let started = ContinuousClock.now
            during = try await probe.scrape()
            let row = try await db.query("""
                SELECT count(*) FILTER (WHERE state = 'queued'), count(*) FILTER (WHERE state = 'running'),
                       coalesce(extract(epoch FROM now() - min(run_at) FILTER (WHERE state = 'queued' AND run_at <= now())), 0)::float8
                  FROM ferry.jobs WHERE queue = 'photos'
                """).rows[0]
            elapsed = ContinuousClock.now - started
            let (queued, running) = (try row.decode(Int.self, at: 0), try row.decode(Int.self, at: 1))
            waited = try row.decode(Double.self, at: 2)
            return running == 2 && queued == 3
                && during.value("ferry_queue_depth", ["queue": "photos", "state": "queued"]) == 3
                && during.value("ferry_queue_depth", ["queue": "photos", "state": "running"]) == 2
        }
        let oldest = try #require(during.value("ferry_queue_oldest_waiting_seconds", ["queue": "photos"]))
        #expect(oldest > 0)
        // The gauge was read at most one interval (0.2 s) before the scrape, which came before the database's figure.
        let slack = 0.2 + Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18 + 0.5
        #expect(oldest <= waited + 0.05 && oldest >= waited - slack, "gauge \(oldest) s, database \(waited) s")
        #expect(during.value("ferry_worker_slots_busy") == 2)

        // After: `ferry cancel` drains the batch (the running jobs stop, the waiting ones never start), so both
        // gauges and the wait read 0 again; the counters equal the database's counts.
        let cancel = try await FerryProcess.run(["cancel", "--batch", "metered"], databaseURL: db.url)
        #expect(cancel.status == 0, "\(cancel.stderr)")
        try await eventually(timeout: .seconds(300), "batch done") { try await WorkerFixtures.batchDone(db, "metered") }
        var after = PrometheusText("")
        try await eventually(timeout: .seconds(300), "gauges back to 0") {
            after = try await probe.scrape()
            return after.value("ferry_queue_depth", ["queue": "photos", "state": "queued"]) == 0
                && after.value("ferry_queue_depth", ["queue": "photos", "state": "running"]) == 0
                && after.value("ferry_queue_oldest_waiting_seconds", ["queue": "photos"]) == 0
        }
        let claimed = try await count(db, "SELECT count(*) FROM ferry.jobs WHERE started_at IS NOT NULL")
        let stoppedRunning = try await count(
            db, "SELECT count(*) FROM ferry.jobs WHERE state = 'cancelled' AND started_at IS NOT NULL")
        let succeeded = try await count(db, "SELECT count(*) FROM ferry.jobs WHERE state = 'succeeded'")
        #expect(claimed == 2 && stoppedRunning == 2 && succeeded == 0)
        #expect(after.value("ferry_jobs_claimed_total", labels) == Double(claimed))
        #expect(after.value("ferry_jobs_cancelled_total", labels) == Double(stoppedRunning))
        #expect(after.value("ferry_jobs_succeeded_total", labels) == Double(succeeded))
        #expect(after.value("ferry_jobs_failed_total", labels) == 0)
        #expect(after.value("ferry_job_duration_seconds_count", labels.merging(["outcome": "cancelled"]) { $1 }) == 2)
        #expect(after.value("ferry_job_start_latency_seconds_count", labels) == 2)
        #expect(after.value("ferry_worker_slots_busy") == 0)
        // Finished jobs are not depth: no series for terminal states.
        #expect(!after.samples.contains { $0.name == "ferry_queue_depth" && !["queued", "running"].contains($0.labels["state"] ?? "") })
        Self.expectConventions(after)

        // A paused queue reads 1 (the backlog alerts leave it alone), a queue paused before any job too; 0 once resumed.
        for (arguments, expected) in [(["pause", "photos"], 1.0), (["pause", "quiet", "--create"], 1.0), (["resume", "photos"], 0.0)] {
            let changed = try await FerryProcess.run(["queue"] + arguments, databaseURL: db.url)
            #expect(changed.status == 0, "\(changed.stderr)")
            try await eventually(timeout: .seconds(300), "ferry_queue_paused{queue=\"\(arguments[1])\"} \(expected)") {
                try await probe.scrape().value("ferry_queue_paused", ["queue": arguments[1]]) == expected
            }
        }

        worker.signal(SIGTERM)
        #expect(try await worker.waitForExit() == 0)
    }

    /// Every family has HELP and TYPE; counters end in _total, histograms of time in _seconds (of sizes in _entries), byte counts in
    /// _bytes_total; names and labels are low-cardinality (no job ids).
    static func expectConventions(_ scrape: PrometheusText) {
        #expect(!scrape.families.isEmpty)
        for name in scrape.families {
            // Ferry's own families, and the standard process_* ones every Prometheus client exports.
            #expect(name.range(of: "^(ferry|process)_[a-z_]+$", options: .regularExpression) != nil, "\(name)")
            #expect(!(scrape.help[name] ?? "").isEmpty, "# HELP for \(name)")
            switch scrape.types[name] {
            case "counter": #expect(name.hasSuffix("_total"), "counter \(name) ends in _total")
            // Histograms are of time, or of sizes counted in entries (Dropbox batch commits).
            case "histogram": #expect(name.hasSuffix("_seconds") || name.hasSuffix("_entries"), "histogram \(name) ends in _seconds or _entries")
            default: #expect(!name.hasSuffix("_total"), "gauge \(name) does not end in _total")
            }
            if name.contains("bytes") { #expect(name.hasSuffix("_bytes_total") || name.hasSuffix("_bytes"), "\(name)") }
        }
        #expect(!scrape.text.contains("job_id"))
        let labelNames = Set(scrape.samples.flatMap(\.labels.keys))
        // version and schema label only ferry_build_info (one series); provider and account are few, reason capped.
        #expect(labelNames.isSubset(of: ["kind", "queue", "state", "outcome", "le", "version", "schema", "provider", "account", "reason"]), "\(labelNames)")
    }

    @Test("without the schema: /health 200, /ready 503 and one clear log line; after ferry migrate it starts and claims")
    func waitsForTheSchema() async throws {
        let url = try await Self.emptyDatabase("waitschema")
        let worker = try BackgroundProcess(
            ferry: ["worker", "--name", "waiter", "--handler", "noop", "--metrics-listen", "127.0.0.1:0",
                    "--wait-for-schema", "120s", "--log-format", "json", "--log-level", "debug", "--poll-interval", "0.5"],
            databaseURL: url)
        let probe = try await MetricsProbe.of(worker)
        #expect(await probe.get("/health") == (200, "ok\n"))
        let waiting = "waiting for schema \(FerryRelease.schemaVersion) (found 0); run `ferry migrate`"
        try await eventually(timeout: .seconds(300), "/ready to give the reason") {
            await probe.get("/ready") == (503, waiting + "\n")
        }
        // Three more checks later (0.5 s, 1 s, 2 s apart; logged at debug) it still waits and has said so once.
        try await eventually(timeout: .seconds(300), "three more checks") {
            worker.log.components(separatedBy: "still waiting for the schema").count - 1 >= 3
        }
        #expect(worker.isRunning)
        #expect(worker.log.components(separatedBy: waiting).count - 1 == 1, "\(worker.log)")
        #expect(await probe.get("/ready").status == 503)

        let migrate = try await FerryProcess.run(["migrate"], databaseURL: url)
        #expect(migrate.status == 0, "\(migrate.stderr)")
        try await eventually(timeout: .seconds(300), "/ready once migrated") { await probe.get("/ready").status == 200 }
        let enqueued = try await FerryProcess.run(["enqueue", "fetch", "https://example.com/a.jpg", "--to", "/srv/"], databaseURL: url)
        #expect(enqueued.status == 0, "\(enqueued.stderr)")
        let db = TestDatabase(url: url, name: "")
        try await eventually(timeout: .seconds(300), "the job to be claimed and done") {
            try await count(db, "SELECT count(*) FROM ferry.jobs WHERE state = 'succeeded'") == 1
        }
        #expect(worker.log.contains("schema \(FerryRelease.schemaVersion) found; starting"))
        worker.signal(SIGTERM)
        #expect(try await worker.waitForExit() == 0)
    }

    @Test("a short --wait-for-schema gives up with a clear error: 78 without the schema, 69 without PostgreSQL")
    func waitIsBounded() async throws {
        let url = try await Self.emptyDatabase("waitbound")
        let started = ContinuousClock.now
        let noSchema = try await FerryProcess.run(["worker", "--handler", "noop", "--wait-for-schema", "2s"], databaseURL: url)
        #expect(noSchema.status == 78, "\(noSchema.stderr)")
        #expect(noSchema.stderr.contains(
            "error: the database has schema 0, this build needs \(FerryRelease.schemaVersion) (waited 2.0 seconds); run `ferry migrate`"),
            "\(noSchema.stderr)")
        #expect(ContinuousClock.now - started >= .seconds(2))

        let noServer = try await FerryProcess.run(
            ["worker", "--handler", "noop", "--wait-for-schema", "1s", "--database-url", "postgresql://postgres@127.0.0.1:1/none"])
        #expect(noServer.status == 69, "\(noServer.stderr)")
        #expect(noServer.stderr.contains("error: PostgreSQL is unavailable"), "\(noServer.stderr)")
        #expect(noServer.stderr.contains("waiting for PostgreSQL"), "the wait was logged: \(noServer.stderr)")
    }

    @Test("/ready answers 503 while PostgreSQL is stopped and 200 once it is back; /health stays 200")
    func readyFollowsTheDatabase() async throws {
        try await PrivateCluster.withNew { cluster in
            let url = cluster.adminURL
            let migrate = try await FerryProcess.run(["migrate"], databaseURL: url)
            #expect(migrate.status == 0, "\(migrate.stderr)")
            let worker = try BackgroundProcess(
                ferry: ["worker", "--name", "probed", "--handler", "noop", "--metrics-listen", "127.0.0.1:0", "--log-format", "json",
                        "--log-level", "info", "--heartbeat-interval", "0.3"],
                databaseURL: url)
            let probe = try await MetricsProbe.of(worker)
            try await eventually(timeout: .seconds(300), "ready") { await probe.get("/ready").status == 200 }

            try await cluster.stopServer()
            var answer = (status: 0, body: "")
            try await eventually(timeout: .seconds(300), "not ready while the database is down") {
                answer = await probe.get("/ready")
                return answer.status == 503
            }
            #expect(answer.body.contains("database"), "\(answer.body)")
            // Anyone can ask /ready: it says what is wrong, not where the database is or who logs in to it.
            let port = URLComponents(string: url)?.port.map(String.init) ?? "?"
            #expect(!answer.body.contains("127.0.0.1") && !answer.body.contains(port) && !answer.body.contains("port"), "\(answer.body)")
            #expect(!answer.body.contains("user") && !answer.body.contains("postgres@") && !answer.body.contains("\"postgres\""), "\(answer.body)")
            #expect(await probe.get("/health") == (200, "ok\n"))

            try await cluster.startServer()
            try await eventually(timeout: .seconds(300), "ready again") { await probe.get("/ready").status == 200 }
            worker.signal(SIGTERM)
            #expect(try await worker.waitForExit() == 0)
        }
    }

    @Test("--metrics-listen takes HOST:PORT and refuses anything else before touching the database")
    func listenAddresses() async throws {
        #expect(ListenAddress("127.0.0.1:9464") == ListenAddress(host: "127.0.0.1", port: 9464))
        #expect(ListenAddress("[::1]:0") == ListenAddress(host: "::1", port: 0))
        #expect(ListenAddress(":9464") == ListenAddress(host: "0.0.0.0", port: 9464))
        #expect(ListenAddress("[::1]:9464")?.description == "[::1]:9464")
        for bad in ["9464", "::1:9464", "host:70000", "host:", "[]:1", "a b:1"] {
            #expect(ListenAddress(bad) == nil, "\(bad)")
        }
        let refused = try await FerryProcess.run(
            ["worker", "--metrics-listen", "localhost", "--database-url", "postgresql://postgres@127.0.0.1:1/none"])
        #expect(refused.status == 64)
        #expect(refused.stderr.contains("--metrics-listen takes HOST:PORT"), "\(refused.stderr)")
        let both = try await FerryProcess.run(
            ["worker", "--metrics-listen", "127.0.0.1:0", "--metrics-port", "9464", "--database-url", "postgresql://postgres@127.0.0.1:1/none"])
        #expect(both.status == 64)
        let wait = try await FerryProcess.run(
            ["worker", "--wait-for-schema", "soon", "--database-url", "postgresql://postgres@127.0.0.1:1/none"])
        #expect(wait.status == 64)
        #expect(wait.stderr.contains("--wait-for-schema takes a time"), "\(wait.stderr)")
    }

    /// A database of the test cluster with nothing in it (no Ferry schema).
    static func emptyDatabase(_ label: String) async throws -> String {
        let admin = try TestDatabase.adminURL
        let name = "ferry_empty_\(label)_\(UInt32.random(in: 0...UInt32.max))"
        let client = PostgresClient(configuration: PostgresConfiguration(connectionString: admin, poolSize: 1))
        defer { client.close() }
        try await client.withConnection { try $0.execute("CREATE DATABASE \(PostgresIdentifier(name).quoted)") }
        return TestDatabase.replacingDatabase(in: admin, with: name)
    }
}
