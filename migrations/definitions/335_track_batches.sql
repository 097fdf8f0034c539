-- Runs after ferry.project_events (statement triggers fire in name order: events_project < events_track_batches),
-- so ferry.jobs already holds this statement's changes. SECURITY DEFINER: application roles append job events,
-- never batch events.
CREATE OR REPLACE FUNCTION ferry.track_batches() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    touched text[];
    changed record;
BEGIN
    -- Claims and progress, most statements, never change whether a batch is complete: leave at once.
    IF NOT EXISTS (SELECT 1 FROM new_events
                    WHERE type IN ('enqueued', 'requeued', 'succeeded', 'failed', 'cancelled',
                                   'retry_scheduled', 'deferred', 'released', 'rescued')) THEN
        RETURN NULL;
    END IF;

    -- Batches this statement may have reopened (new or requeued jobs) or completed (a job reached a terminal
    -- state; a pending cancel turns retry_scheduled, deferred, released and rescued into cancelled too).
    SELECT array_agg(t.batch) INTO touched
      FROM (SELECT e.data->>'batch' AS batch
              FROM new_events e
             WHERE e.type = 'enqueued'
            UNION   -- distinct (hashed): a bulk enqueue names few batches for many jobs
            SELECT j.batch
              FROM new_events e
              JOIN ferry.jobs j ON j.job_id = e.job_id
             WHERE e.type IN ('requeued', 'succeeded', 'failed', 'cancelled',
                              'retry_scheduled', 'deferred', 'released', 'rescued')
               AND (e.type = 'requeued' OR j.state IN ('succeeded', 'failed', 'cancelled'))) t
     WHERE t.batch IS NOT NULL;
    IF touched IS NULL THEN
        RETURN NULL;
    END IF;

    -- Serialize per batch. Two transactions finishing a batch's last two jobs at once each see the other's job
    -- still unfinished (READ COMMITTED), and neither would notice the completion; with the lock, the second
    -- waits here until the first commits and then reads afresh. Enqueues and requeues take it too, so a reopen
    -- cannot slip past a completion. Keys are bucketed (1,024) so one statement touching many batches holds a
    -- bounded number of locks; buckets are taken in ascending order, so lockers never deadlock each other.
    -- (One statement; the sub-select's order is the order the locks are taken in.)
    PERFORM pg_advisory_xact_lock(hashtext('ferry.batch'), k.bucket)
       FROM (SELECT DISTINCT hashtext(b) & 1023 AS bucket FROM unnest(touched) AS b ORDER BY 1) AS k;

    -- A new statement, so a new snapshot (READ COMMITTED, as every Ferry writer runs): it sees everything
    -- committed by earlier holders of the locks.
    -- Append an event wherever a batch's state (open or complete) differs from its latest event; usually none
    -- does (the batch still has unfinished jobs), and this one SELECT is all the work.
    FOR changed IN
        SELECT s.batch, s.open
          FROM (SELECT b AS batch,
                       -- Newest first: claimed and finished jobs leave dead entries at the oldest end of each
                       -- state's range in the batch index until vacuum, and a forward scan stepped over all of
                       -- them on every outcome (issue 35: a fifth of an outcome statement's time at 32 jobs).
                       -- (A range rather than state = …, which would let the planner walk the primary key.)
                       (SELECT true FROM ferry.jobs j WHERE j.batch = b AND j.state >= 'queued' AND j.state <= 'queued'
                         ORDER BY j.state DESC, j.job_id DESC LIMIT 1) IS NOT NULL
                       OR (SELECT true FROM ferry.jobs j WHERE j.batch = b AND j.state >= 'running' AND j.state <= 'running'
                            ORDER BY j.state DESC, j.job_id DESC LIMIT 1) IS NOT NULL AS open,
                       (SELECT e.type FROM ferry.batch_events e
                         WHERE e.batch = b ORDER BY e.position DESC LIMIT 1) AS last_type
                  FROM unnest(touched) AS b
                OFFSET 0) AS s   -- OFFSET 0: each sub-select runs once per batch, not once per reference
         WHERE (s.open AND s.last_type = 'completed') OR (NOT s.open AND s.last_type IS DISTINCT FROM 'completed')
         ORDER BY s.batch
    LOOP
        INSERT INTO ferry.batch_events (batch, type, data)
        VALUES (changed.batch,
                CASE WHEN changed.open THEN 'reopened' ELSE 'completed' END,
                CASE WHEN changed.open
                     THEN jsonb_build_object('unfinished', (SELECT count(*) FROM ferry.jobs j
                                                             WHERE j.batch = changed.batch AND j.state IN ('queued', 'running')))
                     ELSE ferry.batch_summary(changed.batch)
                END);
        PERFORM pg_notify('ferry_batch', changed.batch);
    END LOOP;
    RETURN NULL;
END
$$;
-- The batch tracker runs on every append too; its statements are index probes whatever their arguments.
-- Generic plans are made once per session, maybe while the tables are small: no plan may fall back to scanning.
ALTER FUNCTION ferry.track_batches() SET plan_cache_mode = force_generic_plan;
ALTER FUNCTION ferry.track_batches() SET enable_seqscan = off;
