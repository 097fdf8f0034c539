import ArgumentParser
import FerryCore
import FerryStore
import Foundation

struct Discard: AsyncParsableCommand, DatabaseCommand {
    static let configuration = CommandConfiguration(
        abstract: "Give up on failed jobs (or every failed job of a batch): they stay finished, counted as discarded.",
        discussion: """
            Appends a `discarded` event to each failed job: it keeps its error and history, leaves the failures \
            (the batch's failed count, the dashboard's failures page) and counts as discarded. Only failed jobs \
            can be discarded: cancel a job that has not finished. `ferry retry JOB` brings a discarded job back; \
            a batch retry leaves it alone. Discarding again is harmless. Exit code 1 when a named job is neither \
            failed nor discarded already.

            Examples:
              ferry discard 0193a0c4-6f1e-7c55-9b1e-2f8f3b6f9d10 \\
                  0193a0c4-7a02-7c55-9b1e-2f8f3b6f9d11
              ferry discard --batch trip --status failed
            """)

    @Argument(help: ArgumentHelp("Job ids (or starts of them that only one job has each).", valueName: "job"), completion: CompletionValues.job)
    var jobs: [String] = []

    @Option(help: ArgumentHelp("Discard every failed job of this batch.", valueName: "name"), completion: CompletionValues.batch)
    var batch: String?

    @Option(help: ArgumentHelp("With --batch: the state to discard; only failed jobs can be discarded.", valueName: "state"),
        completion: CompletionValues.discardableState)
    var status: String?

    @OptionGroup var common: CommandOptions
    @OptionGroup var database: DatabaseWaitOptions

    func run() async throws {
        try await runReporting {
            let target = try resolve()
            let outcomes = try await CommandTarget.perform(
                connection, database, json: json, nothing: "nothing to discard: no job of the batch is failed"
            ) { store, requester in
                guard case .jobs = target else { return try await store.discard(target, requestedBy: requester) }
                // Starts of ids resolve to their one job each (or refuse); whole ids are the store's to report.
                var ids: [UUID] = []
                for job in jobs { ids.append(try await JobID.resolve(job, in: store)) }
                return try await store.discard(.jobs(ids), requestedBy: requester)
            }
            // Only whole ids can name a missing job: a start that matched none was refused above.
            guard case .jobs = target else { return }
            let named = jobs.compactMap { UUID(uuidString: $0) }
            let found = Set(outcomes.map(\.jobID))
            for id in named where !found.contains(id) {
                printError("error: no such job \(id.uuidString.lowercased()); check the id with ferry status")
            }
            if named.contains(where: { !found.contains($0) }) { throw ExitCode(ExitStatus.notFound) }
            // Already discarded is the state asked for; any other state is a "no".
            if let other = outcomes.first(where: { $0.action == .unchanged && $0.state != JobState.discarded.rawValue }) {
                printError("error: job \(other.jobID.uuidString.lowercased()) is \(other.state ?? "unknown"); "
                    + "only failed jobs can be discarded (ferry cancel ends one that has not finished)")
                throw ExitCode(ExitStatus.negative)
            }
        }
    }

    private func resolve() throws -> FerryStore.JobFilter {
        if let status, status != JobState.failed.rawValue {
            throw CLIUsageError(message: "--status \(status): only failed jobs can be discarded (ferry cancel ends the others)")
        }
        switch (jobs.isEmpty, batch) {
        case (false, nil):
            if status != nil { throw CLIUsageError(message: "--status goes with --batch NAME") }
            try jobs.forEach(JobID.validate)
            return .jobs([])
        case (true, let batch?): return .batch(batch)
        default: throw CLIUsageError(message: "give job ids or --batch NAME")
        }
    }
}
