-- Accounts without their secrets (whether each is set, never its value: `ferry account list` reads this, so a
-- producer-only login can list accounts). An account whose status is not active holds its queued jobs ('held' in
-- job_status) until `ferry account login`; held_jobs counts them through jobs_claim_idx (queue, account), one
-- range per queue that has queued jobs, and is NULL for an active account (nothing is held).
CREATE OR REPLACE VIEW ferry.account_status AS
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
       (a.secrets_sealed IS NOT NULL OR a.app_secret_sealed IS NOT NULL) AS has_secrets,
       a.refresh_token_sealed IS NOT NULL AS has_refresh_token,
       a.access_token_expires_at, a.created_at, a.settings
  FROM ferry.accounts a;

-- Dropped and created again when its columns change (0030): the grants go with it.
GRANT SELECT ON ferry.account_status TO ferry_reader, ferry_producer, ferry_worker;
