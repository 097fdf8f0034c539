import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A long-running child process (a worker) that tests signal, kill and wait for.
public final class BackgroundProcess: @unchecked Sendable {
    let process: Process
    public let logPath: String

    /// Starts `ferry` with `arguments`; output goes to a log file kept for diagnostics. With a `launcher` (such as
    /// `ip netns exec NAME`), `ferry` runs under it: a launcher that execs in place keeps the process id signalable.
    public init(ferry arguments: [String], databaseURL: String, environment: [String: String] = [:], launcher: [String] = []) throws {
        try TestTier.refuseInFastTier("a ferry process")
        process = Process()
        let command = launcher + [FerryProcess.executable] + arguments
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        var env = ProcessInfo.processInfo.environment
        env["FERRY_DATABASE_URL"] = databaseURL
        env["FERRY_MIGRATIONS_DIR"] = TestDatabase.migrationsDirectory
        env["FERRY_LOCAL_ROOTS"] = FerryProcess.testLocalRoots
        for (key, value) in environment { env[key] = value }
        process.environment = env
        logPath = FileManager.default.temporaryDirectory.appendingPathComponent("ferry-proc-\(UUID().uuidString).log").path
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        process.standardOutput = log
        process.standardError = log
        process.standardInput = FileHandle(forReadingAtPath: "/dev/null")
        try process.run()
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    public var pid: Int32 { process.processIdentifier }
    public var isRunning: Bool { process.isRunning }

    public func signal(_ signal: Int32) {
        kill(process.processIdentifier, signal)
    }

    /// Waits for the process to exit and returns its status; throws after `timeout`.
    public func waitForExit(timeout: Duration = .seconds(180)) async throws -> Int32 {
        try await eventually(timeout: timeout, interval: .milliseconds(20), "process \(pid) to exit") { !process.isRunning }
        return process.terminationStatus
    }

    public var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }
}
