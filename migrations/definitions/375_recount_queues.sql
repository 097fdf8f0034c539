-- Recounts from the projection (after a rebuild). Owner only.
CREATE OR REPLACE FUNCTION ferry.recount_queues() RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
    LOCK TABLE ferry.queue_counts, ferry.queue_count_deltas IN EXCLUSIVE MODE;
    DELETE FROM ferry.queue_count_deltas;
    DELETE FROM ferry.queue_counts;
    INSERT INTO ferry.queue_counts (queue, state, jobs)
    SELECT queue, state, count(*) FROM ferry.jobs GROUP BY queue, state;
END
$$;
