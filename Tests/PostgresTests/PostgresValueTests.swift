import FerryTestSupport
import Foundation
import Postgres
import Testing

@Suite("value encoding and decoding", .tags(.fast))
struct PostgresValueTests {
    @Test(
        "timestamps parse PostgreSQL's and ISO 8601 forms exactly",
        arguments: [
            ("2026-11-21 18:30:00.123456+00", Int64(1_795_285_800_123_456)),
            ("2026-11-21T18:30:00.123456Z", Int64(1_795_285_800_123_456)),
            ("2026-11-21 19:30:00.5+01", Int64(1_795_285_800_500_000)),
            ("1970-01-01 00:00:00+00", Int64(0)),
            ("1969-12-31 23:59:59.999999+00", Int64(-1)),
            ("2000-02-29 12:00:00-05:30", Int64(951_845_400_000_000)),
        ])
    func timestampParsing(text: String, micros: Int64) throws {
        let parsed = try #require(PostgresTimestamp(parsing: text))
        #expect(parsed.microseconds == micros)
        #expect(PostgresTimestamp(parsing: parsed.iso8601) == parsed)
    }

    @Test("malformed timestamps are refused", arguments: ["", "2026-13-01 00:00:00", "2026-11-21", "2026-11-21 18:30:00 UTC", "yesterday"])
    func badTimestamps(text: String) {
        #expect(PostgresTimestamp(parsing: text) == nil)
    }

    @Test("identifiers are quoted and literals escaped")
    func quoting() {
        #expect(PostgresIdentifier("ferry_jobs").quoted == "\"ferry_jobs\"")
        #expect(PostgresIdentifier("we\"ird; DROP TABLE x").quoted == "\"we\"\"ird; DROP TABLE x\"")
        #expect(postgresLiteral("it's") == "'it''s'")
    }

    @Test("SQLSTATE classes")
    func sqlStates() {
        #expect(SQLState("08006").isConnectionLoss)
        #expect(SQLState.adminShutdown.isConnectionLoss)
        #expect(!SQLState.uniqueViolation.isConnectionLoss)
        #expect(SQLState.serializationFailure.isTransient)
    }
}
