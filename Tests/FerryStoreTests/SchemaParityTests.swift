import FerryCore
import FerryStore
import FerryTestSupport
import Foundation
import Postgres
import Testing

/// Lists and limits that exist both in Swift and in SQL: the events table's types and `ferry.enqueue`'s checks
/// must say what `JobEventType` and `JobLimits` say, or one path accepts what the other refuses.
@Suite("schema parity", .tags(.postgres))
struct SchemaParityTests {
    @Test("the event types ferry.events accepts are JobEventType's cases")
    func eventTypes() async throws {
        let db = try await TestDatabase.make("parity")
        let check = try await db.query(
            "SELECT pg_get_constraintdef(oid) FROM pg_constraint WHERE conrelid = 'ferry.events'::regclass AND conname = $1",
            ["events_type_check"]
        ).rows[0].decode(String.self, at: 0)
        let quoted = try Regex(#"'([a-z_]+)'::text"#)
        let types = Set(check.matches(of: quoted).compactMap { $0.output[1].substring.map(String.init) })
        #expect(types == Set(JobEventType.allCases.map(\.rawValue)))
    }

    @Test("the roles' event lists in ferry.authorize_events cover JobEventType; lease-holding events are workers'")
    func authorizedEventTypes() throws {
        let definitions = try Definition.load(fromMigrations: TestDatabase.migrationsDirectory)
        let sql = try #require(definitions.first { $0.name == "authorize_events" }).sql
        func list(_ name: String) throws -> Set<String> {
            let array = try Regex("\(name)\\s+CONSTANT\\s+text\\[\\]\\s*:=\\s*ARRAY\\[([^\\]]*)\\]")
            let match = try #require(sql.firstMatch(of: array), "\(name) not found")
            let items = String(try #require(match.output[1].substring))
            return Set(items.matches(of: try Regex("'([a-z_]+)'")).compactMap { $0.output[1].substring.map(String.init) })
        }
        let workers = try list("worker_types"), producers = try list("producer_types")
        let all = Set(JobEventType.allCases.map(\.rawValue))
        #expect(workers.union(producers) == all)
        #expect(Set(JobEventType.allCases.filter(\.requiresLease).map(\.rawValue)).isSubset(of: workers))
    }

    /// Enqueues through `ferry.enqueue` with `options` (a JSON object); nil when it refuses them.
    static func enqueue(_ db: TestDatabase, _ options: [String: JSONValue]) async throws -> UUID? {
        do {
            return try await db.query(
                "SELECT ferry.enqueue('fetch', $1, '/srv/in/', $2::jsonb)",
                ["https://example.com/\(UUID().uuidString).jpg", JSONValue.object(options).jsonText]
            ).rows[0].decode(UUID.self, at: 0)
        } catch let error as PostgresError where error.sqlState?.code == "22023" {
            return nil
        }
    }

    @Test("ferry.enqueue applies JobLimits' defaults and bounds")
    func enqueueLimits() async throws {
        let db = try await TestDatabase.make("limits")
        let id = try #require(try await Self.enqueue(db, [:]))
        let row = try await db.query("SELECT queue, priority, max_attempts FROM ferry.jobs WHERE job_id = $1", [id]).rows[0]
        #expect(try row.decode(String.self, at: 0) == JobLimits.defaultQueue)
        #expect(try row.decode(Int64.self, at: 1) == JobLimits.defaultPriority)
        #expect(try row.decode(Int64.self, at: 2) == JobLimits.defaultMaxAttempts)

        for (field, range) in [("priority", JobLimits.priorityRange), ("max_attempts", JobLimits.maxAttemptsRange)] {
            #expect(try await Self.enqueue(db, [field: .int(range.lowerBound)]) != nil, "\(field) \(range.lowerBound)")
            #expect(try await Self.enqueue(db, [field: .int(range.upperBound)]) != nil, "\(field) \(range.upperBound)")
            #expect(try await Self.enqueue(db, [field: .int(range.lowerBound - 1)]) == nil, "\(field) \(range.lowerBound - 1)")
            #expect(try await Self.enqueue(db, [field: .int(range.upperBound + 1)]) == nil, "\(field) \(range.upperBound + 1)")
        }
        for (field, bytes) in [("batch", JobLimits.maxBatchNameBytes), ("key", JobLimits.maxKeyBytes)] {
            #expect(try await Self.enqueue(db, [field: .string(String(repeating: "b", count: bytes))]) != nil, "\(field) of \(bytes) bytes")
            #expect(try await Self.enqueue(db, [field: .string(String(repeating: "c", count: bytes + 1))]) == nil, "\(field) of \(bytes + 1) bytes")
        }
        #expect(JobLimits.isValidQueueName(String(repeating: "q", count: 63)))
        #expect(!JobLimits.isValidQueueName(String(repeating: "q", count: 64)))
        #expect(try await Self.enqueue(db, ["queue": .string(String(repeating: "q", count: 63))]) != nil)
        #expect(try await Self.enqueue(db, ["queue": .string(String(repeating: "q", count: 64))]) == nil)
        // {"m": "…"} as jsonb text is 9 bytes around the value.
        let fits = JobLimits.maxMetadataBytes - 9
        #expect(try await Self.enqueue(db, ["metadata": .object(["m": .string(String(repeating: "m", count: fits))])]) != nil)
        #expect(try await Self.enqueue(db, ["metadata": .object(["m": .string(String(repeating: "m", count: fits + 1))])]) == nil)
        let formatter = ISO8601DateFormatter()
        let ahead = JobLimits.maxScheduleAheadSeconds
        #expect(try await Self.enqueue(db, ["run_at": .string(formatter.string(from: Date().addingTimeInterval(ahead - 3600)))]) != nil)
        #expect(try await Self.enqueue(db, ["run_at": .string(formatter.string(from: Date().addingTimeInterval(ahead + 3600)))]) == nil)
    }

    @Test("the check on enqueued events written directly (ferry.enqueued_ok) names JobLimits' numbers")
    func enqueuedEventLimits() throws {
        let definitions = try Definition.load(fromMigrations: TestDatabase.migrationsDirectory)
        let check = try #require(definitions.first { $0.name == "enqueued_ok" }).sql
        let priority = JobLimits.priorityRange, attempts = JobLimits.maxAttemptsRange
        #expect(check.contains("'priority')::numeric BETWEEN \(priority.lowerBound) AND \(priority.upperBound)"))
        #expect(check.contains("'max_attempts')::numeric BETWEEN \(attempts.lowerBound) AND \(attempts.upperBound)"))
        #expect(check.contains("octet_length(d ->> 'batch') <= \(JobLimits.maxBatchNameBytes)"))
        #expect(check.contains("octet_length(d ->> 'key') <= \(JobLimits.maxKeyBytes)"))
        #expect(check.contains("octet_length((d -> 'metadata')::text) <= \(JobLimits.maxMetadataBytes)"))
    }
}
