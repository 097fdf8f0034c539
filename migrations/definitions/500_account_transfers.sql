-- Running jobs of an account that still move bytes: what max_concurrent caps. A running job whose progress
-- says every byte is up (bytes_done = bytes_total > 0) waits only for its commit and does not count; empty files
-- and jobs of unknown size count while they run. Read from the heap, so progress updates stay HOT.
CREATE OR REPLACE FUNCTION ferry.account_transfers(p_account text) RETURNS bigint
LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT count(*) FROM ferry.jobs r
     WHERE r.state = 'running' AND r.account = p_account
       AND NOT coalesce(r.bytes_total > 0 AND r.bytes_done >= r.bytes_total, false)   -- size unknown: counts
$$;

COMMENT ON FUNCTION ferry.account_transfers(text) IS
    'Running jobs of an account that still move bytes (not those waiting only for a commit): what max_concurrent caps.';
