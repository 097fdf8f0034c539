import ArgumentParser
import FerryCore
import FerryStore

/// `ferry queue pause|resume|list`: stop and restart claims from a queue.
struct QueueCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "queue",
        abstract: "Pause and resume queues: claims skip a paused queue, running jobs finish.",
        discussion: """
            The state is an event in ferry.queue_events (who, when, why) and shows in ferry.queue_controls and \
            ferry status. Jobs can still be enqueued into a paused queue; they wait until it is resumed.

            Examples:
              ferry queue pause photos --reason "Dropbox maintenance"
              ferry queue resume photos
              ferry queue pause nightly --create            # before its first job
              ferry queue list --json
            """,
        subcommands: [Pause.self, Resume.self, List.self])

    struct Pause: AsyncParsableCommand, DatabaseCommand {
        static let configuration = CommandConfiguration(abstract: "Stop claims from a queue; running jobs finish.")

        @Argument(help: ArgumentHelp("Queue name.", valueName: "queue"), completion: CompletionValues.queue)
        var queue: String

        @Option(help: ArgumentHelp("Why, kept with the event and shown by ferry queue list.", valueName: "text"))
        var reason: String?

        @Flag(help: "Pause a queue that has no jobs and no worker yet (otherwise refused as a likely typo).")
        var create = false

        @OptionGroup var common: CommandOptions

        func run() async throws {
            try await QueueCommand.set(queue, paused: true, reason: reason, create: create, json: json, connection: connection)
        }
    }

    struct Resume: AsyncParsableCommand, DatabaseCommand {
        static let configuration = CommandConfiguration(abstract: "Let workers claim from a paused queue again.")

        @Argument(help: ArgumentHelp("Queue name.", valueName: "queue"), completion: CompletionValues.queue)
        var queue: String

        @OptionGroup var common: CommandOptions

        func run() async throws {
            try await QueueCommand.set(queue, paused: false, reason: nil, create: false, json: json, connection: connection)
        }
    }

    struct List: AsyncParsableCommand, DatabaseCommand {
        static let configuration = CommandConfiguration(abstract: "Queues that were paused or resumed, and their state.")

        @OptionGroup var common: CommandOptions

        func run() async throws {
            try await runReporting {
                return try await connection.withStore { store in
                    let controls = try await store.queueControls()
                    if json { return print(JSONValue.array(controls.map(\.json)).jsonText) }
                    print(TablePrinter.render(
                        headers: ["QUEUE", "STATE", "SINCE", "REASON"],
                        rows: controls.map { [$0.queue, $0.paused ? "paused" : "running", $0.changedAt.iso8601, $0.reason ?? ""] }))
                }
            }
        }
    }

    static func set(_ queue: String, paused: Bool, reason: String?, create: Bool, json: Bool, connection: ConnectionOptions) async throws {
        try await runReporting {
            guard JobLimits.isValidQueueName(queue) else {
                throw ValidationIssue(field: "queue", problem: "'\(queue)' is not a queue name", fix: "queue names are 1-63 lowercase letters, digits, _ . -")
            }
            return try await connection.withStore(current: true) { store in
                if !create, !(try await store.queueIsKnown(queue)) {
                    throw FerryStoreError(
                        .notFound, "no queue '\(queue)': it has no jobs, no worker serves it and it was never paused",
                        fix: paused ? "check the name (ferry status --queue NAME), or pause it ahead of its first job with --create"
                                    : "check the name (ferry queue list)")
                }
                let changed = try await store.setQueuePaused(queue, paused: paused, reason: reason, by: CommandTarget.requester)
                let state = paused ? "paused" : "resumed"
                if json {
                    print(JSONValue.object(["queue": .string(queue), "paused": .bool(paused), "changed": .bool(changed)]).jsonText)
                } else {
                    print(changed ? "\(state) \(queue)" : "\(queue) was already \(state == "resumed" ? "running" : state)")
                }
            }
        }
    }
}
