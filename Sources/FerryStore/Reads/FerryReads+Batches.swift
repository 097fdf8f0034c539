import FerryCore
import Foundation
import Postgres

extension FerryReads {
    /// A batch's history (`ferry.batch_events`), oldest first: when it completed and when it was reopened.
    public func batchEvents(of batch: String) async throws -> [BatchEventRecord] {
        do {
            return try await client.withConnection { connection in
                try connection.query(
                    "SELECT \(BatchEventRecord.columns) FROM ferry.batch_events WHERE batch = $1 ORDER BY position",
                    [batch]
                ).rows.map(BatchEventRecord.init(row:))
            }
        } catch {
            throw Self.translate(error)
        }
    }

    /// Jobs of a batch that finished without succeeding (failed, cancelled or discarded), first finished first.
    public func unsuccessfulJobs(inBatch batch: String, limit: Int = 5) async throws -> [JobStatusRow] {
        let sql = """
            SELECT \(JobStatusRow.columns) FROM ferry.job_status
             WHERE batch = $1 AND state IN ('failed', 'cancelled', 'discarded')
             ORDER BY finished_at, job_id LIMIT \(max(1, limit))
            """
        do {
            return try await client.withConnection { connection in
                try connection.query(sql, [batch]).rows.map(JobStatusRow.init(row:))
            }
        } catch {
            throw Self.translate(error)
        }
    }
}
