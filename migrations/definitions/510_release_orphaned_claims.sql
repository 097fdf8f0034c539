-- Claims a worker holds without knowing it: the claim committed but its reply was lost with the connection.
-- The worker heartbeats, so rescue would never see them; instead each heartbeat releases what the database
-- attributes to the worker but the worker is not running (older than a grace period, to skip claims still
-- in flight). 'released' does not consume an attempt: the job never started.
CREATE OR REPLACE FUNCTION ferry.release_orphaned_claims(p_worker text, p_running uuid[], p_grace interval)
RETURNS TABLE (job_id uuid)
LANGUAGE sql AS $$
    WITH orphaned AS (
        SELECT j.job_id, j.version, j.lease
          FROM ferry.jobs j
         WHERE j.state = 'running' AND j.worker = p_worker AND j.updated_at < now() - p_grace
           AND NOT (j.job_id = ANY (p_running))
           FOR UPDATE OF j SKIP LOCKED
    )
    INSERT INTO ferry.events (job_id, version, type, data)
    SELECT o.job_id, o.version + 1, 'released',
           jsonb_build_object('lease', o.lease, 'reason', 'claim reply lost with the connection; released unstarted')
      FROM orphaned o
    RETURNING ferry.events.job_id
$$;
