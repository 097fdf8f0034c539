-- Schedules: `ferry schedule add NAME --every 1h | --cron "0 * * * *" [--timezone Z] -- fetch …` enqueues one job
-- per tick, fired by whichever worker gets there first.
--
-- Event-sourced, like queue pauses (0018): definitions change through ferry.schedule_events (added, replaced,
-- paused, resumed, removed: who, when, the whole definition) and firings are rows of ferry.schedule_ticks (the
-- tick, the job, the ticks missed while no worker ran). Both logs are append-only; ferry.schedules is their
-- projection, written only by triggers. A plain table with change events was the alternative, but then the
-- current row and its history can disagree, and "who paused this and when" or "what did it enqueue before it
-- was replaced" would rest on application code writing both; here the history is the source of truth and the
-- row follows from it in the same statement.
--
-- Exactly once per tick: a tick row is unique per (schedule, tick_at), the job it enqueued carries the
-- idempotency key schedule:NAME:TICK, and firing and every change of a schedule run under the same per-schedule
-- transaction advisory lock (workers only try it, so two workers never wait for each other), re-reading the
-- schedule after taking it.

CREATE TABLE ferry.schedule_events (
    position    bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    schedule    text        NOT NULL CHECK (schedule ~ '^[a-z0-9][a-z0-9_.-]{0,62}$'),
    type        text        NOT NULL CHECK (type IN ('added', 'replaced', 'paused', 'resumed', 'removed')),
    data        jsonb       NOT NULL DEFAULT '{}'::jsonb CHECK (jsonb_typeof(data) = 'object'),
    recorded_at timestamptz NOT NULL DEFAULT now(),
    recorded_by text        NOT NULL DEFAULT current_user
);
COMMENT ON TABLE ferry.schedule_events IS
    'Append-only history of schedule definitions (ferry schedule add|pause|resume|remove): who, when, what.';
CREATE INDEX schedule_events_schedule_idx ON ferry.schedule_events (schedule, position);

CREATE TABLE ferry.schedules (
    name          text        PRIMARY KEY,
    every_seconds bigint      CHECK (every_seconds > 0),
    cron          text,
    timezone      text        NOT NULL,
    template      jsonb       NOT NULL,
    paused        boolean     NOT NULL DEFAULT false,
    removed       boolean     NOT NULL DEFAULT false,
    next_tick     timestamptz,
    created_at    timestamptz NOT NULL,
    changed_at    timestamptz NOT NULL,
    last_tick     timestamptz,
    last_fired_at timestamptz,
    last_job_id   uuid,
    CHECK ((every_seconds IS NULL) <> (cron IS NULL))
);
COMMENT ON TABLE ferry.schedules IS
    'Projection of ferry.schedule_events and ferry.schedule_ticks: each schedule''s definition, state and next tick.';
-- The schedulers' query: due schedules, earliest first (a range scan of live schedules only).
CREATE INDEX schedules_due_idx ON ferry.schedules (next_tick) WHERE NOT paused AND NOT removed;

CREATE TABLE ferry.schedule_ticks (
    position     bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    schedule     text        NOT NULL,
    tick_at      timestamptz NOT NULL,
    fired_at     timestamptz NOT NULL DEFAULT now(),
    job_id       uuid,
    -- Ticks between the previous firing and this one that nobody fired (no worker ran): caught up once, here.
    missed       bigint      NOT NULL DEFAULT 0 CHECK (missed >= 0),
    first_missed timestamptz,
    -- Why no job was enqueued (the template no longer validates: an account was removed, say).
    error        text,
    next_tick    timestamptz,
    worker       text,
    CONSTRAINT schedule_ticks_once UNIQUE (schedule, tick_at),
    CHECK ((job_id IS NULL) <> (error IS NULL))
);
COMMENT ON TABLE ferry.schedule_ticks IS
    'Append-only: one row per fired schedule tick (its job, or why none), with the ticks missed before it.';

CREATE FUNCTION ferry.project_schedule_events() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    n record;
BEGIN
    FOR n IN SELECT * FROM new_events ORDER BY position LOOP
        IF n.type IN ('added', 'replaced') THEN
            INSERT INTO ferry.schedules AS s (name, every_seconds, cron, timezone, template, paused, removed, next_tick,
                                              created_at, changed_at)
            VALUES (n.schedule, (n.data->>'every_seconds')::bigint, n.data->>'cron', n.data->>'timezone',
                    n.data->'template', false, false, (n.data->>'next_tick')::timestamptz, n.recorded_at, n.recorded_at)
            ON CONFLICT (name) DO UPDATE
               SET every_seconds = excluded.every_seconds, cron = excluded.cron, timezone = excluded.timezone,
                   template = excluded.template, next_tick = excluded.next_tick, changed_at = excluded.changed_at,
                   -- Replacing keeps a pause; adding again after a removal starts afresh.
                   paused = CASE WHEN n.type = 'replaced' THEN s.paused ELSE false END,
                   removed = false,
                   created_at = CASE WHEN n.type = 'replaced' THEN s.created_at ELSE excluded.created_at END;
        ELSIF n.type = 'paused' THEN
            UPDATE ferry.schedules SET paused = true, changed_at = n.recorded_at WHERE name = n.schedule;
        ELSIF n.type = 'resumed' THEN
            UPDATE ferry.schedules SET paused = false, changed_at = n.recorded_at,
                   next_tick = (n.data->>'next_tick')::timestamptz
             WHERE name = n.schedule;
        ELSIF n.type = 'removed' THEN
            UPDATE ferry.schedules SET removed = true, changed_at = n.recorded_at WHERE name = n.schedule;
        END IF;
    END LOOP;
    RETURN NULL;
END
$$;
CREATE TRIGGER schedule_events_project AFTER INSERT ON ferry.schedule_events
    REFERENCING NEW TABLE AS new_events FOR EACH STATEMENT EXECUTE FUNCTION ferry.project_schedule_events();

CREATE FUNCTION ferry.project_schedule_ticks() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    UPDATE ferry.schedules s
       SET next_tick = t.next_tick, last_tick = t.tick_at, last_fired_at = t.fired_at, last_job_id = t.job_id
      FROM (SELECT DISTINCT ON (n.schedule) n.* FROM new_ticks n ORDER BY n.schedule, n.position DESC) t
     WHERE s.name = t.schedule;
    RETURN NULL;
END
$$;
CREATE TRIGGER schedule_ticks_project AFTER INSERT ON ferry.schedule_ticks
    REFERENCING NEW TABLE AS new_ticks FOR EACH STATEMENT EXECUTE FUNCTION ferry.project_schedule_ticks();

-- Neither history is ever rewritten, and nobody but the triggers writes the projection.
CREATE FUNCTION ferry.schedule_history_append_only() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION '% is append-only', TG_TABLE_NAME USING ERRCODE = 'insufficient_privilege',
        HINT = 'change schedules with ferry schedule add|pause|resume|remove';
END
$$;
CREATE TRIGGER schedule_events_no_change BEFORE UPDATE OR DELETE OR TRUNCATE ON ferry.schedule_events
    FOR EACH STATEMENT EXECUTE FUNCTION ferry.schedule_history_append_only();
CREATE TRIGGER schedule_ticks_no_change BEFORE UPDATE OR DELETE OR TRUNCATE ON ferry.schedule_ticks
    FOR EACH STATEMENT EXECUTE FUNCTION ferry.schedule_history_append_only();

-- History: one row per fired tick, joinable to ferry.job_status by job_id.
CREATE VIEW ferry.schedule_runs AS
SELECT t.schedule, t.tick_at, t.fired_at, t.job_id, j.state AS job_state, t.missed, t.first_missed, t.error,
       t.worker, t.position
  FROM ferry.schedule_ticks t
  LEFT JOIN ferry.jobs j ON j.job_id = t.job_id;
COMMENT ON VIEW ferry.schedule_runs IS
    'Per fired schedule tick: the tick, when it fired, the job (and its state), ticks missed before it, or the error.';

-- One row per schedule (removed ones too, marked): definition, state, next tick, last job.
CREATE VIEW ferry.schedule_status AS
SELECT s.name, CASE WHEN s.cron IS NOT NULL THEN 'cron ' || s.cron ELSE 'every ' || s.every_seconds || 's' END AS spec,
       s.every_seconds, s.cron, s.timezone, s.paused, s.removed, s.next_tick, s.last_tick, s.last_fired_at,
       s.last_job_id, j.state AS last_job_state, s.template, s.created_at, s.changed_at
  FROM ferry.schedules s
  LEFT JOIN ferry.jobs j ON j.job_id = s.last_job_id;
COMMENT ON VIEW ferry.schedule_status IS
    'Per schedule: spec, time zone, paused, removed, next tick, the last tick''s job and its state.';

-- Producers manage schedules (names, types and data; who and when are the database's); workers fire ticks;
-- readers see the state and the history through the views.
GRANT SELECT ON ferry.schedule_events, ferry.schedules, ferry.schedule_ticks TO ferry_producer, ferry_worker;
GRANT INSERT (schedule, type, data) ON ferry.schedule_events TO ferry_producer;
GRANT INSERT (schedule, tick_at, job_id, missed, first_missed, error, next_tick, worker) ON ferry.schedule_ticks
    TO ferry_worker;
GRANT SELECT ON ferry.schedule_runs, ferry.schedule_status TO ferry_reader, ferry_producer, ferry_worker;
