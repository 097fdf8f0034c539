import ArgumentParser
import FerryStore
import Foundation
import Logging
import Postgres

/// `ferry projection verify` and `rebuild` (Swift fold over COPY) on a large log, against the SQL replay
/// (`ferry.replay`, what `ferry.projection_differences` runs) on a slice of the same log.
struct ReplayBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Projection verify and rebuild on N jobs × 10 events (or fewer), against the SQL replay on a slice.")

    @Option(help: "Admin URL of the benchmark cluster.")
    var databaseURL: String

    @Option(help: "Jobs in the dataset.")
    var jobs = 1_000_000

    @Option(help: "Events of each job, 1 to 10 (1: every job just enqueued, where the per-job costs of a replay show).")
    var eventsPerJob = ReplayDataset.maxEventsPerJob

    @Option(help: "Jobs the SQL baseline replays (a slice of the log).")
    var baselineJobs = 20_000

    @Option(help: "The migrations directory.")
    var migrations = "migrations"

    @Option(help: "Database to build (dropped and rebuilt unless --reuse).")
    var database = "bench_replay"

    @Flag(help: "Reuse the database if it holds the dataset already.")
    var reuse = false

    @Option(help: "Path to the ferry executable (a release build): also time `ferry projection verify` as a process and report its peak memory.")
    var ferry: String?

    func run() async throws {
        let bench = BenchDatabase(adminURL: databaseURL)
        var url = try bench.url(database)
        let existing = reuse ? try? await eventCount(url) : nil
        if let existing, existing == jobs * eventsPerJob {
            print("reusing \(database): \(existing) events")
        } else {
            url = try await bench.create(database)
            let built = try await ReplayDataset(jobs: jobs, migrations: migrations, eventsPerJob: eventsPerJob).build(url: url)
            print(String(format: "dataset: %d jobs, %d events; COPY %.1f s, projection (Swift rebuild) %.1f s, vacuum %.1f s",
                         built.jobs, built.events, built.loadSeconds, built.projectionSeconds, built.vacuumSeconds))
        }
        // Two connections: verify streams the stored rows on the second (as `ferry projection verify` does).
        let client = PostgresClient(configuration: PostgresConfiguration(connectionString: url, poolSize: 2))
        defer { client.close() }
        let store = FerryStore(client: client, logger: Logger(label: "bench.replay"))

        for (statement, plan) in try await store.replayPlans(skipEvents: jobs * eventsPerJob / 2) {
            print("plan of \(statement):")
            print(plan.split(separator: "\n").map { "    " + $0 }.joined(separator: "\n"))
        }

        var start = ContinuousClock.now
        let report = try await store.projection.verify()
        let verifySeconds = (ContinuousClock.now - start).seconds
        guard report.isClean else { throw BenchError("verify found differences:\n\(report.text)") }
        // The same verify on one connection, where the events and the stored rows take turns.
        let single = PostgresClient(configuration: PostgresConfiguration(connectionString: url, poolSize: 1))
        defer { single.close() }
        start = ContinuousClock.now
        guard try await FerryStore(client: single, logger: Logger(label: "bench.replay")).projection.verify().isClean else {
            throw BenchError("verify on one connection found differences")
        }
        let singleSeconds = (ContinuousClock.now - start).seconds
        start = ContinuousClock.now
        let rebuilt = try await store.projection.rebuild()
        let rebuildSeconds = (ContinuousClock.now - start).seconds
        guard rebuilt == report.jobsChecked, try await store.projection.verify().isClean else {
            throw BenchError("rebuild did not reproduce the projection")
        }

        // Baseline: the body of ferry.projection_differences on the first baselineJobs jobs.
        let (baselineEvents, baselineSeconds) = try await client.withTransaction(isolation: .repeatableRead) { connection -> (Int, Double) in
            let until = try connection.query("SELECT job_id FROM ferry.jobs ORDER BY job_id OFFSET $1 LIMIT 1", [baselineJobs])
                .rows.first?.decode(UUID.self, at: 0)
            guard let until else { throw BenchError("fewer than \(baselineJobs) jobs") }
            let events = try connection.query("SELECT count(*) FROM ferry.events WHERE job_id < $1", [until]).rows[0].decode(Int.self, at: 0)
            let start = ContinuousClock.now
            let differences = try connection.query("""
                WITH replayed AS (
                    SELECT (r.j).* FROM (SELECT ferry.replay(e ORDER BY e.version) AS j FROM ferry.events e
                                          WHERE e.job_id < $1 GROUP BY e.job_id) r
                )
                SELECT count(*) FROM (SELECT * FROM ferry.jobs WHERE job_id < $1) p
                  FULL JOIN replayed r ON r.job_id = p.job_id
                 WHERE to_jsonb(p) IS DISTINCT FROM to_jsonb(r)
                """, [until]).rows[0].decode(Int.self, at: 0)
            guard differences == 0 else { throw BenchError("the SQL replay found \(differences) differences") }
            return (events, (ContinuousClock.now - start).seconds)
        }

        if let ferry {
            let (seconds, peak) = try timedRunWithPeakMemory(ferry, ["projection", "verify", "--database-url", url])
            print(String(format: "ferry projection verify (process): %.1f s, %.0f events/s, peak RSS %.1f MiB",
                         seconds, Double(report.eventsReplayed) / seconds, Double(peak) / 1024))
        }

        let events = Double(report.eventsReplayed)
        let verifyRate = events / verifySeconds
        let rebuildRate = events / rebuildSeconds
        let baselineRate = Double(baselineEvents) / baselineSeconds
        print(String(format: "replay of %d jobs, %d events", report.jobsChecked, report.eventsReplayed))
        print(String(format: "  verify (Swift fold over COPY):   %8.1f s  %10.0f events/s  %6.1fx baseline", verifySeconds, verifyRate, verifyRate / baselineRate))
        print(String(format: "  verify on one connection:        %8.1f s  %10.0f events/s  (two connections: %.2fx)", singleSeconds, events / singleSeconds, singleSeconds / verifySeconds))
        print(String(format: "  rebuild (Swift fold, COPY in):   %8.1f s  %10.0f events/s  %6.1fx baseline", rebuildSeconds, rebuildRate, rebuildRate / baselineRate))
        print(String(format: "  SQL replay (baseline, %d events): %6.1f s  %10.0f events/s", baselineEvents, baselineSeconds, baselineRate))
        print(String(format: "  target >= 300,000 events/s: verify %@, rebuild %@",
                     verifyRate >= 300_000 ? "met" : "not met", rebuildRate >= 300_000 ? "met" : "not met"))
    }

    private func eventCount(_ url: String) async throws -> Int {
        let client = PostgresClient(configuration: PostgresConfiguration(connectionString: url, poolSize: 1))
        defer { client.close() }
        return try await client.withConnection { try $0.query("SELECT count(*) FROM ferry.events").rows[0].decode(Int.self, at: 0) }
    }
}
