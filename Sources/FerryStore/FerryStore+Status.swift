import FerryCore
import Foundation
import Postgres

extension FerryStore {
    /// Which jobs a status query covers.
    public enum JobFilter: Sendable {
        case job(UUID)
        /// These jobs (`ferry discard JOB…`, the dashboard's selections and groups of failures).
        case jobs([UUID])
        case batch(String)
        /// A batch's jobs in `state` and/or whose source or destination contains `search` (case-insensitive):
        /// what the dashboard's batch filter shows, across all its pages.
        case matching(batch: String, state: String?, search: String?)
        case queue(String)
        case all

        /// Jobs named one by one: commands report each (unchanged ones with their state); for the other
        /// filters they report only the jobs they changed.
        public var isNamed: Bool {
            switch self {
            case .job, .jobs: true
            case .batch, .matching, .queue, .all: false
            }
        }

        /// What must exist for the filter to name anything: a filter that matches no job of an existing batch
        /// names nothing to act on, not a missing batch.
        var container: JobFilter {
            if case .matching(let batch, _, _) = self { return .batch(batch) }
            return self
        }

        /// The filter as a condition on `ferry.jobs` and its bind parameters, numbered from `$first`.
        func condition(from first: Int) -> (sql: String, binds: [any PostgresBindable]) {
            switch self {
            case .job(let id): return ("job_id = $\(first)::uuid", [id])
            case .jobs(let ids): return ("job_id = ANY ($\(first)::uuid[])", [PostgresArray(ids)])
            case .batch(let batch): return ("batch = $\(first)", [batch])
            case .queue(let queue): return ("queue = $\(first)", [queue])
            case .all: return ("true", [])
            case .matching(let batch, let state, let search):
                // Conditions only when given, so the planner sees plain ranges of jobs_batch_idx.
                var sql = "batch = $\(first)"
                var binds: [any PostgresBindable] = [batch]
                if let state {
                    binds.append(state)
                    sql += " AND state = $\(first + binds.count - 1)"
                }
                if let search, !search.isEmpty {
                    binds.append(FerryStore.containsPattern(search))
                    sql += " AND (source ILIKE $\(first + binds.count - 1) OR destination ILIKE $\(first + binds.count - 1))"
                }
                return (sql, binds)
            }
        }
    }

    /// A LIKE pattern matching `text` anywhere, its `\\`, `%` and `_` taken literally.
    static func containsPattern(_ text: String) -> String {
        "%" + text.replacingOccurrences(of: "\\", with: "\\\\")
            .replacingOccurrences(of: "%", with: "\\%").replacingOccurrences(of: "_", with: "\\_") + "%"
    }

    /// Rows of `ferry.job_status`, oldest first, at most `limit`.
    public func jobStatus(_ filter: JobFilter, limit: Int = 1000) async throws -> [JobStatusRow] {
        let (condition, binds) = filter.condition(from: 1)
        let sql = """
            SELECT \(JobStatusRow.columns) FROM ferry.job_status WHERE \(condition)
            ORDER BY enqueued_at, job_id LIMIT \(max(1, limit))
            """
        do {
            return try await client.withConnection { connection in
                try connection.query(sql, binds).rows.map(JobStatusRow.init(row:))
            }
        } catch {
            throw Self.translate(error)
        }
    }

    /// Rows of `ferry.batch_status` (one batch, or all batches newest first).
    public func batchStatus(_ batch: String? = nil, limit: Int = 100) async throws -> [BatchStatusRow] {
        let sql =
            batch == nil
            ? BatchStatusRow.select(where: "", order: "ORDER BY enqueued_at DESC LIMIT \(max(1, limit))") + " ORDER BY b.enqueued_at DESC"
            : BatchStatusRow.select(where: "WHERE batch = $1")
        let binds: [any PostgresBindable] = batch.map { [$0] } ?? []
        do {
            return try await client.withConnection { connection in
                try connection.query(sql, binds).rows.map(BatchStatusRow.init(row:))
            }
        } catch {
            throw Self.translate(error)
        }
    }

    /// Rows of `ferry.queue_stats`, optionally for one queue.
    public func queueStats(_ queue: String? = nil) async throws -> [QueueStatsRow] {
        let sql =
            "SELECT \(QueueStatsRow.columns) FROM ferry.queue_stats"
            + (queue == nil ? "" : " WHERE queue = $1") + " ORDER BY queue, state"
        let binds: [any PostgresBindable] = queue.map { [$0] } ?? []
        do {
            return try await client.withConnection { connection in
                try connection.query(sql, binds).rows.map(QueueStatsRow.init(row:))
            }
        } catch {
            throw Self.translate(error)
        }
    }

    /// Queue depth for metrics (`ferry.queue_depth`): every queue with queued or running jobs, and each of `queues`
    /// (with zeros when empty). Reads the queue counters and a few index probes per queue, never the jobs
    /// themselves, so it costs the same at a million queued jobs as at ten.
    public func queueDepth(including queues: [String] = []) async throws -> [QueueDepthRow] {
        do {
            return try await client.withConnection { connection in
                try connection.query(
                    "SELECT \(QueueDepthRow.columns) FROM ferry.queue_depth($1::text[])", [PostgresArray(queues)]
                ).rows.map(QueueDepthRow.init(row:))
            }
        } catch {
            throw Self.translate(error)
        }
    }

    /// A job's history, oldest first.
    public func events(of jobID: UUID) async throws -> [JobEventRecord] {
        do {
            return try await client.withConnection { connection in
                try connection.query(
                    "SELECT \(JobEventRecord.columns) FROM ferry.job_timeline WHERE job_id = $1::uuid ORDER BY version",
                    [jobID]
                ).rows.map(JobEventRecord.init(row:))
            }
        } catch {
            throw Self.translate(error)
        }
    }
}
