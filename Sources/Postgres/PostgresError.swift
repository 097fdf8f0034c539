/// An error from the Postgres layer.
///
/// `description` is safe to log and show: it carries the kind, SQLSTATE and constraint name, and the server's
/// message only for classes whose messages never echo values (connection loss, and Ferry's own `FY` codes raised
/// by its SQL functions). Server messages for other classes can quote input values (`invalid input syntax for
/// type uuid: "…"`), so they are kept in `serverMessage` and `detail` for deliberate use only.
public struct PostgresError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, at the level callers branch on.
    public enum Code: String, Sendable {
        /// Could not open a connection (server down, bad address, authentication).
        case connectionFailed = "connection_failed"
        /// The server asked for a password and refused the login (a wrong or missing password, or a role or
        /// database the login may not use): no later attempt will do better, so nothing waits for it.
        case loginRefused = "login_refused"
        /// The connection broke while in use.
        case connectionLost = "connection_lost"
        /// The server rejected a statement; see `sqlState`.
        case server = "server_error"
        /// A value in a result could not be decoded into the requested Swift type.
        case decoding = "decoding_failed"
        /// A `COPY` could not be completed.
        case copyFailed = "copy_failed"
        /// A wait (for example for notifications) exceeded its deadline.
        case timeout = "timeout"
        /// The client was shut down.
        case clientClosed = "client_closed"
        /// The API was used in a way libpq does not allow.
        case misuse = "misuse"
    }

    public var code: Code
    /// SQLSTATE reported by the server, if any.
    public var sqlState: SQLState?
    /// The server's primary message. May quote values; never included in `description` unless known safe.
    public var serverMessage: String?
    /// The server's DETAIL field. May quote values (for example the key of a unique violation).
    public var detail: String?
    /// The server's HINT field.
    public var hint: String?
    /// The constraint involved, for integrity violations.
    public var constraint: String?
    /// The table involved, when the server reports it.
    public var table: String?
    /// The column involved, when the server reports it.
    public var column: String?
    /// A message written by this library (never contains parameter values).
    public var reason: String

    public init(
        code: Code, reason: String, sqlState: SQLState? = nil, serverMessage: String? = nil, detail: String? = nil,
        hint: String? = nil, constraint: String? = nil, table: String? = nil, column: String? = nil
    ) {
        self.code = code
        self.reason = reason
        self.sqlState = sqlState
        self.serverMessage = serverMessage
        self.detail = detail
        self.hint = hint
        self.constraint = constraint
        self.table = table
        self.column = column
    }

    /// True when the connection is unusable and a new one should be opened.
    public var isConnectionLoss: Bool {
        code == .connectionFailed || code == .connectionLost || (sqlState?.isConnectionLoss ?? false)
    }

    /// True when the server refused a write it may accept later (read-only or out of disk: `SQLState.refusesWrites`).
    public var refusesWrites: Bool { sqlState?.refusesWrites ?? false }

    /// True when the server message may be shown: it cannot contain caller-supplied values.
    var serverMessageIsSafe: Bool {
        guard let state = sqlState else { return code != .server }
        // FY: raised by Ferry's own SQL with messages we wrote; 08/57: connection and operator messages.
        return state.errorClass == "FY" || state.isConnectionLoss
    }

    public var description: String {
        var text = "\(code.rawValue): \(reason)"
        if let state = sqlState { text += " [SQLSTATE \(state)]" }
        if let constraint { text += " (constraint \(constraint))" }
        if serverMessageIsSafe, let message = serverMessage, !message.isEmpty, message != reason {
            text += ": \(message)"
        }
        return text
    }
}
