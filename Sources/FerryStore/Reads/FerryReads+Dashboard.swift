import FerryCore
import Foundation
import Postgres

extension FerryReads {
    /// One page of a batch's jobs in job id order (UUIDv7: enqueue order), after `after` (keyset pagination:
    /// the cost of a page does not grow with its depth, unlike OFFSET).
    ///
    /// - Parameters:
    ///   - state: only jobs in this state (`queued`, `running`, `succeeded`, `failed`, `cancelled`, `discarded`).
    ///   - search: only jobs whose source or destination contains this text (case-insensitive).
    ///   - firstJob: the batch's lowest job id (``BatchStatusRow/firstJobID``): without a state, the page is
    ///     then a walk of the primary key from there.
    public func batchJobs(
        _ batch: String, state: String? = nil, search: String? = nil, after: UUID? = nil, firstJob: UUID? = nil,
        limit: Int = 50
    ) async throws -> [JobStatusRow] {
        // Conditions are added only when used, so the planner sees plain index ranges rather than "$n IS NULL OR …".
        var conditions = ["batch = $1"]
        var binds: [any PostgresBindable] = [batch]
        if let search, !search.isEmpty {
            binds.append(Self.containsPattern(search))
            conditions.append("(source ILIKE $\(binds.count) OR destination ILIKE $\(binds.count))")
        }
        if let after {
            binds.append(after)
            conditions.append("job_id > $\(binds.count)::uuid")
        }
        let limit = max(1, min(limit, 1000))
        if state == nil, let firstJob {
            // All states in id order: the primary key from the batch's first job reads the next `limit` jobs
            // and their few row versions. One range per state (below) starts each at that state's oldest
            // entries, and while workers run, the head of the queued and running ranges is thousands of entries
            // of jobs that moved on (2 workers, 200,000 jobs: 142,000 buffers, 200 ms for one page).
            binds.append(firstJob)
            conditions.append("job_id >= $\(binds.count)::uuid")
            let sql = """
                SELECT \(JobStatusRow.columns) FROM ferry.job_status
                 WHERE \(conditions.joined(separator: " AND ")) ORDER BY job_id LIMIT \(limit)
                """
            let query = binds
            do {
                return try await client.withConnection { connection in
                    try connection.query(sql, query).rows.map(JobStatusRow.init(row:))
                }
            } catch {
                throw Self.translate(error)
            }
        }
        // jobs_batch_idx is (batch, state, job_id): one ordered range per state, merged in id order (Merge Append),
        // so a page reads about `limit` index entries per state at any depth of the batch (0019).
        let states = state.map { [$0] } ?? JobState.allCases.map(\.rawValue)
        let branches = states.map { state -> String in
            binds.append(state)
            return """
                (SELECT \(JobStatusRow.columns) FROM ferry.job_status
                  WHERE \(conditions.joined(separator: " AND ")) AND state = $\(binds.count)
                  ORDER BY job_id LIMIT \(limit))
                """
        }
        let query = binds
        let sql = "SELECT * FROM (\(branches.joined(separator: " UNION ALL "))) page ORDER BY job_id LIMIT \(limit)"
        do {
            return try await client.withConnection { connection in
                try connection.query(sql, query).rows.map(JobStatusRow.init(row:))
            }
        } catch {
            throw Self.translate(error)
        }
    }

    /// How many of a batch's first jobs a sort by size or start time orders: no index covers those orders, so the
    /// sort reads a bounded window (the batch's first jobs by id), never the whole batch.
    public static let sortWindow = 10_000

    /// One page of a batch's jobs in `order`, after the job `after` (keyset: the page's cost does not grow with
    /// its depth). Enqueue order is ``batchJobs(_:state:search:after:firstJob:limit:)``.
    public func batchJobs(
        _ batch: String, order: BatchJobOrder, state: String? = nil, search: String? = nil, after: UUID? = nil,
        firstJob: UUID? = nil, limit: Int = 50
    ) async throws -> [JobStatusRow] {
        let limit = max(1, min(limit, 1000))
        switch order {
        case .enqueued:
            return try await batchJobs(batch, state: state, search: search, after: after, firstJob: firstJob, limit: limit)
        case .status:
            return try await batchJobsByStatus(batch, state: state, search: search, after: after, limit: limit)
        case .size, .started:
            return try await batchJobsInWindow(batch, order: order, state: state, search: search, after: after, firstJob: firstJob, limit: limit)
        }
    }

    private static func likePattern(_ search: String) -> String {
        "%" + search.replacingOccurrences(of: "\\", with: "\\\\")
            .replacingOccurrences(of: "%", with: "\\%").replacingOccurrences(of: "_", with: "\\_") + "%"
    }

    /// One range of jobs_batch_idx (batch, state, job_id) per state, in `BatchJobOrder.statusOrder`; the cursor
    /// job's state (read first) says which ranges are behind it.
    private func batchJobsByStatus(_ batch: String, state: String?, search: String?, after: UUID?, limit: Int) async throws -> [JobStatusRow] {
        do {
            return try await client.withConnection { connection in
                var afterRank: Int?
                if let after {
                    let rows = try connection.query("SELECT state FROM ferry.job_status WHERE job_id = $1::uuid", [after]).rows
                    afterRank = try rows.first.flatMap { BatchJobOrder.statusOrder.firstIndex(of: try $0.decode(String.self, column: "state")) }
                }
                guard let (sql, binds) = Self.statusPageQuery(batch, state: state, search: search, after: after.map { ($0, afterRank ?? 0) }, limit: limit)
                else { return [] }
                return try connection.query(sql, binds).rows.map(JobStatusRow.init(row:))
            }
        } catch {
            throw Self.translate(error)
        }
    }

    /// The SQL of a page in status order after the job `after` (its id and its state's rank); nil when no state is
    /// left to read.
    static func statusPageQuery(
        _ batch: String, state: String?, search: String?, after: (id: UUID, rank: Int)?, limit: Int
    ) -> (sql: String, binds: [any PostgresBindable])? {
        var binds: [any PostgresBindable] = [batch]
        var common = ["batch = $1"]
        if let search, !search.isEmpty {
            binds.append(likePattern(search))
            common.append("(source ILIKE $\(binds.count) OR destination ILIKE $\(binds.count))")
        }
        var branches = [String]()
        for (rank, candidate) in BatchJobOrder.statusOrder.enumerated() {
            if let state, state != candidate { continue }
            if let after, rank < after.rank { continue }
            var conditions = common
            binds.append(candidate)
            conditions.append("state = $\(binds.count)")
            if let after, rank == after.rank {
                binds.append(after.id)
                conditions.append("job_id > $\(binds.count)::uuid")
            }
            branches.append("""
                (SELECT \(rank) AS rank, \(JobStatusRow.columns) FROM ferry.job_status
                  WHERE \(conditions.joined(separator: " AND ")) ORDER BY job_id LIMIT \(limit))
                """)
        }
        guard !branches.isEmpty else { return nil }
        return ("SELECT * FROM (\(branches.joined(separator: " UNION ALL "))) page ORDER BY rank, job_id LIMIT \(limit)", binds)
    }

    /// Orders the batch's first `sortWindow` jobs (a walk of the primary key from its first job) by size or start,
    /// descending, with the job id as tie-breaker; the cursor is the key of the job `after`.
    private func batchJobsInWindow(
        _ batch: String, order: BatchJobOrder, state: String?, search: String?, after: UUID?, firstJob: UUID?, limit: Int
    ) async throws -> [JobStatusRow] {
        let (sql, query) = Self.windowPageQuery(batch, order: order, state: state, search: search, after: after, firstJob: firstJob, limit: limit)
        do {
            return try await client.withConnection { connection in
                try connection.query(sql, query).rows.map(JobStatusRow.init(row:))
            }
        } catch {
            throw Self.translate(error)
        }
    }

    /// The SQL of a page in size or start order within the batch's first `sortWindow` jobs.
    static func windowPageQuery(
        _ batch: String, order: BatchJobOrder, state: String?, search: String?, after: UUID?, firstJob: UUID?, limit: Int
    ) -> (sql: String, binds: [any PostgresBindable]) {
        let key = order == .size ? "coalesce(bytes_total, -1)" : "coalesce(started_at, '-infinity'::timestamptz)"
        var binds: [any PostgresBindable] = [batch]
        var window = ["batch = $1"]
        if let firstJob {
            binds.append(firstJob)
            window.append("job_id >= $\(binds.count)::uuid")
        }
        var conditions = ["true"]
        if let state {
            binds.append(state)
            conditions.append("state = $\(binds.count)")
        }
        if let search, !search.isEmpty {
            binds.append(Self.likePattern(search))
            conditions.append("(source ILIKE $\(binds.count) OR destination ILIKE $\(binds.count))")
        }
        if let after {
            binds.append(after)
            conditions.append("(\(key), job_id) < (SELECT \(key), job_id FROM ferry.job_status WHERE job_id = $\(binds.count)::uuid)")
        }
        let sql = """
            SELECT \(JobStatusRow.columns) FROM (
                SELECT * FROM ferry.job_status WHERE \(window.joined(separator: " AND ")) ORDER BY job_id LIMIT \(Self.sortWindow)
            ) window_jobs
             WHERE \(conditions.joined(separator: " AND ")) ORDER BY \(key) DESC, job_id DESC LIMIT \(limit)
            """
        return (sql, binds)
    }

    /// The newest `limit` failed jobs, last finished first (a backward walk of `jobs_finished_idx`, stopping at
    /// `limit`): the sample the dashboard groups by error, bounded whatever the number of failures.
    public func failureSample(limit: Int = 10_000) async throws -> [FailureRow] {
        let sql = Self.failureSampleQuery(limit: limit)
        do {
            return try await client.withConnection { connection in
                try connection.query(sql, []).rows.map(FailureRow.init(row:))
            }
        } catch {
            throw Self.translate(error)
        }
    }

    /// The SQL of ``failureSample(limit:)``.
    static func failureSampleQuery(limit: Int) -> String {
        """
        SELECT \(FailureRow.columns) FROM ferry.job_status WHERE state = 'failed'
        ORDER BY finished_at DESC LIMIT \(max(1, min(limit, 100_000)))
        """
    }

    /// Failed jobs, last finished first: a backward walk of `jobs_finished_idx` (state, finished_at), stopping at
    /// `limit`. (A job_id tie-breaker would make PostgreSQL sort every failed job instead.)
    public func failedJobs(limit: Int = 200) async throws -> [JobStatusRow] {
        let sql = """
            SELECT \(JobStatusRow.columns) FROM ferry.job_status WHERE state = 'failed'
            ORDER BY finished_at DESC LIMIT \(max(1, min(limit, 1000)))
            """
        do {
            return try await client.withConnection { connection in
                try connection.query(sql, []).rows.map(JobStatusRow.init(row:))
            }
        } catch {
            throw Self.translate(error)
        }
    }

    /// Registered workers by name, with heartbeat age and how many jobs each runs.
    public func workerStatus() async throws -> [WorkerStatusRow] {
        do {
            return try await client.withConnection { connection in
                try connection.query("SELECT \(WorkerStatusRow.columns) FROM ferry.worker_status ORDER BY name", [])
                    .rows.map(WorkerStatusRow.init(row:))
            }
        } catch {
            throw Self.translate(error)
        }
    }
}

extension FerryReads {
    /// Finished jobs and bytes per minute and queue over the last hour (`ferry.throughput`), oldest minute first.
    public func throughput() async throws -> [ThroughputRow] {
        do {
            return try await client.withConnection { connection in
                try connection.query("SELECT \(ThroughputRow.columns) FROM ferry.throughput ORDER BY minute, queue", [])
                    .rows.map(ThroughputRow.init(row:))
            }
        } catch {
            throw Self.translate(error)
        }
    }

    /// Accounts without their secrets (`ferry.account_status`), by name.
    public func accountStatus() async throws -> [AccountStatusRow] {
        do {
            return try await client.withConnection { connection in
                try connection.query("SELECT \(AccountStatusRow.columns) FROM ferry.account_status ORDER BY name", [])
                    .rows.map(AccountStatusRow.init(row:))
            }
        } catch {
            throw Self.translate(error)
        }
    }

    /// Running jobs per account, from the partial index of running jobs by account. Read through `ferry.job_status`
    /// (the state filter reaches the index through the view): the read-only dashboard's `ferry_reader` login may
    /// read the status views only, not `ferry.jobs`.
    public func runningByAccount() async throws -> [String: Int64] {
        do {
            return try await client.withConnection { connection in
                var counts = [String: Int64]()
                for row in try connection.query(
                    "SELECT account, count(*) AS running FROM ferry.job_status WHERE state = 'running' AND account IS NOT NULL GROUP BY account", []
                ).rows {
                    counts[try row.decode(String.self, column: "account")] = try row.decode(Int64.self, column: "running")
                }
                return counts
            }
        } catch {
            throw Self.translate(error)
        }
    }

    /// The jobs running now, by worker and start, at most `limit` (the workers page): from the partial index of
    /// running jobs by worker.
    public func runningJobs(limit: Int = 500) async throws -> [JobStatusRow] {
        do {
            return try await client.withConnection { connection in
                try connection.query(
                    "SELECT \(JobStatusRow.columns) FROM ferry.job_status WHERE state = 'running' ORDER BY worker, started_at LIMIT $1",
                    [Int64(max(1, min(limit, 5000)))]
                ).rows.map(JobStatusRow.init(row:))
            }
        } catch {
            throw Self.translate(error)
        }
    }

    /// Queued jobs held because their account needs `ferry account login`, in claim order per queue and account:
    /// ranges of jobs_claim_idx (queue, account), never a scan of the queue.
    public func heldJobs(accounts: [String], limit: Int = 200) async throws -> [JobStatusRow] {
        guard !accounts.isEmpty else { return [] }
        let sql = """
            SELECT \(JobStatusRow.columns) FROM ferry.job_status
             WHERE state = 'queued' AND coalesce(account, '') = ANY($1::text[])
               AND queue = ANY (ARRAY(SELECT queue FROM ferry.queue_stats WHERE state = 'queued'))
             ORDER BY job_id LIMIT \(max(1, min(limit, 1000)))
            """
        do {
            return try await client.withConnection { connection in
                try connection.query(sql, [PostgresArray(accounts)]).rows.map(JobStatusRow.init(row:))
            }
        } catch {
            throw Self.translate(error)
        }
    }

    /// The position of the newest event (0 when there is none): one probe of the primary key. The dashboard reads
    /// it once a second for all viewers to notice changes that send no notification (progress, successes).
    public func latestEventPosition() async throws -> Int64 {
        do {
            return try await client.withConnection { connection in
                try connection.query("SELECT coalesce(max(position), 0)::bigint AS position FROM ferry.job_timeline", []).rows[0]
                    .decode(Int64.self, column: "position")
            }
        } catch {
            throw Self.translate(error)
        }
    }
}
