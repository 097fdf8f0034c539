-- Enqueues one job in the caller's transaction and returns its id (the existing job's when the idempotency key
-- names one enqueued with the same arguments).
CREATE OR REPLACE FUNCTION ferry.enqueue(p_kind text, p_source text, p_destination text, p_options jsonb DEFAULT '{}')
RETURNS uuid
LANGUAGE sql SET search_path = pg_catalog, pg_temp AS $$
    SELECT m.job_id
      FROM ferry.enqueue_many(jsonb_build_array(
               coalesce(p_options, '{}'::jsonb)
               || jsonb_build_object('kind', p_kind, 'source', p_source, 'destination', p_destination))) m
$$;

COMMENT ON FUNCTION ferry.enqueue(text, text, text, jsonb) IS
    'Enqueues one upload or fetch in the caller''s transaction; returns the job id. Options: queue, priority, '
    'max_attempts, batch, run_at, key, metadata, account, traceparent, options (provider options). See migration 0020.';
