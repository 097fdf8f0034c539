-- Folds the deltas into the counters. One compactor at a time; the others return at once.
CREATE OR REPLACE FUNCTION ferry.compact_queue_counts() RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    folded bigint;
BEGIN
    IF NOT pg_try_advisory_xact_lock(hashtext('ferry.queue_counts'), 0) THEN
        RETURN 0;
    END IF;
    WITH moved AS (
        DELETE FROM ferry.queue_count_deltas RETURNING queue, state, delta
    ), summed AS (
        SELECT queue, state, sum(delta) AS delta, count(*) AS n FROM moved GROUP BY queue, state
    ), applied AS (
        INSERT INTO ferry.queue_counts AS c (queue, state, jobs)
        SELECT queue, state, delta FROM summed ORDER BY queue, state
        ON CONFLICT (queue, state) DO UPDATE SET jobs = c.jobs + excluded.jobs
    )
    SELECT coalesce(sum(n), 0) INTO folded FROM summed;
    DELETE FROM ferry.queue_counts WHERE jobs = 0;
    RETURN folded;
END
$$;
