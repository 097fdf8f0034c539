-- Batch progress and throughput without reading the jobs.
--
-- ferry.batch_status aggregated every job of every batch, and ferry.throughput every job finished in the last
-- hour: at 200,000 jobs the 200 newest batches took 108 ms, one batch of 200,000 jobs 59 ms and the last hour's
-- throughput 120 ms: every dashboard read of them grew with the queue, on the database the workers need.
-- As for queues (0012), the projection trigger now records, in the same statement, what the
-- statement changed: per batch, jobs entering and leaving each state, bytes counted and sizes known; per minute
-- and queue, the jobs that finished and their bytes. The deltas are insert-only (concurrent workers never wait
-- on one counter row); ferry.compact_counters() folds them into the counters from time to time (workers call it
-- with their rescue check). The views add both, so they are exact at every moment, and `ferry projection verify`
-- proves the batch counters equal the real counts.
--
-- ferry.count_changes() is the one definition of what a change to a job means for the counters: the trigger's
-- enqueue and fold paths, archiving and restoring all go through it.

-- No appends while the counters are seeded and the trigger replaced: the counts start exact.
LOCK TABLE ferry.events IN SHARE MODE;

-- A job before and after one change. was_state is NULL for a job that appears (enqueued, restored), state is NULL
-- for one that leaves (archived).
CREATE TYPE ferry.job_change AS (
    job_id          uuid,
    queue           text,
    batch           text,
    was_state       text,
    state           text,
    was_bytes_done  bigint,
    was_bytes_total bigint,
    bytes_done      bigint,
    bytes_total     bigint,
    enqueued_at     timestamptz,
    started_at      timestamptz,
    finished_at     timestamptz
);

-- What one job adds to its batch's bytes_done: all of its size once it succeeded, else what moved so far (never
-- more than its size). Inlined by the planner.
CREATE FUNCTION ferry.batch_bytes_done(p_state text, p_done bigint, p_total bigint) RETURNS bigint
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT CASE WHEN p_state = 'succeeded' THEN coalesce(p_total, p_done) ELSE least(p_done, coalesce(p_total, p_done)) END
$$;

CREATE TABLE ferry.batch_counts (
    batch       text        PRIMARY KEY,
    jobs        bigint      NOT NULL,
    queued      bigint      NOT NULL,
    running     bigint      NOT NULL,
    succeeded   bigint      NOT NULL,
    failed      bigint      NOT NULL,
    cancelled   bigint      NOT NULL,
    bytes_done  bigint      NOT NULL,   -- sum of ferry.batch_bytes_done over the batch's jobs
    bytes_total bigint      NOT NULL,   -- sum of the sizes known
    sized       bigint      NOT NULL,   -- jobs whose size is known
    enqueued_at timestamptz,            -- the first enqueue
    started_at  timestamptz,            -- the first start
    finished_at timestamptz,            -- the last finish
    first_job   uuid                    -- the lowest job id ever in the batch: its pages are walked from here
);

CREATE TABLE ferry.batch_count_deltas (LIKE ferry.batch_counts);

CREATE TABLE ferry.throughput_counts (
    minute    timestamptz NOT NULL,
    queue     text        NOT NULL,
    succeeded bigint      NOT NULL,
    failed    bigint      NOT NULL,
    bytes     bigint      NOT NULL,
    PRIMARY KEY (minute, queue)
);

CREATE TABLE ferry.throughput_deltas (LIKE ferry.throughput_counts);

-- Small and hot: vacuum them often.
ALTER TABLE ferry.batch_count_deltas SET (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 1000,
                                          autovacuum_vacuum_insert_threshold = 1000);
ALTER TABLE ferry.throughput_deltas SET (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 1000,
                                         autovacuum_vacuum_insert_threshold = 1000);
ALTER TABLE ferry.batch_counts SET (fillfactor = 50);
ALTER TABLE ferry.throughput_counts SET (fillfactor = 50);

COMMENT ON TABLE ferry.batch_counts IS 'Jobs, states and bytes per batch, compacted; add ferry.batch_count_deltas for the exact figures.';
COMMENT ON TABLE ferry.throughput_counts IS 'Jobs finished per minute and queue (kept a day), compacted; add ferry.throughput_deltas.';

-- The real figures, read from the projection: what the counters are seeded from and checked against.
CREATE FUNCTION ferry.batch_counts_actual() RETURNS SETOF ferry.batch_counts
LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS $$
SELECT j.batch,
       count(*) AS jobs,
       count(*) FILTER (WHERE j.state = 'queued') AS queued,
       count(*) FILTER (WHERE j.state = 'running') AS running,
       count(*) FILTER (WHERE j.state = 'succeeded') AS succeeded,
       count(*) FILTER (WHERE j.state = 'failed') AS failed,
       count(*) FILTER (WHERE j.state = 'cancelled') AS cancelled,
       coalesce(sum(ferry.batch_bytes_done(j.state, j.bytes_done, j.bytes_total)), 0)::bigint AS bytes_done,
       coalesce(sum(j.bytes_total), 0)::bigint AS bytes_total,
       count(j.bytes_total) AS sized,
       min(j.enqueued_at) AS enqueued_at,
       min(j.started_at) AS started_at,
       max(j.finished_at) AS finished_at,
       min(j.job_id::text COLLATE "C")::uuid AS first_job   -- PostgreSQL 15 has no min(uuid); the text sorts alike
  FROM ferry.jobs j
 WHERE j.batch IS NOT NULL
 GROUP BY j.batch
$$;

INSERT INTO ferry.batch_counts SELECT * FROM ferry.batch_counts_actual();

INSERT INTO ferry.throughput_counts (minute, queue, succeeded, failed, bytes)
SELECT date_trunc('minute', j.finished_at), j.queue,
       count(*) FILTER (WHERE j.state = 'succeeded'), count(*) FILTER (WHERE j.state = 'failed'),
       coalesce(sum(coalesce(j.bytes_total, j.bytes_done)) FILTER (WHERE j.state = 'succeeded'), 0)
  FROM ferry.jobs j
 WHERE j.state IN ('succeeded', 'failed') AND j.finished_at > now() - interval '1 day'
 GROUP BY 1, 2;

-- Records what `p_changes` did to the queue, batch and throughput counters. Throughput counts jobs reaching
-- succeeded or failed (a job retried and finished again counts again: it is work done per minute).
CREATE FUNCTION ferry.count_changes(p_changes ferry.job_change[]) RETURNS void
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp SET plan_cache_mode = force_generic_plan AS $$
BEGIN
    IF p_changes IS NULL OR cardinality(p_changes) = 0 THEN
        RETURN;
    END IF;

    INSERT INTO ferry.queue_count_deltas (queue, state, delta)
    SELECT t.queue, t.state, sum(t.delta)
      FROM (SELECT c.queue, c.was_state AS state, -1 AS delta FROM unnest(p_changes) c
             WHERE c.was_state IS NOT NULL AND c.was_state IS DISTINCT FROM c.state
            UNION ALL
            SELECT c.queue, c.state, 1 FROM unnest(p_changes) c
             WHERE c.state IS NOT NULL AND c.was_state IS DISTINCT FROM c.state) t
     GROUP BY t.queue, t.state
    HAVING sum(t.delta) <> 0;

    INSERT INTO ferry.batch_count_deltas
    SELECT d.*
      FROM (SELECT c.batch,
                   sum((c.state IS NOT NULL)::int - (c.was_state IS NOT NULL)::int)::bigint AS jobs,
                   sum((c.state IS NOT DISTINCT FROM 'queued')::int - (c.was_state IS NOT DISTINCT FROM 'queued')::int)::bigint AS queued,
                   sum((c.state IS NOT DISTINCT FROM 'running')::int - (c.was_state IS NOT DISTINCT FROM 'running')::int)::bigint AS running,
                   sum((c.state IS NOT DISTINCT FROM 'succeeded')::int - (c.was_state IS NOT DISTINCT FROM 'succeeded')::int)::bigint AS succeeded,
                   sum((c.state IS NOT DISTINCT FROM 'failed')::int - (c.was_state IS NOT DISTINCT FROM 'failed')::int)::bigint AS failed,
                   sum((c.state IS NOT DISTINCT FROM 'cancelled')::int - (c.was_state IS NOT DISTINCT FROM 'cancelled')::int)::bigint AS cancelled,
                   sum(CASE WHEN c.state IS NULL THEN 0 ELSE ferry.batch_bytes_done(c.state, c.bytes_done, c.bytes_total) END
                       - CASE WHEN c.was_state IS NULL THEN 0
                              ELSE ferry.batch_bytes_done(c.was_state, c.was_bytes_done, c.was_bytes_total) END)::bigint AS bytes_done,
                   sum(CASE WHEN c.state IS NULL THEN 0 ELSE coalesce(c.bytes_total, 0) END
                       - CASE WHEN c.was_state IS NULL THEN 0 ELSE coalesce(c.was_bytes_total, 0) END)::bigint AS bytes_total,
                   sum((c.state IS NOT NULL AND c.bytes_total IS NOT NULL)::int
                       - (c.was_state IS NOT NULL AND c.was_bytes_total IS NOT NULL)::int)::bigint AS sized,
                   min(c.enqueued_at) AS enqueued_at, min(c.started_at) AS started_at, max(c.finished_at) AS finished_at,
                   min(c.job_id::text COLLATE "C") FILTER (WHERE c.was_state IS NULL)::uuid AS first_job
              FROM unnest(p_changes) c
             WHERE c.batch IS NOT NULL
             GROUP BY c.batch) d
     WHERE (d.jobs, d.queued, d.running, d.succeeded, d.failed, d.cancelled, d.bytes_done, d.bytes_total, d.sized)
           <> (0, 0, 0, 0, 0, 0, 0, 0, 0);

    INSERT INTO ferry.throughput_deltas (minute, queue, succeeded, failed, bytes)
    SELECT date_trunc('minute', c.finished_at), c.queue,
           count(*) FILTER (WHERE c.state = 'succeeded'), count(*) FILTER (WHERE c.state = 'failed'),
           coalesce(sum(coalesce(c.bytes_total, c.bytes_done)) FILTER (WHERE c.state = 'succeeded'), 0)
      FROM unnest(p_changes) c
     WHERE c.state IN ('succeeded', 'failed') AND c.was_state IS NOT NULL AND c.was_state <> c.state
       AND c.finished_at IS NOT NULL
     GROUP BY 1, 2;
END
$$;

-- Folds pending deltas into the counters: queues (ferry.compact_queue_counts), batches and throughput. One
-- compactor per kind at a time; the others skip it. Throughput older than a day is dropped.
CREATE FUNCTION ferry.compact_counters() RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    folded  bigint;
    n       bigint;
    touched text[];
BEGIN
    folded := ferry.compact_queue_counts();

    IF pg_try_advisory_xact_lock(hashtext('ferry.batch_counts'), 0) THEN
        WITH moved AS (
            DELETE FROM ferry.batch_count_deltas RETURNING *
        ), summed AS (
            SELECT batch, sum(jobs) AS jobs, sum(queued) AS queued, sum(running) AS running,
                   sum(succeeded) AS succeeded, sum(failed) AS failed, sum(cancelled) AS cancelled,
                   sum(bytes_done) AS bytes_done, sum(bytes_total) AS bytes_total, sum(sized) AS sized,
                   min(enqueued_at) AS enqueued_at, min(started_at) AS started_at, max(finished_at) AS finished_at,
                   min(first_job::text COLLATE "C")::uuid AS first_job, count(*) AS n
              FROM moved GROUP BY batch
        ), applied AS (
            INSERT INTO ferry.batch_counts AS c
            SELECT batch, jobs, queued, running, succeeded, failed, cancelled, bytes_done, bytes_total, sized,
                   enqueued_at, started_at, finished_at, first_job
              FROM summed ORDER BY batch
            ON CONFLICT (batch) DO UPDATE
               SET jobs = c.jobs + excluded.jobs, queued = c.queued + excluded.queued,
                   running = c.running + excluded.running, succeeded = c.succeeded + excluded.succeeded,
                   failed = c.failed + excluded.failed, cancelled = c.cancelled + excluded.cancelled,
                   bytes_done = c.bytes_done + excluded.bytes_done, bytes_total = c.bytes_total + excluded.bytes_total,
                   sized = c.sized + excluded.sized,
                   enqueued_at = least(c.enqueued_at, excluded.enqueued_at),
                   started_at = least(c.started_at, excluded.started_at),
                   finished_at = greatest(c.finished_at, excluded.finished_at),
                   first_job = least(c.first_job, excluded.first_job)
        )
        SELECT coalesce(sum(s.n), 0), array_agg(s.batch) INTO n, touched FROM summed s;
        folded := folded + n;
        -- Every job of these batches archived: the batch is gone.
        DELETE FROM ferry.batch_counts WHERE batch = ANY (touched) AND jobs = 0;
    END IF;

    IF pg_try_advisory_xact_lock(hashtext('ferry.throughput_counts'), 0) THEN
        WITH moved AS (
            DELETE FROM ferry.throughput_deltas RETURNING *
        ), summed AS (
            SELECT minute, queue, sum(succeeded) AS succeeded, sum(failed) AS failed, sum(bytes) AS bytes, count(*) AS n
              FROM moved GROUP BY minute, queue
        ), applied AS (
            INSERT INTO ferry.throughput_counts AS c (minute, queue, succeeded, failed, bytes)
            SELECT minute, queue, succeeded, failed, bytes FROM summed ORDER BY minute, queue
            ON CONFLICT (minute, queue) DO UPDATE
               SET succeeded = c.succeeded + excluded.succeeded, failed = c.failed + excluded.failed,
                   bytes = c.bytes + excluded.bytes
        )
        SELECT coalesce(sum(s.n), 0) INTO n FROM summed s;
        folded := folded + n;
        DELETE FROM ferry.throughput_counts WHERE minute < now() - interval '1 day';
    END IF;
    RETURN folded;
END
$$;

-- Recounts the batches from the projection (after a rebuild). Owner only.
CREATE FUNCTION ferry.recount_batches() RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
    LOCK TABLE ferry.batch_counts, ferry.batch_count_deltas IN EXCLUSIVE MODE;
    DELETE FROM ferry.batch_count_deltas;
    DELETE FROM ferry.batch_counts;
    INSERT INTO ferry.batch_counts SELECT * FROM ferry.batch_counts_actual();
END
$$;

CREATE OR REPLACE VIEW ferry.batch_status AS
SELECT s.batch, s.jobs, s.queued, s.running, s.succeeded, s.failed, s.cancelled, s.bytes_done,
       CASE WHEN s.sized > 0 THEN s.bytes_total END AS bytes_total,
       (CASE WHEN s.queued + s.running = 0 THEN 100.0
             WHEN s.sized = s.jobs AND s.bytes_total > 0 THEN least(99.9, round(100.0 * s.bytes_done / s.bytes_total, 1))
             ELSE least(99.9, round(100.0 * (s.succeeded + s.failed + s.cancelled) / s.jobs, 1))
        END)::numeric(4,1) AS percent,
       s.queued + s.running = 0 AS done,
       s.enqueued_at,
       s.started_at,
       CASE WHEN s.queued + s.running = 0 THEN s.finished_at END AS finished_at,
       (SELECT CASE WHEN e.type = 'completed' THEN e.recorded_at END
          FROM ferry.batch_events e WHERE e.batch = s.batch ORDER BY e.position DESC LIMIT 1) AS completed_at,
       s.jobs - s.sized AS sizes_unknown,
       s.first_job AS first_job_id
  FROM (SELECT t.batch, sum(t.jobs)::bigint AS jobs, sum(t.queued)::bigint AS queued, sum(t.running)::bigint AS running,
               sum(t.succeeded)::bigint AS succeeded, sum(t.failed)::bigint AS failed,
               sum(t.cancelled)::bigint AS cancelled, sum(t.bytes_done)::bigint AS bytes_done,
               sum(t.bytes_total)::bigint AS bytes_total, sum(t.sized)::bigint AS sized,
               min(t.enqueued_at) AS enqueued_at, min(t.started_at) AS started_at, max(t.finished_at) AS finished_at,
               min(t.first_job::text COLLATE "C")::uuid AS first_job
          FROM (SELECT * FROM ferry.batch_counts UNION ALL SELECT * FROM ferry.batch_count_deltas) t
         GROUP BY t.batch
        HAVING sum(t.jobs) > 0) s;

CREATE OR REPLACE VIEW ferry.throughput AS
SELECT t.minute, t.queue, sum(t.succeeded)::bigint AS succeeded, sum(t.failed)::bigint AS failed,
       sum(t.bytes)::bigint AS bytes
  FROM (SELECT minute, queue, succeeded, failed, bytes FROM ferry.throughput_counts
         WHERE minute >= date_trunc('minute', now()) - interval '59 minutes'
        UNION ALL
        SELECT minute, queue, succeeded, failed, bytes FROM ferry.throughput_deltas
         WHERE minute >= date_trunc('minute', now()) - interval '59 minutes') t
 GROUP BY t.minute, t.queue;

CREATE OR REPLACE FUNCTION ferry.project_events() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    SET plan_cache_mode TO 'force_generic_plan'
    SET enable_seqscan TO 'off'
    AS $$
DECLARE
    enqueued    bigint;
    others      bigint;
    jobs        bigint;
    bad_version boolean;
    wake_jobs   boolean;
    wake_cancel boolean;
    fast        uuid[];
    changes     ferry.job_change[];
    applied     bigint;
BEGIN
    -- One pass over the statement's events for everything the rest needs to know.
    SELECT count(*) FILTER (WHERE type = 'enqueued'),
           count(*) FILTER (WHERE type <> 'enqueued'),
           count(DISTINCT job_id) FILTER (WHERE type <> 'enqueued'),
           coalesce(bool_or(type = 'enqueued' AND version <> 1), false),
           coalesce(bool_or(type IN ('enqueued', 'requeued', 'released', 'rescued', 'retry_scheduled', 'deferred')), false),
           coalesce(bool_or(type = 'cancel_requested'), false)
      INTO enqueued, others, jobs, bad_version, wake_jobs, wake_cancel
      FROM new_events;

    IF enqueued > 0 THEN
        IF bad_version THEN
            RAISE EXCEPTION 'an enqueued event must be version 1' USING ERRCODE = 'FY003';
        END IF;
        WITH inserted AS (
            INSERT INTO ferry.jobs
            SELECT p.*
              FROM new_events e
             CROSS JOIN LATERAL ferry.job_from_enqueued(e.job_id, e.version, e.data, e.recorded_at) p
             WHERE e.type = 'enqueued'
            RETURNING ROW(job_id, queue, batch, NULL, state, NULL, NULL, bytes_done, bytes_total, enqueued_at, started_at,
                          finished_at)::ferry.job_change AS change
        )
        SELECT array_agg(change) INTO changes FROM inserted;
        PERFORM ferry.count_changes(changes);
    END IF;

    IF others > 0 THEN
        IF others <> jobs THEN
            RAISE EXCEPTION 'append at most one event per job in one statement' USING ERRCODE = 'FY003';
        END IF;

        -- The fast path: exactly what apply_event does for these types when the event fits the job. `o` is the
        -- row as it was before this statement (writers lock it before appending), for the counters.
        WITH folded AS (
            UPDATE ferry.jobs AS j
               SET version     = e.version,
                   updated_at  = e.recorded_at,
                   state       = CASE e.type WHEN 'claimed' THEN 'running' WHEN 'succeeded' THEN 'succeeded' ELSE j.state END,
                   attempt     = CASE e.type WHEN 'claimed' THEN j.attempt + 1 ELSE j.attempt END,
                   lease       = CASE e.type WHEN 'claimed' THEN j.lease + 1 ELSE j.lease END,
                   worker      = CASE e.type WHEN 'claimed' THEN e.data->>'worker' WHEN 'succeeded' THEN NULL ELSE j.worker END,
                   started_at  = CASE e.type WHEN 'claimed' THEN coalesce(j.started_at, e.recorded_at) ELSE j.started_at END,
                   finished_at = CASE e.type WHEN 'succeeded' THEN e.recorded_at ELSE j.finished_at END,
                   bytes_done  = CASE WHEN e.type IN ('progress', 'succeeded')
                                      THEN coalesce((e.data->>'bytes_done')::bigint, j.bytes_done) ELSE j.bytes_done END,
                   bytes_total = CASE WHEN e.type IN ('progress', 'succeeded')
                                      THEN coalesce((e.data->>'bytes_total')::bigint, j.bytes_total) ELSE j.bytes_total END,
                   session     = CASE WHEN e.type = 'progress' AND e.data ? 'session'
                                      THEN nullif(e.data->'session', 'null'::jsonb) ELSE j.session END,
                   result      = CASE e.type WHEN 'succeeded' THEN nullif(e.data->'result', 'null'::jsonb) ELSE j.result END
              FROM new_events e
              JOIN ferry.jobs o ON o.job_id = e.job_id
             WHERE j.job_id = e.job_id
               AND e.type IN ('claimed', 'progress', 'succeeded')
               AND e.version = j.version + 1
               AND CASE e.type
                       WHEN 'claimed' THEN j.state = 'queued' AND (e.data->>'lease')::bigint = j.lease + 1
                       ELSE j.state = 'running' AND (e.data->>'lease')::bigint = j.lease
                   END
            RETURNING j.job_id,
                      ROW(j.job_id, j.queue, j.batch, o.state, j.state, o.bytes_done, o.bytes_total, j.bytes_done, j.bytes_total,
                          j.enqueued_at, j.started_at, j.finished_at)::ferry.job_change AS change
        )
        SELECT coalesce(array_agg(job_id), '{}'), array_agg(change) INTO fast, changes FROM folded;
        PERFORM ferry.count_changes(changes);

        IF cardinality(fast) < others THEN
            -- Everything else, and every event that does not fit, through the one definition.
            WITH folded AS (
                UPDATE ferry.jobs AS j
                   SET version = (x.n).version, state = (x.n).state, attempt = (x.n).attempt, lease = (x.n).lease,
                       worker = (x.n).worker, run_at = (x.n).run_at, cancel_requested = (x.n).cancel_requested,
                       bytes_done = (x.n).bytes_done, bytes_total = (x.n).bytes_total, session = (x.n).session,
                       last_error = (x.n).last_error, result = (x.n).result, started_at = (x.n).started_at,
                       finished_at = (x.n).finished_at, updated_at = (x.n).updated_at,
                       source = (x.n).source, destination = (x.n).destination, account = (x.n).account,
                       spec = (x.n).spec
                  FROM (SELECT e.job_id, cur.state AS was, cur.bytes_done AS was_done, cur.bytes_total AS was_total,
                               ferry.apply_event(cur, e.job_id, e.type, e.version, e.data, e.recorded_at) AS n
                          FROM new_events e
                          JOIN ferry.jobs cur ON cur.job_id = e.job_id
                         WHERE e.type <> 'enqueued' AND e.job_id <> ALL (fast)
                        OFFSET 0) AS x   -- OFFSET 0: evaluate apply_event once per row, not once per column
                 WHERE j.job_id = x.job_id
                RETURNING ROW(j.job_id, j.queue, j.batch, x.was, j.state, x.was_done, x.was_total, j.bytes_done, j.bytes_total,
                              j.enqueued_at, j.started_at, j.finished_at)::ferry.job_change AS change
            )
            SELECT count(*), array_agg(change) INTO applied, changes FROM folded;
            IF applied + cardinality(fast) <> others THEN
                RAISE EXCEPTION 'an event names a job that does not exist' USING ERRCODE = 'FY004';
            END IF;
            PERFORM ferry.count_changes(changes);
        END IF;
    END IF;

    -- Payload-free wake-ups, at most one per channel per transaction (PostgreSQL folds duplicates).
    IF wake_jobs THEN
        PERFORM pg_notify('ferry_jobs', '');
    END IF;
    IF wake_cancel THEN
        PERFORM pg_notify('ferry_cancel', '');
    END IF;
    RETURN NULL;
END
$$;

REVOKE ALL ON ferry.batch_counts, ferry.batch_count_deltas, ferry.throughput_counts, ferry.throughput_deltas FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ferry.count_changes(ferry.job_change[]), ferry.recount_batches(), ferry.batch_counts_actual()
    FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ferry.compact_counters() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION ferry.compact_counters() TO ferry_worker;
