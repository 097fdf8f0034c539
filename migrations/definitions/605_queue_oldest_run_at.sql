-- The oldest run_at among a queue's queued jobs: the first entry of each (account, priority) range of the claim
-- index. jit off and a generic plan, as ferry.queue_waiting.
CREATE OR REPLACE FUNCTION ferry.queue_oldest_run_at(p_queue text) RETURNS timestamptz
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
    SET plan_cache_mode = force_generic_plan SET enable_seqscan = off SET jit = off AS $$
    WITH RECURSIVE
    accts(acct) AS (
        (SELECT coalesce(j.account, '') FROM ferry.jobs j
          WHERE j.state = 'queued' AND j.queue = p_queue
          ORDER BY coalesce(j.account, ''), j.priority DESC, j.run_at, j.job_id LIMIT 1)
        UNION ALL
        SELECT f.acct FROM accts a
         CROSS JOIN LATERAL (SELECT coalesce(j.account, '') AS acct FROM ferry.jobs j
                              WHERE j.state = 'queued' AND j.queue = p_queue AND coalesce(j.account, '') > a.acct
                              ORDER BY coalesce(j.account, ''), j.priority DESC, j.run_at, j.job_id LIMIT 1) f
    ),
    levels(acct, p, first_run_at) AS (
        SELECT a.acct, f.priority, f.run_at FROM accts a
         CROSS JOIN LATERAL (SELECT j.priority, j.run_at FROM ferry.jobs j
                              WHERE j.state = 'queued' AND j.queue = p_queue AND coalesce(j.account, '') = a.acct
                              ORDER BY j.priority DESC, j.run_at, j.job_id LIMIT 1) f
        UNION ALL
        SELECT l.acct, f.priority, f.run_at FROM levels l
         CROSS JOIN LATERAL (SELECT j.priority, j.run_at FROM ferry.jobs j
                              WHERE j.state = 'queued' AND j.queue = p_queue AND coalesce(j.account, '') = l.acct
                                AND j.priority < l.p
                              ORDER BY j.priority DESC, j.run_at, j.job_id LIMIT 1) f
    )
    -- Each level's first entry is its smallest run_at (the index orders a level by run_at).
    SELECT min(first_run_at) FROM levels
$$;
