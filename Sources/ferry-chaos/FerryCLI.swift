import Foundation

/// Runs one `ferry` command as a real process and collects its output.
struct FerryCLI: Sendable {
    struct Result: Sendable {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    let executable: String
    let environment: [String: String]
    /// Where each command's output files go (kept for diagnosis).
    let scratch: String

    /// Runs `ferry ARGUMENTS` to completion (killed after `timeout` seconds, status 124 then).
    func run(_ arguments: [String], stdin: String? = nil, timeout: Double = 300) async throws -> Result {
        let id = UUID().uuidString.prefix(8)
        let out = scratch + "/cli-\(id).out"
        let err = scratch + "/cli-\(id).err"
        var stdinPath: String?
        if let stdin {
            stdinPath = scratch + "/cli-\(id).in"
            guard FileManager.default.createFile(atPath: stdinPath!, contents: Data(stdin.utf8), attributes: [.posixPermissions: 0o600]) else {
                throw ChaosError("cannot write \(stdinPath!)")
            }
        }
        defer {
            if let stdinPath { try? FileManager.default.removeItem(atPath: stdinPath) }
            try? FileManager.default.removeItem(atPath: out)
            try? FileManager.default.removeItem(atPath: err)
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = environment
        _ = FileManager.default.createFile(atPath: out, contents: nil)
        _ = FileManager.default.createFile(atPath: err, contents: nil)
        let handles = [FileHandle(forWritingAtPath: out), FileHandle(forWritingAtPath: err), FileHandle(forReadingAtPath: stdinPath ?? "/dev/null")]
        // Closed by us once the command is over, not left to the Process object's lifetime: a run makes hundreds of
        // commands, and descriptors ferry-chaos still holds are inherited by the servers scripts start from it.
        defer { for handle in handles { try? handle?.close() } }
        process.standardOutput = handles[0]
        process.standardError = handles[1]
        process.standardInput = handles[2]
        try process.run()
        let deadline = Date().addingTimeInterval(timeout)
        var status: Int32 = 0
        while process.isRunning {
            if Date() > deadline {
                process.terminate()
                try? await Task.sleep(for: .milliseconds(200))
                status = 124
                break
            }
            try? await Task.sleep(for: .milliseconds(10))
        }
        if status == 0 { status = process.terminationStatus }
        return Result(
            status: status, stdout: (try? String(contentsOfFile: out, encoding: .utf8)) ?? "",
            stderr: (try? String(contentsOfFile: err, encoding: .utf8)) ?? "")
    }

    /// Runs a command that chaos may interrupt (PostgreSQL restarting: exit 69; a concurrent producer: 75) again
    /// until it succeeds; it must be idempotent (enqueue with keys is).
    func runRetrying(_ arguments: [String], stdin: String? = nil, attempts: Int = 30) async throws -> Result {
        var last: Result?
        for attempt in 1...attempts {
            let result = try await run(arguments, stdin: stdin)
            if result.status == 0 { return result }
            last = result
            guard [69, 75].contains(result.status) else { break }
            try await Task.sleep(for: .milliseconds(200 * min(attempt, 10)))
        }
        throw ChaosError("ferry \(arguments.prefix(2).joined(separator: " ")) failed (exit \(last?.status ?? -1)): \(last?.stderr ?? "")")
    }
}
