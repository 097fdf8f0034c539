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

    public init(
        connectionString: String? = nil, applicationName: String = "ferry", connectTimeoutSeconds: Int = 10,
        poolSize: Int = 4
    ) {
        self.connectionString = connectionString
        self.applicationName = applicationName
        self.connectTimeoutSeconds = connectTimeoutSeconds
        self.poolSize = max(1, poolSize)
    }
}
