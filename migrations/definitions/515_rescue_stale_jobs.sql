-- Puts back jobs whose worker stopped heartbeating (or vanished): a 'rescued' event, or 'failed' when the
-- attempts are used up. Whoever runs it first wins; SKIP LOCKED and the stream version make it exactly once.
-- The event carries the dead claim's lease, so it cannot touch a job that was claimed again meanwhile.
CREATE OR REPLACE FUNCTION ferry.rescue_stale_jobs(p_stale_after interval)
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
    ), appended AS (
        INSERT INTO ferry.events (job_id, version, type, data)
        SELECT s.job_id, s.version + 1,
               CASE WHEN s.attempt >= s.max_attempts THEN 'failed' ELSE 'rescued' END,
               jsonb_build_object(
                   'lease', s.lease,
                   CASE WHEN s.attempt >= s.max_attempts THEN 'error' ELSE 'reason' END,
                   'worker ' || coalesce(s.worker, '?') || ' stopped heartbeating (lease expired)'
                       || CASE WHEN s.attempt >= s.max_attempts
                               THEN format('; attempts exhausted (%s of %s)', s.attempt, s.max_attempts) ELSE '' END)
          FROM stale s
        RETURNING ferry.events.job_id, ferry.events.type
    )
    SELECT a.job_id, a.type, s.worker FROM appended a JOIN stale s ON s.job_id = a.job_id;

    -- Forget workers that are long gone and hold nothing.
    DELETE FROM ferry.workers w
     WHERE w.heartbeat_at < now() - p_stale_after * 10
       AND NOT EXISTS (SELECT 1 FROM ferry.jobs j WHERE j.state = 'running' AND j.worker = w.name);
END
$$;
