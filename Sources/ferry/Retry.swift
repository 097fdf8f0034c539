import ArgumentParser
import FerryCore
import FerryProviders
import FerryStore
import Foundation

struct Retry: AsyncParsableCommand, DatabaseCommand {
    static let configuration = CommandConfiguration(
        abstract: "Put a failed or cancelled job (or every such job of a batch) back into the queue.",
        discussion: """
            Appends a `requeued` event: attempts start again from zero and the history is kept. A discarded job \
            comes back when named; a batch retry leaves discarded jobs alone and lists only the jobs it requeued. \
            Exit code 1 when the named job is not failed, cancelled or discarded.

            --option NAME=VALUE changes a provider option of every job retried (the event records the change; \
            ferry events JOB shows it), as ferry enqueue takes it: each job's own provider checks it, and when one \
            job refuses it (an unknown option, a wrong value) no job is retried (exit code 65). A retry never \
            changes a job's source, destination, account, kind or queue, nor the options that decide what the job \
            is (account, tree, recursive, filter): enqueue a new job for those. The job keeps its id and \
            idempotency key (see docs/cli.md, Retrying with other options).

            Examples:
              ferry retry 0193a0c4-6f1e-7c55-9b1e-2f8f3b6f9d10
              ferry retry 0193a0c4-6f1e
              ferry retry --batch trip
              ferry retry 0193a0c4-6f1e-7c55-9b1e-2f8f3b6f9d10 --option mode=overwrite
            """)

    @Argument(help: ArgumentHelp("A job id, or a start of one that only one job has.", valueName: "job"), completion: CompletionValues.job)
    var job: String?

    @Option(help: ArgumentHelp("Retry every failed or cancelled job of this batch.", valueName: "name"))
    var batch: String?

    @Option(
        name: .customLong("option"),
        help: ArgumentHelp(
            "Change a provider option of the jobs retried, NAME=VALUE (repeat for several): for example mode=overwrite for a Dropbox upload that failed with destination_exists.",
            valueName: "name=value"))
    var options: [String] = []

    @OptionGroup var common: CommandOptions
    @OptionGroup var database: DatabaseWaitOptions

    func run() async throws {
        try await runReporting {
            try CommandTarget.check(job: job, batch: batch)
            let outcomes: [CommandOutcome]
            do {
                let changes = try Self.typedOptions(options)
                outcomes = try await CommandTarget.perform(
                    connection, database, json: json, nothing: "nothing to retry: no job of the batch is failed or cancelled"
                ) { store, requester in
                    let target = try await CommandTarget.resolve(job: job, batch: batch, in: store)
                    return try await store.retry(target, requestedBy: requester, options: changes)
                }
            } catch let issue as ValidationIssue {
                printError("error: \(issue)")
                printError("nothing was retried")
                throw ExitCode(ExitStatus.invalidInput)
            }
            if job != nil, outcomes.allSatisfy({ $0.action == .unchanged }) {
                printError("error: job is \(outcomes.first?.state ?? "unknown"); only failed, cancelled or discarded jobs can be retried")
                throw ExitCode(ExitStatus.negative)
            }
        }
    }

    /// `NAME=VALUE` texts as JSON values of the type the providers declare for NAME
    /// (``ProviderRegistry/retryOptionValue(name:text:)``); a bare NAME is a true/false option set to true.
    static func typedOptions(_ texts: [String]) throws -> [String: JSONValue] {
        try OptionAssignments.parse(texts) { name, text in
            try ProviderRegistry.standard.retryOptionValue(name: name, text: text)
        }
    }
}
