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
