-- Rolls the jobs that finished since ferry.trend_rollup.rolled_to, up to the start of the minute before the
-- current one, into ferry.trend_minutes and ferry.trend_hours, and drops what is older than they keep. Reads
-- ferry.jobs through jobs_finished_idx; a minute is rolled up once, a minute after it ended (an outcome's time is
-- its transaction's start, so one committing within that minute is still counted). One roller at a time: the
-- others return at once. Returns the jobs rolled up. Workers call it with their counter fold.
CREATE OR REPLACE FUNCTION ferry.roll_up_trends() RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp SET jit = off AS $$
DECLARE
    v_from timestamptz;
    v_to   timestamptz := date_trunc('minute', now()) - interval '1 minute';
    n      bigint;
BEGIN
    IF NOT pg_try_advisory_xact_lock(hashtext('ferry.trend_rollup'), 0) THEN
        RETURN 0;
    END IF;
    -- Read without a row lock: most calls find nothing to do and write nothing.
    SELECT rolled_to INTO v_from FROM ferry.trend_rollup;
    IF v_from IS NULL OR v_from >= v_to THEN
        RETURN 0;
    END IF;

    WITH finished AS (
        SELECT date_trunc('minute', j.finished_at) AS bucket, j.queue, coalesce(j.account, '') AS account,
               coalesce((ferry.job_schemes(j.kind, j.source, j.destination)).remote_scheme, '') AS provider,
               count(*) FILTER (WHERE j.state = 'succeeded') AS succeeded,
               count(*) FILTER (WHERE j.state = 'failed') AS failed,
               coalesce(sum(coalesce(j.bytes_total, j.bytes_done)) FILTER (WHERE j.state = 'succeeded'), 0)::bigint AS bytes
          FROM ferry.jobs j
         WHERE j.state IN ('succeeded', 'failed') AND j.finished_at >= v_from AND j.finished_at < v_to
         GROUP BY 1, 2, 3, 4
    ), minutes AS (
        INSERT INTO ferry.trend_minutes AS t (bucket, queue, account, provider, succeeded, failed, bytes)
        SELECT * FROM finished WHERE bucket >= v_to - interval '25 hours'
        ON CONFLICT (bucket, queue, account, provider) DO UPDATE
           SET succeeded = t.succeeded + excluded.succeeded, failed = t.failed + excluded.failed,
               bytes = t.bytes + excluded.bytes
    ), hours AS (
        INSERT INTO ferry.trend_hours AS t (bucket, queue, account, provider, succeeded, failed, bytes)
        SELECT date_trunc('hour', f.bucket), f.queue, f.account, f.provider,
               sum(f.succeeded)::bigint, sum(f.failed)::bigint, sum(f.bytes)::bigint
          FROM finished f WHERE f.bucket >= v_to - interval '8 days'
         GROUP BY 1, 2, 3, 4
        ON CONFLICT (bucket, queue, account, provider) DO UPDATE
           SET succeeded = t.succeeded + excluded.succeeded, failed = t.failed + excluded.failed,
               bytes = t.bytes + excluded.bytes
    )
    SELECT coalesce(sum(f.succeeded + f.failed), 0)::bigint INTO n FROM finished f;

    UPDATE ferry.trend_rollup SET rolled_to = v_to;
    DELETE FROM ferry.trend_minutes WHERE bucket < v_to - interval '25 hours';
    DELETE FROM ferry.trend_hours WHERE bucket < v_to - interval '8 days';
    RETURN n;
END
$$;

REVOKE EXECUTE ON FUNCTION ferry.roll_up_trends() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION ferry.roll_up_trends() TO ferry_worker;
