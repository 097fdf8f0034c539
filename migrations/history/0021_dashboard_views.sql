-- Status views for what the dashboard shows beyond jobs, batches and queues, so a read-only dashboard can run as
-- ferry_reader (which reads status views only): each job's event timeline, the workers, the accounts (never their
-- secrets), and finished work per minute over the last hour.

-- A job's history as the dashboard and `ferry events` show it. Events never carry secrets (tokens live sealed
-- in ferry.accounts). A simple view: `WHERE job_id = …` and `max(position)` use the event log's indexes.
CREATE VIEW ferry.job_timeline AS
SELECT e.position, e.job_id, e.version, e.type, e.data, e.tx_id, e.recorded_at,
       e.data->>'worker' AS worker,
       (e.data->>'lease')::bigint AS lease
  FROM ferry.events e;

-- Registered workers, their heartbeat age and how many jobs each runs.
CREATE VIEW ferry.worker_status AS
SELECT w.name, w.host, w.pid, w.queues, w.concurrency,
       extract(epoch FROM now() - w.heartbeat_at)::float8 AS heartbeat_age_seconds,
       w.stopping,
       (SELECT count(*) FROM ferry.jobs j WHERE j.state = 'running' AND j.worker = w.name) AS running,
       w.started_at
  FROM ferry.workers w;

-- Accounts without their secrets (whether each is set, never its value: `ferry account list` reads this, so a
-- producer-only login can list accounts). An account whose status is not active holds its queued jobs ('held' in
-- job_status) until `ferry account login`; held_jobs counts them through jobs_claim_idx (queue, account), one
-- range per queue that has queued jobs, and is NULL for an active account (nothing is held).
CREATE VIEW ferry.account_status AS
SELECT a.name, a.provider, a.status, a.status_reason, a.updated_at, a.max_concurrent,
       a.status <> 'active' AS needs_login,
       CASE WHEN a.status <> 'active' THEN
           (SELECT coalesce(sum(n.held), 0)::bigint
              FROM (SELECT c.queue FROM ferry.queue_counts c WHERE c.state = 'queued'
                    UNION
                    SELECT d.queue FROM ferry.queue_count_deltas d WHERE d.state = 'queued') q
             CROSS JOIN LATERAL (SELECT count(*) AS held FROM ferry.jobs j
                                  WHERE j.state = 'queued' AND j.queue = q.queue
                                    AND coalesce(j.account, '') = a.name) n)
       END AS held_jobs,
       a.app_key, a.api_url, a.content_url, a.authorize_url, a.provider_account_id,
       a.app_secret_sealed IS NOT NULL AS has_app_secret,
       a.refresh_token_sealed IS NOT NULL AS has_refresh_token,
       a.access_token_expires_at, a.created_at, a.settings
  FROM ferry.accounts a;

-- Finished jobs and bytes per minute and queue over the last hour: two ranges of jobs_finished_idx
-- (state, finished_at), however long the history.
CREATE VIEW ferry.throughput AS
SELECT date_trunc('minute', j.finished_at) AS minute,
       j.queue,
       count(*) FILTER (WHERE j.state = 'succeeded') AS succeeded,
       count(*) FILTER (WHERE j.state = 'failed') AS failed,
       coalesce(sum(coalesce(j.bytes_total, j.bytes_done)) FILTER (WHERE j.state = 'succeeded'), 0)::bigint AS bytes
  FROM ferry.jobs j
 WHERE j.state IN ('succeeded', 'failed')
   AND j.finished_at > now() - interval '1 hour'
 GROUP BY 1, 2;

GRANT SELECT ON ferry.job_timeline, ferry.worker_status, ferry.account_status, ferry.throughput
    TO ferry_reader, ferry_producer, ferry_worker;
