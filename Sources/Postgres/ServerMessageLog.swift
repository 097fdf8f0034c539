import CLibPQ
import Logging

/// Logs the messages a server sends outside a statement's result: a WARNING, or the FATAL it sends before it ends
/// an idle connection (a restart, `pg_terminate_backend`). libpq's default receiver would write them to stderr as
/// raw text, which breaks one-JSON-object-per-line logs (`ferry worker --log-format json`).
///
/// Severity and SQLSTATE are always logged; the text only for classes whose messages never quote values (as in
/// `PostgresError.description`). One per connection, owned by it.
final class ServerMessageLog {
    let logger: Logger

    init(logger: Logger) {
        self.logger = logger
    }

    /// The libpq notice receiver; its argument is an unretained `ServerMessageLog`.
    static let receiver: PQnoticeReceiver = { argument, result in
        guard let argument, let result else { return }
        Unmanaged<ServerMessageLog>.fromOpaque(argument).takeUnretainedValue().record(result)
    }

    private func record(_ result: OpaquePointer) {
        func field(_ code: Character) -> String? {
            guard let pointer = PQresultErrorField(result, Int32(code.asciiValue!)) else { return nil }
            return String(cString: pointer)
        }
        let severity = field("V") ?? field("S") ?? "NOTICE"
        var metadata: Logger.Metadata = ["severity": "\(severity)"]
        if let code = field("C") {
            metadata["sqlstate"] = "\(code)"
            let state = SQLState(code)
            if state.errorClass == "FY" || state.isConnectionLoss, let message = field("M") {
                metadata["server_message"] = "\(message)"
            }
        }
        switch severity {
        case "WARNING":
            logger.warning("PostgreSQL server message", metadata: metadata)
        case "ERROR", "FATAL", "PANIC":
            // The connection's next use fails and reports it; this only says when and why.
            logger.notice("PostgreSQL server message", metadata: metadata)
        default:
            logger.debug("PostgreSQL server message", metadata: metadata)
        }
    }
}
