import FerryCore
import FerryStore
import FerryTestSupport
import Foundation
import Postgres
import Testing

/// What a producer login can make the fleet do, bounded in SQL whoever writes (issue 30): listing filters in
/// `ferry.enqueue` and in raw events, and schedule events appended straight into `ferry.schedule_events`.
@Suite("producer input bounded in SQL", .tags(.postgres))
struct ProducerBoundsTests {
    /// A producer login of its own on `db`.
    static func producer(_ db: TestDatabase) async throws -> PostgresClient {
        let role = "bounds_p_\(UInt32.random(in: 0...UInt32.max))"
        try await db.query("CREATE ROLE \(role) LOGIN IN ROLE ferry_producer")
        return PostgresClient(
            configuration: PostgresConfiguration(connectionString: db.url.replacingOccurrences(of: "postgres@", with: "\(role)@"), poolSize: 1))
    }

    static func run(_ client: PostgresClient, _ sql: String, _ binds: [any PostgresBindable] = []) async throws {
        _ = try await client.withConnection { try $0.query(sql, binds) }
    }

    /// The filter option as `ferry enqueue --include`/`--exclude` write it, with `rules` as given.
    static func filter(_ rules: [(String, String)]) -> String {
        JSONValue.object(["rules": .array(rules.map { .array([.string($0.0), .string($0.1), .string("test")]) })]).jsonText
    }

    static let braces = String(repeating: "{a,b}", count: 26)

    /// The field PostgreSQL names in COLUMN for a refusal with SQLSTATE 22023, or nil when it was not refused so.
    static func refusedField(_ body: () async throws -> Void) async -> String? {
        do {
            try await body()
            return nil
        } catch let error as PostgresError where error.sqlState == .invalidParameterValue {
            return error.column ?? "?"
        } catch {
            return "unexpected: \(error)"
        }
    }

    @Test("ferry.enqueue takes the 26-group brace filter (linear for workers) but refuses filters past each limit")
    func enqueueFilters() async throws {
        let db = try await TestDatabase.make("producer_filters")
        let producer = try await Self.producer(db)
        defer { producer.close() }
        func enqueue(_ filter: String) async throws {
            try await Self.run(
                producer, "SELECT ferry.enqueue('fetch', 'https://example.com/photos/', '/tmp/out/', jsonb_build_object('options', jsonb_build_object('filter', $1::text)))",
                [filter])
        }
        try await enqueue(Self.filter([("-", Self.braces), ("+", "*.jpg")]))
        let tooMany = (0..<1001).map { ("-", "x\($0)") }
        let cases: [(String, String)] = [
            ("rules", Self.filter(tooMany)),
            ("long pattern", Self.filter([("-", String(repeating: "a", count: 1025))])),
            ("alternatives", Self.filter([("-", String(repeating: "{a,b}", count: 129))])),
            ("total", Self.filter((0..<70).map { ("-", String(repeating: "z", count: 1000) + "\($0)") })),
            ("not JSON", "{rules: nope"),
            ("bad rule", #"{"rules": [["*", "x", "y"]]}"#),
        ]
        for (name, filter) in cases {
            let field = await Self.refusedField { try await enqueue(filter) }
            #expect(field == "filter", "\(name): \(field ?? "accepted")")
        }
        #expect(try await db.query("SELECT count(*) FROM ferry.jobs").rows[0].decode(Int.self, at: 0) == 1)
    }

    @Test("a raw enqueued event whose resolved spec carries an oversized filter is refused")
    func rawEventFilter() async throws {
        let db = try await TestDatabase.make("producer_raw_filter")
        let producer = try await Self.producer(db)
        defer { producer.close() }
        let rules = JSONValue.array((0..<1001).map { _ in .array([.string("-"), .string("x"), .string("o")]) })
        let data = JSONValue.object([
            "kind": .string("fetch"), "queue": .string("default"), "priority": .int(0), "max_attempts": .int(3),
            "source": .string("https://example.com/photos/"), "destination": .string("/tmp/out/"),
            "spec": .object(["filter": .object(["rules": rules])]),
        ])
        let field = await Self.refusedField {
            try await Self.run(
                producer, "INSERT INTO ferry.events (job_id, version, type, data) VALUES (ferry.uuid_v7(), 1, 'enqueued', $1::jsonb)",
                [PostgresJSON(text: data.jsonText)])
        }
        #expect(field != nil && field?.hasPrefix("unexpected") == false, "\(field ?? "accepted")")
        #expect(try await db.query("SELECT count(*) FROM ferry.events").rows[0].decode(Int.self, at: 0) == 0)
    }

    /// A schedule's data as `ferry schedule add` writes it, with `template` and `every` as given.
    static func schedule(template: JSONValue, every: Int64 = 3600) -> String {
        JSONValue.object([
            "every_seconds": .int(every), "timezone": .string("UTC"), "next_tick": .string("2030-01-01T00:00:00Z"),
            "overlap": .string("skip"), "template": template,
        ]).jsonText
    }

    static func fetchTemplate(options: [String: JSONValue] = [:]) -> JSONValue {
        .object(["kind": .string("fetch"), "source": .string("s3:box:bucket/p/"), "to": .string("/tmp/out/"), "options": .object(options)])
    }

    @Test("schedule events from a producer get the CLI's checks: a minute at least, folders only, bounded filters, no hidden fields")
    func scheduleEvents() async throws {
        let db = try await TestDatabase.make("producer_schedules")
        let producer = try await Self.producer(db)
        defer { producer.close() }
        func add(_ name: String, _ data: String) async -> String? {
            await Self.refusedField {
                try await Self.run(
                    producer, "INSERT INTO ferry.schedule_events (schedule, type, data) VALUES ($1, 'added', $2::jsonb)",
                    [name, PostgresJSON(text: data)])
            }
        }
        // What the CLI writes is taken, the brace filter included (workers match it in linear time).
        #expect(await add("fine", Self.schedule(template: Self.fetchTemplate(options: ["filter": .string(Self.filter([("-", Self.braces)]))]))) == nil)
        let upload = JSONValue.object(["kind": .string("upload"), "source": .string("/etc/shadow"), "to": .string("s3:box:bucket/x")])
        let tree = JSONValue.object(["kind": .string("upload"), "source": .string("/srv/photos"), "to": .string("s3:box:bucket/x/"), "options": .object(["tree": .bool(true)])])
        #expect(await add("tree", Self.schedule(template: tree)) == nil)
        let refused: [(String, String, String)] = [
            ("every-second", Self.schedule(template: Self.fetchTemplate(), every: 1), "every_seconds"),
            ("single-file", Self.schedule(template: upload), "template.kind"),
            ("filter", Self.schedule(template: Self.fetchTemplate(options: ["filter": .string(Self.filter([("-", String(repeating: "{a,b}", count: 200))]))])), "filter"),
            ("dotdot", Self.schedule(template: .object(["kind": .string("fetch"), "source": .string("s3:box:b/p/"), "to": .string("/tmp/../etc/")])), "destination"),
            ("hidden-key", Self.schedule(template: .object(["kind": .string("fetch"), "source": .string("s3:box:b/p/"), "to": .string("/tmp/x/"), "key": .string("k")])), "template"),
            ("both", #"{"every_seconds": 60, "cron": "* * * * *", "timezone": "UTC", "next_tick": "2030-01-01T00:00:00Z", "template": {}}"#, "every_seconds"),
        ]
        for (name, data, expected) in refused {
            #expect(await add(name, data) == expected, "\(name)")
        }
        #expect(try await db.query("SELECT count(*) FROM ferry.schedules").rows[0].decode(Int.self, at: 0) == 2)
        // A pause's reason is shown to operators: printable only.
        let escape = await Self.refusedField {
            try await Self.run(
                producer, "INSERT INTO ferry.schedule_events (schedule, type, data) VALUES ('fine', 'paused', $1::jsonb)",
                [PostgresJSON(text: #"{"reason": "\u001b[2Jgone"}"#)])
        }
        #expect(escape == "data")
    }
}
