-- Recounts the batches from the projection (after a rebuild). Owner only.
CREATE OR REPLACE FUNCTION ferry.recount_batches() RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
    LOCK TABLE ferry.batch_counts, ferry.batch_count_deltas IN EXCLUSIVE MODE;
    DELETE FROM ferry.batch_count_deltas;
    DELETE FROM ferry.batch_counts;
    INSERT INTO ferry.batch_counts SELECT * FROM ferry.batch_counts_actual();
END
$$;
