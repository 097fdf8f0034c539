import Foundation
import Postgres

/// Remote folders created once fleet-wide (definition 520).
extension FerryStore {
    public func claimRemoteFolder(scope: String, path: String, owner: String, staleAfter: Duration) async throws -> RemoteFolderClaim {
        let seconds = Double(staleAfter.components.seconds) + Double(staleAfter.components.attoseconds) / 1e18
        do {
            return try await client.withConnection { connection in
                let rows = try connection.query(
                    "SELECT remote_id, claimed FROM ferry.claim_remote_folder($1, $2, $3, make_interval(secs => $4))",
                    [scope, path, owner, seconds]
                ).rows
                guard let row = rows.first else { return .busy }
                if let id = try row.decode(String?.self, column: "remote_id") { return .known(id) }
                return try row.decode(Bool.self, column: "claimed") ? .claimed : .busy
            }
        } catch {
            throw Self.translate(error)
        }
    }

    public func recordRemoteFolder(scope: String, path: String, id: String) async throws -> String? {
        do {
            return try await client.withConnection { connection in
                try connection.query("SELECT ferry.record_remote_folder($1, $2, $3) AS remote_id", [scope, path, id])
                    .rows.first.flatMap { try $0.decode(String?.self, column: "remote_id") }
            }
        } catch {
            throw Self.translate(error)
        }
    }

    public func forgetRemoteFolder(scope: String, path: String, id: String) async throws {
        do {
            try await client.withConnection { connection in
                _ = try connection.query("SELECT ferry.forget_remote_folder($1, $2, $3)", [scope, path, id])
            }
        } catch {
            throw Self.translate(error)
        }
    }
}
