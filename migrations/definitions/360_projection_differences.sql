-- Rows where the stored projection differs from a replay of the events (either side missing included).
CREATE OR REPLACE FUNCTION ferry.projection_differences(p_limit integer)
RETURNS TABLE (job_id uuid, stored jsonb, replayed jsonb)
LANGUAGE sql STABLE AS $$
    WITH replayed AS (
        SELECT (r.j).* FROM (SELECT ferry.replay(e ORDER BY e.version) AS j FROM ferry.events e GROUP BY e.job_id) r
    )
    SELECT coalesce(p.job_id, r.job_id), to_jsonb(p), to_jsonb(r)
      FROM ferry.jobs p
      FULL JOIN replayed r ON r.job_id = p.job_id
     WHERE to_jsonb(p) IS DISTINCT FROM to_jsonb(r)
     ORDER BY 1
     LIMIT p_limit
$$;
