import ArgumentParser
import FerryCore

/// Options shared by every way of enqueuing.
struct JobOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Group jobs under a batch name (progress per batch in ferry.batch_status).", valueName: "name"),
        completion: CompletionValues.batch)
    var batch: String?

    @Option(help: ArgumentHelp("Queue name (lowercase letters, digits, _ . -). Default: default.", valueName: "name"),
        completion: CompletionValues.queue)
    var queue: String?

    // Unconditional: `--priority -5` is a value, not an unknown option `-5`.
    @Option(parsing: .unconditional, help: ArgumentHelp("-100 … 100, higher runs first. Default: 0.", valueName: "n"))
    var priority: Int64?

    @Option(name: .customLong("run-at"), help: ArgumentHelp("Not before: ISO 8601 time with zone, now, or +90s/+15m/+2h/+1d.", valueName: "time"))
    var runAt: String?

    @Option(name: .customLong("max-attempts"), parsing: .unconditional, help: ArgumentHelp("1 … 1000. Default: 10.", valueName: "n"))
    var maxAttempts: Int64?

    @Option(help: ArgumentHelp("W3C trace context the jobs' spans join: 00-<32 hex>-<16 hex>-<2 hex>.", valueName: "traceparent"))
    var traceparent: String?

    @Flag(help: "Print the result as JSON instead of one job id per line.")
    var json = false

    var defaults: JobRequest.Defaults {
        JobRequest.Defaults(
            batch: batch, queue: queue, priority: priority, runAt: runAt, maxAttempts: maxAttempts, traceparent: traceparent)
    }

    /// Refuses a malformed `--traceparent` before anything is read or enqueued.
    func validateTraceParent() throws {
        if let traceparent, TraceParent(traceparent) == nil {
            throw ValidationIssue(
                field: "--traceparent", problem: "not a W3C traceparent",
                fix: "write \(TraceParent.format), for example 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
        }
    }
}
