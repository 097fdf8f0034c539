-- After a skipped tick the schedule's last job is the run it gave way to, the one still going.
CREATE OR REPLACE FUNCTION ferry.project_schedule_ticks() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    -- A manual run (ferry schedule run) answers the request and leaves the regular ticks where they were.
    UPDATE ferry.schedules s
       SET next_tick = CASE WHEN t.manual THEN s.next_tick ELSE t.next_tick END,
           run_requested_at = CASE WHEN t.manual AND s.run_requested_at <= t.tick_at THEN NULL ELSE s.run_requested_at END,
           last_tick = t.tick_at, last_fired_at = t.fired_at,
           last_job_id = coalesce(t.job_id, t.skipped_for)
      FROM (SELECT DISTINCT ON (n.schedule) n.* FROM new_ticks n ORDER BY n.schedule, n.position DESC) t
     WHERE s.name = t.schedule;
    RETURN NULL;
END
$$;
