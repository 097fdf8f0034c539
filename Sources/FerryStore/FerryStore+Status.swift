import FerryCore
import Foundation
import Postgres

extension FerryStore {
    /// Which jobs a status query covers.
    public enum JobFilter: Sendable {
        case job(UUID)
        /// These jobs (the dashboard's retry of a group of failures).
        case jobs([UUID])
        case batch(String)
        case queue(String)
        case all

        /// The filter as a condition on `ferry.jobs` with its one bind parameter (`$1`).
        var condition: (sql: String, bind: any PostgresBindable) {
            switch self {
            case .job(let id): ("job_id = $1::uuid", id)
            case .jobs(let ids): ("job_id = ANY ($1::uuid[])", PostgresArray(ids))
            case .batch(let batch): ("batch = $1", batch)
            case .queue(let queue): ("queue = $1", queue)
            case .all: ("$1::text IS NULL", String?.none)
            }
        }
    }

    /// Rows of `ferry.job_status`, oldest first, at most `limit`.
    public func jobStatus(_ filter: JobFilter, limit: Int = 1000) async throws -> [JobStatusRow] {
        let (condition, binds): (String, [any PostgresBindable]) =
            switch filter {
            case .job(let id): ("job_id = $1::uuid", [id])
            case .jobs(let ids): ("job_id = ANY ($1::uuid[])", [PostgresArray(ids)])
            case .batch(let batch): ("batch = $1", [batch])
            case .queue(let queue): ("queue = $1", [queue])
            case .all: ("true", [])
            }
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
            ? "SELECT \(BatchStatusRow.columns) FROM ferry.batch_status ORDER BY enqueued_at DESC LIMIT \(max(1, limit))"
            : "SELECT \(BatchStatusRow.columns) FROM ferry.batch_status WHERE batch = $1"
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
