import ArgumentParser
import FerryCore
import FerryStore
import Foundation
import Logging
import Postgres

#if canImport(Glibc)
    import Glibc
#endif

/// No-op jobs worked to completion by 1 and 2 `ferry worker` processes (every event written), against the
/// simplest possible SKIP LOCKED queue (no events, no projection) driven the same way; plus idle
/// enqueue-to-start latency against a bare NOTIFY round trip.
struct WorkerBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "workers", abstract: "Worker throughput and idle enqueue-to-start latency.")

    @Option(help: "Admin URL of the benchmark cluster.")
    var databaseURL: String

    @Option(help: "Path to the ferry executable (a release build).")
    var ferry: String

    @Option(help: "No-op jobs per run.")
    var jobs = 20_000

    @Option(help: "Concurrency of each worker process (each is measured).")
    var concurrency: [Int] = [128, 10]

    @Option(help: "Queued jobs of the deep-backlog run, spread over three queues (0 skips it).")
    var deepJobs = 1_000_000

    @Option(help: "Jobs worked to completion in the deep-backlog run (the rate is measured over these).")
    var deepWorked = 200_000

    @Option(help: "Queues of the deep-backlog run (the workers take all of them).")
    var deepQueues = ["default", "video", "photos"]

    @Flag(help: "Only the deep-backlog run (no shallow runs, no latency).")
    var deepOnly = false

    @Option(help: "Rounds of each shallow run (the median is reported: one round lasts about two seconds).")
    var rounds = 3

    @Option(help: "Single-job samples for the latency measurement.")
    var samples = 200

    func run() async throws {
        let bench = BenchDatabase(adminURL: databaseURL)
        var shallow = [Int: Double]()
        for concurrency in deepOnly ? [] : concurrency {
            for processes in [1, 2] {
                var runs = [Run]()
                var baselines = [Double]()
                for round in 1...rounds {
                    let url = try await bench.create("bench_workers_\(processes)_\(concurrency)_\(round)")
                    _ = try timedRun(ferry, ["migrate", "--database-url", url])
                    runs.append(try await ferryThroughput(
                        url: url, jobs: jobs, queues: ["default"], processes: processes, concurrency: concurrency))
                    baselines.append(try await rawQueueThroughput(url: url, connections: processes, batch: concurrency))
                }
                let run = runs.sorted { $0.rate < $1.rate }[runs.count / 2]
                let baseline = median(baselines)
                if processes == 2 { shallow[concurrency] = run.rate }
                print(String(format: "shallow (%d jobs, median of %d), %d worker process(es), concurrency %d: ferry %8.0f jobs/s   raw SKIP LOCKED queue %8.0f jobs/s   ratio %.2fx",
                             jobs, rounds, processes, concurrency, run.rate, baseline, run.rate / baseline))
                print(String(format: "    per job: %.0f bytes of WAL, %.3f commits; %.1f jobs per claim, %.1f per outcome statement (target >= 20,000 jobs/s with 2 processes: %@)",
                             run.walBytesPerJob, run.commitsPerJob, run.jobsPerClaim, run.jobsPerFinish,
                             processes == 2 ? (run.rate >= 20_000 ? "met" : "not met") : "n/a"))
            }
        }
        if deepJobs > 0 {
            let url = try await bench.create("bench_workers_deep")
            _ = try timedRun(ferry, ["migrate", "--database-url", url])
            let concurrency = concurrency.first ?? 128
            let run = try await ferryThroughput(
                url: url, jobs: deepJobs, queues: deepQueues, processes: 2, concurrency: concurrency,
                stopAfter: deepWorked)
            let reference = shallow[concurrency] ?? run.rate
            print(String(format: "deep (%d jobs over %d queue(s), first %d worked), 2 worker processes, concurrency %d: %8.0f jobs/s   shallow rate (same run) %8.0f jobs/s   ratio %.2fx (target >= 0.8x: %@)",
                         deepJobs, deepQueues.count, deepWorked, concurrency, run.rate, reference, run.rate / reference, run.rate / reference >= 0.8 ? "met" : "not met"))
            let verify = try timedRun(ferry, ["projection", "verify", "--database-url", url])
            print(String(format: "    ferry projection verify after the deep run: clean (%.1f s)", verify))
        }
        if deepOnly { return }
        let url = try await bench.create("bench_latency")
        _ = try timedRun(ferry, ["migrate", "--database-url", url])
        let (p50, p99) = try await enqueueToStartLatency(url: url)
        let (n50, n99) = try await notifyRoundTrip(url: url)
        print(String(format: "idle enqueue-to-start latency: p50 %.2f ms, p99 %.2f ms   (bare NOTIFY round trip: p50 %.2f ms, p99 %.2f ms; target p50 <= 3 ms, p99 <= 20 ms: %@)",
                     p50, p99, n50, n99, p50 <= 3 && p99 <= 20 ? "met" : "not met"))
    }

    /// What one throughput run measured.
    struct Run {
        var rate: Double
        var walBytesPerJob: Double
        var commitsPerJob: Double
        var jobsPerClaim: Double
        var jobsPerFinish: Double
    }

    /// Enqueues `jobs` no-op jobs over `queues`, runs `processes` workers on all of them until `stopAfter` jobs
    /// (default: all) succeeded, and measures first claim to last success from the event log, with the WAL
    /// written and transactions committed per job meanwhile.
    func ferryThroughput(
        url: String, jobs: Int, queues: [String], processes: Int, concurrency: Int, stopAfter: Int? = nil
    ) async throws -> Run {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("ferry-bench-noop-\(jobs).jsonl").path
        try writeJSONLines(file, count: jobs) { index in
            #"{"kind":"fetch","source":"https://bench.example.com/\#(index)","to":"/tmp/","batch":"noop","queue":"\#(queues[index % queues.count])"}"#
        }
        defer { try? FileManager.default.removeItem(atPath: file) }
        _ = try timedRun(ferry, ["enqueue", "--from", file, "--database-url", url])
        let target = stopAfter ?? jobs
        let client = PostgresClient(configuration: PostgresConfiguration(connectionString: url, poolSize: 1))
        defer { client.close() }
        try await client.withConnection { connection in
            // Separately: VACUUM cannot run inside the implicit transaction of a multi-statement string.
            for statement in ["VACUUM ANALYZE ferry.jobs", "VACUUM ANALYZE ferry.events"] {
                try connection.execute(statement)
            }
        }
        let before = try await counters(client)
        var workers = [Process]()
        for index in 0..<processes {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: ferry)
            process.arguments = ["worker", "--handler", "noop", "--concurrency", "\(concurrency)", "--name", "bench-\(index)",
                                 "--queues", queues.joined(separator: ","), "--log-level", "error", "--database-url", url]
            try process.run()
            workers.append(process)
        }
        // Progress from the statistics counters, not from the tables: a count over a million rows every few
        // hundred milliseconds would steal the CPU being measured. Each worked job appends two events.
        while true {
            let inserted = try await client.withConnection { connection -> Int in
                _ = try connection.query("SELECT pg_stat_clear_snapshot()")
                return try connection.query(
                    "SELECT n_tup_ins FROM pg_stat_user_tables WHERE schemaname = 'ferry' AND relname = 'events'"
                ).rows[0].decode(Int.self, at: 0)
            }
            if inserted >= jobs + 2 * target { break }
            try await Task.sleep(for: .milliseconds(200))
        }
        for process in workers { kill(process.processIdentifier, SIGTERM) }
        for process in workers { process.waitUntilExit() }
        let after = try await counters(client)
        let row = try await client.withConnection { connection in
            try connection.query("""
                SELECT extract(epoch FROM max(recorded_at) FILTER (WHERE type = 'succeeded')
                                        - min(recorded_at) FILTER (WHERE type = 'claimed'))::float8,
                       count(*) FILTER (WHERE type = 'succeeded'),
                       count(*) FILTER (WHERE type = 'claimed')::float8 / greatest(1, count(DISTINCT tx_id) FILTER (WHERE type = 'claimed')),
                       count(*) FILTER (WHERE type = 'succeeded')::float8 / greatest(1, count(DISTINCT tx_id) FILTER (WHERE type = 'succeeded'))
                  FROM ferry.events WHERE type IN ('claimed', 'succeeded')
                """).rows[0]
        }
        let elapsed = try row.decode(Double.self, at: 0)
        let succeeded = try row.decode(Int.self, at: 1)
        guard succeeded >= target else { throw BenchError("only \(succeeded) of \(target) jobs succeeded") }
        let worked = Double(succeeded)
        return Run(
            rate: worked / elapsed, walBytesPerJob: (after.wal - before.wal) / worked,
            commitsPerJob: (after.commits - before.commits) / worked,
            jobsPerClaim: try row.decode(Double.self, at: 2), jobsPerFinish: try row.decode(Double.self, at: 3))
    }

    /// WAL position and committed transactions of the database, now.
    func counters(_ client: PostgresClient) async throws -> (wal: Double, commits: Double) {
        try await client.withConnection { connection in
            // pg_stat_database is updated when a backend reports; force our own report to be current.
            _ = try connection.query("SELECT pg_stat_clear_snapshot()")
            let row = try connection.query("""
                SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::float8,
                       xact_commit::float8
                  FROM pg_stat_database WHERE datname = current_database()
                """).rows[0]
            return (try row.decode(Double.self, at: 0), try row.decode(Double.self, at: 1))
        }
    }

    /// The baseline: a plain table, claimed in batches with UPDATE … SKIP LOCKED and completed with a second
    /// UPDATE, by the same number of connections as worker processes.
    func rawQueueThroughput(url: String, connections: Int, batch: Int) async throws -> Double {
        let setup = PostgresClient(configuration: PostgresConfiguration(connectionString: url, poolSize: 1))
        try await setup.withConnection { connection in
            try connection.execute("""
                CREATE TABLE raw_queue (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, state text NOT NULL DEFAULT 'queued',
                                        payload text NOT NULL) WITH (fillfactor = 70);
                CREATE INDEX raw_queue_ready ON raw_queue (id) WHERE state = 'queued';
                """)
            try connection.query("INSERT INTO raw_queue (payload) SELECT 'https://bench.example.com/' || g FROM generate_series(1, $1) g", [jobs])
        }
        setup.close()
        let start = ContinuousClock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<connections {
                group.addTask {
                    let client = PostgresClient(configuration: PostgresConfiguration(connectionString: url, poolSize: 1))
                    defer { client.close() }
                    while true {
                        let ids = try await client.withConnection { connection in
                            try connection.query("""
                                UPDATE raw_queue SET state = 'running' WHERE id IN (
                                    SELECT id FROM raw_queue WHERE state = 'queued' ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED)
                                RETURNING id
                                """, [batch]).rows.map { try $0.decode(Int64.self, at: 0) }
                        }
                        if ids.isEmpty { return }
                        _ = try await client.withConnection { connection in
                            try connection.query("UPDATE raw_queue SET state = 'done' WHERE id = ANY($1::bigint[])", [PostgresArray(ids)])
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        let elapsed = ContinuousClock.now - start
        return Double(jobs) / (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
    }

    /// One idle worker; single jobs enqueued one at a time with pauses; claim time minus enqueue time.
    func enqueueToStartLatency(url: String) async throws -> (Double, Double) {
        let worker = Process()
        worker.executableURL = URL(fileURLWithPath: ferry)
        worker.arguments = ["worker", "--handler", "noop", "--log-level", "error", "--database-url", url]
        try worker.run()
        defer {
            kill(worker.processIdentifier, SIGTERM)
            worker.waitUntilExit()
        }
        let store = FerryStore(
            client: PostgresClient(configuration: PostgresConfiguration(connectionString: url, poolSize: 1)),
            logger: Logger(label: "bench"))
        defer { store.client.close() }
        try await Task.sleep(for: .seconds(1))
        for index in 0..<samples {
            let spec = JobSpec(
                jobID: UUIDv7.make(), kind: .fetch, source: "https://bench.example.com/latency/\(index)", destination: "/tmp/",
                account: nil, queue: "default", batch: "latency", priority: 0, maxAttempts: 1, runAt: nil,
                idempotencyKey: nil, metadata: nil, bytesTotal: nil, details: [:])
            _ = try await store.enqueue([spec])
            try await Task.sleep(for: .milliseconds(Int.random(in: 20...40)))
        }
        try await Task.sleep(for: .seconds(1))
        let values = try await store.client.withConnection { connection in
            try connection.query("""
                SELECT extract(epoch FROM c.recorded_at - e.recorded_at)::float8 * 1000
                  FROM ferry.events e JOIN ferry.events c ON c.job_id = e.job_id AND c.version = 2
                 WHERE e.version = 1
                """).rows.map { try $0.decode(Double.self, at: 0) }
        }
        guard values.count == samples else { throw BenchError("only \(values.count) of \(samples) latency jobs started") }
        return percentiles(values)
    }

    /// A bare NOTIFY → LISTEN round trip on the same server, as the floor for wake-up latency.
    func notifyRoundTrip(url: String) async throws -> (Double, Double) {
        let listener = PostgresClient(configuration: PostgresConfiguration(connectionString: url, poolSize: 1))
        let sender = PostgresClient(configuration: PostgresConfiguration(connectionString: url, poolSize: 1))
        defer {
            listener.close()
            sender.close()
        }
        try await listener.withConnection { try $0.listen("bench_ping") }
        var values = [Double]()
        for _ in 0..<samples {
            let start = ContinuousClock.now
            try await sender.withConnection { try $0.notify("bench_ping") }
            _ = try await listener.withConnection { try $0.waitForNotifications(timeout: .seconds(5)) }
            let elapsed = ContinuousClock.now - start
            values.append(Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000)
        }
        return percentiles(values)
    }

    func percentiles(_ values: [Double]) -> (Double, Double) {
        let sorted = values.sorted()
        return (sorted[sorted.count / 2], sorted[min(sorted.count - 1, Int(Double(sorted.count) * 0.99))])
    }
}
