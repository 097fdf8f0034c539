-- Queue depth per state without counting the queue.
--
-- ferry.queue_stats counted every job (228 ms at 1,000,000 jobs). Now the projection trigger records, in the
-- same statement, how many jobs of each queue entered and left each state: one row per (queue, state) that
-- changed, appended to ferry.queue_count_deltas (insert-only, so concurrent workers never wait on one counter
-- row). ferry.compact_queue_counts() folds the deltas into ferry.queue_counts from time to time (workers call it
-- with their rescue check); the view adds both, so it is exact at every moment. `ferry projection verify`
-- proves the counters equal the real counts. "Due" and the oldest wait come from a few index probes per
-- (account, priority) group of the claim index, not from reading the queued jobs.

-- No appends while the counters are seeded and the trigger replaced: the counts start exact.
LOCK TABLE ferry.events IN SHARE MODE;

CREATE TABLE ferry.queue_counts (
    queue  text   NOT NULL,
    state  text   NOT NULL,
    jobs   bigint NOT NULL,
    PRIMARY KEY (queue, state)
);

CREATE TABLE ferry.queue_count_deltas (
    queue  text   NOT NULL,
    state  text   NOT NULL,
    delta  bigint NOT NULL
);

-- Small and hot: vacuum it often.
ALTER TABLE ferry.queue_count_deltas SET (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 1000,
                                          autovacuum_vacuum_insert_threshold = 1000);
ALTER TABLE ferry.queue_counts SET (fillfactor = 50);

INSERT INTO ferry.queue_counts (queue, state, jobs)
SELECT queue, state, count(*) FROM ferry.jobs GROUP BY queue, state;

COMMENT ON TABLE ferry.queue_counts IS 'Jobs per queue and state, compacted; add ferry.queue_count_deltas for the exact count.';

-- Folds the deltas into the counters. One compactor at a time; the others return at once.
CREATE FUNCTION ferry.compact_queue_counts() RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    folded bigint;
BEGIN
    IF NOT pg_try_advisory_xact_lock(hashtext('ferry.queue_counts'), 0) THEN
        RETURN 0;
    END IF;
    WITH moved AS (
        DELETE FROM ferry.queue_count_deltas RETURNING queue, state, delta
    ), summed AS (
        SELECT queue, state, sum(delta) AS delta, count(*) AS n FROM moved GROUP BY queue, state
    ), applied AS (
        INSERT INTO ferry.queue_counts AS c (queue, state, jobs)
        SELECT queue, state, delta FROM summed ORDER BY queue, state
        ON CONFLICT (queue, state) DO UPDATE SET jobs = c.jobs + excluded.jobs
    )
    SELECT coalesce(sum(n), 0) INTO folded FROM summed;
    DELETE FROM ferry.queue_counts WHERE jobs = 0;
    RETURN folded;
END
$$;

-- Recounts from the projection (after a rebuild). Owner only.
CREATE FUNCTION ferry.recount_queues() RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
    LOCK TABLE ferry.queue_counts, ferry.queue_count_deltas IN EXCLUSIVE MODE;
    DELETE FROM ferry.queue_count_deltas;
    DELETE FROM ferry.queue_counts;
    INSERT INTO ferry.queue_counts (queue, state, jobs)
    SELECT queue, state, count(*) FROM ferry.jobs GROUP BY queue, state;
END
$$;

-- Due jobs and the oldest due job's run_at of one queue, from the claim index: per (account, priority) group,
-- the jobs scheduled later are counted (usually few) and the first due entry read. SECURITY DEFINER: readers
-- of the view may not read ferry.jobs. jit off: the recursive estimates pass the JIT threshold, and compiling
-- (35 ms) cost a hundred times the probes.
CREATE FUNCTION ferry.queue_waiting(p_queue text, OUT scheduled bigint, OUT oldest timestamptz)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
    SET plan_cache_mode = force_generic_plan SET enable_seqscan = off SET jit = off AS $$
    WITH RECURSIVE
    accts(acct) AS (
        (SELECT coalesce(j.account, '') FROM ferry.jobs j
          WHERE j.state = 'queued' AND j.queue = p_queue
          ORDER BY coalesce(j.account, ''), j.priority DESC, j.run_at, j.job_id LIMIT 1)
        UNION ALL
        SELECT f.acct FROM accts a
         CROSS JOIN LATERAL (SELECT coalesce(j.account, '') AS acct FROM ferry.jobs j
                              WHERE j.state = 'queued' AND j.queue = p_queue AND coalesce(j.account, '') > a.acct
                              ORDER BY coalesce(j.account, ''), j.priority DESC, j.run_at, j.job_id LIMIT 1) f
    ),
    levels(acct, p) AS (
        SELECT a.acct, f.priority FROM accts a
         CROSS JOIN LATERAL (SELECT j.priority FROM ferry.jobs j
                              WHERE j.state = 'queued' AND j.queue = p_queue AND coalesce(j.account, '') = a.acct
                              ORDER BY j.priority DESC, j.run_at, j.job_id LIMIT 1) f
        UNION ALL
        SELECT l.acct, f.priority FROM levels l
         CROSS JOIN LATERAL (SELECT j.priority FROM ferry.jobs j
                              WHERE j.state = 'queued' AND j.queue = p_queue AND coalesce(j.account, '') = l.acct
                                AND j.priority < l.p
                              ORDER BY j.priority DESC, j.run_at, j.job_id LIMIT 1) f
    )
    SELECT coalesce(sum((SELECT count(*) FROM ferry.jobs j
                          WHERE j.state = 'queued' AND j.queue = p_queue AND coalesce(j.account, '') = l.acct
                            AND j.priority = l.p AND j.run_at > now())), 0)::bigint,
           min((SELECT j.run_at FROM ferry.jobs j
                 WHERE j.state = 'queued' AND j.queue = p_queue AND coalesce(j.account, '') = l.acct
                   AND j.priority = l.p
                 ORDER BY j.run_at, j.job_id LIMIT 1))
      FROM levels l
$$;

CREATE OR REPLACE FUNCTION ferry.project_events() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
    SET plan_cache_mode = force_generic_plan SET enable_seqscan = off AS $$
DECLARE
    enqueued    bigint;
    others      bigint;
    jobs        bigint;
    bad_version boolean;
    wake_jobs   boolean;
    wake_cancel boolean;
    fast        uuid[];
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
        INSERT INTO ferry.jobs
        SELECT p.*
          FROM new_events e
         CROSS JOIN LATERAL ferry.job_from_enqueued(e.job_id, e.version, e.data, e.recorded_at) p
         WHERE e.type = 'enqueued';
        INSERT INTO ferry.queue_count_deltas (queue, state, delta)
        SELECT e.data->>'queue', 'queued', count(*) FROM new_events e WHERE e.type = 'enqueued' GROUP BY 1;
    END IF;

    IF others > 0 THEN
        IF others <> jobs THEN
            RAISE EXCEPTION 'append at most one event per job in one statement' USING ERRCODE = 'FY003';
        END IF;

        -- The fast path: exactly what apply_event does for these types when the event fits the job.
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
             WHERE j.job_id = e.job_id
               AND e.type IN ('claimed', 'progress', 'succeeded')
               AND e.version = j.version + 1
               AND CASE e.type
                       WHEN 'claimed' THEN j.state = 'queued' AND (e.data->>'lease')::bigint = j.lease + 1
                       ELSE j.state = 'running' AND (e.data->>'lease')::bigint = j.lease
                   END
            RETURNING j.job_id, j.queue, e.type, j.state
        ),
        -- The fast path's old state follows from the type: claimed leaves queued, the others leave running.
        counted AS (
            INSERT INTO ferry.queue_count_deltas (queue, state, delta)
            SELECT c.queue, c.state, sum(c.delta)
              FROM (SELECT f.queue, CASE f.type WHEN 'claimed' THEN 'queued' ELSE 'running' END AS state, -1 AS delta
                      FROM folded f WHERE f.type <> 'progress'
                    UNION ALL
                    SELECT f.queue, f.state, 1 FROM folded f WHERE f.type <> 'progress') c
             GROUP BY c.queue, c.state
            HAVING sum(c.delta) <> 0
        )
        SELECT coalesce(array_agg(job_id), '{}') INTO fast FROM folded;

        IF cardinality(fast) < others THEN
            -- Everything else, and every event that does not fit, through the one definition.
            WITH folded AS (
                UPDATE ferry.jobs AS j
                   SET version = (x.n).version, state = (x.n).state, attempt = (x.n).attempt, lease = (x.n).lease,
                       worker = (x.n).worker, run_at = (x.n).run_at, cancel_requested = (x.n).cancel_requested,
                       bytes_done = (x.n).bytes_done, bytes_total = (x.n).bytes_total, session = (x.n).session,
                       last_error = (x.n).last_error, result = (x.n).result, started_at = (x.n).started_at,
                       finished_at = (x.n).finished_at, updated_at = (x.n).updated_at
                  FROM (SELECT e.job_id, cur.state AS was,
                               ferry.apply_event(cur, e.job_id, e.type, e.version, e.data, e.recorded_at) AS n
                          FROM new_events e
                          JOIN ferry.jobs cur ON cur.job_id = e.job_id
                         WHERE e.type <> 'enqueued' AND e.job_id <> ALL (fast)
                        OFFSET 0) AS x   -- OFFSET 0: evaluate apply_event once per row, not once per column
                 WHERE j.job_id = x.job_id
                RETURNING j.queue, x.was, j.state
            ),
            counted AS (
                INSERT INTO ferry.queue_count_deltas (queue, state, delta)
                SELECT c.queue, c.state, sum(c.delta)
                  FROM (SELECT f.queue, f.was AS state, -1 AS delta FROM folded f WHERE f.was <> f.state
                        UNION ALL
                        SELECT f.queue, f.state, 1 FROM folded f WHERE f.was <> f.state) c
                 GROUP BY c.queue, c.state
                HAVING sum(c.delta) <> 0
            )
            SELECT count(*) INTO applied FROM folded;
            IF applied + cardinality(fast) <> others THEN
                RAISE EXCEPTION 'an event names a job that does not exist' USING ERRCODE = 'FY004';
            END IF;
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

CREATE OR REPLACE VIEW ferry.queue_stats AS
WITH counted AS (
    SELECT t.queue, t.state, sum(t.jobs)::bigint AS jobs
      FROM (SELECT queue, state, jobs FROM ferry.queue_counts
            UNION ALL
            SELECT queue, state, delta FROM ferry.queue_count_deltas) t
     GROUP BY t.queue, t.state
    HAVING sum(t.jobs) <> 0
), waiting AS (
    -- The probes run once per queue with queued jobs (the filter applies before the call).
    SELECT c.queue, q.scheduled, q.oldest
      FROM counted c CROSS JOIN LATERAL ferry.queue_waiting(c.queue) q
     WHERE c.state = 'queued'
)
SELECT c.queue,
       c.state,
       c.jobs,
       CASE WHEN c.state = 'queued' THEN c.jobs - w.scheduled ELSE 0 END::bigint AS due,
       CASE WHEN w.oldest <= now() THEN now() - w.oldest END AS oldest_waiting_age,
       coalesce(extract(epoch FROM CASE WHEN w.oldest <= now() THEN now() - w.oldest END), 0)::double precision
           AS oldest_waiting_seconds
  FROM counted c
  LEFT JOIN waiting w ON w.queue = c.queue AND c.state = 'queued';

COMMENT ON VIEW ferry.queue_stats IS
    'Per queue and state: job counts (from counters), due jobs and the oldest due job''s wait (from index probes).';

REVOKE ALL ON ferry.queue_counts, ferry.queue_count_deltas FROM PUBLIC;
-- The trigger (SECURITY DEFINER) appends deltas; people read the view.
REVOKE EXECUTE ON FUNCTION ferry.recount_queues() FROM PUBLIC;
