import ArgumentParser
import Foundation

/// Worker throughput with and without a loaded dashboard: `clients` open event streams and `page-rate` page loads
/// per second while 2 workers run no-op jobs. Rounds alternate quiet and loaded runs on fresh databases; the
/// ratio of the medians is the cost of the dashboard to the workers (target: within 10%).
struct DashboardBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dashboard", abstract: "Worker throughput under a loaded dashboard, against the same run without it.")

    @Option(help: "Admin URL of the benchmark cluster.")
    var databaseURL: String

    @Option(help: "Path to the ferry executable (a release build).")
    var ferry: String

    @Option(help: "No-op jobs per run.")
    var jobs = 100_000

    @Option(help: "Concurrency of each of the 2 worker processes.")
    var concurrency = 128

    @Option(help: "Open event streams (browsers).")
    var clients = 200

    @Option(help: "Page loads per second.")
    var pageRate = 20

    @Option(help: "Quiet and loaded rounds each (medians are compared).")
    var rounds = 3

    func run() async throws {
        let bench = BenchDatabase(adminURL: databaseURL)
        let workers = try WorkerBenchmark.parse(["--database-url", databaseURL, "--ferry", ferry])
        var quiet = [Double](), loaded = [Double](), reports = [DashboardLoad.Report]()
        for round in 1...rounds {
            let plain = try await bench.create("bench_dash_quiet_\(round)")
            _ = try timedRun(ferry, ["migrate", "--database-url", plain])
            quiet.append(try await workers.ferryThroughput(url: plain, jobs: jobs, queues: ["default"], processes: 2, concurrency: concurrency).rate)

            let busy = try await bench.create("bench_dash_loaded_\(round)")
            _ = try timedRun(ferry, ["migrate", "--database-url", busy])
            let load = try await DashboardLoad(
                ferry: ferry, databaseURL: busy, clients: clients, pageRate: pageRate,
                pages: ["/", "/batches", "/batches/noop", "/failed", "/workers"])
            loaded.append(try await workers.ferryThroughput(url: busy, jobs: jobs, queues: ["default"], processes: 2, concurrency: concurrency).rate)
            let report = try await load.stop()
            reports.append(report)
            print(String(format: "round %d: quiet %8.0f jobs/s, loaded %8.0f jobs/s (%.2fx); %d streams open, %d change events, %d page loads (%d errors), p50 %.0f ms, p99 %.0f ms; dashboard connections at most %d; CPU over %.1f s: dashboard %.2f s (%.0f%% of a core), its PostgreSQL backends %.2f s (%.0f%%), load generator %.2f s (%.0f%%)",
                         round, quiet.last!, loaded.last!, loaded.last! / quiet.last!, report.streamsOpen, report.changesSeen, report.pageLoads,
                         report.pageErrors, report.pageP50, report.pageP99, report.maxConnections, report.seconds,
                         report.dashboardCPUSeconds, 100 * report.dashboardCPUSeconds / max(report.seconds, 0.001),
                         report.backendCPUSeconds, 100 * report.backendCPUSeconds / max(report.seconds, 0.001),
                         report.loadCPUSeconds, 100 * report.loadCPUSeconds / max(report.seconds, 0.001)))
        }
        let ratio = median(loaded) / median(quiet)
        print(String(format: "dashboard load (%d event streams, %d page loads/s) while 2 workers run %d no-op jobs: %8.0f jobs/s against %8.0f jobs/s without it, ratio %.2fx (target >= 0.90: %@); dashboard PostgreSQL connections at most %d",
                     clients, pageRate, jobs, median(loaded), median(quiet), ratio, ratio >= 0.9 ? "met" : "not met",
                     reports.map(\.maxConnections).max() ?? 0))
    }
}
