-- Rebuilds the projection from the log. Blocks appends while it runs; returns the number of jobs.
CREATE OR REPLACE FUNCTION ferry.rebuild_projection() RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
    rebuilt bigint;
BEGIN
    LOCK TABLE ferry.events IN SHARE MODE;
    LOCK TABLE ferry.jobs IN ACCESS EXCLUSIVE MODE;
    DELETE FROM ferry.jobs;
    INSERT INTO ferry.jobs
    SELECT (r.j).* FROM (SELECT ferry.replay(e ORDER BY e.version) AS j FROM ferry.events e GROUP BY e.job_id) r;
    GET DIAGNOSTICS rebuilt = ROW_COUNT;
    RETURN rebuilt;
END
$$;
