-- Status views: progress reporting is a plain SQL query. Columns are documented in README.md.

CREATE VIEW ferry.job_status AS
SELECT j.job_id,
       j.kind,
       j.queue,
       j.batch,
       -- What a person wants to read: waiting jobs split by why they wait.
       CASE
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
           WHEN j.bytes_total > 0 THEN round(100.0 * least(j.bytes_done, j.bytes_total) / j.bytes_total, 1)
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
       j.version AS event_count
  FROM ferry.jobs j;

COMMENT ON VIEW ferry.job_status IS 'One row per job: state, attempts, progress and last error.';

CREATE VIEW ferry.batch_status AS
SELECT j.batch,
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
 GROUP BY j.batch;

COMMENT ON VIEW ferry.batch_status IS 'One row per batch: jobs per state, bytes and percent done, start and finish.';

CREATE VIEW ferry.queue_stats AS
SELECT j.queue,
       j.state,
       count(*) AS jobs,
       count(*) FILTER (WHERE j.state = 'queued' AND j.run_at <= now()) AS due,
       max(now() - j.run_at) FILTER (WHERE j.state = 'queued' AND j.run_at <= now()) AS oldest_waiting_age,
       coalesce(extract(epoch FROM max(now() - j.run_at) FILTER (WHERE j.state = 'queued' AND j.run_at <= now())), 0)::double precision
           AS oldest_waiting_seconds
  FROM ferry.jobs j
 GROUP BY j.queue, j.state;

COMMENT ON VIEW ferry.queue_stats IS 'Per queue and state: job counts, due jobs and the oldest due job''s wait.';
