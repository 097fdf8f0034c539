import Postgres

/// The single integer a counting query returns (`SELECT count(*) …`), run as the superuser on `db`: the one copy
/// of what eleven suites each spelled for themselves.
public func count(_ db: TestDatabase, _ sql: String, _ binds: [any PostgresBindable] = []) async throws -> Int {
    try await db.query(sql, binds).rows[0].decode(Int.self, at: 0)
}
