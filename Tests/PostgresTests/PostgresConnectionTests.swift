import FerryTestSupport
import Foundation
import Postgres
import Testing

@Suite("libpq connection layer", .tags(.postgres))
struct PostgresConnectionTests {
    @Test("typed values round-trip through parameters and results")
    func typedRoundTrip() async throws {
        let db = try await TestDatabase.make("types")
        let client = db.client(poolSize: 1)
        defer { client.close() }
        let id = UUID()
        let stamp = PostgresTimestamp(microseconds: 1_795_000_000_123_456)
        let bytes = PostgresBytes([0, 1, 2, 0xFE, 0xFF, 0x5C])
        let row = try await client.withConnection { connection in
            try connection.query(
                """
                SELECT $1::text, $2::bigint, $3::int, $4::bool, $5::uuid, $6::timestamptz, $7::jsonb, $8::bytea,
                       $9::text, NULL::int, $10::text[]
                """,
                [
                    "héllo\t\"quoted\" \\ ☃", Int64.max, Int32.min, true, id, stamp, PostgresJSON(text: #"{"a": [1, 2]}"#),
                    bytes, String?.none, PostgresArray(["a,b", "c\"d", "e\\f"]),
                ]
            ).rows[0]
        }
        #expect(try row.decode(String.self, at: 0) == "héllo\t\"quoted\" \\ ☃")
        #expect(try row.decode(Int64.self, at: 1) == Int64.max)
        #expect(try row.decode(Int32.self, at: 2) == Int32.min)
        #expect(try row.decode(Bool.self, at: 3) == true)
        #expect(try row.decode(UUID.self, at: 4) == id)
        #expect(try row.decode(PostgresTimestamp.self, at: 5) == stamp)
        #expect(try row.decode(PostgresJSON.self, at: 6).text == #"{"a": [1, 2]}"#)
        #expect(try row.decode(PostgresBytes.self, at: 7) == bytes)
        #expect(try row.decode(String?.self, at: 8) == nil)
        #expect(try row.decode(Int?.self, at: 9) == nil)
        #expect(throws: PostgresError.self) { try row.decode(Int.self, at: 9) }
        #expect(try row.decode(String.self, at: 10) == #"{"a,b","c\"d","e\\f"}"#)
    }

    @Test("server errors carry SQLSTATE and constraint, and descriptions never leak values")
    func errorsAreTypedAndSafe() async throws {
        let db = try await TestDatabase.make("errors")
        let client = db.client(poolSize: 1)
        defer { client.close() }
        let secret = "sl.SECRET-token-value-123"
        let error = await #expect(throws: PostgresError.self) {
            try await client.withConnection { connection in
                try connection.execute("CREATE TABLE t (k text CONSTRAINT t_k_key UNIQUE)")
                try connection.query("INSERT INTO t VALUES ($1)", [secret])
                try connection.query("INSERT INTO t VALUES ($1)", [secret])
            }
        }
        #expect(error?.sqlState == .uniqueViolation)
        #expect(error?.constraint == "t_k_key")
        #expect(error?.detail?.contains(secret) == true, "the detail keeps the server's words for deliberate use")
        #expect(error?.description.contains(secret) == false)

        let castError = await #expect(throws: PostgresError.self) {
            try await client.withConnection { try $0.query("SELECT $1::uuid", [secret]) }
        }
        #expect(castError?.sqlState == .invalidTextRepresentation)
        #expect(castError?.description.contains(secret) == false)
        #expect(castError?.serverMessage?.contains(secret) == true)
    }

    @Test("a write refused as read-only (25006) drops the connection: the next call opens a new one, as after a failover")
    func readOnlyRefusalReconnects() async throws {
        let db = try await TestDatabase.make("readonlydrop")
        let client = db.client(poolSize: 1)
        defer { client.close() }
        let pid = { try await client.withConnection { try $0.query("SELECT pg_backend_pid()").rows[0].decode(Int32.self, at: 0) } }
        let first = try await pid()
        #expect(try await pid() == first, "a healthy connection is kept")
        do {
            try await client.withConnection { connection in
                try connection.execute("SET default_transaction_read_only = on")
                try connection.execute("CREATE TABLE refused (x int)")
            }
            Issue.record("the write was not refused")
        } catch let error as PostgresError {
            #expect(error.sqlState == .readOnlySQLTransaction && error.refusesWrites)
        }
        #expect(try await pid() != first, "the refused connection was dropped")
    }

    @Test("a throwing transaction rolls back everything")
    func transactionRollsBack() async throws {
        let db = try await TestDatabase.make("tx")
        let client = db.client(poolSize: 1)
        defer { client.close() }
        try await client.withConnection { try $0.execute("CREATE TABLE t (n int)") }
        struct Boom: Error {}
        await #expect(throws: Boom.self) {
            try await client.withTransaction { connection in
                try connection.query("INSERT INTO t VALUES (1)")
                throw Boom()
            }
        }
        _ = try await client.withTransaction { try $0.query("INSERT INTO t VALUES (2)") }
        let count = try await client.withConnection { try $0.query("SELECT count(*), max(n) FROM t").rows[0] }
        #expect(try count.decode(Int.self, at: 0) == 1)
        #expect(try count.decode(Int.self, at: 1) == 2)
    }

    @Test("COPY FROM STDIN escapes tabs, newlines, backslashes and NULLs, and an aborted COPY keeps nothing")
    func copyIn() async throws {
        let db = try await TestDatabase.make("copy")
        let client = db.client(poolSize: 1)
        defer { client.close() }
        let values: [String?] = ["plain", "tab\there", "new\nline", "back\\slash", "cr\rx", nil, "\\N", "ünï☃"]
        let copied = try await client.withConnection { connection in
            try connection.execute("CREATE TABLE t (i int, v text)")
            return try connection.copyIn("COPY t (i, v) FROM STDIN") { writer in
                for (index, value) in values.enumerated() { try writer.writeRow([String(index), value]) }
            }
        }
        #expect(copied == values.count)
        let rows = try await client.withConnection { try $0.query("SELECT v FROM t ORDER BY i").rows }
        #expect(try rows.map { try $0.decode(String?.self, at: 0) } == values)

        struct Abort: Error {}
        await #expect(throws: Abort.self) {
            try await client.withConnection { connection in
                try connection.copyIn("COPY t (i, v) FROM STDIN") { writer in
                    try writer.writeRow(["100", "partial"])
                    throw Abort()
                }
            }
        }
        let after = try await client.withConnection { try $0.query("SELECT count(*) FROM t").rows[0] }
        #expect(try after.decode(Int.self, at: 0) == values.count)
        // The connection is usable after the aborted COPY.
        let ok = try await client.withConnection { try $0.query("SELECT 1").rows.count }
        #expect(ok == 1)
    }

    @Test("COPY TO STDOUT streams rows that decode back to the stored values; a failing reader leaves the connection usable")
    func copyOut() async throws {
        let db = try await TestDatabase.make("copyout")
        let client = db.client(poolSize: 1)
        defer { client.close() }
        let values: [String?] = ["plain", "tab\there", "new\nline", "back\\slash", "cr\rx", nil, "\\N", "ünï☃", ""]
        let decoded = try await client.withConnection { connection -> [[String?]] in
            try connection.execute("CREATE TABLE t (i int, v text)")
            try connection.copyIn("COPY t (i, v) FROM STDIN") { writer in
                for (index, value) in values.enumerated() { try writer.writeRow([String(index), value]) }
            }
            var rows = [[String?]]()
            let count = try connection.copyOut("COPY (SELECT i, v FROM t ORDER BY i) TO STDOUT") { row in
                rows.append(PostgresCopyRow.fields(row))
            }
            #expect(count == values.count)
            return rows
        }
        #expect(decoded.map { $0[0] } == values.indices.map { String($0) })
        #expect(decoded.map { $0[1] } == values)

        struct Stop: Error {}
        await #expect(throws: Stop.self) {
            try await client.withConnection { connection in
                try connection.copyOut("COPY (SELECT generate_series(1, 10000)) TO STDOUT") { _ in throw Stop() }
            }
        }
        let ok = try await client.withConnection { try $0.query("SELECT 1").rows.count }
        #expect(ok == 1)
    }

    @Test("LISTEN/NOTIFY delivers notifications and times out when there are none")
    func notifications() async throws {
        let db = try await TestDatabase.make("notify")
        let listener = db.client(poolSize: 1)
        let sender = db.client(poolSize: 1)
        defer {
            listener.close()
            sender.close()
        }
        try await listener.withConnection { try $0.listen("ferry test channel") }
        let empty = try await listener.withConnection { try $0.waitForNotifications(timeout: .milliseconds(100)) }
        #expect(empty.isEmpty)
        try await sender.withConnection { try $0.notify("ferry test channel", payload: "hello") }
        let received = try await listener.withConnection { try $0.waitForNotifications(timeout: .seconds(10)) }
        #expect(received.map(\.channel) == ["ferry test channel"])
        #expect(received.first?.payload == "hello")
    }

    @Test("a connection that never called listen() drops notifications (a pooler may lend it a LISTENing server connection)")
    func strayNotificationsDropped() async throws {
        let db = try await TestDatabase.make("stray")
        let borrower = db.client(poolSize: 1)
        let sender = db.client(poolSize: 1)
        defer {
            borrower.close()
            sender.close()
        }
        // As PgBouncer in transaction mode: the server session LISTENs, the client never asked to.
        try await borrower.withConnection { try $0.execute("LISTEN stray") }
        try await sender.withConnection { try $0.notify("stray", payload: "one") }
        try await Task.sleep(for: .milliseconds(200))
        _ = try await borrower.withConnection { try $0.query("SELECT 1") }
        let kept = try await borrower.withConnection { try $0.waitForNotifications(timeout: .milliseconds(300)) }
        #expect(kept.isEmpty, "\(kept)")
        // One that listened keeps them across queries.
        try await borrower.withConnection { try $0.listen("stray") }
        try await sender.withConnection { try $0.notify("stray", payload: "two") }
        try await Task.sleep(for: .milliseconds(200))
        _ = try await borrower.withConnection { try $0.query("SELECT 1") }
        let received = try await borrower.withConnection { try $0.waitForNotifications(timeout: .seconds(10)) }
        #expect(received.map(\.payload) == ["two"])
    }

    @Test("a connection killed by the server is replaced on the next call")
    func reconnectsAfterTermination() async throws {
        let db = try await TestDatabase.make("reconnect")
        let client = db.client(poolSize: 1)
        let admin = db.client(poolSize: 1)
        defer {
            client.close()
            admin.close()
        }
        let pid = try await client.withConnection { $0.backendPID }
        _ = try await admin.withConnection { try $0.query("SELECT pg_terminate_backend($1)", [pid]) }
        await #expect(throws: PostgresError.self) {
            try await client.withConnection { try $0.query("SELECT 1") }
        }
        let newPID = try await client.withConnection { $0.backendPID }
        #expect(newPID != pid)
        let value = try await client.withConnection { try $0.query("SELECT 41 + 1").rows[0].decode(Int.self, at: 0) }
        #expect(value == 42)
    }

    @Test("blocking libpq calls run on the connection's own thread, never on the cooperative pool")
    func blockingWorkOffCooperativePool() async throws {
        let db = try await TestDatabase.make("threads")
        let client = db.client(poolSize: 3)
        defer { client.close() }
        // Three connections each sleep 0.5 s in the server at once, on a 2-core machine: if they ran on the
        // cooperative pool this task group could not also finish the counting task promptly.
        let names = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<3 {
                group.addTask {
                    try await client.withConnection { connection in
                        try connection.query("SELECT pg_sleep(0.5)")
                        return PostgresClient.isOnConnectionThread ? "connection thread" : "elsewhere"
                    }
                }
            }
            var names = [String]()
            for try await name in group { names.append(name) }
            return names
        }
        #expect(names == ["connection thread", "connection thread", "connection thread"])
        #expect(!PostgresClient.isOnConnectionThread)
    }

    @Test("connection failures are typed as connection loss")
    func unreachableServer() async throws {
        let client = PostgresClient(
            configuration: PostgresConfiguration(connectionString: "postgresql://127.0.0.1:1/none", connectTimeoutSeconds: 2))
        defer { client.close() }
        let error = await #expect(throws: PostgresError.self) {
            try await client.withConnection { try $0.query("SELECT 1") }
        }
        #expect(error?.code == .connectionFailed)
        #expect(error?.isConnectionLoss == true)
    }
}
