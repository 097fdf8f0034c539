import FerryTestSupport
import Foundation
import Postgres

/// Shared helpers for the worker end-to-end tests.
enum WorkerFixtures {
    /// A folder with `count` files of random content, sizes spread up to `maxSize`.
    static func sourceFiles(count: Int, maxSize: Int, minSize: Int = 1) throws -> (dir: String, files: [String]) {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("ferry-src-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        var generator = SystemRandomNumberGenerator()
        var files = [String]()
        for index in 0..<count {
            let size = Int.random(in: minSize...max(minSize, maxSize), using: &generator)
            // The kernel's generator: fast even for large files in a debug build.
            let urandom = try FileHandle(forReadingFrom: URL(fileURLWithPath: "/dev/urandom"))
            defer { try? urandom.close() }
            let bytes = try urandom.read(upToCount: size) ?? Data()
            let path = "\(dir)/photo-\(index).jpg"
            FileManager.default.createFile(atPath: path, contents: bytes)
            files.append(path)
        }
        return (dir, files)
    }

    static func jsonl(uploading files: [String], to destination: String, batch: String, extra: String = "") -> String {
        files.map { #"{"kind":"upload","source":"\#($0)","to":"\#(destination)","batch":"\#(batch)"\#(extra)}"# }
            .joined(separator: "\n")
    }

    static func batchDone(_ db: TestDatabase, _ batch: String) async throws -> Bool {
        let rows = try await db.query("SELECT done FROM ferry.batch_status WHERE batch = $1", [batch]).rows
        return try rows.first?.decode(Bool.self, at: 0) ?? false
    }

    static func count(_ db: TestDatabase, _ sql: String, _ binds: [any PostgresBindable] = []) async throws -> Int {
        try await db.query(sql, binds).rows[0].decode(Int.self, at: 0)
    }

    static func startWorker(_ db: TestDatabase, name: String, _ extra: [String] = []) throws -> BackgroundProcess {
        try BackgroundProcess(
            ferry: ["worker", "--name", name, "--heartbeat-interval", "0.3", "--rescue-after", "2", "--poll-interval", "0.5", "--log-level", "info"] + extra,
            databaseURL: db.url)
    }
}
