-- Progress that tells the truth while sizes are unknown and while the last bytes are being committed.
--
-- * A job whose bytes are all sent but which has not succeeded yet (its commit or rename is still running) is at
--   most 99.9%: 100% means done.
-- * A batch's bytes_done counts a succeeded job as its whole size (a handler may not report its last bytes), so
--   bytes_done and percent agree; percent is 100 only when every job has finished.
-- * sizes_unknown says how many of a batch's jobs have no known size yet (fetches that have not started), so
--   bytes_total can be shown as partial ("24.0 MiB of 24.0 MiB+, 3 sizes unknown") and no ETA is drawn from it.

CREATE OR REPLACE VIEW ferry.job_status AS
SELECT j.job_id,
       j.kind,
       j.queue,
       j.batch,
       CASE
           WHEN j.state = 'queued' AND a.status IS NOT NULL AND a.status <> 'active' THEN 'held'
           WHEN j.state = 'queued' AND j.run_at > now() AND j.attempt > 0 THEN 'retrying'
           WHEN j.state = 'queued' AND j.run_at > now() THEN 'scheduled'
           WHEN j.state = 'running' AND j.cancel_requested THEN 'cancelling'
           ELSE j.state
       END AS status,
       j.state,
       j.attempt,
       j.max_attempts,
       j.priority,
       j.source,
       j.destination,
       j.account,
       j.bytes_done,
       j.bytes_total,
       CASE
           WHEN j.state = 'succeeded' THEN 100.0
           WHEN j.bytes_total > 0 THEN least(99.9, round(100.0 * least(j.bytes_done, j.bytes_total) / j.bytes_total, 1))
           WHEN j.bytes_total = 0 THEN 0.0
       END::numeric(4, 1) AS percent,
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
           WHEN j.state = 'queued' AND a.status = 'needs_reauth' THEN
               'account ' || a.name || ' needs re-authorization (' || coalesce(a.status_reason, 'token rejected')
               || '): run ferry account login ' || a.name
           WHEN j.state = 'queued' AND a.status = 'revoked' THEN
               'account ' || a.name || ' was signed out (token revoked): run ferry account login ' || a.name
       END AS held_reason
  FROM ferry.jobs j
  LEFT JOIN ferry.accounts a ON a.name = j.account;

CREATE OR REPLACE VIEW ferry.batch_status AS
SELECT s.batch, s.jobs, s.queued, s.running, s.succeeded, s.failed, s.cancelled, s.bytes_done, s.bytes_total,
       s.percent, s.done, s.enqueued_at, s.started_at, s.finished_at,
       (SELECT CASE WHEN e.type = 'completed' THEN e.recorded_at END
          FROM ferry.batch_events e
         WHERE e.batch = s.batch
         ORDER BY e.position DESC
         LIMIT 1) AS completed_at,
       s.sizes_unknown
  FROM (SELECT j.batch,
               count(*)                                          AS jobs,
               count(*) FILTER (WHERE j.state = 'queued')        AS queued,
               count(*) FILTER (WHERE j.state = 'running')       AS running,
               count(*) FILTER (WHERE j.state = 'succeeded')     AS succeeded,
               count(*) FILTER (WHERE j.state = 'failed')        AS failed,
               count(*) FILTER (WHERE j.state = 'cancelled')     AS cancelled,
               sum(CASE WHEN j.state = 'succeeded' THEN coalesce(j.bytes_total, j.bytes_done)
                        ELSE least(j.bytes_done, coalesce(j.bytes_total, j.bytes_done)) END)::bigint AS bytes_done,
               sum(j.bytes_total)::bigint                        AS bytes_total,
               -- 100 once every job has finished; before, by bytes when every size is known, otherwise by
               -- finished jobs, and never more than 99.9.
               CASE
                   WHEN bool_and(j.state IN ('succeeded', 'failed', 'cancelled')) THEN 100.0
                   WHEN count(j.bytes_total) = count(*) AND sum(j.bytes_total) > 0 THEN
                       least(99.9, round(100.0 * sum(CASE WHEN j.state = 'succeeded' THEN j.bytes_total
                                                         ELSE least(j.bytes_done, j.bytes_total) END) / sum(j.bytes_total), 1))
                   ELSE least(99.9, round(100.0 * count(*) FILTER (WHERE j.state IN ('succeeded', 'failed', 'cancelled')) / count(*), 1))
               END::numeric(4, 1)                                AS percent,
               bool_and(j.state IN ('succeeded', 'failed', 'cancelled')) AS done,
               min(j.enqueued_at)                                AS enqueued_at,
               min(j.started_at)                                 AS started_at,
               CASE WHEN bool_and(j.state IN ('succeeded', 'failed', 'cancelled')) THEN max(j.finished_at) END AS finished_at,
               count(*) - count(j.bytes_total)                   AS sizes_unknown
          FROM ferry.jobs j
         WHERE j.batch IS NOT NULL
         GROUP BY j.batch) s;

COMMENT ON VIEW ferry.batch_status IS
    'One row per batch: jobs per state, bytes and percent done (100 only when done), start, finish, completion, and how many sizes are still unknown.';
