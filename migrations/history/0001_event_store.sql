-- Ferry event store: the append-only log of everything that happens to a job.
--
-- Every change to a job is an INSERT into ferry.events. Nothing else is ever written by the application: the
-- projection (ferry.jobs, next migration) is maintained by a trigger in the same statement.

CREATE SCHEMA IF NOT EXISTS ferry;

-- Created by the migration runner before this file runs; repeated so the file also applies by hand (psql -f).
CREATE TABLE IF NOT EXISTS ferry.schema_migrations (
    version     integer     PRIMARY KEY,
    name        text        NOT NULL,
    checksum    text        NOT NULL,
    applied_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE ferry.events (
    -- Global position. Positions commit out of order; readers that follow the log use (tx_id, position) below
    -- the current snapshot's xmin, never position alone.
    position     bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    job_id       uuid        NOT NULL,
    -- Contiguous per-job stream version starting at 1: the unique key is the optimistic-concurrency guard.
    version      integer     NOT NULL CHECK (version > 0),
    type         text        NOT NULL CHECK (type IN (
                     'enqueued', 'claimed', 'progress', 'retry_scheduled', 'deferred', 'released', 'rescued',
                     'cancel_requested', 'cancelled', 'succeeded', 'failed', 'requeued')),
    data         jsonb       NOT NULL DEFAULT '{}'::jsonb,
    -- The writing transaction (xid8 never wraps), so readers can follow the log in commit order.
    tx_id        xid8        NOT NULL DEFAULT pg_current_xact_id(),
    -- Transaction start time: every event of one transaction shares it, which keeps replay deterministic.
    recorded_at  timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT events_job_version_key UNIQUE (job_id, version)
);

-- Pure insert workload: never updated, so no free space is reserved in pages.
ALTER TABLE ferry.events SET (fillfactor = 100, autovacuum_vacuum_insert_scale_factor = 0.1);

COMMENT ON TABLE ferry.events IS 'Append-only job event log. UPDATE, DELETE and TRUNCATE raise for every role.';

-- The append-only rule holds for every role, the owner included: triggers raise before any change.
CREATE FUNCTION ferry.forbid_event_change() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'ferry.events is append-only: % is not allowed', TG_OP
        USING ERRCODE = 'FY010',
              HINT = 'Record a change by appending a new event (for example with ferry cancel or ferry retry).';
END
$$;

CREATE TRIGGER events_append_only_rows
    BEFORE UPDATE OR DELETE ON ferry.events
    FOR EACH ROW EXECUTE FUNCTION ferry.forbid_event_change();

CREATE TRIGGER events_append_only_truncate
    BEFORE TRUNCATE ON ferry.events
    FOR EACH STATEMENT EXECUTE FUNCTION ferry.forbid_event_change();

-- Accounts that destinations and sources name (dropbox:ACCOUNT:/path). Credentials arrive with the providers.
CREATE TABLE ferry.accounts (
    name        text        PRIMARY KEY CHECK (name ~ '^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$'),
    provider    text        NOT NULL CHECK (provider IN ('dropbox', 'flickr')),
    created_at  timestamptz NOT NULL DEFAULT now()
);
