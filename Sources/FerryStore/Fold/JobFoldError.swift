/// Why the fold refused an event: the SQLSTATE `ferry.apply_event` (or the table's constraints and casts) raise
/// for the same event, and a description safe to show.
public struct JobFoldError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// FY001: the event comes from a claim that is no longer current.
        case staleLease = "FY001"
        /// FY002: the transition is not allowed in the job's state.
        case transitionNotAllowed = "FY002"
        /// FY003: the version is not the next in the stream.
        case version = "FY003"
        /// FY004: the event names a job that does not exist.
        case unknownJob = "FY004"
        /// FY005: the event type is not one Ferry knows.
        case unknownType = "FY005"
        /// 22P02: a number in the event's data is not an integer (the SQL cast fails the same way).
        case invalidInteger = "22P02"
        /// 22003: a number in the event's data does not fit its column.
        case outOfRange = "22003"
        /// 23502: the event would leave a NOT NULL column of ferry.jobs empty.
        case notNull = "23502"
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The SQLSTATE PostgreSQL raises for the same refusal.
    public var sqlState: String { code.rawValue }

    public var description: String { "\(code.rawValue) \(message)" }
}
