import ArgumentParser
import FerryCore
import FerryStore
import Foundation

struct Cancel: AsyncParsableCommand, DatabaseCommand {
    static let configuration = CommandConfiguration(
        abstract: "Cancel a job or a whole batch.",
        discussion: """
            A queued job is cancelled at once. A running job is asked to stop: its worker is notified and records \
            `cancelled` at its next step. Finished jobs are left alone (a batch cancel lists only the jobs it changed).

            Examples:
              ferry cancel 0193a0c4-6f1e-7c55-9b1e-2f8f3b6f9d10
              ferry cancel --batch trip
            """)

    @Argument(help: ArgumentHelp("A job id, or a start of one that only one job has.", valueName: "job"), completion: CompletionValues.job)
    var job: String?

    @Option(help: ArgumentHelp("Cancel every unfinished job of this batch.", valueName: "name"), completion: CompletionValues.batch)
    var batch: String?

    @OptionGroup var common: CommandOptions
    @OptionGroup var database: DatabaseWaitOptions

    func run() async throws {
        try await runReporting {
            try CommandTarget.check(job: job, batch: batch)
            // Cancelling again is harmless: a retry after an unclear commit finds the jobs cancelled already.
            _ = try await CommandTarget.perform(
                connection, database, json: json, nothing: "nothing to cancel: every job of the batch has finished"
            ) { store, requester in
                try await store.cancel(try await CommandTarget.resolve(job: job, batch: batch, in: store), requestedBy: requester)
            }
        }
    }
}
