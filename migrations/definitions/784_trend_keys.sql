-- The queues, accounts and providers the trends have seen in the last week: the page's filter choices.
CREATE OR REPLACE FUNCTION ferry.trend_keys() RETURNS TABLE (queue text, account text, provider text)
-- The jobs since the rollup are few, but the planner cannot know the mark's value: without seq scans it takes
-- jobs_finished_idx (a seq scan read all 1,000,000 jobs in 330 ms).
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp SET jit = off SET enable_seqscan = off AS $$
SELECT DISTINCT t.queue, t.account, t.provider
  FROM ferry.trend_hours t
UNION
SELECT j.queue, coalesce(j.account, ''), coalesce((ferry.job_schemes(j.kind, j.source, j.destination)).remote_scheme, '')
  FROM ferry.jobs j
 WHERE j.state IN ('succeeded', 'failed') AND j.finished_at >= (SELECT r.rolled_to FROM ferry.trend_rollup r)
$$;

REVOKE EXECUTE ON FUNCTION ferry.trend_keys() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION ferry.trend_keys() TO ferry_reader, ferry_worker;
