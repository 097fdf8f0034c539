import ArgumentParser
import FerryCore
import FerryStore
import Foundation

struct Cancel: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Cancel a job or a whole batch.",
        discussion: """
            A queued job is cancelled at once. A running job is asked to stop: its worker is notified and records \
            `cancelled` at its next step. Finished jobs are left alone.

            Examples:
              ferry cancel 0193a0c4-6f1e-7c55-9b1e-2f8f3b6f9d10
              ferry cancel --batch trip
            """)

    @Argument(help: ArgumentHelp("A job id.", valueName: "job"))
    var job: String?

    @Option(help: ArgumentHelp("Cancel every unfinished job of this batch.", valueName: "name"))
    var batch: String?

    @Flag(help: "Print JSON.")
    var json = false

    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var database: DatabaseWaitOptions

    func run() async throws {
        try await runReporting {
            let target = try CommandTarget.resolve(job: job, batch: batch)
            // Cancelling again is harmless: a retry after an unclear commit finds the jobs cancelled already.
            let outcomes = try await database.resolved().run {
                let store = try await connection.makeCurrentStore(poolSize: 1)
                defer { store.client.close() }
                return try await store.cancel(target, requestedBy: CommandTarget.requester)
            }
            CommandTarget.print(outcomes, json: json)
        }
    }
}

struct Retry: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Put a failed or cancelled job (or every such job of a batch) back into the queue.",
        discussion: """
            Appends a `requeued` event: attempts start again from zero and the history is kept. \
            Exit code 1 when the named job is not failed or cancelled.

            Examples:
              ferry retry 0193a0c4-6f1e-7c55-9b1e-2f8f3b6f9d10
              ferry retry --batch trip
            """)

    @Argument(help: ArgumentHelp("A job id.", valueName: "job"))
    var job: String?

    @Option(help: ArgumentHelp("Retry every failed or cancelled job of this batch.", valueName: "name"))
    var batch: String?

    @Flag(help: "Print JSON.")
    var json = false

    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var database: DatabaseWaitOptions

    func run() async throws {
        try await runReporting {
            let target = try CommandTarget.resolve(job: job, batch: batch)
            let outcomes = try await database.resolved().run {
                let store = try await connection.makeCurrentStore(poolSize: 1)
                defer { store.client.close() }
                return try await store.retry(target, requestedBy: CommandTarget.requester)
            }
            CommandTarget.print(outcomes, json: json)
            if job != nil, outcomes.allSatisfy({ $0.action == .unchanged }) {
                printError("job is \(outcomes.first?.state ?? "unknown"); only failed or cancelled jobs can be retried")
                throw ExitCode(ExitStatus.negative)
            }
        }
    }
}

/// Target resolution and output shared by cancel and retry.
enum CommandTarget {
    static func resolve(job: String?, batch: String?) throws -> FerryStore.JobFilter {
        switch (job, batch) {
        case (let job?, nil): return .job(try JobID.parse(job))
        case (nil, let batch?): return .batch(batch)
        default: throw CLIUsageError(message: "give either a job id or --batch NAME")
        }
    }

    static var requester: String {
        ProcessInfo.processInfo.environment["USER"].map { "ferry cli (\($0))" } ?? "ferry cli"
    }

    static func print(_ outcomes: [CommandOutcome], json: Bool) {
        if json {
            let items = outcomes.map { outcome -> JSONValue in
                .object([
                    "job_id": .string(outcome.jobID.uuidString.lowercased()), "action": .string(outcome.action.rawValue),
                    "state": outcome.state.map { .string($0) } ?? .null,
                ])
            }
            Swift.print(JSONValue.array(items).jsonText)
            return
        }
        for outcome in outcomes {
            let id = outcome.jobID.uuidString.lowercased()
            switch outcome.action {
            case .unchanged: Swift.print("\(id) unchanged (\(outcome.state ?? "?"))")
            default: Swift.print("\(id) \(outcome.action.rawValue)")
            }
        }
    }
}
