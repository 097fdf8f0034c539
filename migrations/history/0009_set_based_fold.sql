-- The projection folds the hot event types set-based.
--
-- Almost every event a worker writes is 'claimed', 'progress' or 'succeeded'. Folding those with one plain SQL
-- UPDATE per statement (instead of a PL/pgSQL call per row) is the same transition written a second way, so
-- ferry.apply_event stays the one definition: the fast UPDATE only takes rows that fit it exactly (next version,
-- right state, current lease), and every other row, including every row that must be refused, goes through
-- apply_event, which raises the same errors as before. `ferry projection verify` replays with apply_event
-- alone, and the property tests compare both against the state machine.

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
            RETURNING j.job_id
        )
        SELECT coalesce(array_agg(job_id), '{}') INTO fast FROM folded;

        IF cardinality(fast) < others THEN
            -- Everything else, and every event that does not fit, through the one definition.
            UPDATE ferry.jobs AS j
               SET version = (x.n).version, state = (x.n).state, attempt = (x.n).attempt, lease = (x.n).lease,
                   worker = (x.n).worker, run_at = (x.n).run_at, cancel_requested = (x.n).cancel_requested,
                   bytes_done = (x.n).bytes_done, bytes_total = (x.n).bytes_total, session = (x.n).session,
                   last_error = (x.n).last_error, result = (x.n).result, started_at = (x.n).started_at,
                   finished_at = (x.n).finished_at, updated_at = (x.n).updated_at
              FROM (SELECT e.job_id, ferry.apply_event(cur, e.job_id, e.type, e.version, e.data, e.recorded_at) AS n
                      FROM new_events e
                      JOIN ferry.jobs cur ON cur.job_id = e.job_id
                     WHERE e.type <> 'enqueued' AND e.job_id <> ALL (fast)
                    OFFSET 0) AS x   -- OFFSET 0: evaluate apply_event once per row, not once per column
             WHERE j.job_id = x.job_id;
            GET DIAGNOSTICS applied = ROW_COUNT;
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

-- The batch tracker runs on every append too; its statements are index probes whatever their arguments.
-- Generic plans are made once per session, maybe while the tables are small: no plan may fall back to scanning.
ALTER FUNCTION ferry.track_batches() SET plan_cache_mode = force_generic_plan;
ALTER FUNCTION ferry.track_batches() SET enable_seqscan = off;
