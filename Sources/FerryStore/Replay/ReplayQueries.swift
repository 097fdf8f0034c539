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
    /// next chunk starts. No row: the rest fits in one chunk. (The alias keeps ORDER BY on the uuid, not its text.)
    static let boundary = "SELECT job_id::text AS boundary FROM ferry.events WHERE job_id >= $1::uuid ORDER BY job_id, version OFFSET $2 LIMIT 1"
    /// The first job after `$1` (when one job alone has more events than a chunk).
    static let nextJob = "SELECT job_id::text AS boundary FROM ferry.events WHERE job_id > $1::uuid ORDER BY job_id, version LIMIT 1"

    /// A chunk's events in stream order, each with only the fields its type uses, cast by the server where the
    /// cast cannot fail for an event `apply_event` accepted; leases and byte counts stay text, because
    /// `apply_event` casts them only in some states and the fold does the same (see ``JobFold``). New jobs'
    /// columns are `ferry.job_from_enqueued`'s expressions, each computed for enqueued events only.
    /// Fields: ``ReplayEvent/fieldCount``.
    /// `relation` and `order` are for tests, which fold candidate events from a table of their own.
    static func events(_ range: Range, relation: String = "ferry.events", order: String = "e.job_id, e.version") -> String {
        "COPY (\(eventsSelect(range, relation: relation, order: order))) TO STDOUT"
    }

    static func eventsSelect(_ range: Range, relation: String = "ferry.events", order: String = "e.job_id, e.version") -> String {
        """
        SELECT e.job_id, e.version, e.type, e.recorded_at, e.data->>'lease',
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
                     -- ferry.job_from_enqueued, column for column (a LATERAL call cost more than the rest of
                     -- the row: its projection runs for every event, not only for enqueued ones).
                     CASE WHEN e.type = 'enqueued' THEN e.data->>'kind' END,
                     CASE WHEN e.type = 'enqueued' THEN e.data->>'queue' END,
                     CASE WHEN e.type = 'enqueued' THEN e.data->>'batch' END,
                     CASE WHEN e.type = 'enqueued' THEN (e.data->>'priority')::smallint END,
                     CASE WHEN e.type = 'enqueued' THEN (e.data->>'max_attempts')::integer END,
                     CASE WHEN e.type = 'enqueued' THEN e.data->>'account' END,
                     CASE WHEN e.type = 'enqueued' THEN e.data->>'source' END,
                     CASE WHEN e.type = 'enqueued' THEN e.data->>'destination' END,
                     CASE WHEN e.type = 'enqueued' THEN e.data->>'key' END,
                     CASE WHEN e.type = 'enqueued' THEN coalesce(e.data->'spec', '{}'::jsonb) END,
                     CASE WHEN e.type = 'enqueued' THEN nullif(e.data->'metadata', 'null'::jsonb) END,
                     CASE WHEN e.type = 'enqueued' THEN coalesce((e.data->>'run_at')::timestamptz, e.recorded_at) END,
                     CASE WHEN e.type = 'enqueued' THEN (e.data->>'bytes_total')::bigint END
                FROM \(relation) e
               WHERE \(range.filter("e.job_id"))
               ORDER BY \(order)
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
    static func fetchJobs(_ count: Int) -> String { "FETCH \(count) FROM ferry_replay_jobs" }
    static let closeJobs = "CLOSE ferry_replay_jobs"
}
