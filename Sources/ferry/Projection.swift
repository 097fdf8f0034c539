import ArgumentParser
import FerryCore
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
                --since checks only jobs with a recent event: after a log position, or recorded at or after a
                time (RFC 3339, or a duration ago: 90s, 10m, 2h, 1d). Without it every job is replayed, and
                projection rows without events are found too, and so are search terms (the dashboard's search)
                missing, stale or left over.

                Examples:
                  ferry projection verify
                  ferry projection verify --limit 200
                  ferry projection verify --since 1h
                  ferry projection verify --since 2025-06-01T00:00:00Z
                  ferry projection verify --since 123456789
                """)

        @Option(help: "List at most this many differing jobs.")
        var limit = 50

        @Option(help: ArgumentHelp("Check only jobs with an event after this log position or since this time.", valueName: "position|time"))
        var since: String?

        func validate() throws {
            if let since, ProjectionScope(since: since) == nil {
                throw ValidationError("--since takes a log position (digits), an RFC 3339 time, or a duration ago such as 10m, 2h or 1d")
            }
        }

        @Flag(help: "Print JSON: the report, its differences, the queue and batch counters and the search terms that disagree.")
        var json = false

        @OptionGroup var connection: ConnectionOptions

        func run() async throws {
            try await runReporting {
                // Four connections: the replay's two (events, stored rows) and the other checks beside them, each a
                // pass over every job that the server runs while the replay folds (the fold is the slow side).
                let store = connection.makeStore(poolSize: 4)
                defer { store.client.close() }
                let scope = since.flatMap { ProjectionScope(since: $0) } ?? .all
                let limit = max(1, limit)
                async let counterCheck = (
                    queues: store.projection.queueCountDifferences(), batches: store.projection.batchCountDifferences(limit: limit))
                // Every job's terms against its row, a join of both tables (0.6 s per 1,000,000 jobs); for a whole
                // check only (--since is the quick periodic one).
                async let termsCheck = scope == .all ? store.projection.searchTermDifferences(limit: limit) : []
                let report = try await store.projection.verify(limit: limit, scope: scope)
                let (counters, batches) = try await counterCheck
                let terms = try await termsCheck
                let clean = report.isClean && counters.isEmpty && batches.isEmpty && terms.isEmpty
                if json {
                    guard case .object(var object) = report.json else { return }
                    object["clean"] = .bool(clean)
                    object["queue_counters"] = .array(counters.map {
                        .object(["queue": .string($0.queue), "state": .string($0.state), "counted": .int(Int64($0.counted)), "actual": .int(Int64($0.actual))])
                    })
                    object["batch_counters"] = .array(batches.map {
                        .object(["batch": .string($0.batch), "field": .string($0.field), "counted": .int($0.counted), "actual": .int($0.actual)])
                    })
                    object["search_terms"] = .array(terms.map {
                        .object(["job_id": .string($0.jobID.uuidString.lowercased()), "problem": .string($0.problem.rawValue)])
                    })
                    print(JSONValue.object(object).jsonText)
                    if !clean { throw ExitCode(ExitStatus.negative) }
                    return
                }
                print(report.text)
                for difference in counters {
                    print("queue counter \(difference.queue)/\(difference.state): counted \(difference.counted), projection holds \(difference.actual)")
                }
                for difference in batches {
                    print("batch counter \(difference.batch)/\(difference.field): counted \(difference.counted), projection holds \(difference.actual)")
                }
                for difference in terms {
                    print("search terms of job \(difference.jobID.uuidString.lowercased()): \(difference.problem.rawValue)")
                }
                if !counters.isEmpty || !batches.isEmpty || !terms.isEmpty {
                    print("fix: run ferry projection rebuild (it recounts queues and batches and makes the search terms again)")
                }
                if !clean { throw ExitCode(ExitStatus.negative) }
            }
        }
    }

    struct Rebuild: AsyncParsableCommand, DatabaseCommand {
        static let configuration = CommandConfiguration(
            abstract: "Rebuild ferry.jobs from the event log (needs the schema owner; blocks writers meanwhile).",
            discussion: """
                Examples:
                  ferry projection rebuild && ferry projection verify
                """)

        @OptionGroup var common: CommandOptions

        func run() async throws {
            try await runReporting {
                return try await connection.withStore { store in
                    let count = try await store.projection.rebuild()
                    print(json ? JSONValue.object(["rebuilt_jobs": .int(Int64(count))]).jsonText : "projection rebuilt: \(count) jobs")
                }
            }
        }
    }
}
