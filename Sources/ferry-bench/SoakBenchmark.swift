import ArgumentParser
import Foundation
import Postgres

#if canImport(Glibc)
    import Glibc
#endif

/// Bloat under churn: jobs go through enqueue, claim, progress and success with two worker processes while the
/// sizes of `ferry.jobs` and its indexes, and its dead tuples, are sampled every `--every` jobs. Healthy means the
/// sizes level off (autovacuum keeps up) and dead tuples stay under 20% of live ones.
struct SoakBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "soak", abstract: "Table and index sizes and dead tuples while 1,000,000 jobs are worked.")

    @Option(help: "Admin URL of the benchmark cluster.")
    var databaseURL: String

    @Option(help: "Path to the ferry executable (a release build).")
    var ferry: String

    @Option(help: "Jobs worked in total.")
    var jobs = 1_000_000

    @Option(help: "Jobs enqueued at a time (a producer keeps the backlog topped up, as real producers do).")
    var wave = 100_000

    @Option(help: "Sample sizes every this many finished jobs.")
    var every = 100_000

    @Option(help: "Concurrency of each of the two worker processes.")
    var concurrency = 64

    @Option(help: "Worker handler: progress:1 writes the four events of a transfer; noop (three events) runs faster.")
    var handler = "progress:1"

    @Option(help: "Server autovacuum_naptime for the run (ALTER SYSTEM, reset afterwards); empty keeps the server's.")
    var autovacuumNaptime = "5s"

    func run() async throws {
        guard !autovacuumNaptime.isEmpty else { return try await soak() }
        try await setNaptime(autovacuumNaptime)
        do {
            try await soak()
        } catch {
            try? await setNaptime(nil)
            throw error
        }
        try await setNaptime(nil)
    }

    private func soak() async throws {
        let url = try await BenchDatabase(adminURL: databaseURL).create("bench_soak")
        _ = try timedRun(ferry, ["migrate", "--database-url", url])
        let client = PostgresClient(configuration: PostgresConfiguration(connectionString: url, poolSize: 1))
        defer { client.close() }
        let settings = try await client.withConnection { connection in
            try connection.query(
                """
                SELECT string_agg(name || '=' || setting, ', ' ORDER BY name) FROM pg_settings
                 WHERE name IN ('autovacuum_naptime', 'autovacuum_vacuum_cost_limit', 'autovacuum_max_workers',
                                'autovacuum_vacuum_cost_delay')
                """
            ).rows[0].decode(String.self, at: 0)
        }
        let options = try await client.withConnection { connection in
            try connection.query("SELECT array_to_string(reloptions, ', ') FROM pg_class WHERE oid = 'ferry.jobs'::regclass")
                .rows[0].decode(String?.self, at: 0) ?? ""
        }
        print("soak: \(jobs) jobs (enqueued in waves of \(wave)), 2 workers × concurrency \(concurrency), handler \(handler)"
              + (autovacuumNaptime.isEmpty ? "" : "; the run sets autovacuum_naptime = \(autovacuumNaptime)"))
        print("    server: \(settings); ferry.jobs: \(options)")

        var workers = [Process]()
        for index in 0..<2 {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: ferry)
            process.arguments = ["worker", "--handler", handler, "--concurrency", "\(concurrency)", "--name", "soak-\(index)",
                                 "--log-level", "error", "--database-url", url]
            try process.run()
            workers.append(process)
        }
        defer {
            for process in workers { kill(process.processIdentifier, SIGTERM) }
            for process in workers { process.waitUntilExit() }
        }
        print("    finished   jobs heap   jobs indexes   events total   live jobs   dead jobs   dead/live   rate")
        var enqueued = 0
        var nextSample = every
        var worstDeadRatio = 0.0
        var samples = [(Int, Int)]()
        var last = ContinuousClock.now
        var lastFinished = 0
        while nextSample <= jobs {
            let finished = try await succeeded(client)
            // Keep about one wave queued ahead of the workers.
            if enqueued < jobs && enqueued - finished < wave {
                let count = min(wave, jobs - enqueued)
                let file = FileManager.default.temporaryDirectory.appendingPathComponent("ferry-soak-\(enqueued).jsonl").path
                let start = enqueued
                try writeJSONLines(file, count: count) { index in
                    #"{"kind":"fetch","source":"https://soak.example.com/\#(start + index)","to":"/tmp/","batch":"soak-\#((start + index) / 10_000)"}"#
                }
                _ = try timedRun(ferry, ["enqueue", "--from", file, "--database-url", url])
                try? FileManager.default.removeItem(atPath: file)
                enqueued += count
                continue
            }
            if finished >= nextSample {
                let row = try await client.withConnection { connection in
                    _ = try connection.query("SELECT pg_stat_clear_snapshot()")
                    return try connection.query(
                        """
                        SELECT pg_relation_size('ferry.jobs'), pg_indexes_size('ferry.jobs'),
                               pg_total_relation_size('ferry.events'), n_live_tup, n_dead_tup
                          FROM pg_stat_user_tables WHERE relid = 'ferry.jobs'::regclass
                        """
                    ).rows[0]
                }
                let heap = try row.decode(Int.self, at: 0)
                let indexes = try row.decode(Int.self, at: 1)
                let live = try row.decode(Int.self, at: 3)
                let dead = try row.decode(Int.self, at: 4)
                let ratio = Double(dead) / Double(max(1, live))
                worstDeadRatio = max(worstDeadRatio, ratio)
                let now = ContinuousClock.now
                let seconds = Double((now - last).components.attoseconds) / 1e18 + Double((now - last).components.seconds)
                print(String(format: "    %8d   %7.1f MiB   %9.1f MiB   %9.1f MiB   %9d   %9d   %8.1f%%   %6.0f jobs/s",
                             finished, Double(heap) / 1_048_576, Double(indexes) / 1_048_576,
                             Double(try row.decode(Int.self, at: 2)) / 1_048_576, live, dead, ratio * 100,
                             Double(finished - lastFinished) / seconds))
                samples.append((finished, heap + indexes))
                last = now
                lastFinished = finished
                nextSample += every
                continue
            }
            try await Task.sleep(for: .milliseconds(500))
        }
        // Rows are never deleted, so the table grows by the finished jobs themselves; what must level off is the
        // growth per 100,000 jobs (no accumulating dead versions), and dead tuples must stay bounded.
        let steps = zip(samples.dropFirst(), samples).map { Double($0.1 - $1.1) }
        let firstHalf = steps.prefix(steps.count / 2)
        let secondHalf = steps.suffix(steps.count - steps.count / 2)
        let early = firstHalf.reduce(0, +) / Double(max(1, firstHalf.count))
        let late = secondHalf.reduce(0, +) / Double(max(1, secondHalf.count))
        print(String(format: "    growth of jobs heap + indexes per %d jobs: %.1f MiB early, %.1f MiB late (%.2fx; levels off: %@); worst dead/live %.1f%% (target < 20%%: %@)",
                     every, early / 1_048_576, late / 1_048_576, late / max(1, early), late <= early * 1.25 ? "yes" : "no",
                     worstDeadRatio * 100, worstDeadRatio < 0.2 ? "met" : "not met"))
    }

    /// Sets (or with `nil` resets) the server's autovacuum_naptime. The bench cluster's own superuser runs this.
    private func setNaptime(_ value: String?) async throws {
        let admin = PostgresClient(configuration: PostgresConfiguration(connectionString: databaseURL, poolSize: 1))
        defer { admin.close() }
        try await admin.withConnection { connection in
            if let value {
                try connection.query("SELECT set_config('ferry.naptime', $1, false)", [value])
                try connection.execute(
                    "DO $$ BEGIN EXECUTE format('ALTER SYSTEM SET autovacuum_naptime = %L', current_setting('ferry.naptime')); END $$")
            } else {
                try connection.execute("ALTER SYSTEM RESET autovacuum_naptime")
            }
            try connection.execute("SELECT pg_reload_conf()")
        }
    }

    private func succeeded(_ client: PostgresClient) async throws -> Int {
        try await client.withConnection { connection in
            _ = try connection.query("SELECT pg_stat_clear_snapshot()")
            // From the queue counters: a count over the table would steal the CPU being measured.
            let rows = try connection.query(
                "SELECT coalesce(sum(jobs), 0)::bigint FROM ferry.queue_stats WHERE state = 'succeeded'").rows
            return try rows[0].decode(Int.self, at: 0)
        }
    }
}
