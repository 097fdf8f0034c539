import ArgumentParser
import Foundation
import Postgres

/// Status views and retention at 1,000,000 jobs and 10,000,000 events: server-side `EXPLAIN ANALYZE` timings of
/// the queries people run (median of several runs, after a warm-up), against the old full count of
/// `queue_stats` in the same run; then `ferry archive` of every finished job, one file restored, and verify.
struct StatusBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status", abstract: "Status views at 1,000,000 jobs / 10,000,000 events; archive and restore.")

    @Option(help: "Admin URL of the benchmark cluster.")
    var databaseURL: String

    @Option(help: "Path to the ferry executable (a release build).")
    var ferry: String

    @Option(help: "Jobs in the dataset (ten events each).")
    var jobs = 1_000_000

    @Option(help: "Where migrations/ is.")
    var migrations = "migrations"

    @Option(help: "Runs of each query (the median is reported).")
    var runs = 7

    @Flag(help: "Skip the archive and restore part.")
    var noArchive = false

    func run() async throws {
        let bench = BenchDatabase(adminURL: databaseURL)
        let url = try await bench.create("bench_status")
        let built = try await ReplayDataset(jobs: jobs, migrations: migrations).build(url: url)
        print(String(format: "status views: dataset of %d jobs, %d events built in %.1f s", built.jobs, built.events,
                     built.loadSeconds + built.projectionSeconds + built.vacuumSeconds))
        let client = PostgresClient(configuration: PostgresConfiguration(connectionString: url, poolSize: 1))
        defer { client.close() }
        let samples = try await client.withConnection { connection -> (job: String, batch: String) in
            let job = try connection.query("SELECT job_id::text FROM ferry.jobs ORDER BY job_id OFFSET $1 LIMIT 1", [jobs / 2])
                .rows[0].decode(String.self, at: 0)
            let batch = try connection.query("SELECT batch FROM ferry.jobs WHERE batch IS NOT NULL ORDER BY job_id OFFSET $1 LIMIT 1", [jobs / 7])
                .rows[0].decode(String.self, at: 0)
            return (job, batch)
        }
        let batchSize = try await client.withConnection { connection in
            try connection.query("SELECT count(*) FROM ferry.jobs WHERE batch = $1", [samples.batch]).rows[0].decode(Int.self, at: 0)
        }
        let queries: [(String, String, [any PostgresBindable], Double)] = [
            ("one job (ferry.job_status by id)", "SELECT * FROM ferry.job_status WHERE job_id = $1::uuid", [samples.job], 1),
            ("one batch of \(batchSize) jobs (ferry.batch_status)", "SELECT * FROM ferry.batch_status WHERE batch = $1", [samples.batch], 20),
            ("all of ferry.queue_stats", "SELECT * FROM ferry.queue_stats", [], 50),
            ("queue depth for metrics (ferry.queue_depth, every worker every 15 s)", "SELECT * FROM ferry.queue_depth('{}')", [], 5),
            ("newest 100 failed jobs", "SELECT * FROM ferry.job_status WHERE state = 'failed' ORDER BY finished_at DESC LIMIT 100", [], 20),
            ("events of one job", "SELECT * FROM ferry.events WHERE job_id = $1::uuid ORDER BY version", [samples.job], 2),
        ]
        let baseline = try await serverTime(
            client,
            """
            SELECT j.queue, j.state, count(*), count(*) FILTER (WHERE j.state = 'queued' AND j.run_at <= now()),
                   max(now() - j.run_at) FILTER (WHERE j.state = 'queued' AND j.run_at <= now())
              FROM ferry.jobs j GROUP BY j.queue, j.state
            """, [])
        print(String(format: "    baseline: queue_stats by counting every job (the old view): %.2f ms", baseline))
        for (name, sql, binds, target) in queries {
            let time = try await serverTime(client, sql, binds)
            print(String(format: "    %@: %.3f ms server-side (target <= %.0f ms: %@)", name, time, target, time <= target ? "met" : "not met"))
        }

        guard !noArchive else { return }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ferry-bench-archive").path
        try? FileManager.default.removeItem(atPath: directory)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (events, finished) = try await client.withConnection { connection in
            let row = try connection.query(
                """
                SELECT (SELECT count(*) FROM ferry.events e JOIN ferry.jobs j USING (job_id)
                         WHERE j.state IN ('succeeded', 'failed', 'cancelled')),
                       (SELECT count(*) FROM ferry.jobs WHERE state IN ('succeeded', 'failed', 'cancelled'))
                """).rows[0]
            return (try row.decode(Int.self, at: 0), try row.decode(Int.self, at: 1))
        }
        // Baseline: the same events written out by a bare COPY to a file (what any export costs at least).
        let exportStart = ContinuousClock.now
        let exported = try await client.withConnection { connection -> Int in
            var bytes = 0
            _ = try connection.copyOut("COPY (SELECT to_jsonb(e)::text FROM ferry.events e) TO STDOUT") { bytes += $0.count }
            return bytes
        }
        let exportSeconds = (ContinuousClock.now - exportStart).seconds
        let archiveSeconds = try timedRun(ferry, ["archive", "--finished-before", "0s", "--to", directory, "--database-url", url])
        let files = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".jsonl.gz") }.sorted()
        let bytes = try files.reduce(0) { $0 + ((try FileManager.default.attributesOfItem(atPath: directory + "/" + $1)[.size] as? Int) ?? 0) }
        print(String(format: "    archive %d finished jobs (%d events) into %d files (%.1f MiB gzip): %.1f s, %.0f events/s   bare COPY of all events (%.0f MiB of JSON): %.0f events/s   ratio %.2fx",
                     finished, events, files.count, Double(bytes) / 1_048_576, archiveSeconds, Double(events) / archiveSeconds,
                     Double(exported) / 1_048_576, Double(jobs * 10) / exportSeconds,
                     (Double(events) / archiveSeconds) / (Double(jobs * 10) / exportSeconds)))
        if let first = files.first {
            let restore = try timedRun(ferry, ["archive", "restore", directory + "/" + first, "--database-url", url])
            print(String(format: "    restore one file: %.2f s", restore))
        }
        let verify = try timedRun(ferry, ["projection", "verify", "--database-url", url])
        print(String(format: "    projection verify after archive and restore: clean (%.1f s)", verify))
    }

    /// Median server-side time (planning + execution) of `sql`, from EXPLAIN ANALYZE, after one warm-up run.
    private func serverTime(_ client: PostgresClient, _ sql: String, _ binds: [any PostgresBindable]) async throws -> Double {
        let runs = self.runs
        return try await client.withConnection { connection in
            var times = [Double]()
            for run in 0...runs {
                let plan = try connection.query("EXPLAIN (ANALYZE, FORMAT JSON) " + sql, binds).rows[0].decode(String.self, at: 0)
                guard let data = plan.data(using: .utf8),
                      let top = (try JSONSerialization.jsonObject(with: data) as? [[String: Any]])?.first,
                      let execution = top["Execution Time"] as? Double
                else { throw BenchError("no plan for \(sql)") }
                if run > 0 { times.append(execution + ((top["Planning Time"] as? Double) ?? 0)) }
            }
            return times.sorted()[times.count / 2]
        }
    }
}
