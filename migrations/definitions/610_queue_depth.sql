-- Per queue: jobs queued and running, and how long the oldest due job has waited (0 when none is due).
CREATE OR REPLACE FUNCTION ferry.queue_depth(p_queues text[] DEFAULT '{}')
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
