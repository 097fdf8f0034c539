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
}
