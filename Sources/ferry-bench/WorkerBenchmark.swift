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

    @Option(help: "Concurrency of each worker process.")
    var concurrency = 128

    @Option(help: "Single-job samples for the latency measurement.")
    var samples = 200

    func run() async throws {
        let bench = BenchDatabase(adminURL: databaseURL)
        var results = [(String, Double)]()
        for processes in [1, 2] {
            let url = try await bench.create("bench_workers_\(processes)")
            _ = try timedRun(ferry, ["migrate", "--database-url", url])
            let rate = try await ferryThroughput(url: url, processes: processes)
            let baseline = try await rawQueueThroughput(url: url, connections: processes)
            results.append(("ferry, \(processes) worker process(es)", rate))
            print(String(format: "%d worker process(es): ferry %8.0f jobs/s   raw SKIP LOCKED queue %8.0f jobs/s   ratio %.2fx",
                         processes, rate, baseline, rate / baseline))
        }
        let url = try await bench.create("bench_latency")
        _ = try timedRun(ferry, ["migrate", "--database-url", url])
        let (p50, p99) = try await enqueueToStartLatency(url: url)
        let (n50, n99) = try await notifyRoundTrip(url: url)
        print(String(format: "idle enqueue-to-start latency: p50 %.2f ms, p99 %.2f ms   (bare NOTIFY round trip: p50 %.2f ms, p99 %.2f ms)",
                     p50, p99, n50, n99))
    }

    /// Enqueues `jobs` no-op jobs, then measures first claim to last success from the event log.
    func ferryThroughput(url: String, processes: Int) async throws -> Double {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("ferry-bench-noop.jsonl").path
        let lines = (0..<jobs).map { #"{"kind":"fetch","source":"https://bench.example.com/\#($0)","to":"/tmp/","batch":"noop"}"# }
        try lines.joined(separator: "\n").write(toFile: file, atomically: true, encoding: .utf8)
        _ = try timedRun(ferry, ["enqueue", "--from", file, "--database-url", url])
        var workers = [Process]()
        for index in 0..<processes {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: ferry)
            process.arguments = ["worker", "--handler", "noop", "--concurrency", "\(concurrency)", "--name", "bench-\(index)",
                                 "--log-level", "error", "--database-url", url]
            try process.run()
            workers.append(process)
        }
        let client = PostgresClient(configuration: PostgresConfiguration(connectionString: url, poolSize: 1))
        defer { client.close() }
        while true {
            let done = try await client.withConnection {
                try $0.query("SELECT coalesce(bool_and(done), false) FROM ferry.batch_status WHERE batch = 'noop'").rows[0].decode(Bool.self, at: 0)
            }
            if done { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        for process in workers { kill(process.processIdentifier, SIGTERM) }
        for process in workers { process.waitUntilExit() }
        let seconds = try await client.withConnection { connection in
            try connection.query("""
                SELECT extract(epoch FROM max(recorded_at) FILTER (WHERE type = 'succeeded')
                                        - min(recorded_at) FILTER (WHERE type = 'claimed'))::float8,
                       count(*) FILTER (WHERE type = 'succeeded')
                  FROM ferry.events
                """).rows[0]
        }
        let elapsed = try seconds.decode(Double.self, at: 0)
        guard try seconds.decode(Int.self, at: 1) == jobs else { throw BenchError("not every job succeeded") }
        return Double(jobs) / elapsed
    }

    /// The baseline: a plain table, claimed in batches with UPDATE … SKIP LOCKED and completed with a second
    /// UPDATE, by the same number of connections as worker processes.
    func rawQueueThroughput(url: String, connections: Int) async throws -> Double {
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
        let batch = concurrency
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
                        try await client.withConnection { connection in
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
