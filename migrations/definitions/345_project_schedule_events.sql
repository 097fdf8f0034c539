-- Projects schedule events (added, replaced, paused, resumed, removed, …) into ferry.schedules, in log order.
CREATE OR REPLACE FUNCTION ferry.project_schedule_events() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    n record;
BEGIN
    FOR n IN SELECT * FROM new_events ORDER BY position LOOP
        IF n.type IN ('added', 'replaced') THEN
            INSERT INTO ferry.schedules AS s (name, every_seconds, cron, timezone, template, paused, removed, next_tick,
                                              created_at, changed_at, overlap)
            VALUES (n.schedule, (n.data->>'every_seconds')::bigint, n.data->>'cron', n.data->>'timezone',
                    n.data->'template', false, false, (n.data->>'next_tick')::timestamptz, n.recorded_at, n.recorded_at,
                    coalesce(n.data->>'overlap', 'allow'))
            ON CONFLICT (name) DO UPDATE
               SET every_seconds = excluded.every_seconds, cron = excluded.cron, timezone = excluded.timezone,
                   template = excluded.template, next_tick = excluded.next_tick, changed_at = excluded.changed_at,
                   overlap = excluded.overlap,
                   -- Replacing keeps a pause; adding again after a removal starts afresh.
                   paused = CASE WHEN n.type = 'replaced' THEN s.paused ELSE false END,
                   paused_reason = CASE WHEN n.type = 'replaced' THEN s.paused_reason END,
                   removed = false,
                   created_at = CASE WHEN n.type = 'replaced' THEN s.created_at ELSE excluded.created_at END;
        ELSIF n.type = 'paused' THEN
            -- A worker's pause says why (poison: definition 352); an operator's says nothing.
            UPDATE ferry.schedules SET paused = true, changed_at = n.recorded_at, paused_reason = n.data->>'reason'
             WHERE name = n.schedule;
        ELSIF n.type = 'resumed' THEN
            UPDATE ferry.schedules SET paused = false, changed_at = n.recorded_at, paused_reason = NULL,
                   next_tick = (n.data->>'next_tick')::timestamptz
             WHERE name = n.schedule;
        ELSIF n.type = 'removed' THEN
            UPDATE ferry.schedules SET removed = true, run_requested_at = NULL, changed_at = n.recorded_at
             WHERE name = n.schedule;
        ELSIF n.type = 'run_requested' THEN
            -- A request while another waits is the same request: one run.
            UPDATE ferry.schedules SET run_requested_at = coalesce(run_requested_at, n.recorded_at)
             WHERE name = n.schedule AND NOT removed;
            -- Wakes the workers' schedulers (not their claim loops: the payload tells them apart).
            PERFORM pg_notify('ferry_jobs', 'schedule');
        END IF;
    END LOOP;
    RETURN NULL;
END
$$;
