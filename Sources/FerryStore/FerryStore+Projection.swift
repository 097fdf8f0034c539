import FerryCore
import Foundation
import Postgres

extension FerryStore {
    /// Replays every job's events with `ferry.replay` (the same fold the trigger uses) and compares each
    /// replayed row with the stored projection, column by column. Runs on one consistent snapshot.
    public func verifyProjection(limit: Int = 50) async throws -> ProjectionReport {
        do {
            return try await client.withTransaction(isolation: .repeatableRead) { connection in
                let counts = try connection.query("SELECT (SELECT count(*) FROM ferry.jobs), (SELECT count(*) FROM ferry.events)")
                let jobs = try counts.rows[0].decode(Int.self, at: 0)
                let events = try counts.rows[0].decode(Int.self, at: 1)
                let rows = try connection.query(
                    "SELECT job_id, stored::text, replayed::text FROM ferry.projection_differences($1)", [limit + 1]
                ).rows
                var differences = [ProjectionReport.Difference]()
                for row in rows.prefix(limit) {
                    let id = try row.decode(UUID.self, at: 0)
                    let stored = try row.decode(String?.self, at: 1).map { try JSONValue.parse($0) }
                    let replayed = try row.decode(String?.self, at: 2).map { try JSONValue.parse($0) }
                    switch (stored, replayed) {
                    case (nil, _): differences.append(.init(jobID: id, kind: .missingFromProjection))
                    case (_, nil): differences.append(.init(jobID: id, kind: .missingEvents))
                    case (.object(let a)?, .object(let b)?):
                        let names = Set(a.keys).union(b.keys).sorted()
                        let columns = names.compactMap { name -> (String, String, String)? in
                            let left = a[name] ?? .null
                            let right = b[name] ?? .null
                            return left == right ? nil : (name, left.jsonText, right.jsonText)
                        }
                        differences.append(.init(jobID: id, kind: .columns(columns)))
                    default: break
                    }
                }
                return ProjectionReport(
                    jobsChecked: jobs, eventsReplayed: events, differences: differences, truncated: rows.count > limit)
            }
        } catch {
            throw Self.translate(error)
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
                    SELECT coalesce(c.queue, r.queue), coalesce(c.state, r.state), coalesce(c.jobs, 0), coalesce(r.jobs, 0)
                      FROM counted c FULL JOIN real r ON r.queue = c.queue AND r.state = c.state
                     WHERE coalesce(c.jobs, 0) <> coalesce(r.jobs, 0)
                     ORDER BY 1, 2
                    """
                ).rows.map { row in
                    QueueCountDifference(
                        queue: try row.decode(String.self, at: 0), state: try row.decode(String.self, at: 1),
                        counted: try row.decode(Int.self, at: 2), actual: try row.decode(Int.self, at: 3))
                }
            }
        } catch {
            throw Self.translate(error)
        }
    }

    /// Folds pending counter deltas into `ferry.queue_counts` (workers call this with their rescue check).
    @discardableResult
    public func compactQueueCounts() async throws -> Int {
        do {
            return try await client.withConnection { connection in
                try connection.query("SELECT ferry.compact_queue_counts()").rows[0].decode(Int.self, at: 0)
            }
        } catch {
            throw Self.translate(error)
        }
    }

    /// Rebuilds `ferry.jobs` from the event log (blocks appends while it runs). Needs the owner's privileges.
    public func rebuildProjection() async throws -> Int {
        do {
            return try await client.withTransaction { connection in
                let rebuilt = try connection.query("SELECT ferry.rebuild_projection()").rows[0].decode(Int.self, at: 0)
                try connection.query("SELECT ferry.recount_queues()")
                return rebuilt
            }
        } catch {
            throw Self.translate(error)
        }
    }
}
