import ArgumentParser
import FerryCore

/// Options shared by every way of enqueuing.
struct JobOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Group jobs under a batch name (progress per batch in ferry.batch_status).", valueName: "name"))
    var batch: String?

    @Option(help: ArgumentHelp("Queue name (lowercase letters, digits, _ . -). Default: default.", valueName: "name"))
    var queue: String?

    @Option(help: ArgumentHelp("-100 … 100, higher runs first. Default: 0.", valueName: "n"))
    var priority: Int64?

    @Option(name: .customLong("run-at"), help: ArgumentHelp("Not before: ISO 8601 time with zone, now, or +90s/+15m/+2h/+1d.", valueName: "time"))
    var runAt: String?

    @Option(name: .customLong("max-attempts"), help: ArgumentHelp("1 … 1000. Default: 10.", valueName: "n"))
    var maxAttempts: Int64?

    @Flag(help: "Print the result as JSON instead of one job id per line.")
    var json = false

    var defaults: JobRequest.Defaults {
        JobRequest.Defaults(batch: batch, queue: queue, priority: priority, runAt: runAt, maxAttempts: maxAttempts)
    }
}
