import Foundation

/// A private pg_auto_failover formation (scripts/failover.sh): a monitor and two nodes, `node1` and `node2`, with
/// synchronous replication, and Ferry's multi-host URL to it.
public final class FailoverFormation: @unchecked Sendable {
    public let directory: String
    /// `postgresql://postgres@127.0.0.1:P1,127.0.0.1:P2/ferry?target_session_attrs=read-write`: the primary,
    /// whichever node it is.
    public let url: String

    /// True when pg_auto_failover is installed (scripts/install-deps.sh installs it; `make test` runs that first).
    public static var isInstalled: Bool {
        FileManager.default.isExecutableFile(atPath: "/usr/bin/pg_autoctl")
            && ((try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []).contains {
                FileManager.default.fileExists(atPath: "/usr/lib/postgresql/\($0)/lib/pgautofailover.so")
            }
    }

    /// Starts a formation with fsync off (commits stay synchronous: the standby confirms each one).
    public init() async throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("ferry-failover-\(UUID().uuidString.prefix(8))").path
        do {
            url = try await Self.run(["start", directory, "--fast"]).trimmingCharacters(in: .whitespacesAndNewlines)
        } catch {
            _ = try? await Self.run(["stop", directory])
            throw error
        }
    }

    /// Runs `body` on a new formation and stops every process of it afterwards, whether `body` returns or throws.
    public static func withNew<T>(_ body: (FailoverFormation) async throws -> T) async throws -> T {
        let formation = try await FailoverFormation()
        do {
            let result = try await body(formation)
            await formation.stop()
            return result
        } catch {
            print("failover formation at the failure:\n\((try? await formation.status()) ?? "(no status)")")
            await formation.stop()
            throw error
        }
    }

    /// The URL of one node (`node1`, `node2`), whatever its role.
    public func nodeURL(_ node: String) async throws -> String {
        try await Self.run(["node-url", directory, node]).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The name of the node that is primary now.
    public func primary() async throws -> String {
        try await Self.run(["primary", directory]).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The monitor's view of the nodes (`pg_autoctl show state`).
    public func status() async throws -> String {
        try await Self.run(["status", directory])
    }

    /// A planned switchover; returns once the other node is primary with the old one as its synchronous standby.
    public func switchover() async throws {
        _ = try await Self.run(["switchover", directory])
    }

    /// kill -9 of the primary's keeper and PostgreSQL; returns the killed node's name and the moment just before
    /// the kill (a transaction that began after it ran on another node).
    public func killPrimary() async throws -> (node: String, at: Date) {
        let words = try await Self.run(["kill-primary", directory]).split(whereSeparator: \.isWhitespace)
        guard words.count == 2, let epoch = Double(words[1]) else {
            throw TestSupportError("failover.sh kill-primary printed \(words)")
        }
        return (String(words[0]), Date(timeIntervalSince1970: epoch))
    }

    /// Starts a killed node's keeper again; it rejoins as a standby.
    public func restart(_ node: String) async throws {
        _ = try await Self.run(["restart", directory, node])
    }

    /// Waits for a primary and its synchronous standby.
    public func waitReady(seconds: Int = 120) async throws {
        _ = try await Self.run(["wait-ready", directory, String(seconds)])
    }

    public func stop() async {
        _ = try? await Self.run(["stop", directory])
        try? FileManager.default.removeItem(atPath: directory)
    }

    static func run(_ arguments: [String]) async throws -> String {
        try await RepositoryScript.run("failover.sh", arguments)
    }
}
