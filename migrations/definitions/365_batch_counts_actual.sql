-- The real figures, read from the projection: what the counters are seeded from and checked against.
CREATE OR REPLACE FUNCTION ferry.batch_counts_actual() RETURNS SETOF ferry.batch_counts
LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS $$
SELECT j.batch,
       count(*) AS jobs,
       count(*) FILTER (WHERE j.state = 'queued') AS queued,
       count(*) FILTER (WHERE j.state = 'running') AS running,
       count(*) FILTER (WHERE j.state = 'succeeded') AS succeeded,
       count(*) FILTER (WHERE j.state = 'failed') AS failed,
       count(*) FILTER (WHERE j.state = 'cancelled') AS cancelled,
       coalesce(sum(ferry.batch_bytes_done(j.state, j.bytes_done, j.bytes_total)), 0)::bigint AS bytes_done,
       coalesce(sum(j.bytes_total), 0)::bigint AS bytes_total,
       count(j.bytes_total) AS sized,
       min(j.enqueued_at) AS enqueued_at,
       min(j.started_at) AS started_at,
       max(j.finished_at) AS finished_at,
       min(j.job_id::text COLLATE "C")::uuid AS first_job,   -- PostgreSQL 15 has no min(uuid); the text sorts alike
       count(*) FILTER (WHERE j.state = 'succeeded' AND j.result->>'skipped' = 'unchanged') AS unchanged,
       coalesce(sum(j.bytes_total) FILTER (WHERE j.state = 'succeeded' AND j.result->>'skipped' = 'unchanged'), 0)::bigint
           AS unchanged_bytes,
       count(*) FILTER (WHERE j.state = 'discarded') AS discarded
  FROM ferry.jobs j
 WHERE j.batch IS NOT NULL
 GROUP BY j.batch
$$;
