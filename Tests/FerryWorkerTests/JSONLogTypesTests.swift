import FerryCore
import FerryTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Log pipelines index JSON fields by type: a field that is a number on one line and a string on the next
/// (`retry_in_s` 0.15, then "0.30") breaks queries and mappings. Every line a worker writes through real faults
/// keeps each field's type.
@Suite("JSON log field types", .tags(.postgres, .process))
struct JSONLogTypesTests {
    @Test("a worker through 5xx faults, retries and a numeric queue name: every line is JSON and every field keeps one type")
    func stableTypes() async throws {
        let server = try await DevServerProcess()
        // Transient failures make the retry paths log their waits (retry_in_s) with varying values.
        try await server.setFaults(["failure_rate": .double(0.3), "seed": .int(7)])
        let db = try await TestDatabase.make("json_log_types")
        try await DropboxAccounts.add("typed", server: server, databaseURL: db.url, extra: ["--max-concurrent", "8"])
        let dir = try temporaryFolder("json-log-types")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var lines = [String]()
        for index in 0..<24 {
            let path = "\(dir)/f-\(index).bin"
            try DropboxAccounts.randomFile(path, size: 16 * 1024)
            // A queue named like a number must stay text.
            lines.append(#"{"kind":"upload","source":"\#(path)","to":"dropbox:typed:/Typed/","batch":"typed","queue":"2024","max_attempts":20}"#)
        }
        try await DropboxUploadTests.enqueue(db, lines, in: dir)
        let worker = try TestWorker.transfers(db, name: "typed", ["--log-format", "json", "--log-level", "debug", "--queues", "2024"])
        try await eventually(timeout: .seconds(300), interval: .milliseconds(200), "the batch to finish") {
            try await WorkerFixtures.batchDone(db, "typed")
        }
        worker.signal(SIGTERM)
        _ = try await worker.waitForExit()

        var types = [String: Set<String>]()
        var parsed = 0
        for line in worker.log.split(separator: "\n") where !line.isEmpty {
            guard case .object(let object)? = try? JSONValue.parse(String(line)) else {
                Issue.record("not a JSON object: \(line.prefix(200))")
                continue
            }
            parsed += 1
            for (key, value) in object { types[key, default: []].insert(Self.type(of: value)) }
        }
        #expect(parsed > 20, "the worker logged \(parsed) lines")
        #expect(types["retry_in_s"] == ["number"], "the retry paths ran and logged numbers: \(types["retry_in_s"] ?? [])")
        #expect(types["queue"] == ["string"], "\(types["queue"] ?? [])")
        for (key, seen) in types.sorted(by: { $0.key < $1.key }) {
            #expect(seen.count == 1, "field \(key) has types \(seen.sorted())")
        }
    }

    static func type(of value: JSONValue) -> String {
        switch value {
        case .int, .double: "number"
        case .string: "string"
        case .bool: "bool"
        case .null: "null"
        case .array: "array"
        case .object: "object"
        }
    }
}
