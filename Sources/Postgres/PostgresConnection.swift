import CLibPQ
import Foundation
import Logging

/// One libpq connection, owned by exactly one thread.
///
/// The type is deliberately not `Sendable`: a `PGconn` must not be used from two threads at once, and every call
/// blocks. Use it inside `PostgresClient.withConnection`, which runs your code on the connection's dedicated
/// thread (never on Swift's cooperative pool), or own it on a thread of your own.
public final class PostgresConnection {
    /// The libpq handle. Freed exactly once, in `deinit`.
    let handle: OpaquePointer
    /// Receives the server's messages outside statement results (never libpq's default, which prints to stderr).
    /// Retained here, released in `deinit` after the handle.
    let serverMessages: Unmanaged<ServerMessageLog>
    /// Set by `listen(_:)`. A connection that never listened throws away notifications that reach it anyway:
    /// behind a transaction-mode pooler (PgBouncer) it may be lent a server connection another client LISTENed
    /// on, and libpq would keep every notification that arrives there until the connection closes.
    var hasListened = false
    /// The statements prepared on this connection's server session (see `PostgresStatementCache`).
    let statements: PostgresStatementCache
    let logger: Logger

    /// Opens a connection. Throws `.connectionFailed` with libpq's reason (which never contains the password).
    /// Server messages outside statement results (a WARNING, the FATAL before a server ends the connection) go to
    /// `logger`.
    public init(configuration: PostgresConfiguration, logger: Logger = Logger(label: "ferry.postgres")) throws {
        let parameters = PostgresConnectionParameters(configuration: configuration)
        let conn: OpaquePointer? = withCStringArray(parameters.keys) { keyPointers in
            withCStringArray(parameters.values) { valuePointers in
                PQconnectdbParams(keyPointers, valuePointers, 1)
            }
        }
        guard let conn else {
            throw PostgresError(code: .connectionFailed, reason: "libpq could not allocate a connection")
        }
        guard PQstatus(conn) == CONNECTION_OK else {
            let reason = Self.message(of: conn)
            let refused = Self.refusedLogin(conn)
            PQfinish(conn)
            throw PostgresError(
                code: refused ? .loginRefused : .connectionFailed,
                reason: (refused ? "PostgreSQL refused the login: " : "could not connect to PostgreSQL: ") + reason)
        }
        self.handle = conn
        self.logger = logger
        statements = PostgresStatementCache(
            capacity: configuration.preparedStatements ? configuration.statementCacheCapacity : 0)
        serverMessages = Unmanaged.passRetained(ServerMessageLog(logger: logger))
        PQsetNoticeReceiver(conn, ServerMessageLog.receiver, serverMessages.toOpaque())
        // Fixed session settings so text decoding is unambiguous whatever the server's defaults.
        try execute("SET TIME ZONE 'UTC'; SET DateStyle = 'ISO, YMD'; SET IntervalStyle = 'iso_8601'; SET client_min_messages = warning")
    }

    deinit {
        PQfinish(handle)
        serverMessages.release()
    }

    /// True while libpq considers the connection usable.
    public var isHealthy: Bool { PQstatus(handle) == CONNECTION_OK }

    /// The server backend's process id (for `pg_terminate_backend` and diagnostics).
    public var backendPID: Int32 { PQbackendPID(handle) }

    /// True when a transaction block is open (or failed and awaiting rollback).
    public var isInTransaction: Bool {
        let status = PQtransactionStatus(handle)
        return status == PQTRANS_INTRANS || status == PQTRANS_INERROR || status == PQTRANS_ACTIVE
    }

    /// Runs one parameterized statement. Values travel separately from the SQL text (`PQexecParams`, or
    /// `PQexecPrepared` once the text was sent before: see `PostgresConfiguration.preparedStatements`).
    @discardableResult
    public func query(_ sql: String, _ binds: [any PostgresBindable] = []) throws -> PostgresQueryResult {
        let texts = binds.map { $0.postgresText }
        deallocatePending()
        switch statements.plan(for: sql) {
        case .unprepared: return try queryUnprepared(sql, texts)
        case .prepare(let name): return try prepareAndRun(sql, name: name, texts)
        case .execute(let name): return try runPrepared(sql, name: name, texts)
        }
    }

    func queryUnprepared(_ sql: String, _ texts: [String?]) throws -> PostgresQueryResult {
        let result: OpaquePointer? = withOptionalCStringArray(texts) { pointers in
            PQexecParams(handle, sql, Int32(texts.count), nil, pointers, nil, nil, 0)
        }
        return try consume(result)
    }

    /// Runs one or more statements without parameters (`PQexec`), for scripts such as migrations.
    /// Never put values into `sql`: use `query(_:_:)` for anything that carries data.
    public func execute(_ sql: String) throws {
        _ = try consume(PQexec(handle, sql))
    }

    /// Turns a `PGresult` into Swift values (or an error) and frees it.
    func consume(_ result: OpaquePointer?) throws -> PostgresQueryResult {
        guard let result else {
            throw connectionError(reason: "the server did not answer")
        }
        defer { PQclear(result) }
        if !hasListened {
            while let stray = PQnotifies(handle) { PQfreemem(stray) }
        }
        let status = PQresultStatus(result)
        switch status {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY:
            return Self.extract(result)
        case PGRES_COPY_IN, PGRES_COPY_OUT, PGRES_COPY_BOTH:
            throw PostgresError(code: .misuse, reason: "COPY must be run with copyIn")
        default:
            throw error(from: result)
        }
    }

    static func extract(_ result: OpaquePointer) -> PostgresQueryResult {
        let columnCount = Int(PQnfields(result))
        let rowCount = Int(PQntuples(result))
        var names = [String]()
        names.reserveCapacity(columnCount)
        for column in 0..<columnCount {
            names.append(String(cString: PQfname(result, Int32(column))))
        }
        let columns = PostgresColumns(names: names)
        var rows = [PostgresRow]()
        rows.reserveCapacity(rowCount)
        for row in 0..<rowCount {
            var values = [String?]()
            values.reserveCapacity(columnCount)
            for column in 0..<columnCount {
                if PQgetisnull(result, Int32(row), Int32(column)) == 1 {
                    values.append(nil)
                } else {
                    values.append(String(cString: PQgetvalue(result, Int32(row), Int32(column))))
                }
            }
            rows.append(PostgresRow(columns: columns, values: values))
        }
        let affected = Int(String(cString: PQcmdTuples(result))) ?? 0
        return PostgresQueryResult(columns: columns, rows: rows, affectedRows: affected)
    }

    /// Builds a typed error from a failed result, keeping each diagnostic field separate.
    func error(from result: OpaquePointer) -> PostgresError {
        func field(_ code: Character) -> String? {
            guard let pointer = PQresultErrorField(result, Int32(code.asciiValue!)) else { return nil }
            return String(cString: pointer)
        }
        let state = field("C").map { SQLState($0) }
        if state == nil && !isHealthy {
            return connectionError(reason: "the connection to PostgreSQL was lost")
        }
        let isLoss = state?.isConnectionLoss ?? false
        return PostgresError(
            code: isLoss ? .connectionLost : .server,
            reason: isLoss ? "the connection to PostgreSQL was lost" : "the server rejected the statement",
            sqlState: state,
            serverMessage: field("M"),
            detail: field("D"),
            hint: field("H"),
            constraint: field("n"),
            table: field("t"),
            column: field("c")
        )
    }

    func connectionError(reason: String) -> PostgresError {
        PostgresError(
            code: isHealthy ? .server : .connectionLost, reason: reason, serverMessage: Self.message(of: handle))
    }

    static func message(of conn: OpaquePointer) -> String {
        guard let pointer = PQerrorMessage(conn) else { return "unknown error" }
        return String(cString: pointer).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

/// Calls `body` with a NULL-terminated array of C strings that live for the duration of the call.
func withCStringArray<R>(_ strings: [String], _ body: ([UnsafePointer<CChar>?]) -> R) -> R {
    let owned = strings.map { strdup($0) }
    defer { owned.forEach { free($0) } }
    return body(owned.map { UnsafePointer($0) } + [nil])
}

/// Like `withCStringArray`, with `nil` entries passed as NULL pointers (SQL NULL parameters).
func withOptionalCStringArray<R>(_ strings: [String?], _ body: ([UnsafePointer<CChar>?]) -> R) -> R {
    let owned: [UnsafeMutablePointer<CChar>?] = strings.map { $0.map { strdup($0) } ?? nil }
    defer { owned.forEach { free($0) } }
    return body(owned.map { $0.map { UnsafePointer($0) } })
}
