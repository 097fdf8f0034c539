import FerryCore
import Foundation
import Postgres

extension FerryReads {
    /// How many jobs a list across batches reads at most before narrowing them: the newest of the state asked for
    /// (finished ones by `jobs_finished_idx`, queued ones by the claim index, running ones by their own), or the
    /// newest jobs of all. The read stays bounded at any depth; a rare match older than that is found by its batch,
    /// its queue (`ferry status --queue`) or a search.
    public static let jobListScanLimit = 10_000

    /// Jobs of every batch that `filter` keeps, newest first, at most `limit` (up to 1,000), among the newest
    /// ``jobListScanLimit`` of their state.
    public func listJobs(_ filter: JobListFilter, limit: Int) async throws -> [JobStatusRow] {
        let query = Self.listQuery(filter, limit: limit)
        do {
            return try await client.withConnection { connection in
                try connection.query(query.sql, query.binds).rows.map(JobStatusRow.init(row:))
            }
        } catch {
            throw Self.translate(error)
        }
    }

    /// The SQL of `listJobs`: a bounded read by the index that orders the state's jobs, narrowed, newest first.
    static func listQuery(_ filter: JobListFilter, limit: Int) -> (sql: String, binds: [any PostgresBindable]) {
        let scan = jobListScanLimit
        let read: String
        var binds = [any PostgresBindable]()
        switch filter.state {
        case .some(let state) where state.isTerminal:
            binds.append(state.rawValue)
            read = "SELECT job_id, state, queue, account FROM ferry.jobs WHERE state = $1 ORDER BY finished_at DESC LIMIT \(scan)"
        case .some(.queued):
            // In the claim index's order, so that index is read (a partial index of the queued jobs only), from
            // the queue and account asked for when they are.
            var prefix = ""
            if let queue = filter.queue {
                binds.append(queue)
                prefix += " AND queue = $\(binds.count)"
            }
            if let account = filter.account {
                binds.append(account)
                prefix += " AND COALESCE(account, '') = $\(binds.count)"
            }
            read = """
                SELECT job_id, state, queue, account FROM ferry.jobs WHERE state = 'queued'\(prefix)
                 ORDER BY queue, COALESCE(account, ''), priority DESC, run_at, job_id LIMIT \(scan)
                """
        case .some(let state):
            binds.append(state.rawValue)
            read = "SELECT job_id, state, queue, account FROM ferry.jobs WHERE state = $1 LIMIT \(scan)"
        case .none:
            read = "SELECT job_id, state, queue, account FROM ferry.jobs ORDER BY job_id DESC LIMIT \(scan)"
        }
        var narrowed = filter
        narrowed.state = nil
        let (conditions, values) = narrowed.conditions(alias: "f", first: binds.count + 1)
        binds += values
        let sql = """
            SELECT \(JobStatusRow.columns) FROM ferry.job_status
             WHERE job_id IN (SELECT f.job_id FROM (\(read)) f
                               \(conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND "))
                               ORDER BY f.job_id DESC LIMIT \(max(1, min(limit, 1000))))
             ORDER BY job_id DESC
            """
        return (sql, binds)
    }
}
