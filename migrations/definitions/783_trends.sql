-- Jobs finished, failed and bytes moved per p_step since p_since, for one queue, account ('' for none) or provider
-- when named: the rollups (ferry.trend_minutes below an hour's step, else ferry.trend_hours) before
-- ferry.trend_rollup.rolled_to, and the jobs that finished after it, so the newest minutes are current. Buckets
-- with nothing finished are absent.
CREATE OR REPLACE FUNCTION ferry.trends(p_since timestamptz, p_step interval, p_queue text DEFAULT NULL,
                                        p_account text DEFAULT NULL, p_provider text DEFAULT NULL)
RETURNS TABLE (bucket timestamptz, succeeded bigint, failed bigint, bytes bigint)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp SET jit = off AS $$
-- The rollup mark is read as a scalar (an InitPlan), so each part is one index range: a join with it would hide
-- the bound from the planner and scan the jobs.
WITH counted AS (
    SELECT t.bucket AS at, t.succeeded, t.failed, t.bytes
      FROM ferry.trend_minutes t
     WHERE p_step < interval '1 hour' AND t.bucket >= p_since
       AND t.bucket < (SELECT r.rolled_to FROM ferry.trend_rollup r)
       AND (p_queue IS NULL OR t.queue = p_queue) AND (p_account IS NULL OR t.account = p_account)
       AND (p_provider IS NULL OR t.provider = p_provider)
    UNION ALL
    SELECT t.bucket, t.succeeded, t.failed, t.bytes
      FROM ferry.trend_hours t
     WHERE p_step >= interval '1 hour' AND t.bucket >= date_trunc('hour', p_since)
       AND t.bucket < (SELECT r.rolled_to FROM ferry.trend_rollup r)
       AND (p_queue IS NULL OR t.queue = p_queue) AND (p_account IS NULL OR t.account = p_account)
       AND (p_provider IS NULL OR t.provider = p_provider)
    UNION ALL
    SELECT j.finished_at, (j.state = 'succeeded')::int, (j.state = 'failed')::int,
           CASE WHEN j.state = 'succeeded' THEN coalesce(j.bytes_total, j.bytes_done) ELSE 0 END
      FROM ferry.jobs j
     WHERE j.state IN ('succeeded', 'failed')
       AND j.finished_at >= (SELECT greatest(r.rolled_to, p_since) FROM ferry.trend_rollup r)
       AND (p_queue IS NULL OR j.queue = p_queue) AND (p_account IS NULL OR coalesce(j.account, '') = p_account)
       AND (p_provider IS NULL
            OR coalesce((ferry.job_schemes(j.kind, j.source, j.destination)).remote_scheme, '') = p_provider)
)
SELECT date_bin(p_step, c.at, timestamptz '2000-01-01 00:00:00+00'), sum(c.succeeded)::bigint,
       sum(c.failed)::bigint, sum(c.bytes)::bigint
  FROM counted c
 GROUP BY 1
 ORDER BY 1
$$;

REVOKE EXECUTE ON FUNCTION ferry.trends(timestamptz, interval, text, text, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION ferry.trends(timestamptz, interval, text, text, text) TO ferry_reader, ferry_worker;
