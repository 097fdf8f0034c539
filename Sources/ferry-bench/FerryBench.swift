import ArgumentParser

@main
struct FerryBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ferry-bench",
        abstract: "Ferry benchmarks. Every figure is printed next to a baseline measured in the same run.",
        subcommands: [EnqueueBenchmark.self, WorkerBenchmark.self, SoakBenchmark.self, ReplayBenchmark.self, StatusBenchmark.self, DashboardBenchmark.self]
    )
}
