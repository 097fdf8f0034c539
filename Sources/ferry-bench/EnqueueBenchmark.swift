import ArgumentParser
import FerryCore
import Foundation
import Postgres

/// CLI bulk enqueue of N jobs from JSON Lines vs a raw COPY of the same event rows into a plain table.
struct EnqueueBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "enqueue",
        abstract: "ferry enqueue --from FILE (N jobs) against raw COPY of the same rows into a plain table.")

    @Option(help: "Admin URL of the benchmark cluster (a database is created per round).")
    var databaseURL: String

    @Option(help: "Path to the ferry executable (a release build).")
    var ferry: String

    @Option(help: "Jobs per round.")
    var jobs = 1_000_000

    @Option(help: "Rounds (the median is reported).")
    var rounds = 3

    @Option(help: "Enqueue as a login role that is a member of this group role only (e.g. ferry_producer), as an application would; default: the admin role.")
    var role: String?

    func run() async throws {
        let bench = BenchDatabase(adminURL: databaseURL)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("ferry-bench-\(jobs).jsonl").path
        try writeJSONLines(file, count: jobs) { index in
            #"{"kind":"fetch","source":"https://photos.example.com/p/\#(index).jpg","to":"/srv/photos/","batch":"bench","metadata":{"title":"Photo \#(index)"}}"#
        }
        defer { try? FileManager.default.removeItem(atPath: file) }

        var ferryTimes = [Double]()
        var peaks = [Int]()
        var copyTimes = [Double]()
        for round in 1...rounds {
            // Ferry: the whole CLI process (parse, validate, COPY, projection) as a script would run it.
            let url = try await bench.create("bench_enqueue_\(round)")
            _ = try timedRun(ferry, ["migrate", "--database-url", url])
            var enqueueURL = url
            if let role { enqueueURL = try await bench.login(inRole: role, database: url) }
            let (ferryTime, peak) = try timedRunWithPeakMemory(ferry, ["enqueue", "--from", file, "--database-url", enqueueURL])
            ferryTimes.append(ferryTime)
            peaks.append(peak)

            // Baseline: the same event rows, already rendered, COPYed into a plain table with no indexes.
            let client = PostgresClient(configuration: PostgresConfiguration(connectionString: url, poolSize: 1))
            let rows = try await client.withConnection { connection in
                try connection.query("SELECT job_id::text, version::text, type, data::text FROM ferry.events").rows
            }
            let rendered = rows.map { $0.values }
            let copyTime = try await client.withConnection { connection -> Double in
                try connection.execute("CREATE TABLE raw_events (job_id uuid, version int, type text, data jsonb)")
                let start = ContinuousClock.now
                _ = try connection.transaction { tx in
                    try tx.copyIn("COPY raw_events (job_id, version, type, data) FROM STDIN") { writer in
                        for row in rendered { try writer.writeRow(row) }
                    }
                }
                let elapsed = ContinuousClock.now - start
                return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            }
            client.close()
            copyTimes.append(copyTime)
            print(String(format: "round %d: ferry enqueue %.3f s (peak RSS %d KiB), raw COPY %.3f s", round, ferryTime, peak, copyTime))
        }
        let ferryRate = Double(jobs) / median(ferryTimes)
        let copyRate = Double(jobs) / median(copyTimes)
        print(String(format: "bulk enqueue of %d jobs (median of %d rounds)%@", jobs, rounds, role.map { " as a member of \($0)" } ?? ""))
        print(String(format: "  ferry enqueue --from FILE: %9.0f jobs/s", ferryRate))
        print(String(format: "  raw COPY (baseline):       %9.0f rows/s", copyRate))
        print(String(format: "  ratio:                     %9.2fx", ferryRate / copyRate))
        let peakMiB = Double(peaks.max() ?? 0) / 1024
        print(String(format: "  target >= 50,000 jobs/s: %@; peak RSS (VmHWM) %.1f MiB, target <= 64 MiB: %@",
                     ferryRate >= 50_000 ? "met" : "not met", peakMiB, peakMiB <= 64 ? "met" : "not met"))
    }
}
