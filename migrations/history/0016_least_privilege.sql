-- Least privilege, enforced by the database: who may append which event, who may read what.
--
-- Until now any role that could INSERT into ferry.events could append any type: a producer could append
-- 'claimed' and 'succeeded' for a queued job and the job "succeeded" with nothing moved. Now:
--
--   enqueued                                   ferry_producer, ferry_worker (fan-out children)
--   cancel_requested, requeued                 ferry_producer
--   cancelled                                  ferry_producer of a queued job, ferry_worker of a running job
--   claimed, progress, retry_scheduled,        ferry_worker
--   deferred, released, rescued, succeeded,
--   failed
--
-- The owner (the migrating role, and superusers) may append anything: restores and repairs are its business.
-- A refusal raises SQLSTATE 42501 (insufficient_privilege) naming the type, the role and the role it needs, and
-- the whole statement fails: nothing of it is written.
--
-- Whose privileges count: current_user's, with inheritance (pg_has_role … 'USAGE'), the way PostgreSQL checks a
-- GRANT. So SET ROLE to a narrower role narrows what it may append, a NOINHERIT member must SET ROLE first (as
-- for its table privileges), and a SECURITY DEFINER function appends with its owner's rights. session_user would
-- ignore SET ROLE: a powerful login that drops to ferry_producer would keep appending anything. The check is
-- therefore an invoker-rights trigger of its own: ferry.project_events is SECURITY DEFINER (it writes the
-- projection), and inside it current_user is always the owner.

-- enable_seqscan off, as for the projection: the cancelled check probes ferry.jobs by key, and a plan made while
-- the table was small must not scan it once it holds a million jobs.
CREATE FUNCTION ferry.authorize_events() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp SET enable_seqscan = off AS $$
DECLARE
    worker_types   CONSTANT text[] := ARRAY['enqueued', 'claimed', 'progress', 'retry_scheduled', 'deferred',
                                            'released', 'rescued', 'cancelled', 'succeeded', 'failed'];
    producer_types CONSTANT text[] := ARRAY['enqueued', 'cancel_requested', 'cancelled', 'requeued'];
    is_worker      boolean;
    is_producer    boolean;
    allowed        text[];
    refused_type   text;
    has_cancelled  boolean;
    wrong          record;
BEGIN
    IF pg_has_role(current_user, (SELECT c.relowner FROM pg_catalog.pg_class c WHERE c.oid = TG_RELID), 'USAGE') THEN
        RETURN NULL;
    END IF;
    is_worker := pg_has_role(current_user, 'ferry_worker', 'USAGE');
    is_producer := pg_has_role(current_user, 'ferry_producer', 'USAGE');
    IF is_worker AND is_producer THEN
        RETURN NULL;   -- both together may append every type
    END IF;

    -- Every bulk enqueue is enqueued events only, which both roles may append: one cheap pass, and done.
    IF (is_worker OR is_producer) AND NOT EXISTS (SELECT 1 FROM new_events e WHERE e.type <> 'enqueued') THEN
        RETURN NULL;
    END IF;
    allowed := CASE WHEN is_worker THEN worker_types WHEN is_producer THEN producer_types ELSE '{}' END;

    -- One pass over the statement's events (the transition table the projection reads too).
    SELECT min(e.type) FILTER (WHERE e.type <> ALL (allowed)), coalesce(bool_or(e.type = 'cancelled'), false)
      INTO refused_type, has_cancelled
      FROM new_events e;

    IF refused_type IS NOT NULL THEN
        RAISE EXCEPTION 'permission denied to append a "%" event as role "%": it needs %', refused_type, current_user,
            CASE WHEN refused_type = ANY (producer_types) AND refused_type = ANY (worker_types)
                 THEN 'ferry_producer or ferry_worker'
                 WHEN refused_type = ANY (producer_types) THEN 'ferry_producer'
                 ELSE 'ferry_worker' END
            USING ERRCODE = 'insufficient_privilege',
                  HINT = 'Producers (ferry_producer) append enqueued, cancel_requested, cancelled of a queued job and '
                         'requeued; workers (ferry_worker) append claims, progress and outcomes. Grant the role that '
                         'fits what this login does.';
    END IF;

    -- Who ends a job depends on its state: a producer cancels a queued job (for a running one it appends
    -- cancel_requested), the worker holding the claim cancels a running one. The rows are locked first, as the
    -- projection will lock them, and read afterwards (a new snapshot, READ COMMITTED): no claim can slip in between
    -- this check and the fold. A job this statement creates is not in ferry.jobs yet; it is queued.
    IF has_cancelled THEN
        PERFORM 1 FROM ferry.jobs j
          WHERE j.job_id IN (SELECT e.job_id FROM new_events e WHERE e.type = 'cancelled')
          ORDER BY j.job_id
            FOR NO KEY UPDATE OF j;
        SELECT e.job_id, coalesce(j.state, 'queued') AS state INTO wrong
          FROM new_events e
          LEFT JOIN ferry.jobs j ON j.job_id = e.job_id
         WHERE e.type = 'cancelled'
           AND CASE coalesce(j.state, 'queued') WHEN 'queued' THEN NOT is_producer
                                                 WHEN 'running' THEN NOT is_worker
                                                 ELSE false END   -- a finished job: the fold refuses it (FY002)
         ORDER BY e.job_id
         LIMIT 1;
        IF FOUND THEN
            RAISE EXCEPTION 'permission denied to append a "cancelled" event for job %, which is %, as role "%": it needs %',
                wrong.job_id, wrong.state, current_user,
                CASE WHEN wrong.state = 'queued' THEN 'ferry_producer' ELSE 'ferry_worker' END
                USING ERRCODE = 'insufficient_privilege',
                      HINT = 'A producer cancels a queued job; for a running job it appends cancel_requested (ferry cancel) '
                             'and the worker holding the claim cancels it.';
        END IF;
    END IF;
    RETURN NULL;
END
$$;

-- Statement triggers of one event fire in name order: events_authorize runs before events_project, so a refused
-- statement is never folded, and ferry.jobs still holds each job's state from before the statement.
CREATE TRIGGER events_authorize
    AFTER INSERT ON ferry.events
    REFERENCING NEW TABLE AS new_events
    FOR EACH STATEMENT EXECUTE FUNCTION ferry.authorize_events();

-- Application roles name only an event's content. position, tx_id and recorded_at are the database's: a forged
-- tx_id or recorded_at would hide an event from readers that follow the log in commit order. (Restores keep the
-- originals; they run as the owner.)
REVOKE INSERT ON ferry.events FROM ferry_producer, ferry_worker;
GRANT INSERT (job_id, version, type, data) ON ferry.events TO ferry_producer, ferry_worker;

-- The projection guard trusted any write made from inside a trigger (pg_trigger_depth() > 1), so a role holding
-- UPDATE (for row locks) could write ferry.jobs from a trigger on a temporary table of its own; and it looked up
-- pg_class on the caller's search_path, where a temporary table named pg_class comes first. Now only the owner
-- writes (the projection trigger is SECURITY DEFINER, so its writes are the owner's), and catalogs are qualified.
CREATE OR REPLACE FUNCTION ferry.guard_projection() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    IF NOT pg_has_role(current_user, (SELECT c.relowner FROM pg_catalog.pg_class c WHERE c.oid = TG_RELID), 'USAGE') THEN
        RAISE EXCEPTION 'ferry.jobs is a projection of ferry.events: % is not allowed', TG_OP
            USING ERRCODE = 'FY011', HINT = 'Append an event to ferry.events instead.';
    END IF;
    RETURN NULL;
END
$$;

-- Workers write two kinds of account history (a refreshed token, an account that needs re-authorization); the
-- rest (added, linked, revoked, removed, updated) is the account commands', which run as the owner.
CREATE FUNCTION ferry.authorize_account_events() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    allowed      text[];
    refused_type text;
BEGIN
    IF pg_has_role(current_user, (SELECT c.relowner FROM pg_catalog.pg_class c WHERE c.oid = TG_RELID), 'USAGE') THEN
        RETURN NULL;
    END IF;
    allowed := CASE WHEN pg_has_role(current_user, 'ferry_worker', 'USAGE')
                    THEN ARRAY['token_refreshed', 'needs_reauth'] ELSE '{}' END;
    SELECT min(e.type) INTO refused_type FROM new_account_events e WHERE e.type <> ALL (allowed);
    IF refused_type IS NOT NULL THEN
        RAISE EXCEPTION 'permission denied to append a "%" account event as role "%": it needs the schema owner',
            refused_type, current_user
            USING ERRCODE = 'insufficient_privilege',
                  HINT = 'Workers record token_refreshed and needs_reauth; ferry account commands run as the owner.';
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER account_events_authorize
    AFTER INSERT ON ferry.account_events
    REFERENCING NEW TABLE AS new_account_events
    FOR EACH STATEMENT EXECUTE FUNCTION ferry.authorize_account_events();

-- Sealed secrets (app secret, refresh and access tokens) are read by workers (they call the providers) and the
-- owner (account commands), nobody else. Producers read what enqueue checks (name, provider, status) and the
-- rest of the non-secret columns.
REVOKE SELECT ON ferry.accounts FROM ferry_producer;
GRANT SELECT (name, provider, created_at, max_concurrent, app_key, access_token_issued_at, access_token_expires_at,
              key_id, api_url, content_url, authorize_url, provider_account_id, status, status_reason, updated_at,
              settings)
    ON ferry.accounts TO ferry_producer;

-- Readers read the status views and nothing else (not the worker registry, not the migration ledger).
REVOKE SELECT ON ferry.workers, ferry.schema_migrations FROM ferry_reader;

-- Functions are executable by PUBLIC unless revoked. The claim, rescue and release functions append worker events
-- (refused for anyone else anyway); the counter compaction is the workers' housekeeping.
REVOKE EXECUTE ON FUNCTION ferry.claim_jobs(text, text[], integer), ferry.rescue_stale_jobs(interval),
    ferry.release_orphaned_claims(text, uuid[], interval), ferry.compact_queue_counts() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION ferry.claim_jobs(text, text[], integer), ferry.rescue_stale_jobs(interval),
    ferry.release_orphaned_claims(text, uuid[], interval), ferry.compact_queue_counts() TO ferry_worker;
-- queue_stats calls queue_waiting with its reader's rights; the restore test runs in the append triggers' WHEN.
REVOKE EXECUTE ON FUNCTION ferry.queue_waiting(text), ferry.restoring() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION ferry.queue_waiting(text) TO ferry_reader, ferry_producer, ferry_worker;
GRANT EXECUTE ON FUNCTION ferry.restoring() TO ferry_producer, ferry_worker;
