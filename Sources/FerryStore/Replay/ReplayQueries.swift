/// The statements of a replay. COPY takes no bind parameters, so chunk bounds travel as transaction-local
/// settings (`set_config(…, true)`) that the statements read with `current_setting`.
enum ReplayQueries {
    /// Which jobs a chunk statement reads.
    enum Range {
        /// Every row (tests fold a scratch table of candidate events).
        case all
        /// `job_id >= ferry.replay_from` (the last chunk).
        case from
        /// `job_id >= ferry.replay_from`, the first `ferry.replay_limit` events (only for events).
        case limited
        /// `ferry.replay_from <= job_id < ferry.replay_until`.
        case between
        /// `job_id = ANY (ferry.replay_ids)` (a uuid[] literal).
        case ids

        func filter(_ column: String) -> String {
            switch self {
            case .all: "true"
            case .from, .limited: "\(column) >= current_setting('ferry.replay_from')::uuid"
            case .between:
                "\(column) >= current_setting('ferry.replay_from')::uuid AND \(column) < current_setting('ferry.replay_until')::uuid"
            case .ids: "\(column) = ANY (current_setting('ferry.replay_ids')::uuid[])"
            }
        }
    }

    /// Sets where the next chunk starts and how many events it reads at most.
    static let setChunk = "SELECT set_config('ferry.replay_from', $1, true), set_config('ferry.replay_limit', $2, true)"
    /// Sets where the chunk's jobs end (`Range.between`).
    static let setUntil = "SELECT set_config('ferry.replay_until', $1, true)"
    /// Sets both bounds (plans).
    static let setBounds = "SELECT set_config('ferry.replay_from', $1, true), set_config('ferry.replay_until', $2, true)"
    /// Sets the ids `Range.ids` reads.
    static let setIDs = "SELECT set_config('ferry.replay_ids', $1, true)"

    /// The job whose events start `$2` events after `$1` (an ordered walk of events_job_version_key); for
    /// ``FerryStore/replayPlans(skipEvents:chunkEvents:)``. (The alias keeps ORDER BY on the uuid, not its text.)
    static let boundary = "SELECT job_id::text AS boundary FROM ferry.events WHERE job_id >= $1::uuid ORDER BY job_id, version OFFSET $2 LIMIT 1"

    /// A chunk's events in stream order: the data whole (its jsonb text; ``EventData`` finds the keys the fold
    /// reads, and integers are cast like `apply_event` casts them, only where it does, see ``JobFold``), and
    /// `run_at` cast by the server for the types that read it (PostgreSQL's time parsing is not repeated in
    /// Swift). Fields: ``ReplayEvent/fieldCount``. `relation` and `order` are for tests, which fold candidate
    /// events from a table of their own.
    static func events(_ range: Range, relation: String = "ferry.events", order: String = "e.job_id, e.version") -> String {
        "COPY (\(eventsSelect(range, relation: relation, order: order))) TO STDOUT"
    }

    static func eventsSelect(_ range: Range, relation: String = "ferry.events", order: String = "e.job_id, e.version") -> String {
        """
        SELECT e.job_id, e.version, e.type, e.recorded_at, e.data,
               CASE WHEN e.type IN ('enqueued', 'retry_scheduled', 'deferred') THEN (e.data->>'run_at')::timestamptz END
                FROM \(relation) e
               WHERE \(range.filter("e.job_id"))
               ORDER BY \(order)\(range == .limited ? " LIMIT current_setting('ferry.replay_limit')::bigint" : "")
        """
    }

    /// A chunk's stored projection rows, every column in table order.
    static func jobs(_ range: Range) -> String {
        "COPY (\(jobsSelect(range))) TO STDOUT"
    }

    static func jobsSelect(_ range: Range) -> String {
        "SELECT \(ProjectionColumn.selectList) FROM ferry.jobs WHERE \(range.filter("job_id")) ORDER BY job_id"
    }

    /// Folded rows into the projection (rebuild).
    static let copyJobsIn = "COPY ferry.jobs (\(ProjectionColumn.selectList)) FROM STDIN"

    /// Every job with an event after a position, or recorded since a time: the jobs `verify --since` checks.
    static let declareSincePosition =
        "DECLARE ferry_replay_jobs NO SCROLL CURSOR FOR SELECT DISTINCT job_id FROM ferry.events WHERE position > $1 ORDER BY job_id"
    static let declareSinceTime =
        "DECLARE ferry_replay_jobs NO SCROLL CURSOR FOR SELECT DISTINCT job_id FROM ferry.events WHERE recorded_at >= $1 ORDER BY job_id"
    /// The jobs of a restore (its scratch table, one archive line each).
    static let declareRestored = """
        DECLARE ferry_replay_jobs NO SCROLL CURSOR FOR
        SELECT DISTINCT (line->'job'->>'job_id')::uuid AS job_id FROM ferry_restore ORDER BY 1
        """
    static func fetchJobs(_ count: Int) -> String { "FETCH \(count) FROM ferry_replay_jobs" }
    static let closeJobs = "CLOSE ferry_replay_jobs"
}
