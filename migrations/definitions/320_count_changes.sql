-- Records what `p_changes` did to the queue, batch and throughput counters (a batch also counts the jobs that
-- succeeded without moving data, `unchanged`, and their bytes; `discarded` is last, as in the table). Throughput counts jobs reaching
-- succeeded or failed (a job retried and finished again counts again: it is work done per minute).
CREATE OR REPLACE FUNCTION ferry.count_changes(p_changes ferry.job_change[]) RETURNS void
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp SET plan_cache_mode = force_generic_plan AS $$
BEGIN
    IF p_changes IS NULL OR cardinality(p_changes) = 0 THEN
        RETURN;
    END IF;

    INSERT INTO ferry.queue_count_deltas (queue, state, delta)
    SELECT t.queue, t.state, sum(t.delta)
      FROM (SELECT c.queue, c.was_state AS state, -1 AS delta FROM unnest(p_changes) c
             WHERE c.was_state IS NOT NULL AND c.was_state IS DISTINCT FROM c.state
            UNION ALL
            SELECT c.queue, c.state, 1 FROM unnest(p_changes) c
             WHERE c.state IS NOT NULL AND c.was_state IS DISTINCT FROM c.state) t
     GROUP BY t.queue, t.state
    HAVING sum(t.delta) <> 0;

    INSERT INTO ferry.batch_count_deltas
    SELECT d.*
      FROM (SELECT c.batch,
                   sum((c.state IS NOT NULL)::int - (c.was_state IS NOT NULL)::int)::bigint AS jobs,
                   sum((c.state IS NOT DISTINCT FROM 'queued')::int - (c.was_state IS NOT DISTINCT FROM 'queued')::int)::bigint AS queued,
                   sum((c.state IS NOT DISTINCT FROM 'running')::int - (c.was_state IS NOT DISTINCT FROM 'running')::int)::bigint AS running,
                   sum((c.state IS NOT DISTINCT FROM 'succeeded')::int - (c.was_state IS NOT DISTINCT FROM 'succeeded')::int)::bigint AS succeeded,
                   sum((c.state IS NOT DISTINCT FROM 'failed')::int - (c.was_state IS NOT DISTINCT FROM 'failed')::int)::bigint AS failed,
                   sum((c.state IS NOT DISTINCT FROM 'cancelled')::int - (c.was_state IS NOT DISTINCT FROM 'cancelled')::int)::bigint AS cancelled,
                   sum(CASE WHEN c.state IS NULL THEN 0 ELSE ferry.batch_bytes_done(c.state, c.bytes_done, c.bytes_total) END
                       - CASE WHEN c.was_state IS NULL THEN 0
                              ELSE ferry.batch_bytes_done(c.was_state, c.was_bytes_done, c.was_bytes_total) END)::bigint AS bytes_done,
                   sum(CASE WHEN c.state IS NULL THEN 0 ELSE coalesce(c.bytes_total, 0) END
                       - CASE WHEN c.was_state IS NULL THEN 0 ELSE coalesce(c.was_bytes_total, 0) END)::bigint AS bytes_total,
                   sum((c.state IS NOT NULL AND c.bytes_total IS NOT NULL)::int
                       - (c.was_state IS NOT NULL AND c.was_bytes_total IS NOT NULL)::int)::bigint AS sized,
                   min(c.enqueued_at) AS enqueued_at, min(c.started_at) AS started_at, max(c.finished_at) AS finished_at,
                   min(c.job_id::text COLLATE "C") FILTER (WHERE c.was_state IS NULL)::uuid AS first_job,
                   sum(coalesce(c.unchanged, false)::int - coalesce(c.was_unchanged, false)::int)::bigint AS unchanged,
                   sum(CASE WHEN c.unchanged THEN coalesce(c.bytes_total, 0) ELSE 0 END
                       - CASE WHEN c.was_unchanged THEN coalesce(c.was_bytes_total, 0) ELSE 0 END)::bigint AS unchanged_bytes,
                   sum((c.state IS NOT DISTINCT FROM 'discarded')::int - (c.was_state IS NOT DISTINCT FROM 'discarded')::int)::bigint AS discarded
              FROM unnest(p_changes) c
             WHERE c.batch IS NOT NULL
             GROUP BY c.batch) d
     WHERE (d.jobs, d.queued, d.running, d.succeeded, d.failed, d.cancelled, d.bytes_done, d.bytes_total, d.sized,
            d.unchanged, d.unchanged_bytes, d.discarded)
           <> (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);

    INSERT INTO ferry.throughput_deltas (minute, queue, succeeded, failed, bytes)
    SELECT date_trunc('minute', c.finished_at), c.queue,
           count(*) FILTER (WHERE c.state = 'succeeded'), count(*) FILTER (WHERE c.state = 'failed'),
           coalesce(sum(coalesce(c.bytes_total, c.bytes_done)) FILTER (WHERE c.state = 'succeeded'), 0)
      FROM unnest(p_changes) c
     WHERE c.state IN ('succeeded', 'failed') AND c.was_state IS NOT NULL AND c.was_state <> c.state
       AND c.finished_at IS NOT NULL
     GROUP BY 1, 2;
END
$$;
