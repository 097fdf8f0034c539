import FerryTestSupport
import Foundation
import Postgres
import Testing

/// Prepared statements on a real server: a repeated statement is prepared once and gives the same answers; a
/// migration that changes its result type, a session that lost it (as behind a transaction-mode pooler) and
/// eviction are all survived without a caller seeing anything but its answer (outside a transaction block).
@Suite("prepared statements", .tags(.postgres))
struct PreparedStatementTests {
    /// The statements the server holds for this session.
    static func serverStatements(_ connection: PostgresConnection) throws -> Int {
        try connection.query("SELECT count(*) FROM pg_prepared_statements WHERE name LIKE 'ferry\\_%'").rows[0].decode(Int.self, at: 0)
    }

    @Test("a repeated statement is prepared on its second use and answers as before; off prepares nothing")
    func preparesRepeatedStatements() async throws {
        let db = try await TestDatabase.make("prepared")
        for enabled in [true, false] {
            let client = db.client(poolSize: 1, preparedStatements: enabled)
            defer { client.close() }
            let (answers, held) = try await client.withConnection { connection in
                let answers = try (0..<5).map { index in
                    try connection.query("SELECT $1::int * 2 AS doubled, $2::text AS label", [index, "x\(index)"]).rows[0]
                }.map { (try $0.decode(Int.self, column: "doubled"), try $0.decode(String.self, column: "label")) }
                return (answers.map { "\($0.0)/\($0.1)" }, try Self.serverStatements(connection))
            }
            #expect(answers == ["0/x0", "2/x1", "4/x2", "6/x3", "8/x4"])
            #expect(held == (enabled ? 1 : 0), "prepared on the server: \(held) with prepared statements \(enabled)")
        }
    }

    @Test("a statement whose result type a migration changed is prepared again (0A000), in and out of transactions")
    func resultTypeChange() async throws {
        let db = try await TestDatabase.make("preparedalter")
        let client = db.client(poolSize: 1, preparedStatements: true)
        defer { client.close() }
        let sql = "SELECT * FROM t WHERE n >= $1 ORDER BY n"
        try await client.withConnection { connection in
            try connection.execute("CREATE TABLE t (n int); INSERT INTO t VALUES (1), (2)")
            for _ in 0..<3 { #expect(try connection.query(sql, [1]).rows.count == 2) }
            #expect(connection.preparedStatementCount >= 1)
            try connection.execute("ALTER TABLE t ADD COLUMN label text DEFAULT 'new'")
            let after = try connection.query(sql, [1])
            #expect(after.columns.names == ["n", "label"])
            #expect(try after.rows[0].decode(String.self, column: "label") == "new")
            for _ in 0..<2 { _ = try connection.query(sql, [1]) }
            try connection.execute("ALTER TABLE t DROP COLUMN label")
        }
        // Inside a transaction block the error stands (the block is aborted either way); the next use works.
        await #expect(throws: PostgresError.self) {
            try await client.withTransaction { try $0.query(sql, [1]) }
        }
        let rows = try await client.withConnection { try $0.query(sql, [1]).rows.count }
        #expect(rows == 2)
    }

    @Test("statements the session lost (DISCARD ALL, as a pooler lending another session) turn preparing off, answers unchanged")
    func lostStatements() async throws {
        let db = try await TestDatabase.make("preparedlost")
        let client = db.client(poolSize: 1, preparedStatements: true)
        defer { client.close() }
        try await client.withConnection { connection in
            for _ in 0..<3 { _ = try connection.query("SELECT $1::int + 1", [1]) }
            #expect(connection.preparesStatements)
            try connection.execute("DISCARD ALL")
            #expect(try connection.query("SELECT $1::int + 1", [41]).rows[0].decode(Int.self, at: 0) == 42)
            #expect(!connection.preparesStatements)
            for _ in 0..<3 { _ = try connection.query("SELECT $1::int + 2", [1]) }
            #expect(try Self.serverStatements(connection) == 0)
        }
    }

    @Test("beyond the cache's capacity the least recently used statements are deallocated on the server")
    func evictionDeallocates() async throws {
        let db = try await TestDatabase.make("preparedevict")
        var configuration = PostgresConfiguration(connectionString: db.url, poolSize: 1, preparedStatements: true)
        configuration.statementCacheCapacity = 3
        let client = PostgresClient(configuration: configuration)
        defer { client.close() }
        let held = try await client.withConnection { connection in
            for index in 0..<10 {
                for _ in 0..<2 { _ = try connection.query("SELECT $1::int + \(index)", [1]) }
            }
            _ = try connection.query("SELECT $1::int + 0", [1])  // a use that deallocates what waits
            return try Self.serverStatements(connection)
        }
        #expect(held <= 3)
    }
}
