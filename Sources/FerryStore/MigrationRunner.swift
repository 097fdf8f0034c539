import Logging
import Postgres

/// Applies numbered migrations in order, once each, under an advisory lock.
///
/// Many workers may start at once and all call `migrate`: the lock serializes them and the later ones find
/// nothing left to do. Each file runs in its own transaction together with its bookkeeping row, so a failed
/// file leaves no trace. A file whose checksum differs from the applied one stops everything.
public struct MigrationRunner: Sendable {
    /// Key of the session advisory lock that serializes migrators ("ferry" in ASCII).
    public static let lockKey: Int64 = 0x66_6572_7279

    public let client: PostgresClient
    public let migrations: [Migration]
    public let logger: Logger

    public init(client: PostgresClient, migrations: [Migration], logger: Logger) {
        self.client = client
        self.migrations = migrations
        self.logger = logger
    }

    /// What `migrate` did.
    public struct Outcome: Sendable {
        public var applied: [Migration]
        public var alreadyApplied: Int
    }

    @discardableResult
    public func migrate() async throws -> Outcome {
        let migrations = self.migrations
        let logger = self.logger
        return try await client.withConnection { connection in
            try connection.query("SELECT pg_advisory_lock($1)", [Self.lockKey])
            defer { _ = try? connection.query("SELECT pg_advisory_unlock($1)", [Self.lockKey]) }
            try connection.execute(
                """
                CREATE SCHEMA IF NOT EXISTS ferry;
                CREATE TABLE IF NOT EXISTS ferry.schema_migrations (
                    version     integer     PRIMARY KEY,
                    name        text        NOT NULL,
                    checksum    text        NOT NULL,
                    applied_at  timestamptz NOT NULL DEFAULT now()
                );
                """)
            let applied = try Self.appliedChecksums(connection)
            try Self.check(applied: applied, against: migrations)
            var done = [Migration]()
            for migration in migrations where applied[migration.version] == nil {
                logger.info("applying migration", metadata: ["version": "\(migration.version)", "name": "\(migration.name)"])
                try connection.transaction { tx in
                    try tx.execute(migration.sql)
                    try tx.query(
                        "INSERT INTO ferry.schema_migrations (version, name, checksum) VALUES ($1, $2, $3)",
                        [migration.version, migration.name, migration.checksum])
                }
                done.append(migration)
            }
            return Outcome(applied: done, alreadyApplied: applied.count)
        }
    }

    /// Fails unless every migration is applied with the same checksum (used by workers at startup).
    public func verifyUpToDate() async throws {
        let migrations = self.migrations
        try await client.withConnection { connection in
            let exists = try connection.query("SELECT to_regclass('ferry.schema_migrations') IS NOT NULL")
            guard try exists.rows[0].decode(Bool.self, at: 0) else {
                throw FerryStoreError(.notMigrated, "the database has no Ferry schema", fix: "run ferry migrate first")
            }
            let applied = try Self.appliedChecksums(connection)
            try Self.check(applied: applied, against: migrations)
            let missing = migrations.filter { applied[$0.version] == nil }
            if let first = missing.first {
                throw FerryStoreError(
                    .notMigrated, "migration \(first.version)_\(first.name) is not applied", fix: "run ferry migrate")
            }
        }
    }

    static func appliedChecksums(_ connection: PostgresConnection) throws -> [Int: (name: String, checksum: String)] {
        var applied = [Int: (name: String, checksum: String)]()
        for row in try connection.query("SELECT version, name, checksum FROM ferry.schema_migrations").rows {
            applied[try row.decode(Int.self, at: 0)] = (try row.decode(String.self, at: 1), try row.decode(String.self, at: 2))
        }
        return applied
    }

    static func check(applied: [Int: (name: String, checksum: String)], against migrations: [Migration]) throws {
        let known = Dictionary(uniqueKeysWithValues: migrations.map { ($0.version, $0) })
        for (version, record) in applied.sorted(by: { $0.key < $1.key }) {
            guard let migration = known[version] else {
                throw FerryStoreError(
                    .migrationUnknown,
                    "the database has migration \(version)_\(record.name), which this ferry build does not know",
                    fix: "upgrade ferry to a build that includes it")
            }
            guard migration.checksum == record.checksum else {
                throw FerryStoreError(
                    .migrationChanged,
                    "migration \(version)_\(migration.name) changed after it was applied (checksum differs)",
                    fix: "restore the original file and add a new numbered migration for the change")
            }
        }
    }
}
