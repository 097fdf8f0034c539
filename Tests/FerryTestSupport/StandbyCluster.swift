import Foundation

/// A streaming hot standby of a private cluster (scripts/pg.sh standby: pg_basebackup -R as the unprivileged
/// user), for tests of what Ferry reads from a standby.
public final class StandbyCluster: @unchecked Sendable {
    public let directory: String
    /// The standby's `postgres` database as the superuser (read-only: it is a standby).
    public let adminURL: String

    /// Clones the cluster at `primaryURL` and starts streaming from it.
    public init(primaryURL: String) async throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("ferry-standby-\(UUID().uuidString.prefix(8))").path
        do {
            adminURL = try await RepositoryScript.run("pg.sh", ["standby", directory, primaryURL, "--fast"])
                .trimmingCharacters(in: .whitespacesAndNewlines)
        } catch {
            // A clone that failed half-way may have started nothing, but its directory is there.
            _ = try? await RepositoryScript.run("pg.sh", ["stop", directory])
            try? FileManager.default.removeItem(atPath: directory)
            throw error
        }
    }

    /// Runs `body` with a new standby of `primaryURL` and stops and removes it afterwards, whether `body` returns or
    /// throws.
    public static func withNew<T>(primaryURL: String, _ body: (StandbyCluster) async throws -> T) async throws -> T {
        let standby = try await StandbyCluster(primaryURL: primaryURL)
        do {
            let result = try await body(standby)
            await standby.stop()
            return result
        } catch {
            await standby.stop()
            throw error
        }
    }

    /// `database` on the standby, logged in as `user`.
    public func url(database: String, user: String = "postgres") -> String {
        TestDatabase.replacingDatabase(in: adminURL, with: database).replacingOccurrences(of: "postgres@", with: "\(user)@")
    }

    public func stop() async {
        _ = try? await RepositoryScript.run("pg.sh", ["stop", directory])
        try? FileManager.default.removeItem(atPath: directory)
    }
}
