import FerryCore
import Foundation
import Postgres

extension FerryReads {
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
