import FerryCore
import FerryStore
import FerryTestSupport
import Foundation
import Postgres
import Testing

/// Migration 0025: an `enqueued` event a producer appends directly (INSERT or COPY) obeys the rules of
/// `ferry.enqueue`, with the same error; `ferry.enqueue` refuses `..` in local paths, credentials in URLs and
/// overlong sources, and reports an out-of-range number as 22023 naming the field.
@Suite("raw enqueued events are checked like ferry.enqueue", .tags(.postgres))
struct RawEnqueueValidationTests {
    typealias Logins = LeastPrivilegeTests.Logins

    /// One hostile request: as the event data a raw INSERT appends, and as the ferry.enqueue call that asks for it.
    struct Case: CustomStringConvertible {
        var name: String
        var data: String
        var call: (kind: String, source: String, destination: String, options: String)
        var field: String
        var words: String
        var description: String { name }
    }

    static let base = #""queue": "default", "priority": 0, "max_attempts": 3"#

    static let cases: [Case] = [
        Case(
            name: "unknown kind", data: #"{"kind": "teleport", \#(base), "source": "/srv/in/a", "destination": "x"}"#,
            call: ("teleport", "/srv/in/a", "x", "{}"), field: "kind", words: "'teleport'"),
        Case(
            name: "queue with markup",
            data: #"{"kind": "fetch", "queue": "BAD Q <script>", "priority": 0, "max_attempts": 3, "source": "https://example.com/a", "destination": "/srv/in/"}"#,
            call: ("fetch", "https://example.com/a", "/srv/in/", #"{"queue": "BAD Q <script>"}"#), field: "queue", words: "queue names"),
        Case(
            name: "zero attempts",
            data: #"{"kind": "fetch", "queue": "default", "priority": 0, "max_attempts": 0, "source": "https://example.com/a", "destination": "/srv/in/"}"#,
            call: ("fetch", "https://example.com/a", "/srv/in/", #"{"max_attempts": 0}"#), field: "max_attempts", words: "from 1 to 1000"),
        Case(
            name: "3,000-byte batch",
            data: #"{"kind": "fetch", \#(base), "source": "https://example.com/a", "destination": "/srv/in/", "batch": "\#(String(repeating: "b", count: 3000))"}"#,
            call: ("fetch", "https://example.com/a", "/srv/in/", #"{"batch": "\#(String(repeating: "b", count: 3000))"}"#),
            field: "batch", words: "1-200 bytes"),
        Case(
            name: "credentials in a URL",
            data: #"{"kind": "fetch", \#(base), "source": "https://alice:hunter2@example.com/a.jpg", "destination": "/srv/in/"}"#,
            call: ("fetch", "https://alice:hunter2@example.com/a.jpg", "/srv/in/", "{}"), field: "source", words: "credentials"),
        Case(
            name: "'..' in an upload source",
            data: #"{"kind": "upload", \#(base), "source": "/srv/in/../../etc/shadow", "destination": "file:///srv/out/"}"#,
            call: ("upload", "/srv/in/../../etc/shadow", "file:///srv/out/", "{}"), field: "source", words: "'..'"),
        Case(
            name: "'..' in a local folder destination",
            data: #"{"kind": "upload", \#(base), "source": "/srv/files/a.txt", "destination": "file:///srv/in/../../../etc/cron.d/"}"#,
            call: ("upload", "/srv/files/a.txt", "file:///srv/in/../../../etc/cron.d/", "{}"), field: "destination", words: "'..'"),
        Case(
            name: "'..' escaped as %2e in a file URL",
            data: #"{"kind": "upload", \#(base), "source": "/srv/files/a.txt", "destination": "file:///srv/in/%2E%2e/x/"}"#,
            call: ("upload", "/srv/files/a.txt", "file:///srv/in/%2E%2e/x/", "{}"), field: "destination", words: "'..'"),
        Case(
            name: "'..' in a fetch target",
            data: #"{"kind": "fetch", \#(base), "source": "https://example.com/a", "destination": "/srv/in/../../root/.ssh/"}"#,
            call: ("fetch", "https://example.com/a", "/srv/in/../../root/.ssh/", "{}"), field: "destination", words: "'..'"),
        Case(
            name: "a 9,000-byte source",
            data: #"{"kind": "fetch", \#(base), "source": "https://example.com/\#(String(repeating: "a", count: 9000))", "destination": "/srv/in/"}"#,
            call: ("fetch", "https://example.com/" + String(repeating: "a", count: 9000), "/srv/in/", "{}"), field: "source", words: "8192"),
        Case(
            name: "a copy reading a local file",
            data: #"{"kind": "copy", \#(base), "source": "/etc/shadow", "destination": "s3:arc:bucket/x"}"#,
            call: ("copy", "/etc/shadow", "s3:arc:bucket/x", "{}"), field: "source", words: "a copy reads another provider"),
        Case(
            name: "a copy writing a local folder",
            data: #"{"kind": "copy", \#(base), "source": "s3:arc:bucket/x", "destination": "file:///etc/cron.d/x"}"#,
            call: ("copy", "s3:arc:bucket/x", "file:///etc/cron.d/x", "{}"), field: "destination", words: "not a local folder"),
    ]

    @discardableResult
    static func query(_ client: PostgresClient, _ sql: String, _ binds: [any PostgresBindable] = []) async throws -> PostgresQueryResult {
        try await client.withConnection { try $0.query(sql, binds) }
    }

    static func error(_ body: () async throws -> Void) async -> PostgresError? {
        do {
            try await body()
            return nil
        } catch let error as PostgresError {
            return error
        } catch {
            return nil
        }
    }

    @Test("each hostile enqueued event is refused as a raw INSERT and through ferry.enqueue, with the same error, and nothing is written", arguments: cases)
    func sameRefusal(_ hostile: Case) async throws {
        let logins = try await Logins.make("raw_enqueue")
        let producer = PostgresClient(configuration: PostgresConfiguration(connectionString: logins.url(.producer), poolSize: 1))
        defer { producer.close() }

        let raw = await Self.error {
            _ = try await Self.query(producer, 
                "INSERT INTO ferry.events (job_id, version, type, data) VALUES ($1, 1, 'enqueued', $2::jsonb)", [UUID(), hostile.data])
        }
        let call = await Self.error {
            _ = try await Self.query(producer, 
                "SELECT ferry.enqueue($1, $2, $3, $4::jsonb)",
                [hostile.call.kind, hostile.call.source, hostile.call.destination, hostile.call.options])
        }
        let rawError = try #require(raw, "the raw INSERT was accepted")
        let callError = try #require(call, "ferry.enqueue accepted it")
        #expect(rawError.sqlState == .invalidParameterValue, "\(rawError)")
        #expect(callError.sqlState == .invalidParameterValue, "\(callError)")
        #expect(rawError.column == hostile.field && callError.column == hostile.field)
        #expect(rawError.serverMessage == callError.serverMessage, "raw: \(rawError.serverMessage ?? "") / call: \(callError.serverMessage ?? "")")
        #expect(rawError.serverMessage?.contains(hostile.words) == true, "\(rawError.serverMessage ?? "")")
        #expect(rawError.serverMessage?.contains("hunter2") != true, "credentials are never echoed")
        let jobs = try await logins.db.query("SELECT count(*) FROM ferry.events").rows[0].decode(Int64.self, at: 0)
        #expect(jobs == 0)
    }

    @Test("a well-formed raw enqueued event from a producer is still accepted (the CLI's own COPY path as a producer)")
    func wellFormedAccepted() async throws {
        let logins = try await Logins.make("raw_enqueue_ok")
        let producer = PostgresClient(configuration: PostgresConfiguration(connectionString: logins.url(.producer), poolSize: 1))
        defer { producer.close() }
        let data = #"{"kind": "fetch", \#(Self.base), "source": "https://example.com/a.jpg", "destination": "/srv/in/a.jpg", "batch": "b", "key": "k", "run_at": "2026-11-26T10:00:00.123456Z", "metadata": {"t": 1}, "spec": {}}"#
        _ = try await Self.query(producer, 
            "INSERT INTO ferry.events (job_id, version, type, data) VALUES ($1, 1, 'enqueued', $2::jsonb)", [UUID(), data])
        let jobs = try await logins.db.query("SELECT count(*) FROM ferry.jobs WHERE state = 'queued'").rows[0].decode(Int64.self, at: 0)
        #expect(jobs == 1)
    }

    @Test("ferry.enqueue: a priority of 1e300 is a 22023 naming priority, not a bigint overflow")
    func hugePriority() async throws {
        let logins = try await Logins.make("raw_enqueue_big")
        let error = await Self.error {
            _ = try await logins.db.query(
                "SELECT ferry.enqueue('fetch', 'https://example.com/a', '/srv/in/', '{\"priority\": 1e300}')")
        }
        let refused = try #require(error)
        #expect(refused.sqlState == .invalidParameterValue, "\(refused)")
        #expect(refused.column == "priority")
    }
}
