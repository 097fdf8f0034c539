import ArgumentParser
import FerryCore
import FerryStore

struct Events: AsyncParsableCommand, DatabaseCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show a job's history, oldest first.",
        discussion: """
            Examples:
              ferry events 0193a0c4-6f1e-7c55-9b1e-2f8f3b6f9d10
              ferry events 0193a0c4-6f1e-7c55-9b1e-2f8f3b6f9d10 --json | jq '.[] | .type'
            """)

    @Argument(help: ArgumentHelp("A job id, or a start of one that only one job has.", valueName: "job"), completion: CompletionValues.job)
    var job: String

    @OptionGroup var common: CommandOptions
    @OptionGroup var reads: ReadConnectionOptions
    @OptionGroup var database: DatabaseWaitOptions

    func run() async throws {
        try await runReporting {
            try JobID.validate(job)
            let wait = try database.resolved()
            let (id, events) = try await wait.run {
                return try await reads.withStore(connection) { store in
                    let id = try await JobID.resolve(job, in: store)
                    return (id, try await store.reads.events(of: id))
                }
            }
            guard !events.isEmpty else {
                let archived = try await wait.run {
                    return try await reads.withStore(connection) { store in
                        return try await store.archive.job(id)
                    }
                }
                throw Status.missing(job: id, archived, json: json)
            }
            if json { return print(JSONValue.array(events.map(\.json)).jsonText) }
            print(
                TablePrinter.render(
                    headers: ["VERSION", "TYPE", "RECORDED", "DATA"],
                    rows: events.map { ["\($0.version)", $0.type, $0.recordedAt.iso8601, $0.data] }))
        }
    }
}
