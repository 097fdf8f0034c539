import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A PostgreSQL cluster of a test's own (for tests that restart the server), via scripts/pg.sh.
public final class PrivateCluster: @unchecked Sendable {
    public let directory: String
    public let adminURL: String

    static var script: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("scripts/pg.sh").path
    }

    public init() async throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("ferry-own-pg-\(UUID().uuidString.prefix(8))").path
        let result = try await Self.run(["start", directory, "--fast"])
        adminURL = result.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Restarts the server (immediate stop: connections drop like in a crash).
    public func restart() async throws {
        _ = try await Self.run(["restart", directory])
    }

    /// Stops the server and keeps its data and port: `startServer()` brings the same cluster back.
    public func stopServer() async throws {
        _ = try await Self.run(["stop", directory])
    }

    /// Starts a server stopped with `stopServer()`.
    public func startServer() async throws {
        _ = try await Self.run(["start", directory, "--fast"])
    }

    public func stop() async {
        _ = try? await Self.run(["stop", directory])
        try? FileManager.default.removeItem(atPath: directory)
    }

    static func run(_ arguments: [String]) async throws -> String {
        // system(3) waits with waitpid: Foundation's Process never reported the end of this script (the server
        // it starts lives on), and the output goes to a file because that server would hold a pipe open.
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("pg-sh-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: output) }
        let command = (["/bin/bash", script] + arguments).map { "'\($0)'" }.joined(separator: " ") + " > '\(output)' 2>&1"
        let status: Int32 = await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: system(command)) }
        }
        guard status == 0 else {
            let log = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
            throw TestSupportError("pg.sh \(arguments.joined(separator: " ")) failed: \(log)")
        }
        return (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
    }
}
