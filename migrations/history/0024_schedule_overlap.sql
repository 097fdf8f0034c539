-- Schedules that do not overlap themselves: `ferry schedule add … --overlap skip` (the CLI's default).
--
-- A tick used to enqueue its job whatever the previous tick's run was doing. A photostream sync every hour whose
-- run took longer than an hour then listed the stream while the last run's photos were still queued, found them
-- missing from the folder and fetched them a second time. With overlap 'skip', a tick whose previous run is still
-- going (the previous tick's job, or any job of its batch, is queued or running) enqueues nothing: it is recorded
-- in ferry.schedule_ticks with skipped_for naming the job still going, and the schedule moves on to its next tick.
-- 'allow' keeps the old behaviour, and schedules stored before this migration keep it too (their definitions
-- carry no overlap).

ALTER TABLE ferry.schedules
    ADD COLUMN overlap text NOT NULL DEFAULT 'allow' CHECK (overlap IN ('allow', 'skip'));

-- A fired tick has exactly one outcome: its job, the reason it has none, or the run it gave way to.
ALTER TABLE ferry.schedule_ticks ADD COLUMN skipped_for uuid;
ALTER TABLE ferry.schedule_ticks DROP CONSTRAINT schedule_ticks_check;
ALTER TABLE ferry.schedule_ticks
    ADD CONSTRAINT schedule_ticks_outcome CHECK (num_nonnulls(job_id, error, skipped_for) = 1);
GRANT INSERT (skipped_for) ON ferry.schedule_ticks TO ferry_worker;

CREATE OR REPLACE FUNCTION ferry.project_schedule_events() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    n record;
BEGIN
    FOR n IN SELECT * FROM new_events ORDER BY position LOOP
        IF n.type IN ('added', 'replaced') THEN
            INSERT INTO ferry.schedules AS s (name, every_seconds, cron, timezone, template, paused, removed, next_tick,
                                              created_at, changed_at, overlap)
            VALUES (n.schedule, (n.data->>'every_seconds')::bigint, n.data->>'cron', n.data->>'timezone',
                    n.data->'template', false, false, (n.data->>'next_tick')::timestamptz, n.recorded_at, n.recorded_at,
                    coalesce(n.data->>'overlap', 'allow'))
            ON CONFLICT (name) DO UPDATE
               SET every_seconds = excluded.every_seconds, cron = excluded.cron, timezone = excluded.timezone,
                   template = excluded.template, next_tick = excluded.next_tick, changed_at = excluded.changed_at,
                   overlap = excluded.overlap,
                   -- Replacing keeps a pause; adding again after a removal starts afresh.
                   paused = CASE WHEN n.type = 'replaced' THEN s.paused ELSE false END,
                   removed = false,
                   created_at = CASE WHEN n.type = 'replaced' THEN s.created_at ELSE excluded.created_at END;
        ELSIF n.type = 'paused' THEN
            UPDATE ferry.schedules SET paused = true, changed_at = n.recorded_at WHERE name = n.schedule;
        ELSIF n.type = 'resumed' THEN
            UPDATE ferry.schedules SET paused = false, changed_at = n.recorded_at,
                   next_tick = (n.data->>'next_tick')::timestamptz
             WHERE name = n.schedule;
        ELSIF n.type = 'removed' THEN
            UPDATE ferry.schedules SET removed = true, changed_at = n.recorded_at WHERE name = n.schedule;
        END IF;
    END LOOP;
    RETURN NULL;
END
$$;

-- After a skipped tick the schedule's last job is the run it gave way to, the one still going.
CREATE OR REPLACE FUNCTION ferry.project_schedule_ticks() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    UPDATE ferry.schedules s
       SET next_tick = t.next_tick, last_tick = t.tick_at, last_fired_at = t.fired_at,
           last_job_id = coalesce(t.job_id, t.skipped_for)
      FROM (SELECT DISTINCT ON (n.schedule) n.* FROM new_ticks n ORDER BY n.schedule, n.position DESC) t
     WHERE s.name = t.schedule;
    RETURN NULL;
END
$$;

CREATE OR REPLACE VIEW ferry.schedule_runs AS
SELECT t.schedule, t.tick_at, t.fired_at, t.job_id, j.state AS job_state, t.missed, t.first_missed, t.error,
       t.worker, t.position, t.skipped_for
  FROM ferry.schedule_ticks t
  LEFT JOIN ferry.jobs j ON j.job_id = t.job_id;
COMMENT ON VIEW ferry.schedule_runs IS
    'Per fired schedule tick: the tick, when it fired, the job (and its state), ticks missed before it, the error, '
    'or the job still going that it was skipped for (overlap skip).';

CREATE OR REPLACE VIEW ferry.schedule_status AS
SELECT s.name, CASE WHEN s.cron IS NOT NULL THEN 'cron ' || s.cron ELSE 'every ' || s.every_seconds || 's' END AS spec,
       s.every_seconds, s.cron, s.timezone, s.paused, s.removed, s.next_tick, s.last_tick, s.last_fired_at,
       s.last_job_id, j.state AS last_job_state, s.template, s.created_at, s.changed_at, s.overlap
  FROM ferry.schedules s
  LEFT JOIN ferry.jobs j ON j.job_id = s.last_job_id;
