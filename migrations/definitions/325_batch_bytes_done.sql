-- What one job adds to its batch's bytes_done: all of its size once it succeeded, else what moved so far (never
-- more than its size). Inlined by the planner.
CREATE OR REPLACE FUNCTION ferry.batch_bytes_done(p_state text, p_done bigint, p_total bigint) RETURNS bigint
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT CASE WHEN p_state = 'succeeded' THEN coalesce(p_total, p_done) ELSE least(p_done, coalesce(p_total, p_done)) END
$$;
