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

    /// Stops the server and keeps its data (fast shutdown: connections are closed), until `startServer`.
    public func stopServer() async throws {
        _ = try await Self.run(["stop", directory])
    }

    /// Starts the server again on the same port.
    public func startServer() async throws {
        _ = try await Self.run(["start", directory, "--fast"])
    }

    /// Runs `body` on a new cluster and stops the cluster after it, whether `body` returns or throws.
    public static func withNew<T>(_ body: (PrivateCluster) async throws -> T) async throws -> T {
        let cluster = try await PrivateCluster()
        do {
            let result = try await body(cluster)
            await cluster.stop()
            return result
        } catch {
            await cluster.stop()
            throw error
        }
    }

    /// The cluster's `postgres` database after `ferry migrate`.
    public func migratedDatabase() async throws -> TestDatabase {
        let url = TestDatabase.replacingDatabase(in: adminURL, with: "postgres")
        let migrate = try await FerryProcess.run(["migrate"], databaseURL: url)
        guard migrate.status == 0 else {
            throw TestSupportError("ferry migrate failed (\(migrate.status)): \(migrate.stderr)")
        }
        return TestDatabase(url: url, name: "postgres")
    }

    public func stop() async {
        _ = try? await Self.run(["stop", directory])
        try? FileManager.default.removeItem(atPath: directory)
    }

    static func run(_ arguments: [String]) async throws -> String {
        try TestTier.refuseInFastTier("a private PostgreSQL cluster")
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
