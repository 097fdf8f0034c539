import Postgres

extension FerryReads {
    /// A schedule run's batch name (`schedule:NAME:TICK`) as a pattern: the schedule's name is what precedes the tick.
    static let scheduleBatchPattern = "^schedule:(.*):[0-9]{4}-[0-9]{2}-[0-9]{2}T"

    /// Batches that are not a schedule's runs, newest first (`ferry.batch_status`): a schedule that fires every
    /// minute would otherwise fill the list with its runs.
    public func batchStatusWithoutScheduleRuns(limit: Int = 100) async throws -> [BatchStatusRow] {
        let sql = BatchStatusRow.select(where: "WHERE batch !~ $1", order: "ORDER BY enqueued_at DESC LIMIT \(max(1, limit))")
            + " ORDER BY b.enqueued_at DESC"
        do {
            return try await client.withConnection { connection in
                try connection.query(sql, [Self.scheduleBatchPattern]).rows.map(BatchStatusRow.init(row:))
            }
        } catch {
            throw Self.translate(error)
        }
    }

    /// The schedules' runs summed per schedule, the most recently run first, at most `limit` schedules.
    public func scheduleRunGroups(limit: Int = 50) async throws -> [ScheduleRunGroup] {
        do {
            return try await client.withConnection { connection in
                try connection.query(
                    """
                    SELECT substring(b.batch FROM $1) AS schedule, count(*) AS runs, count(*) FILTER (WHERE NOT b.done) AS going,
                           count(*) FILTER (WHERE b.done AND b.failed + b.cancelled + b.discarded = 0) AS succeeded_runs,
                           count(*) FILTER (WHERE b.done AND b.failed + b.cancelled + b.discarded > 0) AS unsuccessful_runs,
                           sum(b.jobs)::bigint AS jobs, sum(b.bytes_done)::bigint AS bytes_done,
                           (array_agg(b.batch ORDER BY b.enqueued_at DESC))[1] AS last_batch, max(b.enqueued_at) AS last_run_at
                      FROM ferry.batch_status b
                     WHERE b.batch ~ $1
                     GROUP BY 1
                     ORDER BY max(b.enqueued_at) DESC
                     LIMIT $2
                    """, [Self.scheduleBatchPattern, max(1, limit)]
                ).rows.map { row in
                    ScheduleRunGroup(
                        schedule: try row.decode(String.self, column: "schedule"), runs: try row.decode(Int64.self, column: "runs"),
                        going: try row.decode(Int64.self, column: "going"),
                        succeededRuns: try row.decode(Int64.self, column: "succeeded_runs"),
                        unsuccessfulRuns: try row.decode(Int64.self, column: "unsuccessful_runs"),
                        jobs: try row.decode(Int64.self, column: "jobs"), bytesDone: try row.decode(Int64.self, column: "bytes_done"),
                        lastBatch: try row.decode(String.self, column: "last_batch"),
                        lastRunAt: try row.decode(PostgresTimestamp.self, column: "last_run_at"))
                }
            }
        } catch {
            throw Self.translate(error)
        }
    }

    /// The batches named, by name (`ferry.batch_status`): a schedule's run history reads its runs' outcomes at once.
    public func batchStatus(named names: [String]) async throws -> [String: BatchStatusRow] {
        guard !names.isEmpty else { return [:] }
        do {
            return try await client.withConnection { connection in
                let rows = try connection.query(BatchStatusRow.select(where: "WHERE batch = ANY ($1::text[])"), [PostgresArray(names)])
                    .rows.map(BatchStatusRow.init(row:))
                return Dictionary(rows.map { ($0.batch, $0) }, uniquingKeysWith: { first, _ in first })
            }
        } catch {
            throw Self.translate(error)
        }
    }
}
