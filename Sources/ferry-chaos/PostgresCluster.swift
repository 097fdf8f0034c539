import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The cluster under test, restarted through scripts/pg.sh (same data directory and port).
struct PostgresCluster: Sendable {
    let script: String
    let directory: String
    let logDirectory: String

    /// Fast shutdown (clients are disconnected, running transactions roll back, a checkpoint is written), then
    /// start again. Returns the seconds it took.
    func restartFast() async throws -> Double {
        let started = Date()
        let log = logDirectory + "/pg-restart-\(UUID().uuidString.prefix(8)).log"
        // system(3) rather than Process: the server pg_ctl starts would inherit and hold Process's pipes, and
        // system waits for the script alone.
        let command = ["/bin/bash", script, "restart", directory, "fast"].map { "'\($0)'" }.joined(separator: " ") + " > '\(log)' 2>&1"
        let status: Int32 = await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: system(command)) }
        }
        guard status == 0 else {
            throw ChaosError("pg.sh restart failed: \((try? String(contentsOfFile: log, encoding: .utf8)) ?? "")")
        }
        try? FileManager.default.removeItem(atPath: log)
        return Date().timeIntervalSince(started)
    }
}
