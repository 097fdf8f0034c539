import Foundation

/// Runs a tool (curl, promtool, pg_dump through a script, openssl, mount) and waits for it without blocking the
/// caller's thread. A test that called `waitUntilExit()` held one of the cooperative pool's threads, two on this
/// machine: two such waits at once froze every other test of the process, in-process workers' heartbeats included,
/// long enough on a loaded machine for their leases to lapse.
public enum ChildProcess {
    /// Runs `executable` with `arguments`; stdout and stderr are kept apart (or both in stdout with `mergeOutput`).
    public static func run(
        _ executable: String, _ arguments: [String], stdin: String? = nil, environment: [String: String]? = nil,
        currentDirectory: String? = nil, mergeOutput: Bool = false
    ) async throws -> FerryProcess.Result {
        try TestTier.refuseInFastTier("a \((executable as NSString).lastPathComponent) process")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment { process.environment = environment }
        if let currentDirectory { process.currentDirectoryURL = URL(fileURLWithPath: currentDirectory) }
        // Files, not pipes: a child that writes more than a pipe holds never waits on a reader here.
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("ferry-child-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let outURL = scratch.appendingPathComponent("out")
        let errURL = scratch.appendingPathComponent("err")
        let inURL = scratch.appendingPathComponent("in")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: inURL.path, contents: Data((stdin ?? "").utf8))
        let out = try FileHandle(forWritingTo: outURL)
        let err = mergeOutput ? out : try FileHandle(forWritingTo: errURL)
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
        return FerryProcess.Result(
            status: status,
            stdout: (try? String(contentsOf: outURL, encoding: .utf8)) ?? "",
            stderr: mergeOutput ? "" : (try? String(contentsOf: errURL, encoding: .utf8)) ?? "")
    }
}
