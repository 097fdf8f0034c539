import FerryCore
import Logging
import Postgres

extension MigrationRunner {
    /// The catalog's rows as a relation, from the one JSON bind parameter `$1`.
    static let catalogRows = """
        SELECT scheme, kind, name, provider, type, choices, min, max
          FROM jsonb_to_recordset($1::jsonb)
            AS r(scheme text, kind text, name text, provider text, type text, choices text[], min bigint, max bigint)
        """

    /// True when `ferry.provider_options` holds other rows than `catalog` (false when the table does not exist yet:
    /// a database before migration 0033 has nothing to compare).
    static func differs(_ catalog: ProviderOptionCatalog, _ connection: PostgresConnection) throws -> Bool {
        let exists = try connection.query("SELECT to_regclass('ferry.provider_options') IS NOT NULL AS exists")
        guard try exists.rows[0].decode(Bool.self, column: "exists") else { return false }
        let rows = try connection.query(
            """
            WITH wanted AS (\(catalogRows)),
                 recorded AS (SELECT scheme, kind, name, provider, type, choices, min, max FROM ferry.provider_options)
            SELECT EXISTS (SELECT * FROM wanted EXCEPT SELECT * FROM recorded)
                OR EXISTS (SELECT * FROM recorded EXCEPT SELECT * FROM wanted) AS differs
            """, [catalog.json.jsonText])
        return try rows.rows[0].decode(Bool.self, column: "differs")
    }

    /// Rewrites `ferry.provider_options` with `catalog` when they differ, under the migration lock; returns whether
    /// it wrote. Concurrent migrators of the same build find nothing to do.
    static func write(_ catalog: ProviderOptionCatalog, _ connection: PostgresConnection, logger: Logger) throws -> Bool {
        try connection.transaction { tx in
            try tx.query("SELECT pg_advisory_xact_lock($1)", [lockKey])
            guard try differs(catalog, tx) else { return false }
            logger.info("writing provider options", metadata: ["options": "\(catalog.entries.count)"])
            try tx.query("DELETE FROM ferry.provider_options")
            try tx.query(
                "INSERT INTO ferry.provider_options (scheme, kind, name, provider, type, choices, min, max) \(catalogRows)",
                [catalog.json.jsonText])
            return true
        }
    }
}
