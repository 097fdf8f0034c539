import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Runs a script of the repository's `scripts/` folder and returns its output.
public enum RepositoryScript {
    /// The path of `scripts/NAME`.
    public static func path(_ name: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("scripts/\(name)").path
    }

    /// Runs `scripts/NAME ARGUMENTS…` with bash; throws with its output if it exits non-zero.
    public static func run(_ name: String, _ arguments: [String]) async throws -> String {
        // system(3) waits with waitpid, and the output goes to a file: the servers such scripts start live on and
        // would hold a pipe open (Foundation's Process never reported the end of pg.sh for that reason).
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("script-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: output) }
        let command = (["/bin/bash", path(name)] + arguments).map { "'\($0)'" }.joined(separator: " ") + " > '\(output)' 2>&1"
        let status: Int32 = await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: system(command)) }
        }
        let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        guard status == 0 else {
            throw TestSupportError("\(name) \(arguments.joined(separator: " ")) failed (\(status)): \(text)")
        }
        return text
    }
}
