-- One row per schedule: its spec, state, next tick and last run.
CREATE OR REPLACE VIEW ferry.schedule_status AS
SELECT s.name, CASE WHEN s.cron IS NOT NULL THEN 'cron ' || s.cron ELSE 'every ' || s.every_seconds || 's' END AS spec,
       s.every_seconds, s.cron, s.timezone, s.paused, s.removed, s.next_tick, s.last_tick, s.last_fired_at,
       s.last_job_id, j.state AS last_job_state, s.template, s.created_at, s.changed_at, s.overlap,
       s.run_requested_at, s.paused_reason
  FROM ferry.schedules s
  LEFT JOIN ferry.jobs j ON j.job_id = s.last_job_id;

COMMENT ON VIEW ferry.schedule_status IS
    'Per schedule: spec, time zone, paused, removed, next tick, the last tick''s job and its state, '
    'a run asked for now (ferry schedule run) that no worker fired yet, and why a worker paused it (poison).';
