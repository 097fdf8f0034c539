import FerryCore
import Foundation
import Postgres

/// The projection: checking it against the event log, its counters, and rebuilding it. Reached as `store.projection`.
public struct ProjectionStore: Sendable {
    let client: PostgresClient

    /// Replays the jobs of `scope` from the event log with ``JobFold`` (the Swift spelling of `ferry.apply_event`)
    /// and compares each replayed row with the stored projection, column by column as PostgreSQL prints them.
    /// Runs on one consistent snapshot (REPEATABLE READ), chunk by chunk, so memory stays bounded.
    ///
    /// `chunkEvents` sets how many events a chunk holds (tests use small chunks to cross chunk boundaries).
    public func verify(limit: Int = 50, scope: ProjectionScope = .all, chunkEvents: Int = 200_000) async throws -> ProjectionReport {
        // A whole-log verify reads the stored rows on a second connection of the pool, on the same snapshot, while
        // this one reads and folds the events; with one connection (a pool of 1) the two take turns.
        let streamRows = scope == .all && client.configuration.poolSize >= 2
        let client = self.client
        do {
            return try await client.withTransaction(isolation: .repeatableRead) { connection in
                let lastPosition = try connection.query("SELECT coalesce(max(position), 0) AS position FROM ferry.events").rows[0]
                    .decode(Int64.self, column: "position")
                var stream: StoredRowStream?
                if streamRows {
                    let snapshot = try connection.query("SELECT pg_export_snapshot() AS snapshot").rows[0].decode(String.self, column: "snapshot")
                    let rows = StoredRowStream()
                    stream = rows
                    Task {
                        do {
                            try await client.withConnection { try StoredRowStream.produce(into: rows, on: $0, snapshot: snapshot) }
                            rows.finish(nil)
                        } catch {
                            rows.finish(error)
                        }
                    }
                }
                // A producer that took the snapshot must be done before this transaction ends (so its connection is
                // back in the pool and the export outlived its import): wait for it however the verify ends.
                defer { stream?.cancelAndWait() }
                var comparison = ProjectionComparison(limit: limit)
                var replay = ProjectionReplay(connection: connection, chunkEvents: chunkEvents)
                try replay.forEachChunk(scope) { replay, range in
                    if let stream {
                        try replay.compare(streamed: stream, into: &comparison)
                    } else {
                        try replay.compare(range, into: &comparison)
                    }
                }
                return ProjectionReport(
                    jobsChecked: comparison.jobsChecked, eventsReplayed: replay.eventsReplayed, scope: scope,
                    lastPosition: lastPosition, differences: comparison.differences, truncated: comparison.truncated)
            }
        } catch {
            throw FerryStore.translate(error)
        }
    }

    /// Queues and states whose counter (`ferry.queue_counts` plus pending deltas, what `ferry.queue_stats` shows)
    /// differs from the number of jobs in the projection. Empty when the counters are right.
    public func queueCountDifferences() async throws -> [QueueCountDifference] {
        do {
            return try await client.withTransaction(isolation: .repeatableRead) { connection in
                try connection.query(
                    """
                    WITH counted AS (
                        SELECT queue, state, sum(jobs)::bigint AS jobs
                          FROM (SELECT queue, state, jobs FROM ferry.queue_counts
                                UNION ALL SELECT queue, state, delta FROM ferry.queue_count_deltas) t
                         GROUP BY queue, state
                    ), real AS (
                        SELECT queue, state, count(*) AS jobs FROM ferry.jobs GROUP BY queue, state
                    )
                    SELECT coalesce(c.queue, r.queue) AS queue, coalesce(c.state, r.state) AS state,
                           coalesce(c.jobs, 0) AS counted, coalesce(r.jobs, 0) AS actual
                      FROM counted c FULL JOIN real r ON r.queue = c.queue AND r.state = c.state
                     WHERE coalesce(c.jobs, 0) <> coalesce(r.jobs, 0)
                     ORDER BY 1, 2
                    """
                ).rows.map { row in
                    QueueCountDifference(
                        queue: try row.decode(String.self, column: "queue"), state: try row.decode(String.self, column: "state"),
                        counted: try row.decode(Int.self, column: "counted"), actual: try row.decode(Int.self, column: "actual"))
                }
            }
        } catch {
            throw FerryStore.translate(error)
        }
    }

    /// Batch figures whose counter (`ferry.batch_counts` plus pending deltas, what `ferry.batch_status` shows)
    /// differs from what the batch's jobs in the projection add up to. Empty when the counters are right.
    public func batchCountDifferences(limit: Int = 50) async throws -> [BatchCountDifference] {
        let fields = [
            "jobs", "queued", "running", "succeeded", "failed", "cancelled", "bytes_done", "bytes_total", "sized", "unchanged",
            "unchanged_bytes", "discarded",
        ]
        let sums = fields.map { "sum(\($0))::bigint AS \($0)" }.joined(separator: ", ")
        let pairs = fields.map { "('\($0)', c.\($0), r.\($0))" }.joined(separator: ", ")
        do {
            return try await client.withTransaction(isolation: .repeatableRead) { connection in
                try connection.query(
                    """
                    WITH counted AS (
                        SELECT batch, \(sums)
                          FROM (SELECT * FROM ferry.batch_counts UNION ALL SELECT * FROM ferry.batch_count_deltas) t
                         GROUP BY batch
                    )
                    SELECT coalesce(c.batch, r.batch) AS batch, f.field, coalesce(f.counted, 0) AS counted,
                           coalesce(f.actual, 0) AS actual
                      FROM counted c
                      FULL JOIN ferry.batch_counts_actual() r ON r.batch = c.batch
                     CROSS JOIN LATERAL (VALUES \(pairs)) AS f(field, counted, actual)
                     WHERE coalesce(f.counted, 0) <> coalesce(f.actual, 0)
                     ORDER BY 1, 2
                     LIMIT $1
                    """, [limit]
                ).rows.map { row in
                    BatchCountDifference(
                        batch: try row.decode(String.self, column: "batch"), field: try row.decode(String.self, column: "field"),
                        counted: try row.decode(Int64.self, column: "counted"), actual: try row.decode(Int64.self, column: "actual"))
                }
            }
        } catch {
            throw FerryStore.translate(error)
        }
    }

    /// Jobs whose search terms are missing, stale or left over (compared with `ferry.jobs` on one snapshot).
    /// Empty when search sees every job as it is.
    public func searchTermDifferences(limit: Int = 50) async throws -> [SearchTermDifference] {
        do {
            return try await client.withTransaction(isolation: .repeatableRead) { connection in
                try connection.query(
                    """
                    SELECT coalesce(j.job_id, t.job_id) AS job_id,
                           CASE WHEN t.job_id IS NULL THEN 'missing' WHEN j.job_id IS NULL THEN 'orphaned' ELSE 'stale' END AS problem
                      FROM ferry.jobs j
                      FULL JOIN ferry.job_search_terms t ON t.job_id = j.job_id
                     WHERE t.job_id IS NULL OR j.job_id IS NULL
                        OR t.path IS DISTINCT FROM j.source || ' ' || j.destination OR t.metadata IS DISTINCT FROM j.metadata
                     ORDER BY 1
                     LIMIT $1
                    """, [limit]
                ).rows.map { row in
                    SearchTermDifference(
                        jobID: try row.decode(UUID.self, column: "job_id"),
                        problem: SearchTermDifference.Problem(rawValue: try row.decode(String.self, column: "problem")) ?? .stale)
                }
            }
        } catch {
            throw FerryStore.translate(error)
        }
    }

    /// Folds pending counter deltas (queues, batches, throughput) into their counters; workers call this with
    /// their rescue check. Returns the number of deltas folded.
    @discardableResult
    public func compactCounters() async throws -> Int {
        do {
            return try await client.withConnection { connection in
                try connection.query("SELECT ferry.compact_counters() AS folded").rows[0].decode(Int.self, column: "folded")
            }
        } catch {
            throw FerryStore.translate(error)
        }
    }

    /// Rebuilds `ferry.jobs` from the event log, folding in Swift and copying the rows in, in one transaction that
    /// blocks appends while it runs. Needs the schema owner's privileges. Returns the number of jobs.
    ///
    /// The old rows go with TRUNCATE (no dead tuples to vacuum): a REPEATABLE READ reader whose snapshot predates
    /// the rebuild sees an empty projection afterwards, as TRUNCATE is not MVCC-safe. Throws
    /// ``ProjectionReplayError`` (nothing changed) when an event does not fold.
    public func rebuild(chunkEvents: Int = 200_000) async throws -> Int {
        do {
            return try await client.withTransaction { connection in
                try connection.execute("LOCK TABLE ferry.events IN SHARE MODE")
                try connection.execute("LOCK TABLE ferry.jobs IN ACCESS EXCLUSIVE MODE")
                try connection.execute("TRUNCATE ferry.jobs")
                var rebuilt = 0
                var replay = ProjectionReplay(connection: connection, chunkEvents: chunkEvents)
                try replay.forEachChunk(.all) { replay, range in
                    try replay.write()
                    rebuilt += replay.jobs.count
                }
                // The queue and batch counters follow the projection.
                try connection.query("SELECT ferry.recount_queues()")
                try connection.query("SELECT ferry.recount_batches()")
                return rebuilt
            }
        } catch {
            throw FerryStore.translate(error)
        }
    }
}
