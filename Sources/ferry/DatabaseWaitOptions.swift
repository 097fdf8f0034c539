import ArgumentParser
import Foundation

/// `--wait-for-database` of the one-shot commands (enqueue, cancel, retry, status, events, wait).
struct DatabaseWaitOptions: ParsableArguments {
    @Option(
        name: .customLong("wait-for-database"),
        help: ArgumentHelp(
            "While PostgreSQL is unreachable or read-only (a restart, a failover), try again for this long (30s, 2m; 0: do not wait). Default: $FERRY_WAIT_FOR_DATABASE, else 0.",
            valueName: "time"))
    var waitForDatabase: String?

    /// The option, then `FERRY_WAIT_FOR_DATABASE`, then no waiting.
    func resolved() throws -> DatabaseWait {
        let environment = ProcessInfo.processInfo.environment["FERRY_WAIT_FOR_DATABASE"]
        guard let text = waitForDatabase ?? environment.flatMap({ $0.isEmpty ? nil : $0 }) else { return .none }
        guard let bound = WorkerCommand.parseWait(text) else {
            let source = waitForDatabase != nil ? "--wait-for-database" : "FERRY_WAIT_FOR_DATABASE"
            throw CLIUsageError(message: "\(source) takes a time such as 30s, 2m or 1h (0 to not wait), not '\(text)'")
        }
        return DatabaseWait(bound: bound)
    }
}
