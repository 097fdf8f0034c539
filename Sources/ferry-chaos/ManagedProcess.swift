import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A child process with its output in a log file: a worker, the dev server, or one CLI command.
final class ManagedProcess: @unchecked Sendable {
    let label: String
    let logPath: String
    /// When it was started (just before `exec`).
    let startedAt = Date()
    private let process = Process()

    /// Starts `executable`; stdout and stderr go to `logPath` (appended), stdin comes from `stdinPath` or
    /// /dev/null.
    init(label: String, executable: String, arguments: [String], environment: [String: String], logPath: String, stdinPath: String? = nil) throws {
        self.label = label
        self.logPath = logPath
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = environment
        if !FileManager.default.fileExists(atPath: logPath) {
            _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        }
        guard let log = FileHandle(forWritingAtPath: logPath) else { throw ChaosError("cannot write \(logPath)") }
        log.seekToEndOfFile()
        process.standardOutput = log
        process.standardError = log
        process.standardInput = FileHandle(forReadingAtPath: stdinPath ?? "/dev/null")
        do {
            try process.run()
        } catch {
            throw ChaosError("cannot start \(executable): \(error)")
        }
        try? log.close()
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    var pid: Int32 { process.processIdentifier }
    var isRunning: Bool { process.isRunning }

    func signal(_ signal: Int32) {
        if process.isRunning { kill(process.processIdentifier, signal) }
    }

    /// The exit status (or 128 + signal), once it has exited; nil after `timeout` seconds.
    func waitForExit(timeout: Double) async -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning {
            if Date() > deadline { return nil }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return exitStatus
    }

    var exitStatus: Int32? {
        guard !process.isRunning else { return nil }
        return process.terminationReason == .uncaughtSignal ? 128 + process.terminationStatus : process.terminationStatus
    }

    var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    /// Current size of the log, to read only what a process writes after some moment.
    var logSize: Int {
        ((try? FileManager.default.attributesOfItem(atPath: logPath)[.size]) as? NSNumber)?.intValue ?? 0
    }
}
