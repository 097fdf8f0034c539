-- One row per job for people and the dashboard: its state ('held' while its account needs re-authorization),
-- attempts, progress (live progress included) and last error.
CREATE OR REPLACE VIEW ferry.job_status AS
 SELECT j.job_id,
    j.kind,
    j.queue,
    j.batch,
        CASE
            WHEN ((j.state = 'queued'::text) AND (a.status IS NOT NULL) AND (a.status <> 'active'::text)) THEN 'held'::text
            WHEN ((j.state = 'queued'::text) AND (j.run_at > now()) AND (j.attempt > 0)) THEN 'retrying'::text
            WHEN ((j.state = 'queued'::text) AND (j.run_at > now())) THEN 'scheduled'::text
            WHEN ((j.state = 'running'::text) AND j.cancel_requested) THEN 'cancelling'::text
            ELSE j.state
        END AS status,
    j.state,
    j.attempt,
    j.max_attempts,
    j.priority,
    j.source,
    j.destination,
    j.account,
    GREATEST(j.bytes_done, lp.bytes_done) AS bytes_done,
    j.bytes_total,
    (
        CASE
            WHEN (j.state = 'succeeded'::text) THEN 100.0
            WHEN (j.bytes_total > 0) THEN LEAST(99.9, round(((100.0 * (LEAST(GREATEST(j.bytes_done, lp.bytes_done), j.bytes_total))::numeric) / (j.bytes_total)::numeric), 1))
            WHEN (j.bytes_total = 0) THEN 0.0
            ELSE NULL::numeric
        END)::numeric(4,1) AS percent,
    j.last_error,
    j.worker,
    j.metadata,
    j.run_at,
    j.enqueued_at,
    j.started_at,
    j.finished_at,
    j.updated_at,
    j.version AS event_count,
        CASE
            WHEN ((j.state = 'queued'::text) AND (a.status = 'needs_reauth'::text)) THEN ((((('account '::text || a.name) || ' needs re-authorization ('::text) || COALESCE(a.status_reason, 'token rejected'::text)) || '): run ferry account login '::text) || a.name)
            WHEN ((j.state = 'queued'::text) AND (a.status = 'revoked'::text)) THEN ((('account '::text || a.name) || ' was signed out (token revoked): run ferry account login '::text) || a.name)
            ELSE NULL::text
        END AS held_reason
   FROM ferry.jobs j
     LEFT JOIN ferry.accounts a ON a.name = j.account
     -- Bytes in flight, published by the worker that holds the claim (never another's).
     LEFT JOIN ferry.live_progress lp ON lp.job_id = j.job_id AND lp.worker = j.worker AND j.state = 'running';

COMMENT ON VIEW ferry.job_status IS 'One row per job: state, attempts, progress and last error.';
