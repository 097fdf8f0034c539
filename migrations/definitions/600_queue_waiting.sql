-- Due jobs and the oldest due job's run_at of one queue, from the claim index: per (account, priority) group,
-- the jobs scheduled later are counted (usually few) and the first due entry read. SECURITY DEFINER: readers
-- of the view may not read ferry.jobs. jit off: the recursive estimates pass the JIT threshold, and compiling
-- (35 ms) cost a hundred times the probes.
CREATE OR REPLACE FUNCTION ferry.queue_waiting(p_queue text, OUT scheduled bigint, OUT oldest timestamptz)
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
    levels(acct, p) AS (
        SELECT a.acct, f.priority FROM accts a
         CROSS JOIN LATERAL (SELECT j.priority FROM ferry.jobs j
                              WHERE j.state = 'queued' AND j.queue = p_queue AND coalesce(j.account, '') = a.acct
                              ORDER BY j.priority DESC, j.run_at, j.job_id LIMIT 1) f
        UNION ALL
        SELECT l.acct, f.priority FROM levels l
         CROSS JOIN LATERAL (SELECT j.priority FROM ferry.jobs j
                              WHERE j.state = 'queued' AND j.queue = p_queue AND coalesce(j.account, '') = l.acct
                                AND j.priority < l.p
                              ORDER BY j.priority DESC, j.run_at, j.job_id LIMIT 1) f
    )
    SELECT coalesce(sum((SELECT count(*) FROM ferry.jobs j
                          WHERE j.state = 'queued' AND j.queue = p_queue AND coalesce(j.account, '') = l.acct
                            AND j.priority = l.p AND j.run_at > now())), 0)::bigint,
           min((SELECT j.run_at FROM ferry.jobs j
                 WHERE j.state = 'queued' AND j.queue = p_queue AND coalesce(j.account, '') = l.acct
                   AND j.priority = l.p
                 ORDER BY j.run_at, j.job_id LIMIT 1))
      FROM levels l
$$;
