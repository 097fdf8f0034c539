-- Folds pending deltas into the counters: queues (ferry.compact_queue_counts), batches and throughput. One
-- compactor per kind at a time; the others skip it. Throughput older than a day is dropped.
CREATE OR REPLACE FUNCTION ferry.compact_counters() RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    folded  bigint;
    n       bigint;
    touched text[];
BEGIN
    folded := ferry.compact_queue_counts();

    IF pg_try_advisory_xact_lock(hashtext('ferry.batch_counts'), 0) THEN
        WITH moved AS (
            DELETE FROM ferry.batch_count_deltas RETURNING *
        ), summed AS (
            SELECT batch, sum(jobs) AS jobs, sum(queued) AS queued, sum(running) AS running,
                   sum(succeeded) AS succeeded, sum(failed) AS failed, sum(cancelled) AS cancelled,
                   sum(bytes_done) AS bytes_done, sum(bytes_total) AS bytes_total, sum(sized) AS sized,
                   min(enqueued_at) AS enqueued_at, min(started_at) AS started_at, max(finished_at) AS finished_at,
                   min(first_job::text COLLATE "C")::uuid AS first_job, sum(unchanged) AS unchanged,
                   sum(unchanged_bytes) AS unchanged_bytes, sum(discarded) AS discarded, count(*) AS n
              FROM moved GROUP BY batch
        ), applied AS (
            INSERT INTO ferry.batch_counts AS c
            SELECT batch, jobs, queued, running, succeeded, failed, cancelled, bytes_done, bytes_total, sized,
                   enqueued_at, started_at, finished_at, first_job, unchanged, unchanged_bytes, discarded
              FROM summed ORDER BY batch
            ON CONFLICT (batch) DO UPDATE
               SET jobs = c.jobs + excluded.jobs, queued = c.queued + excluded.queued,
                   running = c.running + excluded.running, succeeded = c.succeeded + excluded.succeeded,
                   failed = c.failed + excluded.failed, cancelled = c.cancelled + excluded.cancelled,
                   bytes_done = c.bytes_done + excluded.bytes_done, bytes_total = c.bytes_total + excluded.bytes_total,
                   sized = c.sized + excluded.sized,
                   enqueued_at = least(c.enqueued_at, excluded.enqueued_at),
                   started_at = least(c.started_at, excluded.started_at),
                   finished_at = greatest(c.finished_at, excluded.finished_at),
                   first_job = least(c.first_job, excluded.first_job),
                   unchanged = c.unchanged + excluded.unchanged,
                   unchanged_bytes = c.unchanged_bytes + excluded.unchanged_bytes,
                   discarded = c.discarded + excluded.discarded
        )
        SELECT coalesce(sum(s.n), 0), array_agg(s.batch) INTO n, touched FROM summed s;
        folded := folded + n;
        -- Every job of these batches archived: the batch is gone.
        DELETE FROM ferry.batch_counts WHERE batch = ANY (touched) AND jobs = 0;
    END IF;

    IF pg_try_advisory_xact_lock(hashtext('ferry.throughput_counts'), 0) THEN
        WITH moved AS (
            DELETE FROM ferry.throughput_deltas RETURNING *
        ), summed AS (
            SELECT minute, queue, sum(succeeded) AS succeeded, sum(failed) AS failed, sum(bytes) AS bytes, count(*) AS n
              FROM moved GROUP BY minute, queue
        ), applied AS (
            INSERT INTO ferry.throughput_counts AS c (minute, queue, succeeded, failed, bytes)
            SELECT minute, queue, succeeded, failed, bytes FROM summed ORDER BY minute, queue
            ON CONFLICT (minute, queue) DO UPDATE
               SET succeeded = c.succeeded + excluded.succeeded, failed = c.failed + excluded.failed,
                   bytes = c.bytes + excluded.bytes
        )
        SELECT coalesce(sum(s.n), 0) INTO n FROM summed s;
        folded := folded + n;
        DELETE FROM ferry.throughput_counts WHERE minute < now() - interval '1 day';
    END IF;
    RETURN folded;
END
$$;
