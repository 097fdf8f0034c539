import FerryCore
import Foundation
import Postgres

extension FerryReads {
    /// The order `ferry status --batch` lists a batch's jobs in: what needs the operator first (failed, then
    /// discarded, cancelled, running, queued), the successes last, so a failure in a large batch is never behind
    /// the first page of successes.
    public static let attentionOrder: [JobState] = [.failed, .discarded, .cancelled, .running, .queued, .succeeded]

    /// Up to `limit` jobs of `batch` in `states` (the ``attentionOrder``, or one state asked for), each state's jobs
    /// in enqueue (id) order. One range of `jobs_batch_idx` per state, read only while the page is not full: the
    /// cost is the page's, whatever the batch's size.
    public func batchJobs(_ batch: String, states: [JobState] = attentionOrder, limit: Int) async throws -> [JobStatusRow] {
        do {
            return try await client.withConnection { connection in
                var rows: [JobStatusRow] = []
                for state in states where rows.count < limit {
                    let sql = """
                        SELECT \(JobStatusRow.columns) FROM ferry.job_status WHERE batch = $1 AND state = $2
                         ORDER BY job_id LIMIT \(max(1, limit - rows.count))
                        """
                    rows += try connection.query(sql, [batch, state.rawValue]).rows.map(JobStatusRow.init(row:))
                }
                return rows
            }
        } catch {
            throw Self.translate(error)
        }
    }
}
