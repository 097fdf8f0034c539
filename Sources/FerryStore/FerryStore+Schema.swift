import Postgres

extension FerryStore {
    /// The newest migration applied to this database: 0 when it has no Ferry schema yet.
    ///
    /// Cheap (one lookup in `ferry.schema_migrations`), for readiness probes and for workers waiting for
    /// `ferry migrate`; `MigrationRunner.verifyUpToDate` is the full check (every file, checksums).
    public func appliedSchemaVersion() async throws -> Int {
        do {
            return try await client.withConnection { connection in
                let exists = try connection.query("SELECT to_regclass('ferry.schema_migrations') IS NOT NULL")
                guard try exists.rows[0].decode(Bool.self, at: 0) else { return 0 }
                return try connection.query("SELECT coalesce(max(version), 0) FROM ferry.schema_migrations")
                    .rows[0].decode(Int.self, at: 0)
            }
        } catch {
            throw Self.translate(error)
        }
    }
}
