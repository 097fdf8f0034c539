-- No producer can take down the fleet (issue 30).
--
-- Poison jobs: a job whose claimers keep dying (a pattern, a parser bug, a library crash) is rescued and handed to
-- the next worker, which dies too. ferry.rescue_stale_jobs (definition 515) now counts the rescues since the job's
-- last retry and ends it as failed, reason poison, at the worker's --poison-after (3 by default). Its new argument
-- needs the old function dropped; the definition creates the new one.
DROP FUNCTION ferry.rescue_stale_jobs(interval);
DELETE FROM ferry.schema_definitions WHERE name = 'rescue_stale_jobs';

-- Poison schedules: a firing runs in one transaction, so a worker that dies while preparing a tick leaves no trace
-- and the next worker dies on the same tick. Each firing first records an attempt here, committed, under the
-- schedule's session lock (definition 352); a firing that ends, well or badly, removes its own attempt. Attempts
-- left behind are firings whose worker died; at three since the schedule's last tick or change, the schedule is
-- paused with the reason, for an operator to fix and resume. Written only through definitions 352 and 353.
CREATE TABLE ferry.schedule_attempts (
    position   bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    schedule   text        NOT NULL,
    worker     text        NOT NULL,
    started_at timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE ferry.schedule_attempts IS
    'Schedule firings under way or whose worker died (a firing that ends removes its row): three left behind pause the schedule.';
CREATE INDEX schedule_attempts_schedule_idx ON ferry.schedule_attempts (schedule, started_at);

-- Why a schedule is paused when a worker paused it (the operator's pauses carry none).
ALTER TABLE ferry.schedules ADD COLUMN paused_reason text;

-- Settings of the operator's that the database's own checks read (the owner writes them; producers and workers,
-- whose writes are checked, read them).
-- schedule_min_interval_seconds: the shortest --every a non-owner may schedule (definition 346); the CLI's own
-- minimum is a minute.
CREATE TABLE ferry.settings (
    name  text PRIMARY KEY,
    value text NOT NULL
);
COMMENT ON TABLE ferry.settings IS 'Operator settings read by the database''s checks (the owner writes them).';
INSERT INTO ferry.settings (name, value) VALUES ('schedule_min_interval_seconds', '60');
GRANT SELECT ON ferry.settings TO ferry_producer, ferry_worker;
