import FerryStore
import FerryTestSupport
import Foundation
import Postgres
import Testing

/// `--traceparent` and the JSON Lines `traceparent` field: checked at enqueue, kept in the `enqueued` event.
@Suite("ferry enqueue: trace context", .tags(.postgres, .process))
struct TraceParentTests {
    static let valid = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"

    static func scratch() throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("ferry-tp-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir + "/out", withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: dir + "/a.jpg", contents: Data(repeating: 7, count: 1000))
        return dir
    }

    func eventCount(_ db: TestDatabase) async throws -> Int {
        try await db.query("SELECT count(*) FROM ferry.events").rows[0].decode(Int.self, at: 0)
    }

    @Test("a malformed --traceparent is refused naming the flag and the format; nothing is enqueued")
    func badFlag() async throws {
        let db = try await TestDatabase.make("tp_bad")
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        for bad in [
            "nonsense", "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",  // unknown version
            "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",  // uppercase
            "00-00000000000000000000000000000000-00f067aa0ba902b7-01",  // zero trace id
            "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",  // zero span id
            "00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01",  // short
        ] {
            let result = try await FerryProcess.run(
                ["enqueue", "upload", "a.jpg", "--to", dir + "/out/", "--traceparent", bad], databaseURL: db.url, currentDirectory: dir)
            #expect(result.status == 65, "\(bad): \(result.status)")
            #expect(result.stderr.contains("--traceparent"), "\(result.stderr)")
            #expect(result.stderr.contains("00-<32 hex trace id>-<16 hex span id>-<2 hex flags>"), "\(result.stderr)")
            #expect(!result.stderr.contains("Fatal error") && !result.stderr.contains("Stack"))
        }
        // The flag is checked before --from is read, too.
        try #"{"kind":"upload","source":"a.jpg","to":"\#(dir)/out/"}"#.write(toFile: dir + "/jobs.jsonl", atomically: true, encoding: .utf8)
        let fromFile = try await FerryProcess.run(
            ["enqueue", "--from", "jobs.jsonl", "--traceparent", "nope"], databaseURL: db.url, currentDirectory: dir)
        #expect(fromFile.status != 0)
        #expect(fromFile.stderr.contains("--traceparent"))
        #expect(try await eventCount(db) == 0, "nothing enqueued")
    }

    @Test("a bad \"traceparent\" in JSON Lines names the line and field; the whole file is refused")
    func badField() async throws {
        let db = try await TestDatabase.make("tp_jsonl")
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try [
            #"{"kind":"upload","source":"a.jpg","to":"\#(dir)/out/x/","traceparent":"\#(Self.valid)"}"#,
            #"{"kind":"upload","source":"a.jpg","to":"\#(dir)/out/y/","traceparent":"00-abc-def-01"}"#,
        ].joined(separator: "\n").write(toFile: dir + "/jobs.jsonl", atomically: true, encoding: .utf8)
        let result = try await FerryProcess.run(["enqueue", "--from", "jobs.jsonl"], databaseURL: db.url, currentDirectory: dir)
        #expect(result.status != 0)
        #expect(result.stderr.contains("line 2"), "\(result.stderr)")
        #expect(result.stderr.contains("traceparent"), "\(result.stderr)")
        #expect(try await eventCount(db) == 0, "all lines or none")
    }

    @Test("the traceparent from the flag or the line is kept in the enqueued event; none given, none stored")
    func stored() async throws {
        let db = try await TestDatabase.make("tp_ok")
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let flagged = try await FerryProcess.run(
            ["enqueue", "upload", "a.jpg", "--to", dir + "/out/f/", "--traceparent", Self.valid], databaseURL: db.url, currentDirectory: dir)
        #expect(flagged.status == 0, "\(flagged.stderr)")
        let other = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
        try [
            #"{"kind":"upload","source":"a.jpg","to":"\#(dir)/out/l/","traceparent":"\#(other)"}"#,
            #"{"kind":"upload","source":"a.jpg","to":"\#(dir)/out/d/"}"#,
        ].joined(separator: "\n").write(toFile: dir + "/jobs.jsonl", atomically: true, encoding: .utf8)
        let lines = try await FerryProcess.run(
            ["enqueue", "--from", "jobs.jsonl", "--traceparent", Self.valid], databaseURL: db.url, currentDirectory: dir)
        #expect(lines.status == 0, "\(lines.stderr)")
        let plain = try await FerryProcess.run(["enqueue", "upload", "a.jpg", "--to", dir + "/out/p/"], databaseURL: db.url, currentDirectory: dir)
        #expect(plain.status == 0, "\(plain.stderr)")

        let rows = try await db.query(
            "SELECT destination, data->>'traceparent' FROM ferry.events e JOIN ferry.jobs j USING (job_id) WHERE e.version = 1 ORDER BY destination")
        var stored = [String: String?]()
        for row in rows.rows { stored[try row.decode(String.self, at: 0)] = try row.decode(String?.self, at: 1) }
        #expect(stored.count == 4)
        // Destinations are canonical (file:///…); find each by its folder.
        func traceparent(_ folder: String) -> String?? { stored.first { $0.key.hasSuffix("/out/\(folder)/a.jpg") }?.value }
        #expect(traceparent("f") == .some(Self.valid))
        #expect(traceparent("l") == .some(other), "the line's own wins over the flag")
        #expect(traceparent("d") == .some(Self.valid), "the flag is the default for lines")
        #expect(traceparent("p") == .some(nil), "none given: nothing stored (workers derive the trace from the job id)")
    }
}
