-- Appends the outcome events of many jobs (progress, retries, deferrals, finishes) in one call, each only under its
-- job's current lease, and answers the jobs written; the others were refused: their claim was lost (rescued after a
-- missed heartbeat, or cancelled), and what the worker did must not overwrite the newer attempt. The caller sends
-- each job once, in job id order, the order rows are locked in: the same for every writer.
--
-- A function so that its plan is kept for the session instead of parsed and planned for every batch of outcomes.
-- One primary-key probe per outcome: joining on the lease and state instead lets the planner (whose statistics may
-- say nothing is running) scan every running job of the fleet. OFFSET 0 keeps the lease and state checks outside
-- the locking subquery, so they see the locked row. A run_at was computed on the worker's clock: it is written as
-- the database's now() plus its distance from p_sent (that clock as the outcomes were sent).
CREATE OR REPLACE FUNCTION ferry.record_outcomes(p_jobs uuid[], p_leases bigint[], p_types text[], p_data jsonb[], p_sent timestamptz)
RETURNS SETOF uuid
LANGUAGE plpgsql AS $$
BEGIN
    RETURN QUERY
    WITH written AS (
        INSERT INTO ferry.events (job_id, version, type, data)
        SELECT j.job_id, j.version + 1, u.type,
               u.data || jsonb_build_object('lease', u.lease)
                 || CASE WHEN u.data ? 'run_at'
                         THEN jsonb_build_object('run_at', now() + ((u.data->>'run_at')::timestamptz - p_sent))
                         ELSE '{}'::jsonb END
          FROM unnest(p_jobs, p_leases, p_types, p_data) AS u(job_id, lease, type, data)
         CROSS JOIN LATERAL (SELECT k.job_id, k.version, k.lease, k.state FROM ferry.jobs k
                              WHERE k.job_id = u.job_id OFFSET 0 FOR UPDATE) j
         WHERE j.lease = u.lease AND j.state = 'running'
        RETURNING ferry.events.job_id
    )
    SELECT w.job_id FROM written w;
END;
$$;

COMMENT ON FUNCTION ferry.record_outcomes(uuid[], bigint[], text[], jsonb[], timestamptz) IS
    'Outcome events of many jobs, each under its current lease; answers the jobs written.';
REVOKE EXECUTE ON FUNCTION ferry.record_outcomes(uuid[], bigint[], text[], jsonb[], timestamptz) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION ferry.record_outcomes(uuid[], bigint[], text[], jsonb[], timestamptz) TO ferry_worker;
