import Foundation
import Postgres

extension FerryStore {
    /// Queues that hold unfinished jobs of `filter` but that no live worker serves (none has a heartbeat within
    /// `liveWithin` and is not stopping): their jobs wait until a worker for them starts.
    ///
    /// Reads the batch's unfinished jobs through the `(batch, state)` index and the small `workers` table.
    public func unservedQueues(_ filter: JobFilter, liveWithin: Duration) async throws -> [String] {
        let (condition, binds) = filter.condition(from: 2)
        let seconds = Double(liveWithin.components.seconds) + Double(liveWithin.components.attoseconds) / 1e18
        do {
            return try await client.withConnection { connection in
                try connection.query(
                    """
                    WITH pending AS (
                        SELECT DISTINCT queue FROM ferry.jobs WHERE \(condition) AND state IN ('queued', 'running')
                    )
                    SELECT p.queue FROM pending p
                     WHERE NOT EXISTS (SELECT 1 FROM ferry.workers w
                                        WHERE p.queue = ANY (w.queues) AND NOT w.stopping
                                          AND w.heartbeat_at > now() - make_interval(secs => $1))
                     ORDER BY 1
                    """, [seconds] + binds
                ).rows.map { try $0.decode(String.self, column: "queue") }
            }
        } catch {
            throw Self.translate(error)
        }
    }
}
