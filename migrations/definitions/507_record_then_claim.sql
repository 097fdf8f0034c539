-- A worker's outcomes and its next claim in one call, so one round trip and one commit: ferry.record_outcomes, then
-- ferry.claim_jobs, which sees the account slots the outcomes freed (each statement's triggers have run by then).
-- Rows with `recorded` set name the outcomes written; rows with `claimed` set are the jobs claimed.
CREATE OR REPLACE FUNCTION ferry.record_then_claim(
    p_jobs uuid[], p_leases bigint[], p_types text[], p_data jsonb[], p_sent timestamptz,
    p_worker text, p_queues text[], p_limit integer)
RETURNS TABLE (recorded uuid, claimed ferry.jobs)
LANGUAGE plpgsql AS $$
BEGIN
    IF cardinality(p_jobs) > 0 THEN
        RETURN QUERY SELECT r, NULL::ferry.jobs FROM ferry.record_outcomes(p_jobs, p_leases, p_types, p_data, p_sent) r;
    END IF;
    IF p_limit > 0 AND cardinality(p_queues) > 0 THEN
        RETURN QUERY SELECT NULL::uuid, c FROM ferry.claim_jobs(p_worker, p_queues, p_limit) c;
    END IF;
END;
$$;

COMMENT ON FUNCTION ferry.record_then_claim(uuid[], bigint[], text[], jsonb[], timestamptz, text, text[], integer) IS
    'A worker''s outcomes (ferry.record_outcomes), then its next claim (ferry.claim_jobs), in one call.';
REVOKE EXECUTE ON FUNCTION ferry.record_then_claim(uuid[], bigint[], text[], jsonb[], timestamptz, text, text[], integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION ferry.record_then_claim(uuid[], bigint[], text[], jsonb[], timestamptz, text, text[], integer) TO ferry_worker;
