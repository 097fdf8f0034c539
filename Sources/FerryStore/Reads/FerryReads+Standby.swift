import Foundation
import Postgres

extension FerryReads {
    /// The server's replication state when it is a hot standby, `nil` on a primary. One cheap query on functions
    /// every role may call, so `ferry status` and the dashboard can say how stale their reads may be.
    public func standbyStatus() async throws -> StandbyStatus? {
        let sql = """
            SELECT pg_is_in_recovery() AS standby,
                   extract(epoch FROM now() - pg_last_xact_replay_timestamp())::float8 AS lag,
                   coalesce(pg_last_wal_receive_lsn() = pg_last_wal_replay_lsn(), false) AS caught_up
            """
        do {
            return try await client.withConnection { connection in
                let row = try connection.query(sql).rows[0]
                guard try row.decode(Bool.self, column: "standby") else { return nil }
                return StandbyStatus(
                    replayLagSeconds: try row.decode(Double?.self, column: "lag"),
                    caughtUp: try row.decode(Bool.self, column: "caught_up"))
            }
        } catch {
            throw Self.translate(error)
        }
    }
}
