import Foundation

/// How to reach PostgreSQL.
public struct PostgresConfiguration: Sendable {
    /// A libpq conninfo string (`host=… dbname=…`) or URL (`postgresql://…`). `nil` uses libpq's own defaults and
    /// `PG*` environment variables (PGHOST, PGPORT, PGUSER, PGDATABASE, PGPASSWORD, PGSSLMODE, .pgpass, services).
    public var connectionString: String?
    /// Reported to the server as `fallback_application_name` (a value in the connection string wins).
    public var applicationName: String
    /// Seconds libpq waits for a connection before giving up (`connect_timeout`), unless the string sets one.
    public var connectTimeoutSeconds: Int
    /// Connections a `PostgresClient` opens at most.
    public var poolSize: Int
    /// While this instant is ahead, no attempt to connect outlasts it: `connect_timeout` is cut to the time left
    /// (libpq waits at least 2 s) wherever the timeout came from (the string, `PGCONNECT_TIMEOUT`, or
    /// `connectTimeoutSeconds`). A command riding out a failover (`--wait-for-database`) sets its deadline here, so
    /// a host that swallows packets cannot hold its last attempt for a whole `connect_timeout` past it.
    public var connectDeadline: ContinuousClock.Instant?
    /// Whether each connection prepares the statements it sends repeatedly (on their second use, at most
    /// `statementCacheCapacity` of them), so the server parses and plans them once. Turn it off behind a pooler
    /// in transaction mode (PgBouncer before 1.21), which lends each transaction any server session: a connection
    /// that finds a statement it prepared missing turns it off by itself, but a transaction may fail once first.
    /// Defaults to off, which is safe behind any pooler; `FERRY_PREPARED_STATEMENTS=on` turns it on. A worker that
    /// listens for wake-ups holds a session of its own (LISTEN needs one), so it turns it on unless told otherwise.
    public var preparedStatements: Bool
    /// Statements a connection keeps prepared at most; the least recently used is deallocated beyond it.
    public var statementCacheCapacity: Int

    public init(
        connectionString: String? = nil, applicationName: String = "ferry", connectTimeoutSeconds: Int = 10,
        poolSize: Int = 4, preparedStatements: Bool? = nil, statementCacheCapacity: Int = 32
    ) {
        self.connectionString = connectionString
        self.applicationName = applicationName
        self.connectTimeoutSeconds = connectTimeoutSeconds
        self.poolSize = max(1, poolSize)
        self.preparedStatements = preparedStatements ?? Self.preparedStatementsByDefault()
        self.statementCacheCapacity = max(0, statementCacheCapacity)
    }

    /// Prepared statements' default: what the environment's `FERRY_PREPARED_STATEMENTS` says (`on`, `1`, `true`,
    /// `yes`; `off`, `0`, `false`, `no`), or `fallback` when it says neither.
    public static func preparedStatementsByDefault(
        environment: [String: String] = ProcessInfo.processInfo.environment, fallback: Bool = false
    ) -> Bool {
        guard let value = environment["FERRY_PREPARED_STATEMENTS"]?.trimmingCharacters(in: .whitespaces).lowercased()
        else { return fallback }
        if ["off", "0", "false", "no"].contains(value) { return false }
        if ["on", "1", "true", "yes"].contains(value) { return true }
        return fallback
    }
}
