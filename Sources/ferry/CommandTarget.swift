import ArgumentParser
import FerryCore
import FerryStore
import Foundation

/// Target resolution and output shared by cancel, retry and discard.
enum CommandTarget {
    /// Checks the arguments before connecting: a job id (or a start of one) or a batch, not both.
    static func check(job: String?, batch: String?) throws {
        switch (job, batch) {
        case (let job?, nil): try JobID.validate(job)
        case (nil, _?): return
        default: throw CLIUsageError(message: "give either a job id or --batch NAME")
        }
    }

    /// The jobs the arguments name, a job id's start resolved to its one job in `store` (``JobID/resolve(_:in:)``).
    static func resolve(job: String?, batch: String?, in store: FerryStore) async throws -> FerryStore.JobFilter {
        try check(job: job, batch: batch)
        if let job { return .job(try await JobID.resolve(job, in: store)) }
        return .batch(batch ?? "")
    }

    /// Runs `command` on the current store (riding out a database restart as `database` asks), prints its
    /// outcomes (`nothing` when a batch had none to change) and returns them.
    static func perform(
        _ connection: ConnectionOptions, _ database: DatabaseWaitOptions, json: Bool, nothing: String,
        _ command: (FerryStore, String) async throws -> [CommandOutcome]
    ) async throws -> [CommandOutcome] {
        let outcomes = try await database.resolved().run {
            return try await connection.withStore(current: true) { store in
                return try await command(store, requester)
            }
        }
        print(outcomes, json: json, nothing: nothing)
        return outcomes
    }

    static var requester: String {
        ProcessInfo.processInfo.environment["USER"].map { "ferry cli (\($0))" } ?? "ferry cli"
    }

    /// One line per job (`ID ACTION`, or `ID unchanged (STATE)` for a named job left as it was), or a JSON array.
    /// A batch command lists only the jobs it changed; when there were none, `nothing` says so on stderr.
    static func print(_ outcomes: [CommandOutcome], json: Bool, nothing: String) {
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
        if outcomes.isEmpty { printError(nothing) }
        for outcome in outcomes {
            let id = outcome.jobID.uuidString.lowercased()
            switch outcome.action {
            case .unchanged: Swift.print("\(id) unchanged (\(outcome.state ?? "?"))")
            default: Swift.print("\(id) \(outcome.action.rawValue)")
            }
        }
    }
}
