-- The operator's console and one story for readers (issue 24).
--
-- Workers record the release they run (`ferry --version`), shown by ferry.worker_status and the dashboard's Workers
-- page, so a fleet half-way through a rollout can be told apart.
ALTER TABLE ferry.workers ADD COLUMN version text;

-- ferry.schema_version (definition 750) and ferry.archived_job_status (definition 745) let a ferry_reader login
-- check the schema (ferry wait, ferry status) and be told that a job or batch was archived, as the other roles are,
-- without reading ferry.schema_migrations, ferry.archived_jobs or ferry.archives themselves.

-- Run a schedule now (ferry schedule run NAME, the dashboard's Run now): a producer appends run_requested; the
-- projection marks the schedule; the next worker's scheduler (woken by NOTIFY ferry_jobs 'schedule') fires one run
-- for the request's time under the schedule's lock, as a tick marked manual that leaves the regular ticks where
-- they were. Producers never write ticks themselves.
ALTER TABLE ferry.schedule_events DROP CONSTRAINT schedule_events_type_check;
ALTER TABLE ferry.schedule_events ADD CONSTRAINT schedule_events_type_check
    CHECK (type = ANY (ARRAY['added', 'replaced', 'paused', 'resumed', 'removed', 'run_requested']));
ALTER TABLE ferry.schedules ADD COLUMN run_requested_at timestamptz;
CREATE INDEX schedules_run_requested_idx ON ferry.schedules (run_requested_at)
    WHERE run_requested_at IS NOT NULL AND NOT removed;
ALTER TABLE ferry.schedule_ticks ADD COLUMN manual boolean NOT NULL DEFAULT false;
GRANT INSERT (manual) ON ferry.schedule_ticks TO ferry_worker;
