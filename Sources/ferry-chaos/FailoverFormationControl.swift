import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The pg_auto_failover formation of a failover run, driven through scripts/failover.sh.
struct FailoverFormationControl: Sendable {
    let script: String
    let directory: String
    let logDirectory: String

    /// Creates and starts the formation (fsync off: the faults here are processes dying, not the machine); returns
    /// Ferry's multi-host URL.
    func start() async throws -> String {
        try await run(["start", directory, "--fast"], timeout: 300).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func stop() async {
        _ = try? await run(["stop", directory], timeout: 120)
    }

    func primary() async throws -> String {
        try await run(["primary", directory]).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func status() async -> String {
        (try? await run(["status", directory])) ?? "(no status)"
    }

    /// A planned switchover, until the other node is primary with a synchronous standby.
    func switchover() async throws {
        _ = try await run(["switchover", directory], timeout: 180)
    }

    /// kill -9 of the primary's keeper and PostgreSQL; returns the node killed and the moment just before the kill
    /// (a transaction that began after it ran on another node).
    func killPrimary() async throws -> (node: String, at: Date) {
        let words = try await run(["kill-primary", directory]).split(whereSeparator: \.isWhitespace)
        guard words.count == 2, let epoch = Double(words[1]) else { throw ChaosError("failover.sh kill-primary printed \(words)") }
        return (String(words[0]), Date(timeIntervalSince1970: epoch))
    }

    /// Starts a killed node's keeper again, and waits until it is the primary's synchronous standby.
    func rejoin(_ node: String) async throws {
        _ = try await run(["restart", directory, node])
        _ = try await run(["wait-ready", directory, "300"], timeout: 320)
    }

    private func run(_ arguments: [String], timeout: Int = 60) async throws -> String {
        let log = logDirectory + "/failover-sh-\(UUID().uuidString.prefix(8)).log"
        defer { try? FileManager.default.removeItem(atPath: log) }
        // system(3) rather than Process, as in PostgresCluster: the keepers the script starts would hold a pipe.
        let command = "timeout \(timeout) " + (["/bin/bash", script] + arguments).map { "'\($0)'" }.joined(separator: " ") + " > '\(log)' 2>&1"
        let status: Int32 = await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: system(command)) }
        }
        let output = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        guard status == 0 else {
            throw ChaosError("failover.sh \(arguments.first ?? "") failed: \(output)")
        }
        return output
    }
}
