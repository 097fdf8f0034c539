-- Replay: fold a job's events (in version order) into the row the projection should hold.
CREATE OR REPLACE FUNCTION ferry.replay_step(j ferry.jobs, e ferry.events) RETURNS ferry.jobs
LANGUAGE sql STABLE AS $$
    SELECT ferry.apply_event(j, e.job_id, e.type, e.version, e.data, e.recorded_at)
$$;
