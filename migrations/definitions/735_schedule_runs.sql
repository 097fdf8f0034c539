-- Each fired schedule tick with its job's state.
CREATE OR REPLACE VIEW ferry.schedule_runs AS
SELECT t.schedule, t.tick_at, t.fired_at, t.job_id, j.state AS job_state, t.missed, t.first_missed, t.error,
       t.worker, t.position, t.skipped_for, t.manual
  FROM ferry.schedule_ticks t
  LEFT JOIN ferry.jobs j ON j.job_id = t.job_id;

COMMENT ON VIEW ferry.schedule_runs IS
    'Per fired schedule tick: the tick, when it fired, the job (and its state), ticks missed before it, the error, '
    'or the job still going that it was skipped for (overlap skip).';
