import ArgumentParser
import FerryCore
import FerryStore
import Foundation

extension ScheduleCommand {
    /// `ferry schedule run NAME`: one run now, fired by a worker like a due tick.
    struct Run: AsyncParsableCommand, DatabaseCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run a schedule now (paused too): a worker enqueues its job at once; the regular ticks stay.",
            discussion: """
                Asks the workers' schedulers to fire one run for now: the template is validated and --overlap skip \
                honoured as for a due tick, and the run is recorded in ferry.schedule_runs with manual = true. Asking \
                again before a worker fired it is the same request. Without --no-wait, waits for the run and prints \
                its job id: exit 0 when a job was enqueued, 75 when the previous run is still going (overlap skip) or \
                no worker fired it within --timeout (the request stays and runs when a worker starts), 65 when the \
                template no longer validates.

                Examples:
                  ferry schedule run nightly --timeout 10
                  ferry schedule run nightly --no-wait
                """)

        @Argument(help: ArgumentHelp("Schedule name.", valueName: "name"), completion: CompletionValues.schedule)
        var name: String

        @Flag(name: .customLong("no-wait"), help: "Only ask; do not wait for a worker to fire the run.")
        var noWait = false

        @Option(help: ArgumentHelp("Seconds to wait for a worker to fire the run.", valueName: "s"))
        var timeout: Double = 30

        @OptionGroup var common: CommandOptions

        func run() async throws {
            try await runReporting {
                try ScheduleCommand.checkName(name)
                guard timeout > 0, timeout <= 3600 else {
                    throw ValidationIssue(field: "--timeout", problem: "must be more than 0 and at most 3600 seconds", fix: "pick a value in range")
                }
                return try await connection.withStore(current: true) { store in
                    let tick = try await store.schedules.requestRun(name)
                    if noWait {
                        print(json
                            ? JSONValue.object(["schedule": .string(name), "requested_at": .string(ScheduleTime.iso8601(tick))]).jsonText
                            : "requested a run of \(name) (\(ScheduleTime.iso8601(tick))): the next worker to look fires it")
                        return
                    }
                    let deadline = ContinuousClock.now + .milliseconds(Int64(timeout * 1000))
                    while ContinuousClock.now < deadline {
                        if let run = try await store.schedules.manualRun(name, tick: tick) {
                            try Self.report(run, json: json)
                            return
                        }
                        try await Task.sleep(for: .milliseconds(100))
                    }
                    if json {
                        print(JSONValue.object([
                            "schedule": .string(name), "requested_at": .string(ScheduleTime.iso8601(tick)), "fired": .bool(false),
                        ]).jsonText)
                    }
                    printError("error: no worker fired the run of \(name) within \(Int(timeout)) s; fix: start a worker (ferry worker; the dashboard's Workers page lists live ones): the request stays and runs when one looks")
                    throw ExitCode(ExitStatus.temporaryFailure)
                }
            }
        }

        /// Prints the run and exits as documented: 0 enqueued, 75 skipped, 65 error.
        static func report(_ run: ScheduleRun, json: Bool) throws {
            if json { print(run.json.jsonText) }
            if let job = run.jobID {
                if !json { print(job.uuidString.lowercased()) }
                return
            }
            if let going = run.skippedFor {
                printError("error: the previous run \(going.uuidString.lowercased()) of \(run.schedule) is still going (--overlap skip); fix: wait for it (ferry wait \(going.uuidString.lowercased())) and run again, or add the schedule with --overlap allow")
                throw ExitCode(ExitStatus.temporaryFailure)
            }
            printError("error: the run of \(run.schedule) enqueued nothing: \(run.error ?? "unknown"); fix: replace the schedule's template (ferry schedule add --replace)")
            throw ExitCode(ExitStatus.invalidInput)
        }
    }
}
