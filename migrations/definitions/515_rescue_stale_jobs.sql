-- Puts back jobs whose worker stopped heartbeating (or vanished): a 'rescued' event, or 'failed' when the
-- attempts are used up. Whoever runs it first wins; SKIP LOCKED and the stream version make it exactly once.
-- The event carries the dead claim's lease, so it cannot touch a job that was claimed again meanwhile.
--
-- A job whose claimers keep dying must stop being handed out (it may be what kills them: a pattern, a parser
-- bug, a library crash): at the p_poison_after-th rescue since its last retry it fails instead, reason 'poison',
-- naming its last claimers. 0 turns this off. A retry (requeued) starts the count afresh.
CREATE OR REPLACE FUNCTION ferry.rescue_stale_jobs(p_stale_after interval, p_poison_after integer DEFAULT 3)
RETURNS TABLE (job_id uuid, outcome text, worker text)
LANGUAGE plpgsql AS $$
BEGIN
    RETURN QUERY
    WITH stale AS (
        SELECT j.job_id, j.version, j.lease, j.attempt, j.max_attempts, j.worker
          FROM ferry.jobs j
          LEFT JOIN ferry.workers w ON w.name = j.worker
         WHERE j.state = 'running'
           AND (w.name IS NULL OR w.heartbeat_at < now() - p_stale_after)
           FOR UPDATE OF j SKIP LOCKED
    ), counted AS (
        -- Rescues are rare: one probe of the job's own events (events_job_version_key) per stale job.
        SELECT s.*, r.rescues, r.claimers
          FROM stale s
          CROSS JOIN LATERAL (
              SELECT count(*) FILTER (WHERE e.type = 'rescued') + 1 AS rescues,
                     (SELECT jsonb_agg(c.worker ORDER BY c.version DESC)
                        FROM (SELECT e2.data ->> 'worker' AS worker, e2.version FROM ferry.events e2
                               WHERE e2.job_id = s.job_id AND e2.type = 'claimed'
                               ORDER BY e2.version DESC LIMIT greatest(p_poison_after, 1)) c) AS claimers
                FROM ferry.events e
               WHERE e.job_id = s.job_id
                 AND e.version > coalesce((SELECT max(q.version) FROM ferry.events q
                                            WHERE q.job_id = s.job_id AND q.type = 'requeued'), 0)
          ) r
    ), decided AS (
        SELECT c.*,
               CASE WHEN p_poison_after > 0 AND c.rescues >= p_poison_after THEN 'poison'
                    WHEN c.attempt >= c.max_attempts THEN 'exhausted' END AS ending
          FROM counted c
    ), appended AS (
        INSERT INTO ferry.events (job_id, version, type, data)
        SELECT d.job_id, d.version + 1,
               CASE WHEN d.ending IS NULL THEN 'rescued' ELSE 'failed' END,
               CASE d.ending
               WHEN 'poison' THEN jsonb_build_object(
                   'lease', d.lease, 'reason', 'poison', 'claimers', d.claimers,
                   'error', format('poison: the workers that claimed this job stopped mid-job %s times (last %s); '
                                   'it is no longer handed out: find the cause in their logs, then ferry retry it',
                                   d.rescues, coalesce(d.worker, '?')))
               WHEN 'exhausted' THEN jsonb_build_object(
                   'lease', d.lease,
                   'error', format('worker %s stopped heartbeating (lease expired); attempts exhausted (%s of %s)',
                                   coalesce(d.worker, '?'), d.attempt, d.max_attempts))
               ELSE jsonb_build_object(
                   'lease', d.lease, 'reason', format('worker %s stopped heartbeating (lease expired)', coalesce(d.worker, '?')))
               END
          FROM decided d
        RETURNING ferry.events.job_id, ferry.events.type
    )
    SELECT a.job_id, CASE WHEN d.ending = 'poison' THEN 'poison' ELSE a.type END, d.worker
      FROM appended a JOIN decided d ON d.job_id = a.job_id;

    -- Forget workers that are long gone and hold nothing.
    DELETE FROM ferry.workers w
     WHERE w.heartbeat_at < now() - p_stale_after * 10
       AND NOT EXISTS (SELECT 1 FROM ferry.jobs j WHERE j.state = 'running' AND j.worker = w.name);
END
$$;

-- It appends worker events: workers only (the owner may anything).
REVOKE EXECUTE ON FUNCTION ferry.rescue_stale_jobs(interval, integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION ferry.rescue_stale_jobs(interval, integer) TO ferry_worker;
