-- Batches know when they are complete.
--
-- A batch is complete when none of its jobs is queued or running. The moment it becomes complete is recorded
-- once, as a 'completed' row in the append-only ferry.batch_events, and announced on the ferry_batch channel
-- (payload: the batch name) in the same transaction. A complete batch that gets new or requeued jobs is
-- 'reopened' and later completes again with a new 'completed' row. Only the trigger below writes
-- ferry.batch_events: the latest row of a batch always agrees with its jobs.

CREATE TABLE ferry.batch_events (
    position     bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    batch        text        NOT NULL,
    type         text        NOT NULL CHECK (type IN ('completed', 'reopened')),
    -- completed: {"jobs", "succeeded", "failed", "cancelled", "bytes"}; reopened: {"unfinished"}.
    data         jsonb       NOT NULL DEFAULT '{}'::jsonb,
    tx_id        xid8        NOT NULL DEFAULT pg_current_xact_id(),
    recorded_at  timestamptz NOT NULL DEFAULT now()
);

ALTER TABLE ferry.batch_events SET (fillfactor = 100);

-- A batch's latest event is read by every statement that finishes one of its jobs.
CREATE INDEX batch_events_batch_idx ON ferry.batch_events (batch, position);

COMMENT ON TABLE ferry.batch_events IS
    'Append-only batch history (completed, reopened), written by a trigger on ferry.events. UPDATE, DELETE and TRUNCATE raise.';

CREATE FUNCTION ferry.forbid_batch_event_change() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'ferry.batch_events is append-only: % is not allowed', TG_OP
        USING ERRCODE = 'FY010',
              HINT = 'Batch events follow from job events; append to ferry.events instead.';
END
$$;

CREATE TRIGGER batch_events_append_only_rows
    BEFORE UPDATE OR DELETE ON ferry.batch_events
    FOR EACH ROW EXECUTE FUNCTION ferry.forbid_batch_event_change();

CREATE TRIGGER batch_events_append_only_truncate
    BEFORE TRUNCATE ON ferry.batch_events
    FOR EACH STATEMENT EXECUTE FUNCTION ferry.forbid_batch_event_change();

-- "Is any job of this batch still unfinished?" is an index probe: walking jobs_batch_idx would read every
-- finished job of the batch, so the last finishes of a large batch would each cost the whole batch.
CREATE INDEX jobs_batch_unfinished_idx ON ferry.jobs (batch)
    WHERE batch IS NOT NULL AND state IN ('queued', 'running');

-- The counts a 'completed' event carries. bytes: bytes moved by the batch's jobs (sum of bytes_done).
CREATE FUNCTION ferry.batch_summary(p_batch text) RETURNS jsonb
LANGUAGE sql STABLE AS $$
    SELECT jsonb_build_object(
               'jobs', count(*),
               'succeeded', count(*) FILTER (WHERE j.state = 'succeeded'),
               'failed', count(*) FILTER (WHERE j.state = 'failed'),
               'cancelled', count(*) FILTER (WHERE j.state = 'cancelled'),
               'bytes', coalesce(sum(j.bytes_done), 0))
      FROM ferry.jobs j
     WHERE j.batch = p_batch
$$;

-- Runs after ferry.project_events (statement triggers fire in name order: events_project < events_track_batches),
-- so ferry.jobs already holds this statement's changes. SECURITY DEFINER: application roles append job events,
-- never batch events.
CREATE FUNCTION ferry.track_batches() RETURNS trigger
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
                       EXISTS (SELECT 1 FROM ferry.jobs j
                                WHERE j.batch = b AND j.state IN ('queued', 'running')) AS open,
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

CREATE TRIGGER events_track_batches
    AFTER INSERT ON ferry.events
    REFERENCING NEW TABLE AS new_events
    FOR EACH STATEMENT EXECUTE FUNCTION ferry.track_batches();

-- Batches that were already complete before this migration: their completion, dated by their last finish.
-- (CREATE TRIGGER above holds a lock that keeps appends out until commit, so none can slip between.)
INSERT INTO ferry.batch_events (batch, type, data, recorded_at)
SELECT j.batch, 'completed', ferry.batch_summary(j.batch), coalesce(max(j.finished_at), now())
  FROM ferry.jobs j
 WHERE j.batch IS NOT NULL
 GROUP BY j.batch
HAVING bool_and(j.state IN ('succeeded', 'failed', 'cancelled'))
 ORDER BY 4, 1;

-- batch_status gains completed_at: when the batch last completed, NULL while it is open (or was reopened).
CREATE OR REPLACE VIEW ferry.batch_status AS
SELECT s.*,
       (SELECT CASE WHEN e.type = 'completed' THEN e.recorded_at END
          FROM ferry.batch_events e
         WHERE e.batch = s.batch
         ORDER BY e.position DESC
         LIMIT 1) AS completed_at
  FROM (SELECT j.batch,
               count(*)                                          AS jobs,
               count(*) FILTER (WHERE j.state = 'queued')        AS queued,
               count(*) FILTER (WHERE j.state = 'running')       AS running,
               count(*) FILTER (WHERE j.state = 'succeeded')     AS succeeded,
               count(*) FILTER (WHERE j.state = 'failed')        AS failed,
               count(*) FILTER (WHERE j.state = 'cancelled')     AS cancelled,
               sum(j.bytes_done)::bigint                         AS bytes_done,
               sum(j.bytes_total)::bigint                        AS bytes_total,
               -- By bytes when every size is known, otherwise by finished jobs.
               CASE
                   WHEN count(j.bytes_total) = count(*) AND sum(j.bytes_total) > 0 THEN
                       round(100.0 * sum(CASE WHEN j.state = 'succeeded' THEN j.bytes_total
                                              ELSE least(j.bytes_done, j.bytes_total) END) / sum(j.bytes_total), 1)
                   ELSE round(100.0 * count(*) FILTER (WHERE j.state IN ('succeeded', 'failed', 'cancelled')) / count(*), 1)
               END::numeric(4, 1)                                AS percent,
               bool_and(j.state IN ('succeeded', 'failed', 'cancelled')) AS done,
               min(j.enqueued_at)                                AS enqueued_at,
               min(j.started_at)                                 AS started_at,
               CASE WHEN bool_and(j.state IN ('succeeded', 'failed', 'cancelled')) THEN max(j.finished_at) END AS finished_at
          FROM ferry.jobs j
         WHERE j.batch IS NOT NULL
         GROUP BY j.batch) s;

COMMENT ON VIEW ferry.batch_status IS
    'One row per batch: jobs per state, bytes and percent done, start, finish and completion.';

-- Producers and workers read the batch history like the job log; readers see completed_at in the view only.
GRANT SELECT ON ferry.batch_events TO ferry_producer, ferry_worker;
REVOKE INSERT, UPDATE, DELETE, TRUNCATE ON ferry.batch_events FROM PUBLIC, ferry_reader, ferry_producer, ferry_worker;
