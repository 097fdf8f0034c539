-- The counts a 'completed' event carries. bytes: bytes moved by the batch's jobs (sum of bytes_done).
CREATE OR REPLACE FUNCTION ferry.batch_summary(p_batch text) RETURNS jsonb
LANGUAGE sql STABLE AS $$
    SELECT jsonb_build_object(
               'jobs', count(*),
               'succeeded', count(*) FILTER (WHERE j.state = 'succeeded'),
               'failed', count(*) FILTER (WHERE j.state = 'failed'),
               'cancelled', count(*) FILTER (WHERE j.state = 'cancelled'),
               'discarded', count(*) FILTER (WHERE j.state = 'discarded'),
               'bytes', coalesce(sum(j.bytes_done), 0))
      FROM ferry.jobs j
     WHERE j.batch = p_batch
$$;
