import Postgres

extension FerryStore {
    /// The newest migration applied to this database: 0 when it has no Ferry schema yet.
    ///
    /// Cheap (one lookup in `ferry.schema_version`, which every role may read), for readiness probes and for workers waiting for
    /// `ferry migrate`; `MigrationRunner.verifyUpToDate` is the full check (every file, checksums).
    public func appliedSchemaVersion() async throws -> Int {
        do {
            return try await client.withConnection { connection in
                let found = try connection.query(
                    "SELECT to_regclass('ferry.schema_migrations') IS NOT NULL AS table, to_regclass('ferry.schema_version') IS NOT NULL AS view"
                ).rows[0]
                guard try found.decode(Bool.self, column: "table") else { return 0 }
                // The view (schema 36) is what every role may read; before it, only the table was there.
                let source = try found.decode(Bool.self, column: "view")
                    ? "SELECT version FROM ferry.schema_version"
                    : "SELECT coalesce(max(version), 0) AS version FROM ferry.schema_migrations"
                return try connection.query(source).rows[0].decode(Int.self, column: "version")
            }
        } catch {
            throw Self.translate(error)
        }
    }
}

extension FerryStore {
    /// Refuses to go on against a database without this build's schema (exit 78 in the CLI, "run ferry migrate"):
    /// an older schema would take writes this build makes differently, or lack the checks it relies on. A newer
    /// schema is accepted (migrate first, then roll out binaries). A login that may not read
    /// `ferry.schema_migrations` is not checked here; what it can do fails on its own privileges.
    public func requireCurrentSchema(_ expected: Int = FerryRelease.schemaVersion) async throws {
        let found: Int
        do {
            found = try await appliedSchemaVersion()
        } catch let error as PostgresError where error.sqlState == .insufficientPrivilege {
            return
        }
        if found == 0 {
            throw FerryStoreError(.notMigrated, "the database has no Ferry schema", fix: "run ferry migrate first")
        }
        if found < expected {
            throw FerryStoreError(
                .notMigrated, "the database has schema \(found), and \(FerryRelease.description) needs schema \(expected)",
                fix: "run ferry migrate with this release, then try again")
        }
    }
}
