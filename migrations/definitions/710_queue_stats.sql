-- Per queue and state: job counts (the counters plus pending deltas), due jobs and the oldest due job's wait, and
-- whether the queue is paused (the last column: a view's columns can only be added at the end).
CREATE OR REPLACE VIEW ferry.queue_stats AS
WITH counted AS (
    SELECT t.queue, t.state, sum(t.jobs)::bigint AS jobs
      FROM (SELECT queue, state, jobs FROM ferry.queue_counts
            UNION ALL
            SELECT queue, state, delta FROM ferry.queue_count_deltas) t
     GROUP BY t.queue, t.state
    HAVING sum(t.jobs) <> 0
), waiting AS (
    -- The probes run once per queue with queued jobs (the filter applies before the call).
    SELECT c.queue, q.scheduled, q.oldest
      FROM counted c CROSS JOIN LATERAL ferry.queue_waiting(c.queue) q
     WHERE c.state = 'queued'
)
SELECT c.queue,
       c.state,
       c.jobs,
       CASE WHEN c.state = 'queued' THEN c.jobs - w.scheduled ELSE 0 END::bigint AS due,
       CASE WHEN w.oldest <= now() THEN now() - w.oldest END AS oldest_waiting_age,
       coalesce(extract(epoch FROM CASE WHEN w.oldest <= now() THEN now() - w.oldest END), 0)::double precision
           AS oldest_waiting_seconds,
       coalesce((SELECT qc.paused FROM ferry.queue_controls qc WHERE qc.queue = c.queue), false) AS paused
  FROM counted c
  LEFT JOIN waiting w ON w.queue = c.queue AND c.state = 'queued';

COMMENT ON VIEW ferry.queue_stats IS
    'Per queue and state: job counts (from counters), due jobs, the oldest due job''s wait (from index probes), and whether the queue is paused.';
