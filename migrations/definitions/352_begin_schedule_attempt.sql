-- A worker about to fire schedule p_schedule (holding its session lock) records the attempt, committed before the
-- firing's own transaction: a worker that dies while firing leaves it behind (migration 0038). Answers the
-- attempt (NULL when the schedule is not due any more), or, when p_poison_after attempts since the schedule last
-- fired or changed were left behind, pauses the schedule with the reason and answers that instead.
CREATE OR REPLACE FUNCTION ferry.begin_schedule_attempt(p_schedule text, p_worker text, p_poison_after integer DEFAULT 3)
RETURNS TABLE (attempt bigint, paused_reason text)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    s       record;
    dead    bigint;
    workers text;
    reason  text;
BEGIN
    SELECT sc.paused, sc.removed, sc.next_tick, sc.run_requested_at, sc.last_fired_at, sc.changed_at INTO s
      FROM ferry.schedules sc WHERE sc.name = p_schedule;
    IF NOT FOUND OR s.removed OR NOT coalesce((NOT s.paused AND s.next_tick <= now()) OR s.run_requested_at <= now(), false) THEN
        RETURN QUERY SELECT NULL::bigint, NULL::text;
        RETURN;
    END IF;
    -- Left behind since the schedule last fired or changed (a resume or a replaced template starts afresh).
    SELECT count(*), string_agg(DISTINCT a.worker, ', ') INTO dead, workers
      FROM ferry.schedule_attempts a
     WHERE a.schedule = p_schedule AND a.started_at > greatest(coalesce(s.last_fired_at, '-infinity'), s.changed_at);
    IF p_poison_after > 0 AND dead >= p_poison_after THEN
        reason := format('paused by worker %s: %s firings ended with their worker dead (%s); fix the template '
                         '(ferry schedule add --replace) or the workers, then ferry schedule resume',
                         left(p_worker, 200), dead, left(workers, 400));
        INSERT INTO ferry.schedule_events (schedule, type, data) VALUES (p_schedule, 'paused', jsonb_build_object('reason', reason));
        RETURN QUERY SELECT NULL::bigint, reason;
        RETURN;
    END IF;
    RETURN QUERY INSERT INTO ferry.schedule_attempts AS a (schedule, worker) VALUES (p_schedule, p_worker)
        RETURNING a.position, NULL::text;
END
$$;

REVOKE EXECUTE ON FUNCTION ferry.begin_schedule_attempt(text, text, integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION ferry.begin_schedule_attempt(text, text, integer) TO ferry_worker;
