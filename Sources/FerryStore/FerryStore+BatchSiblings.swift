import Foundation
import Postgres

extension FerryStore {
    public func batchSiblings(of job: UUID, batch: String) async throws -> BatchSiblings {
        do {
            return try await client.withConnection { connection in
                // The batch's counters (one row by its index), less the asking job while it is queued or running.
                let rows = try connection.query(
                    """
                    SELECT b.queued + b.running
                             - (SELECT count(*) FROM ferry.jobs j WHERE j.job_id = $2 AND j.state IN ('queued', 'running')),
                           b.failed + b.cancelled + b.discarded
                      FROM ferry.batch_status b WHERE b.batch = $1
                    """, [batch, job]
                ).rows
                guard let row = rows.first else { return BatchSiblings(unfinished: 0, unsuccessful: 0) }
                return BatchSiblings(unfinished: try row.decode(Int64.self, at: 0), unsuccessful: try row.decode(Int64.self, at: 1))
            }
        } catch {
            throw Self.translate(error)
        }
    }
}
