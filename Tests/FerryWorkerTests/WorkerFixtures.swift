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
            _ = FileManager.default.createFile(atPath: path, contents: bytes)
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

    /// Kills `pid` with SIGKILL as soon as `sql` (a count) reaches `threshold`, from a process of its own (bash and
    /// psql polling every 50 ms): a test task held up for seconds on a busy machine would kill too late, after the
    /// work it wanted to interrupt had finished. Wait for the victim's exit afterwards.
    static func killWhen(_ db: TestDatabase, pid: Int32, count sql: String, reaches threshold: Int) throws -> Process {
        let psql = ["/usr/bin/psql"] + ((try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? [])
            .sorted().reversed().map { "/usr/lib/postgresql/\($0)/bin/psql" }
        guard let binary = psql.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw TestSupportError("no psql found")
        }
        let script = """
            until [ "$("$PSQL" -X -tAc "$SQL" "$URL" 2>/dev/null || echo 0)" -ge "$THRESHOLD" ] 2>/dev/null; do
                kill -0 "$VICTIM" 2>/dev/null || exit 0
                sleep 0.05
            done
            kill -9 "$VICTIM"
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-c", script]
        process.environment = [
            "PSQL": binary, "SQL": sql, "URL": db.url, "THRESHOLD": "\(threshold)", "VICTIM": "\(pid)",
            "PATH": "/usr/bin:/bin",
        ]
        try process.run()
        return process
    }

    /// Kills `victim` with ``killWhen(_:pid:count:reaches:)`` and waits for it and its killer to exit.
    static func kill(_ victim: BackgroundProcess, in db: TestDatabase, when sql: String, reaches threshold: Int = 1) async throws {
        let killer = try killWhen(db, pid: victim.pid, count: sql, reaches: threshold)
        _ = try await victim.waitForExit(timeout: .seconds(600))
        try await eventually(timeout: .seconds(300), "the killer to exit") { !killer.isRunning }
    }
}
