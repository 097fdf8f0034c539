-- Retention: finished jobs leave PostgreSQL for checksummed archive files, and can come back.
--
-- Why not partitions by time: a partition holds events of jobs that are still alive (a job enqueued last month
-- and retried today), so whole partitions are almost never archivable, and the per-job version guard (the unique
-- key on (job_id, version)) would have to include the partition key. Jobs leave one at a time instead, as whole
-- streams: every event of a finished job, or none.
--
-- The one way out of ferry.events is an archive: `ferry archive` writes a job's events (and its projection row)
-- to a file, records the file (ferry.archives, with its SHA-256) and a marker per job (ferry.archived_jobs) in
-- the transaction that deletes the rows. A DELETE of any event whose job has no marker raises, for every role,
-- the owner included; ordinary roles have no DELETE privilege at all. UPDATE and TRUNCATE still always raise.

CREATE TABLE ferry.archives (
    archive_id       uuid        PRIMARY KEY,
    -- sealed: committed, the rows are gone, the file may still carry its .partial name;
    -- complete: the file has its final name and its manifest; restored: its jobs are back in the log.
    state            text        NOT NULL CHECK (state IN ('sealed', 'complete', 'restored')),
    file             text        NOT NULL,          -- absolute path of the archive file
    sha256           text        NOT NULL,
    bytes            bigint      NOT NULL,
    jobs             integer     NOT NULL,
    events           integer     NOT NULL,
    first_position   bigint,
    last_position    bigint,
    finished_before  timestamptz NOT NULL,
    created_at       timestamptz NOT NULL DEFAULT now(),
    completed_at     timestamptz,
    restored_at      timestamptz,
    -- Set only inside a restore's own transaction (never committed): lets ferry.restoring() tell that the
    -- transaction is a restore, which nobody without write access to this table can fake.
    restore_token    uuid
);

COMMENT ON TABLE ferry.archives IS 'Archive files written by ferry archive: where, checksum, counts, and whether restored.';

-- Where each archived job went. One small row per job (its events and projection row are in the file).
CREATE TABLE ferry.archived_jobs (
    job_id      uuid        PRIMARY KEY,
    archive_id  uuid        NOT NULL REFERENCES ferry.archives,
    queue       text        NOT NULL,
    batch       text,
    state       text        NOT NULL,
    finished_at timestamptz NOT NULL
);

CREATE INDEX archived_jobs_archive_idx ON ferry.archived_jobs (archive_id);

COMMENT ON TABLE ferry.archived_jobs IS 'Jobs whose events were moved to an archive file, and which file.';

-- The archive's candidates and the newest failures are both index range scans, not scans of every job. The
-- predicate names the states (not finished_at IS NOT NULL) so that `state = 'failed' ORDER BY finished_at DESC`
-- can use it: DESC puts NULLs first, and the planner cannot know a failed job always has a finish time.
CREATE INDEX jobs_finished_idx ON ferry.jobs (state, finished_at) WHERE state IN ('succeeded', 'failed', 'cancelled');

-- `projection verify --since TIME` finds recent events without an index on every row: the log is written in
-- time order, so block ranges summarize it well.
CREATE INDEX events_recorded_at_brin ON ferry.events USING brin (recorded_at);

-- Events may leave only with an archive marker. Checked once per statement over every deleted row.
CREATE FUNCTION ferry.guard_event_removal() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM gone g
                WHERE NOT EXISTS (SELECT 1 FROM ferry.archived_jobs a WHERE a.job_id = g.job_id)) THEN
        RAISE EXCEPTION 'ferry.events is append-only: DELETE is allowed only for archived jobs'
            USING ERRCODE = 'FY010',
                  HINT = 'Finished jobs leave the log with ferry archive --finished-before AGE --to DIR.';
    END IF;
    RETURN NULL;
END
$$;

DROP TRIGGER events_append_only_rows ON ferry.events;

CREATE TRIGGER events_append_only_rows
    BEFORE UPDATE ON ferry.events
    FOR EACH ROW EXECUTE FUNCTION ferry.forbid_event_change();

CREATE TRIGGER events_leave_only_archived
    AFTER DELETE ON ferry.events
    REFERENCING OLD TABLE AS gone
    FOR EACH STATEMENT EXECUTE FUNCTION ferry.guard_event_removal();

-- True inside a restore's transaction: its events come back with their projection rows as archived, so the
-- projection and batch triggers must not apply them a second time. (The triggers test the setting first, so an
-- ordinary append pays for one current_setting() call, not for this function.) SECURITY DEFINER: callers need not (and
-- must not) read ferry.archives. The setting alone proves nothing; the uncommitted token row does.
CREATE FUNCTION ferry.restoring() RETURNS boolean
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    token text := current_setting('ferry.restore_token', true);
BEGIN
    IF coalesce(token, '') = '' THEN
        RETURN false;
    END IF;
    RETURN EXISTS (SELECT 1 FROM ferry.archives WHERE restore_token = token::uuid);
END
$$;

DROP TRIGGER events_project ON ferry.events;
CREATE TRIGGER events_project
    AFTER INSERT ON ferry.events
    REFERENCING NEW TABLE AS new_events
    FOR EACH STATEMENT WHEN (coalesce(current_setting('ferry.restore_token', true), '') = '' OR NOT ferry.restoring())
    EXECUTE FUNCTION ferry.project_events();

DROP TRIGGER events_track_batches ON ferry.events;
CREATE TRIGGER events_track_batches
    AFTER INSERT ON ferry.events
    REFERENCING NEW TABLE AS new_events
    FOR EACH STATEMENT WHEN (coalesce(current_setting('ferry.restore_token', true), '') = '' OR NOT ferry.restoring())
    EXECUTE FUNCTION ferry.track_batches();

-- Archive bookkeeping is the owner's (ferry archive runs as the schema owner, like projection rebuild).
REVOKE ALL ON ferry.archives, ferry.archived_jobs FROM PUBLIC;
GRANT SELECT ON ferry.archived_jobs TO ferry_producer, ferry_worker;
GRANT SELECT (archive_id, state, file, sha256, jobs, events, first_position, last_position, finished_before,
              created_at, completed_at, restored_at)
    ON ferry.archives TO ferry_producer, ferry_worker;
