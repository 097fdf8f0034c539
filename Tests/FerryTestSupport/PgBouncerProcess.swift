import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A private PgBouncer in transaction pooling mode in front of a PostgreSQL (scripts/pgbouncer.sh).
public final class PgBouncerProcess: @unchecked Sendable {
    public let directory: String
    /// `postgresql://user@127.0.0.1:PORT/DB` with the upstream URL's user and database.
    public let url: String

    static var script: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("scripts/pgbouncer.sh").path
    }

    /// Starts one in front of `upstream` with `poolSize` server connections per database and user.
    public init(upstream: String, poolSize: Int = 10) async throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("ferry-pgbouncer-\(UUID().uuidString.prefix(8))").path
        url = try await Self.run(["start", directory, "--upstream", upstream, "--pool-size", String(poolSize)])
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The URL of `database` through this PgBouncer (it passes every database name through).
    public func url(of database: TestDatabase) -> TestDatabase {
        TestDatabase(url: TestDatabase.replacingDatabase(in: url, with: database.name), name: database.name)
    }

    /// Runs `body` with a PgBouncer in front of `upstream`, stopping it afterwards whether `body` returns or throws.
    public static func withNew<T>(upstream: String, poolSize: Int = 10, _ body: (PgBouncerProcess) async throws -> T) async throws -> T {
        let bouncer = try await PgBouncerProcess(upstream: upstream, poolSize: poolSize)
        do {
            let result = try await body(bouncer)
            await bouncer.stop()
            return result
        } catch {
            await bouncer.stop()
            throw error
        }
    }

    public func stop() async {
        _ = try? await Self.run(["stop", directory])
        try? FileManager.default.removeItem(atPath: directory)
    }

    static func run(_ arguments: [String]) async throws -> String {
        // As PrivateCluster: system(3), output to a file (the daemon would hold a pipe open).
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("pgbouncer-sh-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: output) }
        let command = (["/bin/bash", script] + arguments).map { "'\($0)'" }.joined(separator: " ") + " > '\(output)' 2>&1"
        let status: Int32 = await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: system(command)) }
        }
        guard status == 0 else {
            let log = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
            throw TestSupportError("pgbouncer.sh \(arguments.joined(separator: " ")) failed: \(log)")
        }
        return (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
    }
}
