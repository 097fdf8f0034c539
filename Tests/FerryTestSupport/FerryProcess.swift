import Foundation

/// Runs the real `ferry` executable (built by `swift build`) as a child process.
public struct FerryProcess {
    /// Output and exit status of a finished run.
    public struct Result: Sendable {
        public var status: Int32
        public var stdout: String
        public var stderr: String
        /// stdout lines without the trailing empty one.
        public var lines: [String] { stdout.split(separator: "\n").map(String.init) }
    }

    /// Directory holding the built products (`FERRY_BIN_DIR`, else next to the test bundle).
    public static var binDirectory: String {
        if let dir = ProcessInfo.processInfo.environment["FERRY_BIN_DIR"], !dir.isEmpty { return dir }
        var url = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        for _ in 0..<4 {
            url.deleteLastPathComponent()
            if FileManager.default.isExecutableFile(atPath: url.appendingPathComponent("ferry").path) { return url.path }
        }
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent(".build/debug").path
    }

    public static var executable: String { binDirectory + "/ferry" }

    /// The local roots test workers get unless a test names its own (`FERRY_LOCAL_ROOTS`): the temporary folder,
    /// where tests keep their files, and the repository (sample files).
    public static var testLocalRoots: String {
        let repository = URL(fileURLWithPath: TestDatabase.migrationsDirectory).deletingLastPathComponent().path
        return [FileManager.default.temporaryDirectory.path, repository].joined(separator: ":")
    }

    /// Runs `ferry` with `arguments`, optional stdin, extra environment; waits without blocking the caller's thread.
    public static func run(
        _ arguments: [String], databaseURL: String? = nil, stdin: String? = nil, environment: [String: String] = [:],
        currentDirectory: String? = nil
    ) async throws -> Result {
        try TestTier.refuseInFastTier("a ferry process")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        env["FERRY_DATABASE_URL"] = databaseURL
        env.removeValue(forKey: "DATABASE_URL")
        if databaseURL == nil { env.removeValue(forKey: "FERRY_DATABASE_URL") }
        env["FERRY_MIGRATIONS_DIR"] = TestDatabase.migrationsDirectory
        env["FERRY_LOCAL_ROOTS"] = FerryProcess.testLocalRoots
        for (key, value) in environment { env[key] = value }
        process.environment = env
        if let currentDirectory { process.currentDirectoryURL = URL(fileURLWithPath: currentDirectory) }
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("ferry-run-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let outURL = scratch.appendingPathComponent("out")
        let errURL = scratch.appendingPathComponent("err")
        let inURL = scratch.appendingPathComponent("in")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: inURL.path, contents: Data((stdin ?? "").utf8))
        let out = try FileHandle(forWritingTo: outURL)
        let err = try FileHandle(forWritingTo: errURL)
        let input = try FileHandle(forReadingFrom: inURL)
        defer {
            try? out.close()
            try? err.close()
            try? input.close()
        }
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { finished in continuation.resume(returning: finished.terminationStatus) }
            do {
                try process.run()
            } catch {
                process.terminationHandler = nil
                continuation.resume(throwing: error)
            }
        }
        return Result(
            status: status,
            stdout: (try? String(contentsOf: outURL, encoding: .utf8)) ?? "",
            stderr: (try? String(contentsOf: errURL, encoding: .utf8)) ?? "")
    }
}
