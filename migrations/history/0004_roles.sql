-- Least-privilege roles. They are group roles (NOLOGIN): grant them to the login roles your services use, e.g.
--   CREATE ROLE uploader LOGIN PASSWORD '…' IN ROLE ferry_producer;
-- Nobody but the migrating role owns a table; application roles can only append events and read.

-- Roles are cluster-wide while the migration lock is per database: two databases of one cluster migrating at
-- once can both try to create a role, so a concurrent creation counts as success.
DO $$
DECLARE
    role text;
BEGIN
    FOREACH role IN ARRAY ARRAY['ferry_reader', 'ferry_producer', 'ferry_worker'] LOOP
        IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = role) THEN
            BEGIN
                EXECUTE format('CREATE ROLE %I NOLOGIN', role);
            EXCEPTION WHEN duplicate_object OR unique_violation THEN
                NULL;
            END;
        END IF;
    END LOOP;
END
$$;

REVOKE ALL ON SCHEMA ferry FROM PUBLIC;
REVOKE ALL ON ALL TABLES IN SCHEMA ferry FROM PUBLIC;
GRANT USAGE ON SCHEMA ferry TO ferry_reader, ferry_producer, ferry_worker;

-- Readers: the status views only.
GRANT SELECT ON ferry.job_status, ferry.batch_status, ferry.queue_stats TO ferry_reader;

-- Producers: enqueue, cancel and retry are event appends; reading the projection and history is allowed.
GRANT SELECT ON ferry.job_status, ferry.batch_status, ferry.queue_stats TO ferry_producer;
GRANT SELECT ON ferry.jobs, ferry.events, ferry.accounts TO ferry_producer;
GRANT INSERT ON ferry.events TO ferry_producer;

-- Workers: the same surface (claims and outcomes are event appends too).
GRANT SELECT ON ferry.job_status, ferry.batch_status, ferry.queue_stats TO ferry_worker;
GRANT SELECT ON ferry.jobs, ferry.events, ferry.accounts TO ferry_worker;
GRANT INSERT ON ferry.events TO ferry_worker;

-- The log is append-only for everyone: the triggers raise even for the owner, and no role is granted changes.
REVOKE UPDATE, DELETE, TRUNCATE ON ferry.events FROM PUBLIC, ferry_reader, ferry_producer, ferry_worker;
-- The projection is written only by the SECURITY DEFINER trigger.
REVOKE INSERT, UPDATE, DELETE, TRUNCATE ON ferry.jobs FROM PUBLIC, ferry_reader, ferry_producer, ferry_worker;

-- Functions are executable by PUBLIC by default; keep rebuild for the owner.
REVOKE EXECUTE ON FUNCTION ferry.rebuild_projection() FROM PUBLIC;

-- Row locks (SELECT … FOR UPDATE [SKIP LOCKED]) need UPDATE privilege, so producers and workers hold it; the
-- guard below makes sure they can use it only to lock, never to write the projection themselves.
GRANT UPDATE ON ferry.jobs TO ferry_producer, ferry_worker;

CREATE FUNCTION ferry.guard_projection() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    -- Depth 1 means a statement aimed at ferry.jobs directly; the projection trigger's writes run at depth 2.
    IF pg_trigger_depth() <= 1 AND NOT pg_has_role(current_user, (SELECT relowner FROM pg_class WHERE oid = TG_RELID), 'MEMBER') THEN
        RAISE EXCEPTION 'ferry.jobs is a projection of ferry.events: % is not allowed', TG_OP
            USING ERRCODE = 'FY011', HINT = 'Append an event to ferry.events instead.';
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER jobs_written_by_projection_only
    BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON ferry.jobs
    FOR EACH STATEMENT EXECUTE FUNCTION ferry.guard_projection();

-- Workers check at startup that the schema is current.
GRANT SELECT ON ferry.schema_migrations TO ferry_reader, ferry_producer, ferry_worker;
