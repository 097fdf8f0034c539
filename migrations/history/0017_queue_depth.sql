-- Queue depth for metrics, cheap at any backlog.
--
-- Workers export queue depth to Prometheus every 15 s. They read ferry.queue_stats, whose `due` column counts
-- the jobs scheduled for later with an index scan that visits every such job's heap row (the claim index keys
-- on an expression, so the scan cannot be index-only): with 1,000,000 queued jobs, a tenth of them scheduled,
-- one read took about 1 s and 100,000 buffers, per worker. ferry.queue_depth answers what the metrics need from
-- the counters (jobs queued and running; terminal states, which only grow, are left out) and one index probe per
-- (account, priority level) for the oldest due job, so its cost does not grow with the backlog. Every queue in
-- p_queues gets a row, with zeros when it has no jobs, so a drained queue reads 0 instead of vanishing.

-- The oldest run_at among a queue's queued jobs: the first entry of each (account, priority) range of the claim
-- index. jit off and a generic plan, as ferry.queue_waiting.
CREATE FUNCTION ferry.queue_oldest_run_at(p_queue text) RETURNS timestamptz
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

-- Per queue: jobs queued and running, and how long the oldest due job has waited (0 when none is due).
CREATE FUNCTION ferry.queue_depth(p_queues text[] DEFAULT '{}')
RETURNS TABLE (queue text, queued bigint, running bigint, oldest_waiting_seconds double precision)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp SET jit = off AS $$
    WITH counted AS (
        SELECT t.queue,
               sum(t.jobs) FILTER (WHERE t.state = 'queued')::bigint AS queued,
               sum(t.jobs) FILTER (WHERE t.state = 'running')::bigint AS running
          FROM (SELECT c.queue, c.state, c.jobs FROM ferry.queue_counts c WHERE c.state IN ('queued', 'running')
                UNION ALL
                SELECT d.queue, d.state, d.delta FROM ferry.queue_count_deltas d WHERE d.state IN ('queued', 'running')) t
         GROUP BY t.queue
    ), queues AS (
        SELECT c.queue FROM counted c WHERE c.queued <> 0 OR c.running <> 0
        UNION
        SELECT q FROM unnest(p_queues) AS q
    )
    SELECT q.queue,
           coalesce(c.queued, 0),
           coalesce(c.running, 0),
           CASE WHEN coalesce(c.queued, 0) > 0
                THEN greatest(0, extract(epoch FROM now() - ferry.queue_oldest_run_at(q.queue)))::double precision
                ELSE 0 END
      FROM queues q
      LEFT JOIN counted c ON c.queue = q.queue
     ORDER BY q.queue
$$;

COMMENT ON FUNCTION ferry.queue_depth(text[]) IS
    'Per queue (every queue with queued or running jobs, and each of p_queues): queued and running jobs (from the counters) and the oldest due job''s wait in seconds (index probes; 0 when none is due).';
