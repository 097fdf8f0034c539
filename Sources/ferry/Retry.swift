import ArgumentParser
import FerryCore
import FerryStore
import Foundation

struct Retry: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Put a failed or cancelled job (or every such job of a batch) back into the queue.",
        discussion: """
            Appends a `requeued` event: attempts start again from zero and the history is kept. A discarded job \
            comes back when named; a batch retry leaves discarded jobs alone and lists only the jobs it requeued. \
            Exit code 1 when the named job is not failed, cancelled or discarded.

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
            let outcomes = try await CommandTarget.perform(
                connection, database, json: json, nothing: "nothing to retry: no job of the batch is failed or cancelled"
            ) { store, requester in try await store.retry(target, requestedBy: requester) }
            if job != nil, outcomes.allSatisfy({ $0.action == .unchanged }) {
                printError("error: job is \(outcomes.first?.state ?? "unknown"); only failed, cancelled or discarded jobs can be retried")
                throw ExitCode(ExitStatus.negative)
            }
        }
    }
}
