/// The statements of a replay. COPY takes no bind parameters, so chunk bounds travel as transaction-local
/// settings (`set_config(…, true)`) that the statements read with `current_setting`.
enum ReplayQueries {
    /// Which jobs a chunk statement reads.
    enum Range {
        /// Every row (tests fold a scratch table of candidate events).
        case all
        /// `job_id >= ferry.replay_from` (the last chunk).
        case from
        /// `ferry.replay_from <= job_id < ferry.replay_until`.
        case between
        /// `job_id = ANY (ferry.replay_ids)` (a uuid[] literal).
        case ids

        func filter(_ column: String) -> String {
            switch self {
            case .all: "true"
            case .from: "\(column) >= current_setting('ferry.replay_from')::uuid"
            case .between:
                "\(column) >= current_setting('ferry.replay_from')::uuid AND \(column) < current_setting('ferry.replay_until')::uuid"
            case .ids: "\(column) = ANY (current_setting('ferry.replay_ids')::uuid[])"
            }
        }
    }

    /// Sets the bounds `Range.from` and `.between` read.
    static let setBounds = "SELECT set_config('ferry.replay_from', $1, true), set_config('ferry.replay_until', $2, true)"
    /// Sets the ids `Range.ids` reads.
    static let setIDs = "SELECT set_config('ferry.replay_ids', $1, true)"

    /// The job whose events start `$2` events after `$1` (an ordered walk of events_job_version_key): where the
    /// next chunk starts. No row: the rest fits in one chunk.
    static let boundary = "SELECT job_id::text FROM ferry.events WHERE job_id >= $1::uuid ORDER BY job_id, version OFFSET $2 LIMIT 1"
    /// The first job after `$1` (when one job alone has more events than a chunk).
    static let nextJob = "SELECT job_id::text FROM ferry.events WHERE job_id > $1::uuid ORDER BY job_id, version LIMIT 1"

    /// A chunk's events in stream order, each with only the fields its type uses, cast by the server where the
    /// cast cannot fail for an event `apply_event` accepted; leases and byte counts stay text, because
    /// `apply_event` casts them only in some states and the fold does the same (see ``JobFold``). New jobs'
    /// columns come from `ferry.job_from_enqueued` itself. Fields: ``ReplayEvent/fieldCount``.
    /// `relation` and `order` are for tests, which fold candidate events from a table of their own.
    static func events(_ range: Range, relation: String = "ferry.events", order: String = "e.job_id, e.version") -> String {
        """
        COPY (SELECT e.job_id, e.version, e.type, e.recorded_at, e.data->>'lease',
                     CASE e.type WHEN 'claimed' THEN e.data->>'worker'
                                 WHEN 'retry_scheduled' THEN e.data->>'error' WHEN 'failed' THEN e.data->>'error'
                                 WHEN 'deferred' THEN e.data->>'reason' WHEN 'rescued' THEN e.data->>'reason'
                                 WHEN 'cancelled' THEN e.data->>'reason' END,
                     CASE WHEN e.type IN ('progress', 'succeeded') THEN e.data->>'bytes_done' END,
                     CASE WHEN e.type IN ('progress', 'succeeded') THEN e.data->>'bytes_total' END,
                     CASE e.type WHEN 'progress' THEN e.data ? 'session' END,
                     CASE e.type WHEN 'progress' THEN nullif(e.data->'session', 'null'::jsonb)
                                 WHEN 'succeeded' THEN nullif(e.data->'result', 'null'::jsonb) END,
                     CASE WHEN e.type IN ('retry_scheduled', 'deferred') THEN (e.data->>'run_at')::timestamptz END,
                     p.kind, p.queue, p.batch, p.priority, p.max_attempts, p.account, p.source, p.destination,
                     p.idempotency_key, p.spec, p.metadata, p.run_at, p.bytes_total
                FROM \(relation) e
                LEFT JOIN LATERAL ferry.job_from_enqueued(e.job_id, e.version, e.data, e.recorded_at) p
                       ON e.type = 'enqueued'
               WHERE \(range.filter("e.job_id"))
               ORDER BY \(order)) TO STDOUT
        """
    }

    /// A chunk's stored projection rows, every column in table order.
    static func jobs(_ range: Range) -> String {
        "COPY (SELECT \(ProjectionColumn.selectList) FROM ferry.jobs WHERE \(range.filter("job_id")) ORDER BY job_id) TO STDOUT"
    }

    /// Folded rows into the projection (rebuild).
    static let copyJobsIn = "COPY ferry.jobs (\(ProjectionColumn.selectList)) FROM STDIN"

    /// Every job with an event after a position, or recorded since a time: the jobs `verify --since` checks.
    static let declareSincePosition =
        "DECLARE ferry_replay_jobs NO SCROLL CURSOR FOR SELECT DISTINCT job_id FROM ferry.events WHERE position > $1 ORDER BY job_id"
    static let declareSinceTime =
        "DECLARE ferry_replay_jobs NO SCROLL CURSOR FOR SELECT DISTINCT job_id FROM ferry.events WHERE recorded_at >= $1 ORDER BY job_id"
    static func fetchJobs(_ count: Int) -> String { "FETCH \(count) FROM ferry_replay_jobs" }
    static let closeJobs = "CLOSE ferry_replay_jobs"
}
