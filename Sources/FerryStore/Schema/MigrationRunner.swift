import FerryCore
import Logging
import Postgres

/// Applies numbered migrations in order, once each, then the definitions whose text changed, under an advisory lock.
///
/// Two kinds of files (see `migrations/README.md`):
/// - Numbered migrations (`migrations/NNNN_name.sql`) are history: tables, indexes, triggers, data moves and
///   grants. Each runs once, recorded with its checksum in `ferry.schema_migrations`; one that changed after it
///   was applied stops everything, and so does one the database has but this build lacks (a newer database).
/// - Definitions (`migrations/definitions/NNN_name.sql`, `Definition`) are the present: the whole current text of
///   one function or view, `CREATE OR REPLACE`, edited in place. After the numbered migrations, each definition
///   whose checksum differs from the one last recorded in `ferry.schema_definitions` (migration 0028) runs again,
///   in number order, in its own transaction with its record. Replacing keeps the object's grants and comment.
///   Functions and views of 0001–0027 were created there and are re-created identically by their definitions,
///   so a database at schema 24–27 upgrades by applying the missing numbered files and then every definition once.
///
/// Definitions run after every numbered migration, so a numbered migration must not rely on a definition's new
/// text (it may create what it needs itself; the definition then replaces it). A change a `CREATE OR REPLACE`
/// cannot make (a function's return type, a view's columns dropped or reordered) is a numbered migration that
/// drops the object and deletes its `ferry.schema_definitions` rows, so the definition creates it again.
///
/// The records keep every text a definition was applied with. A build whose definition matches an older record
/// but not the latest is older than the database (like a numbered migration it does not know) and is refused,
/// so an old `ferry migrate` cannot roll functions back. Reverting a definition on purpose means new text
/// (a changed comment suffices).
///
/// Many workers may start at once and all call `migrate`: the lock serializes them and the later ones find
/// nothing left to do. Each file runs in its own transaction together with its bookkeeping row, so a failed
/// file leaves no trace.
public struct MigrationRunner: Sendable {
    /// Key of the transaction-level advisory lock that serializes migrators ("ferry" in ASCII). Taken in each
    /// transaction rather than once per session: behind a transaction-mode pooler (PgBouncer) each transaction
    /// may run on another server connection, and a session lock could stay held on one nobody unlocks.
    public static let lockKey: Int64 = 0x66_6572_7279

    public let client: PostgresClient
    public let migrations: [Migration]
    public let definitions: [Definition]
    /// Applied instead of the history files it stands for when the database has no migrations yet; nil replays
    /// every numbered file.
    public let baseline: MigrationBaseline?
    public let logger: Logger
    /// The providers' option declarations that `migrate` writes to `ferry.provider_options` (where `ferry.enqueue`
    /// checks options) and `verifyUpToDate` compares; nil leaves the table as it is.
    public let providerOptions: ProviderOptionCatalog?

    public init(
        client: PostgresClient, migrations: [Migration], definitions: [Definition], providerOptions: ProviderOptionCatalog? = nil,
        baseline: MigrationBaseline? = nil, logger: Logger
    ) {
        self.client = client
        self.migrations = migrations
        self.definitions = definitions
        self.baseline = baseline
        self.providerOptions = providerOptions
        self.logger = logger
    }

    /// Loads every kind of file of a migrations directory (`Migration.load`, `Definition.load`,
    /// `MigrationBaseline.load`).
    public init(client: PostgresClient, directory: String, providerOptions: ProviderOptionCatalog? = nil, logger: Logger) throws {
        self.init(
            client: client, migrations: try Migration.load(from: directory),
            definitions: try Definition.load(fromMigrations: directory), providerOptions: providerOptions,
            baseline: try MigrationBaseline.load(fromMigrations: directory), logger: logger)
    }

    /// What `migrate` did.
    public struct Outcome: Sendable {
        /// Numbered files recorded now, those the baseline stands for included.
        public var applied: [Migration]
        public var alreadyApplied: Int
        /// True when the baseline was applied now in place of the history files.
        public var baselineApplied = false
        /// Definitions applied now: new, or changed since they were last applied.
        public var definitions: [Definition] = []
        /// True when `ferry.provider_options` was rewritten now (the providers' declarations changed).
        public var providerOptionsWritten = false
    }

    @discardableResult
    public func migrate() async throws -> Outcome {
        let migrations = self.migrations
        let definitions = self.definitions
        let providerOptions = self.providerOptions
        let baseline = self.baseline.flatMap { Self.usable($0, with: migrations) }
        let logger = self.logger
        return try await client.withConnection { connection in
            try connection.transaction { tx in
                try tx.query("SELECT pg_advisory_xact_lock($1)", [Self.lockKey])
                try tx.execute(
                    """
                    CREATE SCHEMA IF NOT EXISTS ferry;
                    CREATE TABLE IF NOT EXISTS ferry.schema_migrations (
                        version     integer     PRIMARY KEY,
                        name        text        NOT NULL,
                        checksum    text        NOT NULL,
                        applied_at  timestamptz NOT NULL DEFAULT now()
                    );
                    """)
            }
            let applied = try Self.appliedChecksums(connection)
            try Self.check(applied: applied, against: migrations)
            var done = [Migration]()
            if applied.isEmpty, let baseline {
                done = try Self.apply(baseline, connection, logger: logger)
            }
            let baselined = !done.isEmpty
            let recorded = done.isEmpty ? applied : try Self.appliedChecksums(connection)
            for migration in migrations where recorded[migration.version] == nil {
                let ran = try connection.transaction { tx -> Bool in
                    try tx.query("SELECT pg_advisory_xact_lock($1)", [Self.lockKey])
                    // Another migrator may have applied it while this one waited for the lock.
                    let found = try tx.query("SELECT 1 FROM ferry.schema_migrations WHERE version = $1", [migration.version])
                    guard found.rows.isEmpty else { return false }
                    logger.info("applying migration", metadata: ["version": "\(migration.version)", "name": "\(migration.name)"])
                    try tx.execute(migration.sql)
                    try tx.query(
                        "INSERT INTO ferry.schema_migrations (version, name, checksum) VALUES ($1, $2, $3)",
                        [migration.version, migration.name, migration.checksum])
                    return true
                }
                if ran { done.append(migration) }
            }
            var outcome = Outcome(applied: done, alreadyApplied: applied.count)
            outcome.baselineApplied = baselined
            if let providerOptions {
                // After the numbered files, which create the table.
                outcome.providerOptionsWritten = try Self.write(providerOptions, connection, logger: logger)
            }
            guard !definitions.isEmpty else { return outcome }
            let records = try Self.definitionRecords(connection)
            guard let records else {
                throw FerryStoreError(
                    .migrationFiles, "this build has definitions but its migrations do not create ferry.schema_definitions",
                    fix: "install the numbered migrations and migrations/definitions/ of the same build")
            }
            let pending = try Self.pending(definitions, records: records)
            var appliedDefinitions = [Definition]()
            for definition in pending {
                let ran = try connection.transaction { tx -> Bool in
                    try tx.query("SELECT pg_advisory_xact_lock($1)", [Self.lockKey])
                    let latest = try tx.query(
                        "SELECT checksum FROM ferry.schema_definitions WHERE name = $1 ORDER BY applied_at DESC, checksum LIMIT 1",
                        [definition.name])
                    if let current = latest.rows.first, try current.decode(String.self, at: 0) == definition.checksum { return false }
                    logger.info("applying definition", metadata: ["order": "\(definition.order)", "name": "\(definition.name)"])
                    try tx.execute(definition.sql)
                    try tx.query(
                        "INSERT INTO ferry.schema_definitions (name, checksum) VALUES ($1, $2)",
                        [definition.name, definition.checksum])
                    return true
                }
                if ran { appliedDefinitions.append(definition) }
            }
            outcome.definitions = appliedDefinitions
            return outcome
        }
    }

    /// Fails unless every migration and every definition is applied with this build's checksum (used by workers at
    /// startup): `notMigrated` when `ferry migrate` would apply something, `migrationChanged` or `migrationUnknown`
    /// when the database and this build disagree in a way migrating cannot fix.
    public func verifyUpToDate() async throws {
        let migrations = self.migrations
        let definitions = self.definitions
        let providerOptions = self.providerOptions
        try await client.withConnection { connection in
            let exists = try connection.query("SELECT to_regclass('ferry.schema_migrations') IS NOT NULL AS exists")
            guard try exists.rows[0].decode(Bool.self, column: "exists") else {
                throw FerryStoreError(.notMigrated, "the database has no Ferry schema", fix: "run ferry migrate first")
            }
            let applied = try Self.appliedChecksums(connection)
            try Self.check(applied: applied, against: migrations)
            let missing = migrations.filter { applied[$0.version] == nil }
            if let first = missing.first {
                throw FerryStoreError(
                    .notMigrated, "migration \(first.version)_\(first.name) is not applied", fix: "run ferry migrate")
            }
            if let providerOptions, try Self.differs(providerOptions, connection) {
                throw FerryStoreError(
                    .notMigrated, "the provider options recorded in the database (ferry.provider_options) are not this build's",
                    fix: "run ferry migrate")
            }
            guard !definitions.isEmpty else { return }
            let pending = try Self.pending(definitions, records: try Self.definitionRecords(connection) ?? [:])
            if let first = pending.first {
                throw FerryStoreError(
                    .notMigrated, "definition \(first.order)_\(first.name) is not applied in this build's text",
                    fix: "run ferry migrate")
            }
        }
    }

    /// What `ferry.schema_definitions` holds: per name, every checksum applied, the latest first; nil when the
    /// table does not exist (a database before migration 0028).
    static func definitionRecords(_ connection: PostgresConnection) throws -> [String: [String]]? {
        let exists = try connection.query("SELECT to_regclass('ferry.schema_definitions') IS NOT NULL AS exists")
        guard try exists.rows[0].decode(Bool.self, column: "exists") else { return nil }
        var records = [String: [String]]()
        for row in try connection.query(
            "SELECT name, checksum FROM ferry.schema_definitions ORDER BY name, applied_at DESC, checksum").rows {
            records[try row.decode(String.self, column: "name"), default: []].append(try row.decode(String.self, column: "checksum"))
        }
        return records
    }

    /// The definitions to apply, in order: those never applied or whose text is new. Throws when a definition's
    /// text is one the database replaced since (this build is older than the database).
    static func pending(_ definitions: [Definition], records: [String: [String]]) throws -> [Definition] {
        var pending = [Definition]()
        for definition in definitions {
            let history = records[definition.name] ?? []
            if history.first == definition.checksum { continue }
            if history.contains(definition.checksum) {
                throw FerryStoreError(
                    .migrationUnknown,
                    "the database has a newer definition of \(definition.name) than this ferry build "
                        + "(\(definition.order)_\(definition.name).sql was replaced since it was applied)",
                    fix: "upgrade ferry to the build that applied it; to revert a definition on purpose, change its text")
            }
            pending.append(definition)
        }
        return pending
    }

    /// The baseline when this build's migrations hold every history file it stands for, with the same checksum;
    /// nil otherwise (a caller migrating to an older version passes fewer files, and replays them).
    static func usable(_ baseline: MigrationBaseline, with migrations: [Migration]) -> MigrationBaseline? {
        let known = Set(migrations)
        return baseline.covers.allSatisfy(known.contains) && !baseline.covers.isEmpty ? baseline : nil
    }

    /// Applies the baseline and records the history files it stands for, in one transaction; returns them, or
    /// nothing when another migrator recorded a migration first.
    static func apply(_ baseline: MigrationBaseline, _ connection: PostgresConnection, logger: Logger) throws -> [Migration] {
        try connection.transaction { tx -> [Migration] in
            try tx.query("SELECT pg_advisory_xact_lock($1)", [Self.lockKey])
            guard try tx.query("SELECT 1 FROM ferry.schema_migrations LIMIT 1").rows.isEmpty else { return [] }
            logger.info(
                "applying the baseline", metadata: ["through": "\(baseline.covers.last?.version ?? 0)", "file": "\(MigrationBaseline.file)"])
            try tx.execute(baseline.sql)
            for migration in baseline.covers {
                try tx.query(
                    "INSERT INTO ferry.schema_migrations (version, name, checksum) VALUES ($1, $2, $3)",
                    [migration.version, migration.name, migration.checksum])
            }
            return baseline.covers
        }
    }

    static func appliedChecksums(_ connection: PostgresConnection) throws -> [Int: (name: String, checksum: String)] {
        var applied = [Int: (name: String, checksum: String)]()
        for row in try connection.query("SELECT version, name, checksum FROM ferry.schema_migrations").rows {
            applied[try row.decode(Int.self, column: "version")] =
                (try row.decode(String.self, column: "name"), try row.decode(String.self, column: "checksum"))
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
