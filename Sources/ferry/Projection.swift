import ArgumentParser
import FerryStore

struct Projection: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check or rebuild the job projection from the event log.",
        subcommands: [Verify.self, Rebuild.self]
    )

    struct Verify: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Replay every event and compare with ferry.jobs; exit 1 with a report on any difference.",
            discussion: """
                Examples:
                  ferry projection verify
                  ferry projection verify --limit 200
                """)

        @Option(help: "List at most this many differing jobs.")
        var limit = 50

        @OptionGroup var connection: ConnectionOptions

        func run() async throws {
            try await runReporting {
                let store = connection.makeStore(poolSize: 1)
                defer { store.client.close() }
                let report = try await store.verifyProjection(limit: max(1, limit))
                print(report.text)
                let counters = try await store.queueCountDifferences()
                for difference in counters {
                    print("queue counter \(difference.queue)/\(difference.state): counted \(difference.counted), projection holds \(difference.actual)")
                }
                if !counters.isEmpty { print("fix: run ferry projection rebuild (it recounts the queues)") }
                if !report.isClean || !counters.isEmpty { throw ExitCode(ExitStatus.negative) }
            }
        }
    }

    struct Rebuild: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Rebuild ferry.jobs from the event log (needs the schema owner; blocks writers meanwhile).",
            discussion: """
                Examples:
                  ferry projection rebuild && ferry projection verify
                """)

        @OptionGroup var connection: ConnectionOptions

        func run() async throws {
            try await runReporting {
                let store = connection.makeStore(poolSize: 1)
                defer { store.client.close() }
                let count = try await store.rebuildProjection()
                print("projection rebuilt: \(count) jobs")
            }
        }
    }
}
