/// A five-character SQLSTATE code as reported by the server (for example `23505`).
///
/// Callers branch on these codes, never on message text: messages are localized and may change between versions.
public struct SQLState: Hashable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The raw five-character code.
    public let code: String

    public init(_ code: String) { self.code = code }
    public init(stringLiteral value: String) { self.code = value }

    /// The two-character class (for example `08` for connection exceptions).
    public var errorClass: Substring { code.prefix(2) }

    public var description: String { code }

    public static let uniqueViolation: SQLState = "23505"
    public static let foreignKeyViolation: SQLState = "23503"
    public static let checkViolation: SQLState = "23514"
    public static let notNullViolation: SQLState = "23502"
    public static let insufficientPrivilege: SQLState = "42501"
    public static let undefinedTable: SQLState = "42P01"
    public static let serializationFailure: SQLState = "40001"
    public static let deadlockDetected: SQLState = "40P01"
    public static let lockNotAvailable: SQLState = "55P03"
    public static let queryCanceled: SQLState = "57014"
    public static let adminShutdown: SQLState = "57P01"
    public static let crashShutdown: SQLState = "57P02"
    public static let cannotConnectNow: SQLState = "57P03"
    /// A write on a read-only server or transaction: a hot standby, or a primary being demoted in a failover.
    public static let readOnlySQLTransaction: SQLState = "25006"
    /// The server's disk is full: it cannot write WAL or data until space is freed.
    public static let diskFull: SQLState = "53100"
    public static let invalidTextRepresentation: SQLState = "22P02"
    public static let invalidParameterValue: SQLState = "22023"
    public static let raiseException: SQLState = "P0001"
    /// A prepared statement the server does not know (`invalid_sql_statement_name`): a pooler lent another server
    /// session, or the session ran `DEALLOCATE`/`DISCARD ALL`.
    public static let invalidSQLStatementName: SQLState = "26000"
    /// `feature_not_supported`; among others what a prepared statement whose result type changed under it (a
    /// migration altered a table or function) raises: "cached plan must not change result type".
    public static let featureNotSupported: SQLState = "0A000"

    /// True for classes that mean "the connection or server went away": retrying on a fresh connection may succeed.
    public var isConnectionLoss: Bool {
        errorClass == "08" || self == .adminShutdown || self == .crashShutdown || self == .cannotConnectNow
    }

    /// True when the server answers but refuses to write now (read-only: a standby, a demoted primary,
    /// `default_transaction_read_only`; or its disk is full): the same write may succeed once that passes.
    public var refusesWrites: Bool {
        self == .readOnlySQLTransaction || self == .diskFull
    }

    /// True when the same transaction may succeed if simply run again.
    public var isTransient: Bool {
        isConnectionLoss || self == .serializationFailure || self == .deadlockDetected
    }
}
