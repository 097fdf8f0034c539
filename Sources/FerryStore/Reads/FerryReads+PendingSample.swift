import Postgres

extension FerryReads {
    /// Up to `limit` queued jobs matching `filter` (no order: a range of jobs_batch_idx, whatever the batch's
    /// size), grouped by queue, status and account, each group with its earliest run time and whether its queue
    /// is paused (`ferry.queue_stats`).
    public func pendingSample(_ filter: JobFilter, limit: Int = 500) async throws -> [PendingSample] {
        let (condition, binds) = filter.condition(from: 2)
        do {
            return try await client.withConnection { connection in
                try connection.query(
                    """
                    WITH sample AS (
                        SELECT queue, status, account, held_reason, run_at FROM ferry.job_status
                         WHERE \(condition) AND state = 'queued' LIMIT $1
                    )
                    SELECT s.queue, s.status, s.account, min(s.held_reason) AS held_reason, min(s.run_at) AS run_at,
                           count(*) AS jobs,
                           coalesce((SELECT bool_or(q.paused) FROM ferry.queue_stats q WHERE q.queue = s.queue), false) AS paused
                      FROM sample s
                     GROUP BY s.queue, s.status, s.account
                     ORDER BY s.queue, s.status, s.account
                    """, [max(1, limit)] + binds
                ).rows.map { row in
                    PendingSample(
                        queue: try row.decode(String.self, column: "queue"), status: try row.decode(String.self, column: "status"),
                        account: try row.decode(String?.self, column: "account"),
                        heldReason: try row.decode(String?.self, column: "held_reason"),
                        runAt: try row.decode(PostgresTimestamp.self, column: "run_at"), jobs: try row.decode(Int64.self, column: "jobs"),
                        paused: try row.decode(Bool.self, column: "paused"))
                }
            }
        } catch {
            throw Self.translate(error)
        }
    }
}
