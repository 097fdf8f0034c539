-- Which roles may append which job events: workers their claims' progress and outcomes, producers enqueues,
-- cancellations, retries (changing provider options at most) and discards (of failed jobs only: the fold refuses
-- the rest); the owner anything.
-- Checked once per statement over its new events.
CREATE OR REPLACE FUNCTION ferry.authorize_events() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'pg_temp'
    SET enable_seqscan TO 'off'
    AS $$
DECLARE
    worker_types   CONSTANT text[] := ARRAY['enqueued', 'claimed', 'progress', 'retry_scheduled', 'deferred',
                                            'released', 'rescued', 'cancelled', 'succeeded', 'failed', 'resolved'];
    producer_types CONSTANT text[] := ARRAY['enqueued', 'cancel_requested', 'cancelled', 'requeued', 'discarded'];
    is_worker      boolean;
    is_producer    boolean;
    allowed        text[];
    refused_type   text;
    has_cancelled  boolean;
    wrong          record;
    bad_enqueued   record;
    foreign_claim  record;
BEGIN
    IF pg_has_role(current_user, (SELECT c.relowner FROM pg_catalog.pg_class c WHERE c.oid = TG_RELID), 'USAGE') THEN
        RETURN NULL;
    END IF;

    -- An enqueued event appended directly (INSERT or COPY, not through ferry.enqueue) obeys the same rules: one
    -- inlined test over the statement's events, and the precise error for the first that fails.
    SELECT e.job_id, e.data INTO bad_enqueued
      FROM new_events e
     WHERE e.type = 'enqueued' AND NOT ferry.enqueued_ok(e.data)
     LIMIT 1;
    IF FOUND THEN
        PERFORM ferry.check_enqueued(bad_enqueued.data, '');
        RAISE EXCEPTION 'the enqueued event for job % breaks a rule of ferry.enqueue', bad_enqueued.job_id
            USING ERRCODE = 'invalid_parameter_value', HINT = 'Enqueue through ferry.enqueue or the ferry CLI.';
    END IF;
    is_worker := pg_has_role(current_user, 'ferry_worker', 'USAGE');
    is_producer := pg_has_role(current_user, 'ferry_producer', 'USAGE');

    -- A claim belongs to the login that registered its worker: another login may not append under it (finish,
    -- fail, release or report progress for a job it does not hold), only rescue it once the holder has missed
    -- its heartbeats for 3 seconds. Workers sharing one login trust each other; per-host logins do not.
    IF EXISTS (SELECT 1 FROM new_events e WHERE e.type <> 'enqueued') THEN
        SELECT e.job_id, e.type, j.worker, w.login INTO foreign_claim
          FROM new_events e
          JOIN ferry.jobs j ON j.job_id = e.job_id
          JOIN ferry.workers w ON w.name = j.worker
         WHERE e.type IN ('progress', 'retry_scheduled', 'deferred', 'released', 'rescued', 'succeeded', 'failed',
                          'resolved', 'cancelled')
           AND j.state = 'running'
           AND w.login <> session_user
           AND NOT (e.type IN ('rescued', 'failed') AND w.heartbeat_at < now() - interval '3 seconds')
         LIMIT 1;
        IF FOUND THEN
            RAISE EXCEPTION 'permission denied to append a "%" event for job %: its claim belongs to worker % of login %, not to login %',
                foreign_claim.type, foreign_claim.job_id, foreign_claim.worker, foreign_claim.login, session_user
                USING ERRCODE = 'insufficient_privilege',
                      HINT = 'Only the login that holds a claim appends under it; other workers rescue it once its holder stops heartbeating.';
        END IF;
        -- A claim is made for a worker this login registered (or an unregistered name, which then belongs to no one).
        SELECT e.job_id, e.data ->> 'worker' AS worker, w.login INTO foreign_claim
          FROM new_events e
          JOIN ferry.workers w ON w.name = e.data ->> 'worker'
         WHERE e.type = 'claimed' AND w.login <> session_user
         LIMIT 1;
        IF FOUND THEN
            RAISE EXCEPTION 'permission denied to claim job % for worker %, registered by login %, as login %',
                foreign_claim.job_id, foreign_claim.worker, foreign_claim.login, session_user
                USING ERRCODE = 'insufficient_privilege', HINT = 'Give each worker a name of its own.';
        END IF;

        -- A retry changes provider options at most, and only as ferry retry --option does (definition 409): the job's
        -- row is read before this statement's fold (this trigger fires before events_project).
        IF is_producer AND EXISTS (SELECT 1 FROM new_events e WHERE e.type = 'requeued') THEN
            PERFORM ferry.check_requeued(j.kind, j.source, j.destination, j.spec, e.data, '')
               FROM new_events e
               JOIN ferry.jobs j ON j.job_id = e.job_id
              WHERE e.type = 'requeued'
                AND (jsonb_typeof(e.data) IS DISTINCT FROM 'object' OR e.data ?| ARRAY['options', 'spec', 'account', 'batch',
                     'bytes_total', 'destination', 'key', 'kind', 'max_attempts', 'metadata', 'priority', 'queue', 'run_at',
                     'source', 'traceparent']);
        END IF;
    END IF;

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
                  HINT = 'Producers (ferry_producer) append enqueued, cancel_requested, cancelled of a queued job, '
                         'requeued and discarded; workers (ferry_worker) append claims, progress and outcomes. Grant the role that '
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
