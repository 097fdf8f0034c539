CREATE SCHEMA ferry;

CREATE TYPE ferry.job_change AS (
	job_id uuid,
	queue text,
	batch text,
	was_state text,
	state text,
	was_bytes_done bigint,
	was_bytes_total bigint,
	bytes_done bigint,
	bytes_total bigint,
	enqueued_at timestamp with time zone,
	started_at timestamp with time zone,
	finished_at timestamp with time zone,
	was_unchanged boolean,
	unchanged boolean
);

CREATE FUNCTION ferry.account_transfers(p_account text) RETURNS bigint
    LANGUAGE sql STABLE PARALLEL SAFE
    AS $$
    SELECT count(*) FROM ferry.jobs r
     WHERE r.state = 'running' AND r.account = p_account
       AND NOT coalesce(r.bytes_total > 0 AND r.bytes_done >= r.bytes_total, false)   -- size unknown: counts
$$;

COMMENT ON FUNCTION ferry.account_transfers(p_account text) IS 'Running jobs of an account that still move bytes (not those waiting only for a commit): what max_concurrent caps.';

CREATE FUNCTION ferry.add_job_search_terms() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
BEGIN
    INSERT INTO ferry.job_search_terms (job_id, path, metadata)
    SELECT j.job_id, j.source || ' ' || j.destination, j.metadata FROM new_jobs j;
    RETURN NULL;
END
$$;

CREATE TABLE ferry.jobs (
    job_id uuid NOT NULL,
    version integer NOT NULL,
    kind text NOT NULL,
    queue text NOT NULL,
    batch text,
    priority smallint NOT NULL,
    state text NOT NULL,
    attempt integer NOT NULL,
    max_attempts integer NOT NULL,
    lease bigint NOT NULL,
    worker text,
    account text,
    source text NOT NULL,
    destination text NOT NULL,
    idempotency_key text,
    spec jsonb NOT NULL,
    metadata jsonb,
    run_at timestamp with time zone NOT NULL,
    cancel_requested boolean NOT NULL,
    bytes_done bigint NOT NULL,
    bytes_total bigint,
    session jsonb,
    last_error text,
    result jsonb,
    enqueued_at timestamp with time zone NOT NULL,
    started_at timestamp with time zone,
    finished_at timestamp with time zone,
    updated_at timestamp with time zone NOT NULL
)
WITH (fillfactor='70', autovacuum_analyze_scale_factor='0.02', autovacuum_vacuum_cost_delay='0', autovacuum_vacuum_scale_factor='0.01');

CREATE FUNCTION ferry.apply_event(j ferry.jobs, p_job_id uuid, p_type text, p_version integer, p_data jsonb, p_at timestamp with time zone) RETURNS ferry.jobs
    LANGUAGE plpgsql STABLE
    AS $$
DECLARE
    claim_is_current boolean;
BEGIN
    IF p_type = 'enqueued' THEN
        IF j.job_id IS NOT NULL THEN
            RAISE EXCEPTION 'job % already exists', p_job_id USING ERRCODE = 'FY002';
        END IF;
        IF p_version <> 1 THEN
            RAISE EXCEPTION 'job %: enqueued must be version 1, not %', p_job_id, p_version USING ERRCODE = 'FY003';
        END IF;
        SELECT * INTO j FROM ferry.job_from_enqueued(p_job_id, p_version, p_data, p_at);
        RETURN j;
    END IF;
    IF j.job_id IS NULL THEN
        RAISE EXCEPTION 'job % does not exist', p_job_id USING ERRCODE = 'FY004';
    END IF;
    IF p_version <> j.version + 1 THEN
        RAISE EXCEPTION 'job %: event version % does not follow version %', p_job_id, p_version, j.version
            USING ERRCODE = 'FY003';
    END IF;

    claim_is_current := j.state = 'running' AND (p_data->>'lease')::bigint IS NOT DISTINCT FROM j.lease;
    IF p_type IN ('progress', 'retry_scheduled', 'deferred', 'released', 'rescued', 'succeeded', 'failed', 'resolved')
       AND NOT claim_is_current THEN
        IF j.state <> 'running' THEN
            RAISE EXCEPTION 'job %: % is not allowed while the job is %', p_job_id, p_type, j.state
                USING ERRCODE = 'FY001', HINT = 'The claim ended (rescued, cancelled or finished elsewhere).';
        END IF;
        RAISE EXCEPTION 'job %: % carries lease %, but the current lease is %', p_job_id, p_type,
            coalesce(p_data->>'lease', 'none'), j.lease
            USING ERRCODE = 'FY001', HINT = 'The job was claimed again after this claim was lost.';
    END IF;

    j.version := p_version;
    j.updated_at := p_at;

    CASE p_type
    WHEN 'claimed' THEN
        IF j.state <> 'queued' THEN
            RAISE EXCEPTION 'job %: cannot be claimed while %', p_job_id, j.state USING ERRCODE = 'FY002';
        END IF;
        IF (p_data->>'lease')::bigint IS DISTINCT FROM j.lease + 1 THEN
            RAISE EXCEPTION 'job %: claim must carry lease %', p_job_id, j.lease + 1 USING ERRCODE = 'FY001';
        END IF;
        j.state := 'running';
        j.attempt := j.attempt + 1;
        j.lease := j.lease + 1;
        j.worker := p_data->>'worker';
        j.started_at := coalesce(j.started_at, p_at);
    WHEN 'progress' THEN
        j.bytes_done := coalesce((p_data->>'bytes_done')::bigint, j.bytes_done);
        j.bytes_total := coalesce((p_data->>'bytes_total')::bigint, j.bytes_total);
        IF p_data ? 'session' THEN
            j.session := nullif(p_data->'session', 'null'::jsonb);
        END IF;
    WHEN 'resolved' THEN
        -- A job enqueued from SQL, as the first worker to claim it settled it: canonical endpoints and details.
        j.source := coalesce(p_data->>'source', j.source);
        j.destination := coalesce(p_data->>'destination', j.destination);
        j.account := coalesce(p_data->>'account', j.account);
        j.spec := coalesce(p_data->'spec', j.spec);
        j.bytes_total := coalesce((p_data->>'bytes_total')::bigint, j.bytes_total);
    WHEN 'retry_scheduled' THEN
        j.state := 'queued';
        j.worker := NULL;
        j.run_at := (p_data->>'run_at')::timestamptz;
        j.last_error := p_data->>'error';
    WHEN 'deferred' THEN
        -- Rate limited: back to the queue without consuming the attempt.
        j.state := 'queued';
        j.worker := NULL;
        j.attempt := j.attempt - 1;
        j.run_at := (p_data->>'run_at')::timestamptz;
        j.last_error := p_data->>'reason';
    WHEN 'released' THEN
        -- Graceful shutdown handed the job back: not a failed attempt.
        j.state := 'queued';
        j.worker := NULL;
        j.attempt := j.attempt - 1;
        j.run_at := p_at;
    WHEN 'rescued' THEN
        -- The holder stopped heartbeating. The attempt counts, so a job that kills workers cannot loop forever.
        j.state := 'queued';
        j.worker := NULL;
        j.run_at := p_at;
        j.last_error := p_data->>'reason';
    WHEN 'cancel_requested' THEN
        IF j.state <> 'running' THEN
            RAISE EXCEPTION 'job %: cancel can only be requested while running, not %', p_job_id, j.state
                USING ERRCODE = 'FY002';
        END IF;
        j.cancel_requested := true;
    WHEN 'cancelled' THEN
        IF j.state = 'running' AND NOT claim_is_current THEN
            RAISE EXCEPTION 'job %: cancelled carries a stale lease', p_job_id USING ERRCODE = 'FY001';
        ELSIF j.state NOT IN ('queued', 'running') THEN
            RAISE EXCEPTION 'job %: cannot be cancelled while %', p_job_id, j.state USING ERRCODE = 'FY002';
        END IF;
        j.state := 'cancelled';
        j.worker := NULL;
        j.finished_at := p_at;
        j.last_error := coalesce(p_data->>'reason', j.last_error);
    WHEN 'succeeded' THEN
        j.state := 'succeeded';
        j.worker := NULL;
        j.finished_at := p_at;
        -- An earlier attempt's error stays in the history (ferry events JOB), not on a job that succeeded.
        j.last_error := NULL;
        j.bytes_done := coalesce((p_data->>'bytes_done')::bigint, j.bytes_done);
        j.bytes_total := coalesce((p_data->>'bytes_total')::bigint, j.bytes_total);
        j.result := nullif(p_data->'result', 'null'::jsonb);
    WHEN 'failed' THEN
        j.state := 'failed';
        j.worker := NULL;
        j.finished_at := p_at;
        j.last_error := p_data->>'error';
    WHEN 'discarded' THEN
        -- The failure stays as it was (error, finished_at); the job is just no longer one to act on.
        IF j.state <> 'failed' THEN
            RAISE EXCEPTION 'job %: only failed jobs can be discarded, this one is %', p_job_id, j.state
                USING ERRCODE = 'FY002', HINT = 'Cancel a job that has not finished (ferry cancel).';
        END IF;
        j.state := 'discarded';
    WHEN 'requeued' THEN
        IF j.state NOT IN ('failed', 'cancelled', 'discarded') THEN
            RAISE EXCEPTION 'job %: only failed, cancelled or discarded jobs can be retried, this one is %', p_job_id, j.state
                USING ERRCODE = 'FY002';
        END IF;
        j.state := 'queued';
        j.attempt := 0;
        j.run_at := p_at;
        j.finished_at := NULL;
        j.cancel_requested := false;
        -- A retry with changed provider options carries the spec they make (ferry.requeued_spec, checked for
        -- producers by ferry.check_requeued).
        j.spec := coalesce(p_data->'spec', j.spec);
    ELSE
        RAISE EXCEPTION 'unknown event type %', p_type USING ERRCODE = 'FY005';
    END CASE;

    -- A cancel requested while running wins at the next point the job would wait again.
    IF j.state = 'queued' AND j.cancel_requested THEN
        j.state := 'cancelled';
        j.finished_at := p_at;
    END IF;
    RETURN j;
END
$$;

CREATE FUNCTION ferry.authorize_account_events() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
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

CREATE FUNCTION ferry.authorize_events() RETURNS trigger
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

CREATE FUNCTION ferry.batch_bytes_done(p_state text, p_done bigint, p_total bigint) RETURNS bigint
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$
    SELECT CASE WHEN p_state = 'succeeded' THEN coalesce(p_total, p_done) ELSE least(p_done, coalesce(p_total, p_done)) END
$$;

CREATE TABLE ferry.batch_counts (
    batch text NOT NULL,
    jobs bigint NOT NULL,
    queued bigint NOT NULL,
    running bigint NOT NULL,
    succeeded bigint NOT NULL,
    failed bigint NOT NULL,
    cancelled bigint NOT NULL,
    bytes_done bigint NOT NULL,
    bytes_total bigint NOT NULL,
    sized bigint NOT NULL,
    enqueued_at timestamp with time zone,
    started_at timestamp with time zone,
    finished_at timestamp with time zone,
    first_job uuid,
    unchanged bigint DEFAULT 0 NOT NULL,
    unchanged_bytes bigint DEFAULT 0 NOT NULL,
    discarded bigint DEFAULT 0 NOT NULL
)
WITH (fillfactor='50');

COMMENT ON TABLE ferry.batch_counts IS 'Jobs, states and bytes per batch, compacted; add ferry.batch_count_deltas for the exact figures.';

CREATE FUNCTION ferry.batch_counts_actual() RETURNS SETOF ferry.batch_counts
    LANGUAGE sql STABLE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
SELECT j.batch,
       count(*) AS jobs,
       count(*) FILTER (WHERE j.state = 'queued') AS queued,
       count(*) FILTER (WHERE j.state = 'running') AS running,
       count(*) FILTER (WHERE j.state = 'succeeded') AS succeeded,
       count(*) FILTER (WHERE j.state = 'failed') AS failed,
       count(*) FILTER (WHERE j.state = 'cancelled') AS cancelled,
       coalesce(sum(ferry.batch_bytes_done(j.state, j.bytes_done, j.bytes_total)), 0)::bigint AS bytes_done,
       coalesce(sum(j.bytes_total), 0)::bigint AS bytes_total,
       count(j.bytes_total) AS sized,
       min(j.enqueued_at) AS enqueued_at,
       min(j.started_at) AS started_at,
       max(j.finished_at) AS finished_at,
       min(j.job_id::text COLLATE "C")::uuid AS first_job,   -- PostgreSQL 15 has no min(uuid); the text sorts alike
       count(*) FILTER (WHERE j.state = 'succeeded' AND j.result->>'skipped' = 'unchanged') AS unchanged,
       coalesce(sum(j.bytes_total) FILTER (WHERE j.state = 'succeeded' AND j.result->>'skipped' = 'unchanged'), 0)::bigint
           AS unchanged_bytes,
       count(*) FILTER (WHERE j.state = 'discarded') AS discarded
  FROM ferry.jobs j
 WHERE j.batch IS NOT NULL
 GROUP BY j.batch
$$;

CREATE FUNCTION ferry.batch_summary(p_batch text) RETURNS jsonb
    LANGUAGE sql STABLE
    AS $$
    SELECT jsonb_build_object(
               'jobs', count(*),
               'succeeded', count(*) FILTER (WHERE j.state = 'succeeded'),
               'failed', count(*) FILTER (WHERE j.state = 'failed'),
               'cancelled', count(*) FILTER (WHERE j.state = 'cancelled'),
               'discarded', count(*) FILTER (WHERE j.state = 'discarded'),
               'bytes', coalesce(sum(j.bytes_done), 0))
      FROM ferry.jobs j
     WHERE j.batch = p_batch
$$;

CREATE FUNCTION ferry.begin_schedule_attempt(p_schedule text, p_worker text, p_poison_after integer DEFAULT 3) RETURNS TABLE(attempt bigint, paused_reason text)
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
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

CREATE FUNCTION ferry.change_job_search_terms() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
BEGIN
    UPDATE ferry.job_search_terms
       SET path = NEW.source || ' ' || NEW.destination, metadata = NEW.metadata
     WHERE job_id = NEW.job_id;
    RETURN NULL;
END
$$;

CREATE FUNCTION ferry.check_enqueued(d jsonb, p_place text) RETURNS void
    LANGUAGE plpgsql IMMUTABLE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $_$
DECLARE
    local_field  text;
    remote_field text;
    local        text;
    remote       text;
    problem      text;
    field        text;
    hint         text;
BEGIN
    IF jsonb_typeof(d) IS DISTINCT FROM 'object' THEN
        field := 'data'; problem := 'must be a JSON object'; hint := 'Enqueue through ferry.enqueue or the ferry CLI.';
    ELSIF NOT coalesce(d ->> 'kind' IN ('upload', 'fetch', 'copy'), false) THEN
        field := 'kind'; problem := format('must be ''upload'', ''fetch'' or ''copy'', not %s', coalesce(quote_literal(left(d ->> 'kind', 64)), 'null'));
        hint := 'upload sends a local file to a provider; fetch brings a remote file to a local path; copy moves a remote file to another provider.';
    ELSIF jsonb_typeof(d -> 'queue') IS DISTINCT FROM 'string' OR (d ->> 'queue') !~ '^[a-z0-9][a-z0-9_.-]{0,62}$' THEN
        field := 'queue'; problem := 'queue names are 1-63 lowercase letters, digits, _ . - starting with a letter or digit';
        hint := 'Use for example "photos".';
    ELSIF jsonb_typeof(d -> 'priority') IS DISTINCT FROM 'number' OR (d ->> 'priority')::numeric NOT BETWEEN -100 AND 100
          OR (d ->> 'priority')::numeric <> trunc((d ->> 'priority')::numeric) THEN
        field := 'priority'; problem := format('must be from -100 to 100 (higher runs first), not %s', left(coalesce(d ->> 'priority', 'null'), 24));
        hint := 'Pick a priority in range.';
    ELSIF jsonb_typeof(d -> 'max_attempts') IS DISTINCT FROM 'number' OR (d ->> 'max_attempts')::numeric NOT BETWEEN 1 AND 1000
          OR (d ->> 'max_attempts')::numeric <> trunc((d ->> 'max_attempts')::numeric) THEN
        field := 'max_attempts'; problem := format('must be from 1 to 1000, not %s', left(coalesce(d ->> 'max_attempts', 'null'), 24));
        hint := 'Pick a number of attempts in range.';
    ELSIF jsonb_typeof(d -> 'source') IS DISTINCT FROM 'string' THEN
        field := 'source'; problem := 'missing'; hint := 'Give the source as a string.';
    ELSIF jsonb_typeof(d -> 'destination') IS DISTINCT FROM 'string' THEN
        field := 'destination'; problem := 'missing'; hint := 'Give the destination as a string.';
    ELSIF d ? 'batch' AND (jsonb_typeof(d -> 'batch') <> 'string' OR d ->> 'batch' = '' OR octet_length(d ->> 'batch') > 200
                            OR d ->> 'batch' ~ '[\x01-\x1f\x7f]') THEN
        field := 'batch'; problem := 'batch names are 1-200 bytes of printable characters';
        hint := 'Shorten the name or remove control characters.';
    ELSIF d ? 'key' AND (jsonb_typeof(d -> 'key') <> 'string' OR d ->> 'key' = '' OR octet_length(d ->> 'key') > 255
                          OR d ->> 'key' ~ '[\x01-\x1f\x7f]') THEN
        field := 'key'; problem := 'idempotency keys are 1-255 bytes of printable characters';
        hint := 'Use a shorter key (for example a hash).';
    ELSIF d ? 'account' AND (jsonb_typeof(d -> 'account') <> 'string' OR d ->> 'account' !~ '^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$') THEN
        field := 'account'; problem := 'account name is empty or has characters other than letters, digits, _ . -';
        hint := 'Use the name given to ferry account add.';
    ELSIF d ? 'metadata' AND (jsonb_typeof(d -> 'metadata') <> 'object' OR octet_length((d -> 'metadata')::text) > 16384) THEN
        field := 'metadata'; problem := 'must be a JSON object of at most 16 KiB';
        hint := 'Keep metadata small; store large data elsewhere.';
    ELSIF d ? 'traceparent' AND NOT (jsonb_typeof(d -> 'traceparent') = 'string'
                                     AND d ->> 'traceparent' ~ '^00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$'
                                     AND substr(d ->> 'traceparent', 4, 32) <> repeat('0', 32)
                                     AND substr(d ->> 'traceparent', 37, 16) <> repeat('0', 16)) THEN
        field := 'traceparent'; problem := 'not a W3C traceparent';
        hint := 'Write 00-<32 lowercase hex trace id>-<16 hex parent id>-<2 hex flags>, ids not all zero.';
    ELSIF d ? 'run_at' AND NOT (jsonb_typeof(d -> 'run_at') = 'string'
                                AND d ->> 'run_at' ~ '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,9})?(Z|[+-]\d\d:?\d\d)$') THEN
        field := 'run_at'; problem := 'not an ISO 8601 time'; hint := 'Write an ISO 8601 time with a zone, for example 2026-11-21T18:00:00Z.';
    ELSIF d ? 'bytes_total' AND NOT (jsonb_typeof(d -> 'bytes_total') = 'number' AND (d ->> 'bytes_total')::numeric >= 0
                                     AND (d ->> 'bytes_total')::numeric <= 9223372036854775807) THEN
        field := 'bytes_total'; problem := 'must be a size in bytes'; hint := 'Leave it out; workers learn the size.';
    ELSIF d ? 'spec' AND jsonb_typeof(d -> 'spec') <> 'object' THEN
        field := 'spec'; problem := 'must be a JSON object'; hint := 'Enqueue through ferry.enqueue or the ferry CLI.';
    END IF;

    -- A copy's two sides are remote: the source is checked as a remote side here, the destination below.
    IF field IS NULL AND d ->> 'kind' = 'copy' THEN
        IF d ->> 'source' = '' OR octet_length(d ->> 'source') > 8192 OR left(d ->> 'source', 1) = '/' OR d ->> 'source' ~* '^file:' THEN
            field := 'source'; problem := 'a copy reads another provider (PROVIDER:ACCOUNT:…), in at most 8192 bytes';
            hint := 'Local files are uploaded: ferry enqueue upload.';
        ELSIF d ->> 'source' ~ '^[A-Za-z][A-Za-z0-9+.-]*://[^/?#]*@' THEN
            field := 'source'; problem := 'the URL carries credentials (user:password@)';
            hint := 'Remove them: accounts hold credentials (ferry account add), sealed; URLs are stored in the clear.';
        ELSIF left(d ->> 'destination', 1) = '/' OR d ->> 'destination' ~* '^file:' THEN
            field := 'destination'; problem := 'a copy goes to another provider, not a local folder';
            hint := 'Bring files to a local folder with a fetch.';
        END IF;
    END IF;

    IF field IS NULL THEN
        local_field := CASE d ->> 'kind' WHEN 'upload' THEN 'source' WHEN 'fetch' THEN 'destination' END;
        remote_field := CASE d ->> 'kind' WHEN 'fetch' THEN 'source' ELSE 'destination' END;
        -- A copy has no local side: a stand-in that passes the local checks.
        local := coalesce(d ->> local_field, '/');
        remote := d ->> remote_field;
        IF left(local, 1) <> '/' THEN
            field := local_field; problem := format('must be an absolute path, not %s', quote_literal(left(local, 256)));
            hint := 'Start the path with /.';
        ELSIF octet_length(local) > 4096 THEN
            field := local_field; problem := 'longer than 4096 bytes'; hint := 'Shorten the path.';
        ELSIF local ~ '(^|/)\.\.(/|$)' THEN
            field := local_field; problem := format('path contains ''..'' (%s)', left(local, 256));
            hint := 'Write the path without ''..''; workers refuse it in every local path.';
        ELSIF remote = '' THEN
            field := remote_field; problem := 'missing'; hint := 'Give the other side of the transfer.';
        ELSIF octet_length(remote) > 8192 THEN
            field := remote_field; problem := 'longer than 8192 bytes'; hint := 'Use a shorter URL or path.';
        ELSIF remote ~ '^[A-Za-z][A-Za-z0-9+.-]*://[^/?#]*@' THEN
            -- Never echo the value: it holds the credentials.
            field := remote_field; problem := 'the URL carries credentials (user:password@)';
            hint := 'Remove them: accounts hold credentials (ferry account add), sealed; URLs are stored in the clear.';
        ELSIF d ->> 'kind' = 'upload' AND remote ~* '^(file:|/)' AND remote ~* '(^|/)(\.|%2e){2}(/|$)' THEN
            field := remote_field; problem := format('path contains ''..'' (%s)', left(remote, 256));
            hint := 'Write the folder without ''..''; workers refuse it in every local path.';
        END IF;
    END IF;

    -- A listing filter, as ferry.enqueue stores the option or as a resolved spec carries it: bounded (definition 398).
    IF field IS NULL AND jsonb_typeof(d -> 'spec') = 'object' THEN
        problem := ferry.filter_problem(coalesce(d #> '{spec,filter}', d #> '{spec,unresolved,options,filter}'));
        IF problem IS NOT NULL THEN
            field := 'filter';
            hint := 'Give filters with --include, --exclude, --filter-from and the size and age flags, within the limits in docs/cli.md.';
        END IF;
    END IF;

    IF field IS NOT NULL THEN
        RAISE EXCEPTION '%: %', p_place || field, problem
            USING ERRCODE = 'invalid_parameter_value', COLUMN = field, HINT = hint;
    END IF;
END
$_$;

CREATE FUNCTION ferry.check_provider_options(p_kind text, p_source text, p_destination text, p_options jsonb, p_place text) RETURNS void
    LANGUAGE plpgsql STABLE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $_$
DECLARE
    v_scheme  text;
    v_origin  text;
    v_what    text;
    v_allowed text[];
    v_name    text;
    v_value   jsonb;
    v_option  record;
    v_problem text;
    v_fix     text;
BEGIN
    IF p_options IS NULL OR jsonb_typeof(p_options) <> 'object' OR p_options = '{}'::jsonb THEN
        RETURN;
    END IF;
    SELECT s.remote_scheme, s.origin_scheme INTO v_scheme, v_origin FROM ferry.job_schemes(p_kind, p_source, p_destination) s;
    SELECT array_agg(DISTINCT o.name ORDER BY o.name), min(o.provider) FILTER (WHERE o.kind = p_kind)
      INTO v_allowed, v_what
      FROM ferry.provider_options o
     WHERE (o.scheme = v_scheme AND o.kind = p_kind) OR (o.scheme = v_origin AND o.kind = 'copy_source');
    IF v_what IS NULL THEN
        RETURN;   -- no provider of this scheme takes this kind of job here: the worker names the problem
    END IF;
    v_what := CASE p_kind WHEN 'upload' THEN v_what || ' uploads' WHEN 'fetch' THEN v_what || ' fetches'
                          ELSE 'copies to ' || v_what END;

    FOR v_name, v_value IN SELECT e.key, e.value FROM jsonb_each(p_options) e ORDER BY e.key LOOP
        SELECT o.type, o.choices, o.min, o.max INTO v_option
          FROM ferry.provider_options o
         WHERE o.name = v_name AND ((o.scheme = v_scheme AND o.kind = p_kind) OR (o.scheme = v_origin AND o.kind = 'copy_source'))
         LIMIT 1;
        IF NOT FOUND THEN
            RAISE EXCEPTION '%: not an option for %', p_place || v_name, v_what
                USING ERRCODE = 'invalid_parameter_value', COLUMN = v_name,
                      HINT = 'Remove it; options for ' || v_what || ': ' || array_to_string(v_allowed, ', ') || '.';
        END IF;
        v_problem := NULL;
        CASE v_option.type
        WHEN 'string' THEN
            IF jsonb_typeof(v_value) <> 'string' THEN
                v_problem := 'must be a string';
                v_fix := 'Quote the value.';
            END IF;
        WHEN 'boolean' THEN
            IF jsonb_typeof(v_value) <> 'boolean' THEN
                v_problem := 'must be true or false';
                v_fix := 'Write true or false without quotes.';
            END IF;
        WHEN 'integer' THEN
            -- jsonb keeps a number as written: 2.0 is not an integer to the worker's JSON reader either.
            IF jsonb_typeof(v_value) <> 'number' OR v_value::text !~ '^-?[0-9]+$' THEN
                v_problem := 'must be an integer';
                v_fix := 'Write a whole number without quotes.';
            ELSIF v_value::text::numeric NOT BETWEEN v_option.min AND v_option.max THEN
                v_problem := format('must be from %s to %s', v_option.min, v_option.max);
                v_fix := 'Pick a value in range.';
            END IF;
        ELSE
            IF jsonb_typeof(v_value) <> 'string' THEN
                v_problem := 'must be one of ' || array_to_string(v_option.choices, ', ');
                v_fix := 'Quote the value.';
            ELSIF NOT (v_value #>> '{}') = ANY (v_option.choices) THEN
                v_problem := format('unknown value %s', quote_literal(v_value #>> '{}'));
                v_fix := 'Use one of ' || array_to_string(v_option.choices, ', ') || '.';
            END IF;
        END CASE;
        IF v_problem IS NOT NULL THEN
            RAISE EXCEPTION '%: %', p_place || v_name, v_problem
                USING ERRCODE = 'invalid_parameter_value', COLUMN = v_name, HINT = v_fix;
        END IF;
    END LOOP;
END
$_$;

CREATE FUNCTION ferry.check_requeued(p_kind text, p_source text, p_destination text, p_spec jsonb, p_data jsonb, p_place text) RETURNS void
    LANGUAGE plpgsql STABLE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $_$
DECLARE
    fixed      CONSTANT text[] := ARRAY['account', 'filter', 'recursive', 'tree'];
    job_fields CONSTANT text[] := ARRAY['account', 'batch', 'bytes_total', 'destination', 'key', 'kind', 'max_attempts',
                                        'metadata', 'priority', 'queue', 'run_at', 'source', 'traceparent'];
    v_options  jsonb;
    v_field    text;
    v_scheme   text;
    v_origin   text;
    v_what     text;
    v_allowed  text[];
    v_name     text;
    v_value    jsonb;
BEGIN
    IF jsonb_typeof(p_data) IS DISTINCT FROM 'object' THEN
        RAISE EXCEPTION '%data: must be a JSON object', p_place
            USING ERRCODE = 'invalid_parameter_value', COLUMN = 'data', HINT = 'Retry with ferry retry or append {"by": "…"}.';
    END IF;
    SELECT min(k) INTO v_field FROM jsonb_object_keys(p_data) k WHERE k = ANY (job_fields);
    IF v_field IS NOT NULL THEN
        RAISE EXCEPTION '%: a retry does not change the job''s %', p_place || v_field, v_field
            USING ERRCODE = 'invalid_parameter_value', COLUMN = v_field,
                  HINT = 'Enqueue a new job for another ' || v_field || '; a retry changes provider options only ("options": {…}).';
    END IF;

    v_options := p_data -> 'options';
    IF v_options IS NULL THEN
        IF p_data ? 'spec' THEN
            RAISE EXCEPTION '%spec: a retry changes the spec only through "options"', p_place
                USING ERRCODE = 'invalid_parameter_value', COLUMN = 'spec', HINT = 'Give the provider options to change in "options".';
        END IF;
        RETURN;
    END IF;
    IF jsonb_typeof(v_options) <> 'object' OR v_options = '{}'::jsonb OR octet_length(v_options::text) > 4096 THEN
        RAISE EXCEPTION '%options: must be a JSON object of 1 to 4096 bytes', p_place
            USING ERRCODE = 'invalid_parameter_value', COLUMN = 'options', HINT = 'Write {"mode": "overwrite"}; leave it out to retry as before.';
    END IF;

    -- The declarations of the job's own provider, as ferry.check_provider_options finds them.
    SELECT s.remote_scheme, s.origin_scheme INTO v_scheme, v_origin FROM ferry.job_schemes(p_kind, p_source, p_destination) s;
    SELECT array_agg(DISTINCT o.name ORDER BY o.name) FILTER (WHERE o.name <> ALL (fixed)),
           min(o.provider) FILTER (WHERE o.kind = p_kind)
      INTO v_allowed, v_what
      FROM ferry.provider_options o
     WHERE (o.scheme = v_scheme AND o.kind = p_kind) OR (o.scheme = v_origin AND o.kind = 'copy_source');
    v_what := CASE WHEN v_what IS NULL THEN 'this job'
                   ELSE CASE p_kind WHEN 'upload' THEN v_what || ' uploads' WHEN 'fetch' THEN v_what || ' fetches'
                                    ELSE 'copies to ' || v_what END END;

    FOR v_name, v_value IN SELECT e.key, e.value FROM jsonb_each(v_options) e ORDER BY e.key LOOP
        IF v_name = ANY (fixed) THEN
            RAISE EXCEPTION '%options.%: fixed at enqueue, a retry does not change it', p_place, v_name
                USING ERRCODE = 'invalid_parameter_value', COLUMN = v_name,
                      HINT = 'Enqueue a new job with --option ' || v_name || '=…';
        END IF;
        IF v_allowed IS NULL OR v_name <> ALL (v_allowed) THEN
            RAISE EXCEPTION '%options.%: not an option a retry changes for %', p_place, v_name, v_what
                USING ERRCODE = 'invalid_parameter_value', COLUMN = v_name,
                      HINT = CASE WHEN v_allowed IS NULL THEN 'Remove it: a retry of ' || v_what || ' changes no options.'
                                  ELSE 'Remove it; a retry of ' || v_what || ' changes: ' || array_to_string(v_allowed, ', ') || '.' END;
        END IF;
        IF jsonb_typeof(v_value) = 'string'
           AND (octet_length(v_value #>> '{}') NOT BETWEEN 1 AND 1024 OR v_value #>> '{}' ~ '[\x01-\x1f\x7f]') THEN
            RAISE EXCEPTION '%options.%: must be 1 to 1024 bytes of printable characters', p_place, v_name
                USING ERRCODE = 'invalid_parameter_value', COLUMN = v_name, HINT = 'Shorten the value or remove control characters.';
        END IF;
        IF v_name = 'sha256' AND jsonb_typeof(v_value) = 'string' AND v_value #>> '{}' !~ '^[0-9a-f]{64}$' THEN
            RAISE EXCEPTION '%options.sha256: must be 64 lowercase hexadecimal digits', p_place
                USING ERRCODE = 'invalid_parameter_value', COLUMN = 'sha256', HINT = 'Give the file''s SHA-256 as printed by sha256sum.';
        END IF;
    END LOOP;
    -- Types, ranges and choices: the words of an enqueue's check.
    PERFORM ferry.check_provider_options(p_kind, p_source, p_destination, v_options, p_place || 'options.');

    IF (p_data -> 'spec') IS DISTINCT FROM ferry.requeued_spec(p_spec, v_options) THEN
        RAISE EXCEPTION '%spec: must be the job''s spec with "options" applied', p_place
            USING ERRCODE = 'invalid_parameter_value', COLUMN = 'spec',
                  HINT = 'Write ''spec'', ferry.requeued_spec(j.spec, OPTIONS) from the job''s row (or retry with ferry retry --option).';
    END IF;
END
$_$;

CREATE FUNCTION ferry.check_schedule_event() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $_$
DECLARE
    d        jsonb := NEW.data;
    t        jsonb := NEW.data -> 'template';
    minimum  bigint;
    field    text;
    problem  text;
    hint     text;
    extra    text;
BEGIN
    -- The owner may anything, as with job events (definition 240): it runs ferry migrate, repairs and tests.
    IF pg_has_role(current_user, (SELECT c.relowner FROM pg_catalog.pg_class c WHERE c.oid = TG_RELID), 'USAGE') THEN
        RETURN NEW;
    END IF;
    IF NEW.type NOT IN ('added', 'replaced') THEN
        -- Pause, resume, remove, run: small data of printable text (a pause's reason is shown to operators).
        IF octet_length(d::text) > 4096 OR coalesce(d ->> 'reason' ~ '[\x01-\x1f\x7f]', false) THEN
            RAISE EXCEPTION 'data: at most 4 KiB of printable text' USING ERRCODE = 'invalid_parameter_value',
                COLUMN = 'data', HINT = 'Change schedules with ferry schedule pause|resume|remove|run.';
        END IF;
        RETURN NEW;
    END IF;
    minimum := coalesce((SELECT st.value::bigint FROM ferry.settings st
                          WHERE st.name = 'schedule_min_interval_seconds' AND st.value ~ '^[0-9]{1,9}$'), 60);

    IF (d ? 'every_seconds') = (d ? 'cron') THEN
        field := 'every_seconds'; problem := 'give every_seconds or cron, one of them';
        hint := 'ferry schedule add NAME --every 1h or --cron "0 * * * *".';
    ELSIF d ? 'every_seconds' AND (jsonb_typeof(d -> 'every_seconds') <> 'number' OR (d ->> 'every_seconds') !~ '^[0-9]{1,12}$'
                                   OR (d ->> 'every_seconds')::bigint NOT BETWEEN minimum AND 366 * 86400) THEN
        field := 'every_seconds'; problem := format('must be a whole number of seconds from %s to a year', minimum);
        hint := 'Schedules tick at most once a minute; use --every 1m or longer.';
    ELSIF d ? 'cron' AND (jsonb_typeof(d -> 'cron') <> 'string' OR octet_length(d ->> 'cron') NOT BETWEEN 1 AND 200
                          OR (d ->> 'cron') ~ '[\x01-\x1f\x7f]') THEN
        field := 'cron'; problem := 'must be a cron expression of at most 200 printable bytes';
        hint := 'Write five fields such as "0 6 * * *", or @daily.';
    ELSIF jsonb_typeof(d -> 'timezone') IS DISTINCT FROM 'string' OR (d ->> 'timezone') !~ '^[A-Za-z0-9_+/-]{1,64}$' THEN
        field := 'timezone'; problem := 'must be a time zone name such as UTC or Europe/Paris';
        hint := 'ferry schedule add --timezone ZONE.';
    ELSIF jsonb_typeof(d -> 'next_tick') IS DISTINCT FROM 'string'
          OR (d ->> 'next_tick') !~ '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,9})?(Z|[+-]\d\d:?\d\d)$' THEN
        field := 'next_tick'; problem := 'must be an ISO 8601 time'; hint := 'Add schedules with ferry schedule add.';
    ELSIF d ? 'overlap' AND coalesce(d ->> 'overlap' NOT IN ('skip', 'allow'), true) THEN
        field := 'overlap'; problem := 'must be skip or allow'; hint := 'ferry schedule add --overlap skip|allow.';
    ELSIF jsonb_typeof(t) IS DISTINCT FROM 'object' OR octet_length(t::text) > 65536 THEN
        field := 'template'; problem := 'must be a JSON object of at most 64 KiB'; hint := 'Add schedules with ferry schedule add.';
    ELSIF (SELECT min(k) FROM jsonb_object_keys(t) k
            WHERE k <> ALL (ARRAY['kind', 'source', 'to', 'batch', 'queue', 'priority', 'max_attempts', 'metadata',
                                  'options', 'option_text'])) IS NOT NULL THEN
        field := 'template'; problem := 'has fields ferry schedule add never writes (--key and --run-at belong to the schedule)';
        hint := 'Use only kind, source, to, batch, queue, priority, max_attempts, metadata, options, option_text.';
    ELSIF jsonb_typeof(t -> 'to') IS DISTINCT FROM 'string' THEN
        field := 'template.to'; problem := 'missing'; hint := 'Give the destination as a string.';
    ELSIF coalesce(jsonb_typeof(t -> 'options'), 'object') <> 'object' OR coalesce(jsonb_typeof(t -> 'option_text'), 'object') <> 'object' THEN
        field := 'template.options'; problem := 'must be JSON objects'; hint := 'Add schedules with ferry schedule add.';
    ELSIF t ->> 'kind' = 'upload' AND coalesce(t #> '{options,tree}', 'false'::jsonb) <> 'true'::jsonb
          AND coalesce(t #>> '{option_text,tree}', '') <> 'true' THEN
        field := 'template.kind'; problem := 'a scheduled upload sends a folder walked at each tick, not a single file';
        hint := 'ferry schedule add NAME --every 1d -- upload DIR --recursive --to DEST/';
    ELSIF (t ? 'options' AND (SELECT count(*) FROM jsonb_object_keys(t -> 'options')) > 64)
          OR (t ? 'option_text' AND (SELECT count(*) FROM jsonb_object_keys(t -> 'option_text')) > 64) THEN
        field := 'template.options'; problem := 'more than 64 options'; hint := 'Give only the options the job needs.';
    ELSE
        -- A text option of the command line (--option filter=…) is the same filter once typed.
        extra := ferry.filter_problem(t #> '{option_text,filter}');
        IF extra IS NOT NULL THEN
            field := 'template.filter'; problem := extra;
            hint := 'Give filters with --include, --exclude and the size and age flags, within the limits in docs/cli.md.';
        END IF;
    END IF;
    IF field IS NOT NULL THEN
        RAISE EXCEPTION '%: %', field, problem USING ERRCODE = 'invalid_parameter_value', COLUMN = field, HINT = hint;
    END IF;

    -- The template as the job it enqueues at each tick (a template is not one yet: defaults stand in).
    PERFORM ferry.check_enqueued(jsonb_strip_nulls(jsonb_build_object(
        'kind', t -> 'kind', 'queue', coalesce(t -> 'queue', '"default"'), 'priority', coalesce(t -> 'priority', '0'),
        'max_attempts', coalesce(t -> 'max_attempts', '10'), 'source', t -> 'source', 'destination', t -> 'to',
        'batch', t -> 'batch', 'metadata', t -> 'metadata',
        'spec', jsonb_build_object('unresolved', jsonb_build_object('options', coalesce(t -> 'options', '{}'))))), 'template.');
    RETURN NEW;
END
$_$;

CREATE FUNCTION ferry.claim_jobs(p_worker text, p_queues text[], p_limit integer) RETURNS SETOF ferry.jobs
    LANGUAGE plpgsql
    SET plan_cache_mode TO 'force_generic_plan'
    SET enable_seqscan TO 'off'
    AS $$
DECLARE
    picked   uuid[];
    owners   text[];
    acct     record;
    running  bigint;
BEGIN
    WITH RECURSIVE
    -- Paused queues are skipped (a primary-key probe of the small queue_controls table per queue).
    queues AS (
        SELECT DISTINCT name FROM unnest(p_queues) AS name
         WHERE name IS NOT NULL
           AND NOT EXISTS (SELECT 1 FROM ferry.queue_controls c WHERE c.queue = name AND c.paused)
    ),
    -- Each probe returns the first queued row it can see, whose key (run_at, job_id) is where its level's scan
    -- starts: entries before it (claimed jobs whose dead index entries wait for vacuum) are stepped over once
    -- per level, not once per probe and once more per scan. The same snapshot, so nothing visible is skipped.
    groups(queue, acct, p, r, id) AS (
        SELECT q.name, f.acct, f.priority, f.run_at, f.job_id
          FROM queues q
         CROSS JOIN LATERAL (SELECT coalesce(j.account, '') AS acct, j.priority, j.run_at, j.job_id FROM ferry.jobs j
                              WHERE j.state = 'queued' AND j.queue = q.name
                              ORDER BY coalesce(j.account, ''), j.priority DESC, j.run_at, j.job_id LIMIT 1) f
        UNION ALL
        SELECT g.queue, f.acct, f.priority, f.run_at, f.job_id
          FROM groups g
         CROSS JOIN LATERAL (SELECT coalesce(j.account, '') AS acct, j.priority, j.run_at, j.job_id FROM ferry.jobs j
                              WHERE j.state = 'queued' AND j.queue = g.queue AND coalesce(j.account, '') > g.acct
                              ORDER BY coalesce(j.account, ''), j.priority DESC, j.run_at, j.job_id LIMIT 1) f
    ),
    room AS MATERIALIZED (
        SELECT g.queue, g.acct, g.p, g.r, g.id,
               CASE WHEN g.acct = '' THEN p_limit
                    ELSE least(p_limit, coalesce(a.max_concurrent, 4) - ferry.account_transfers(g.acct))
               END AS n
          FROM groups g
          LEFT JOIN ferry.accounts a ON a.name = g.acct
         WHERE g.acct = '' OR a.status IS NULL OR a.status = 'active'
    ),
    candidates AS (
        SELECT c.job_id, c.priority, c.run_at, c.account, r.n
          FROM room r
         CROSS JOIN LATERAL (
               WITH RECURSIVE levels(p, r, id) AS (
                   SELECT r.p, r.r, r.id
                   UNION ALL
                   SELECT f.priority, f.run_at, f.job_id
                     FROM levels l
                    CROSS JOIN LATERAL (SELECT j.priority, j.run_at, j.job_id FROM ferry.jobs j
                                         WHERE j.state = 'queued' AND j.queue = r.queue AND coalesce(j.account, '') = r.acct
                                           AND j.priority < l.p
                                         ORDER BY j.priority DESC, j.run_at, j.job_id LIMIT 1) f
               )
               SELECT s.* FROM levels l
                CROSS JOIN LATERAL (
                      SELECT j.job_id, j.priority, j.run_at, j.account FROM ferry.jobs j
                       WHERE j.state = 'queued' AND j.queue = r.queue AND coalesce(j.account, '') = r.acct
                         AND j.priority = l.p AND (j.run_at, j.job_id) >= (l.r, l.id) AND j.run_at <= now()
                       ORDER BY j.run_at, j.job_id
                       LIMIT r.n
                         FOR UPDATE OF j SKIP LOCKED) s
                LIMIT r.n) c
         WHERE r.n > 0
    ),
    ranked AS (
        -- An account's jobs in several queues share its room.
        SELECT c.*, row_number() OVER (PARTITION BY c.account ORDER BY c.priority DESC, c.run_at, c.job_id) AS k
          FROM candidates c
    ),
    winners AS (
        SELECT w.job_id, w.account, w.priority, w.run_at FROM ranked w
         WHERE w.account IS NULL OR w.k <= w.n
         ORDER BY w.priority DESC, w.run_at, w.job_id
         LIMIT p_limit
    )
    -- In claim order: the per-account cut below keeps each account's best winners.
    SELECT array_agg(w.job_id ORDER BY w.priority DESC, w.run_at, w.job_id),
           array_agg(w.account ORDER BY w.priority DESC, w.run_at, w.job_id)
      INTO picked, owners
      FROM winners w;
    IF picked IS NULL THEN
        RETURN;
    END IF;

    -- The room above was read without locks; claims committed since by other workers are seen only now.
    FOR acct IN
        SELECT a.name, coalesce(x.max_concurrent, 4) AS cap
          FROM (SELECT DISTINCT o AS name FROM unnest(owners) AS o WHERE o IS NOT NULL) a
          LEFT JOIN ferry.accounts x ON x.name = a.name
         ORDER BY a.name           -- one lock order for everyone: no deadlocks
    LOOP
        PERFORM pg_advisory_xact_lock(hashtext('ferry.account'), hashtext(acct.name));
        -- A fresh snapshot after the lock sees every claim committed by whoever held it before us.
        running := ferry.account_transfers(acct.name);
        -- Keep the account's first (cap - running) winners in claim order, and everything else.
        SELECT coalesce(array_agg(x.id ORDER BY x.pos), '{}'), coalesce(array_agg(x.owner ORDER BY x.pos), '{}')
          INTO picked, owners
          FROM (SELECT p.id, p.owner, p.pos,
                       count(*) FILTER (WHERE p.owner = acct.name) OVER (ORDER BY p.pos) AS nth
                  FROM unnest(picked, owners) WITH ORDINALITY AS p(id, owner, pos)) x
         WHERE x.owner IS DISTINCT FROM acct.name OR x.nth <= acct.cap - running;
    END LOOP;
    IF cardinality(picked) = 0 THEN
        RETURN;
    END IF;

    INSERT INTO ferry.events (job_id, version, type, data)
    SELECT j.job_id, j.version + 1, 'claimed', jsonb_build_object('lease', j.lease + 1, 'worker', p_worker)
      FROM ferry.jobs j
     WHERE j.job_id = ANY (picked);

    RETURN QUERY
    SELECT j.* FROM ferry.jobs j WHERE j.job_id = ANY (picked);
END
$$;

CREATE FUNCTION ferry.claim_remote_folder(p_scope text, p_path text, p_owner text, p_stale interval) RETURNS TABLE(remote_id text, claimed boolean)
    LANGUAGE plpgsql
    AS $$
DECLARE
    found ferry.remote_folders%ROWTYPE;
BEGIN
    INSERT INTO ferry.remote_folders (scope, path, claimed_by) VALUES (p_scope, p_path, p_owner)
        ON CONFLICT DO NOTHING;
    IF FOUND THEN
        RETURN QUERY SELECT NULL::text, true;
        RETURN;
    END IF;
    SELECT * INTO found FROM ferry.remote_folders f WHERE f.scope = p_scope AND f.path = p_path FOR UPDATE;
    IF found.remote_id IS NOT NULL THEN
        RETURN QUERY SELECT found.remote_id, false;
    ELSIF found.claimed_by = p_owner OR found.claimed_at < now() - p_stale THEN
        UPDATE ferry.remote_folders f SET claimed_by = p_owner, claimed_at = now() WHERE f.scope = p_scope AND f.path = p_path;
        RETURN QUERY SELECT NULL::text, true;
    ELSE
        RETURN QUERY SELECT NULL::text, false;
    END IF;
END;
$$;

CREATE FUNCTION ferry.compact_counters() RETURNS bigint
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
DECLARE
    folded  bigint;
    n       bigint;
    touched text[];
BEGIN
    folded := ferry.compact_queue_counts();

    IF pg_try_advisory_xact_lock(hashtext('ferry.batch_counts'), 0) THEN
        WITH moved AS (
            DELETE FROM ferry.batch_count_deltas RETURNING *
        ), summed AS (
            SELECT batch, sum(jobs) AS jobs, sum(queued) AS queued, sum(running) AS running,
                   sum(succeeded) AS succeeded, sum(failed) AS failed, sum(cancelled) AS cancelled,
                   sum(bytes_done) AS bytes_done, sum(bytes_total) AS bytes_total, sum(sized) AS sized,
                   min(enqueued_at) AS enqueued_at, min(started_at) AS started_at, max(finished_at) AS finished_at,
                   min(first_job::text COLLATE "C")::uuid AS first_job, sum(unchanged) AS unchanged,
                   sum(unchanged_bytes) AS unchanged_bytes, sum(discarded) AS discarded, count(*) AS n
              FROM moved GROUP BY batch
        ), applied AS (
            INSERT INTO ferry.batch_counts AS c
            SELECT batch, jobs, queued, running, succeeded, failed, cancelled, bytes_done, bytes_total, sized,
                   enqueued_at, started_at, finished_at, first_job, unchanged, unchanged_bytes, discarded
              FROM summed ORDER BY batch
            ON CONFLICT (batch) DO UPDATE
               SET jobs = c.jobs + excluded.jobs, queued = c.queued + excluded.queued,
                   running = c.running + excluded.running, succeeded = c.succeeded + excluded.succeeded,
                   failed = c.failed + excluded.failed, cancelled = c.cancelled + excluded.cancelled,
                   bytes_done = c.bytes_done + excluded.bytes_done, bytes_total = c.bytes_total + excluded.bytes_total,
                   sized = c.sized + excluded.sized,
                   enqueued_at = least(c.enqueued_at, excluded.enqueued_at),
                   started_at = least(c.started_at, excluded.started_at),
                   finished_at = greatest(c.finished_at, excluded.finished_at),
                   first_job = least(c.first_job, excluded.first_job),
                   unchanged = c.unchanged + excluded.unchanged,
                   unchanged_bytes = c.unchanged_bytes + excluded.unchanged_bytes,
                   discarded = c.discarded + excluded.discarded
        )
        SELECT coalesce(sum(s.n), 0), array_agg(s.batch) INTO n, touched FROM summed s;
        folded := folded + n;
        -- Every job of these batches archived: the batch is gone.
        DELETE FROM ferry.batch_counts WHERE batch = ANY (touched) AND jobs = 0;
    END IF;

    IF pg_try_advisory_xact_lock(hashtext('ferry.throughput_counts'), 0) THEN
        WITH moved AS (
            DELETE FROM ferry.throughput_deltas RETURNING *
        ), summed AS (
            SELECT minute, queue, sum(succeeded) AS succeeded, sum(failed) AS failed, sum(bytes) AS bytes, count(*) AS n
              FROM moved GROUP BY minute, queue
        ), applied AS (
            INSERT INTO ferry.throughput_counts AS c (minute, queue, succeeded, failed, bytes)
            SELECT minute, queue, succeeded, failed, bytes FROM summed ORDER BY minute, queue
            ON CONFLICT (minute, queue) DO UPDATE
               SET succeeded = c.succeeded + excluded.succeeded, failed = c.failed + excluded.failed,
                   bytes = c.bytes + excluded.bytes
        )
        SELECT coalesce(sum(s.n), 0) INTO n FROM summed s;
        folded := folded + n;
        DELETE FROM ferry.throughput_counts WHERE minute < now() - interval '1 day';
    END IF;
    RETURN folded;
END
$$;

CREATE FUNCTION ferry.compact_queue_counts() RETURNS bigint
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
DECLARE
    folded bigint;
BEGIN
    IF NOT pg_try_advisory_xact_lock(hashtext('ferry.queue_counts'), 0) THEN
        RETURN 0;
    END IF;
    WITH moved AS (
        DELETE FROM ferry.queue_count_deltas RETURNING queue, state, delta
    ), summed AS (
        SELECT queue, state, sum(delta) AS delta, count(*) AS n FROM moved GROUP BY queue, state
    ), applied AS (
        INSERT INTO ferry.queue_counts AS c (queue, state, jobs)
        SELECT queue, state, delta FROM summed ORDER BY queue, state
        ON CONFLICT (queue, state) DO UPDATE SET jobs = c.jobs + excluded.jobs
    )
    SELECT coalesce(sum(n), 0) INTO folded FROM summed;
    DELETE FROM ferry.queue_counts WHERE jobs = 0;
    RETURN folded;
END
$$;

CREATE FUNCTION ferry.count_changes(p_changes ferry.job_change[]) RETURNS void
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'pg_temp'
    SET plan_cache_mode TO 'force_generic_plan'
    AS $$
BEGIN
    IF p_changes IS NULL OR cardinality(p_changes) = 0 THEN
        RETURN;
    END IF;

    INSERT INTO ferry.queue_count_deltas (queue, state, delta)
    SELECT t.queue, t.state, sum(t.delta)
      FROM (SELECT c.queue, c.was_state AS state, -1 AS delta FROM unnest(p_changes) c
             WHERE c.was_state IS NOT NULL AND c.was_state IS DISTINCT FROM c.state
            UNION ALL
            SELECT c.queue, c.state, 1 FROM unnest(p_changes) c
             WHERE c.state IS NOT NULL AND c.was_state IS DISTINCT FROM c.state) t
     GROUP BY t.queue, t.state
    HAVING sum(t.delta) <> 0;

    INSERT INTO ferry.batch_count_deltas
    SELECT d.*
      FROM (SELECT c.batch,
                   sum((c.state IS NOT NULL)::int - (c.was_state IS NOT NULL)::int)::bigint AS jobs,
                   sum((c.state IS NOT DISTINCT FROM 'queued')::int - (c.was_state IS NOT DISTINCT FROM 'queued')::int)::bigint AS queued,
                   sum((c.state IS NOT DISTINCT FROM 'running')::int - (c.was_state IS NOT DISTINCT FROM 'running')::int)::bigint AS running,
                   sum((c.state IS NOT DISTINCT FROM 'succeeded')::int - (c.was_state IS NOT DISTINCT FROM 'succeeded')::int)::bigint AS succeeded,
                   sum((c.state IS NOT DISTINCT FROM 'failed')::int - (c.was_state IS NOT DISTINCT FROM 'failed')::int)::bigint AS failed,
                   sum((c.state IS NOT DISTINCT FROM 'cancelled')::int - (c.was_state IS NOT DISTINCT FROM 'cancelled')::int)::bigint AS cancelled,
                   sum(CASE WHEN c.state IS NULL THEN 0 ELSE ferry.batch_bytes_done(c.state, c.bytes_done, c.bytes_total) END
                       - CASE WHEN c.was_state IS NULL THEN 0
                              ELSE ferry.batch_bytes_done(c.was_state, c.was_bytes_done, c.was_bytes_total) END)::bigint AS bytes_done,
                   sum(CASE WHEN c.state IS NULL THEN 0 ELSE coalesce(c.bytes_total, 0) END
                       - CASE WHEN c.was_state IS NULL THEN 0 ELSE coalesce(c.was_bytes_total, 0) END)::bigint AS bytes_total,
                   sum((c.state IS NOT NULL AND c.bytes_total IS NOT NULL)::int
                       - (c.was_state IS NOT NULL AND c.was_bytes_total IS NOT NULL)::int)::bigint AS sized,
                   min(c.enqueued_at) AS enqueued_at, min(c.started_at) AS started_at, max(c.finished_at) AS finished_at,
                   min(c.job_id::text COLLATE "C") FILTER (WHERE c.was_state IS NULL)::uuid AS first_job,
                   sum(coalesce(c.unchanged, false)::int - coalesce(c.was_unchanged, false)::int)::bigint AS unchanged,
                   sum(CASE WHEN c.unchanged THEN coalesce(c.bytes_total, 0) ELSE 0 END
                       - CASE WHEN c.was_unchanged THEN coalesce(c.was_bytes_total, 0) ELSE 0 END)::bigint AS unchanged_bytes,
                   sum((c.state IS NOT DISTINCT FROM 'discarded')::int - (c.was_state IS NOT DISTINCT FROM 'discarded')::int)::bigint AS discarded
              FROM unnest(p_changes) c
             WHERE c.batch IS NOT NULL
             GROUP BY c.batch) d
     WHERE (d.jobs, d.queued, d.running, d.succeeded, d.failed, d.cancelled, d.bytes_done, d.bytes_total, d.sized,
            d.unchanged, d.unchanged_bytes, d.discarded)
           <> (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);

    INSERT INTO ferry.throughput_deltas (minute, queue, succeeded, failed, bytes)
    SELECT date_trunc('minute', c.finished_at), c.queue,
           count(*) FILTER (WHERE c.state = 'succeeded'), count(*) FILTER (WHERE c.state = 'failed'),
           coalesce(sum(coalesce(c.bytes_total, c.bytes_done)) FILTER (WHERE c.state = 'succeeded'), 0)
      FROM unnest(p_changes) c
     WHERE c.state IN ('succeeded', 'failed') AND c.was_state IS NOT NULL AND c.was_state <> c.state
       AND c.finished_at IS NOT NULL
     GROUP BY 1, 2;
END
$$;

CREATE FUNCTION ferry.end_schedule_attempt(p_attempt bigint, p_worker text) RETURNS void
    LANGUAGE sql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
    DELETE FROM ferry.schedule_attempts WHERE position = p_attempt AND worker = p_worker
$$;

CREATE FUNCTION ferry.enqueue(p_kind text, p_source text, p_destination text, p_options jsonb DEFAULT '{}'::jsonb) RETURNS uuid
    LANGUAGE sql
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
    SELECT m.job_id
      FROM ferry.enqueue_many(jsonb_build_array(
               coalesce(p_options, '{}'::jsonb)
               || jsonb_build_object('kind', p_kind, 'source', p_source, 'destination', p_destination))) m
$$;

COMMENT ON FUNCTION ferry.enqueue(p_kind text, p_source text, p_destination text, p_options jsonb) IS 'Enqueues one upload or fetch in the caller''s transaction; returns the job id. Options: queue, priority, max_attempts, batch, run_at, key, metadata, account, traceparent, options (provider options). See migration 0020.';

CREATE FUNCTION ferry.enqueue_many(p_jobs jsonb) RETURNS TABLE(ordinal integer, job_id uuid, created boolean)
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
DECLARE
    element  jsonb;
    made     record;
    n        integer := 0;
    ids      uuid[] := '{}';
    fresh    boolean[] := '{}';
    datas    jsonb[] := '{}';
    keys     text[] := '{}';
    found_id uuid;
    found_fp text;
    keyed    boolean;
    tries    integer := 0;
    place    text;
BEGIN
    IF p_jobs IS NULL OR jsonb_typeof(p_jobs) <> 'array' THEN
        RAISE EXCEPTION 'jobs: must be a JSON array of objects'
            USING ERRCODE = 'invalid_parameter_value', COLUMN = 'jobs',
                  HINT = 'Pass ''[{"kind": "fetch", "source": "…", "destination": "/…"}]''.';
    END IF;
    FOR element IN SELECT value FROM jsonb_array_elements(p_jobs) LOOP
        -- A single job (ferry.enqueue) is named by its field alone.
        place := CASE WHEN jsonb_array_length(p_jobs) > 1 THEN format('jobs[%s].', n) ELSE '' END;
        IF jsonb_typeof(element) <> 'object' THEN
            RAISE EXCEPTION '%: must be a JSON object', coalesce(nullif(rtrim(place, '.'), ''), 'job')
                USING ERRCODE = 'invalid_parameter_value', COLUMN = 'jobs', HINT = 'Write one {…} object per job.';
        END IF;
        SELECT * INTO made FROM ferry.enqueue_request(element ->> 'kind', element ->> 'source', element ->> 'destination',
                                                      element - 'kind' - 'source' - 'destination', place);
        ids := ids || made.job_id;
        datas := datas || made.data;
        keys := keys || (made.data ->> 'key');
        n := n + 1;
    END LOOP;
    keyed := EXISTS (SELECT 1 FROM unnest(keys) k WHERE k IS NOT NULL);

    LOOP
        tries := tries + 1;
        fresh := array_fill(true, ARRAY[n]);
        -- Keys that exist already, or repeat earlier in this call, name the job they named first.
        FOR i IN 1 .. n LOOP
            CONTINUE WHEN keys[i] IS NULL;
            found_id := NULL;
            found_fp := NULL;
            SELECT j.job_id, e.data ->> 'fingerprint' INTO found_id, found_fp
              FROM ferry.jobs j
              LEFT JOIN ferry.events e ON e.job_id = j.job_id AND e.version = 1
             WHERE j.idempotency_key = keys[i];
            IF found_id IS NULL THEN
                FOR k IN 1 .. i - 1 LOOP
                    IF keys[k] = keys[i] AND fresh[k] THEN
                        found_id := ids[k];
                        found_fp := datas[k] ->> 'fingerprint';
                        EXIT;
                    END IF;
                END LOOP;
            END IF;
            CONTINUE WHEN found_id IS NULL;
            -- A key first used by the CLI carries the CLI's kind of fingerprint: only like compares with like.
            IF found_fp LIKE 'sql:%' AND found_fp <> datas[i] ->> 'fingerprint' THEN
                RAISE EXCEPTION '%key: the idempotency key % belongs to job %, which was enqueued with different arguments; nothing was enqueued',
                    CASE WHEN n > 1 THEN format('jobs[%s].', i - 1) ELSE '' END, quote_literal(keys[i]), found_id
                    USING ERRCODE = 'FY012', COLUMN = 'key',
                          HINT = 'Give this job a key of its own, or repeat the original arguments to get the existing job.';
            END IF;
            ids[i] := found_id;
            fresh[i] := false;
        END LOOP;

        IF NOT keyed THEN
            -- One statement: the projection folds every job at once.
            INSERT INTO ferry.events (job_id, version, type, data)
            SELECT ids[i], 1, 'enqueued', datas[i] FROM generate_series(1, n) i ORDER BY i;
            EXIT;
        END IF;
        BEGIN
            INSERT INTO ferry.events (job_id, version, type, data)
            SELECT ids[i], 1, 'enqueued', datas[i] FROM generate_series(1, n) i WHERE fresh[i] ORDER BY i;
            EXIT;
        EXCEPTION WHEN unique_violation THEN
            -- Another transaction committed one of these keys after the lookup above: look again.
            IF tries >= 3 THEN
                RAISE EXCEPTION 'key: another producer enqueued one of these idempotency keys at the same moment; nothing was enqueued'
                    USING ERRCODE = 'FY012', COLUMN = 'key', HINT = 'Run the same call again: keys that exist now return their jobs.';
            END IF;
        END;
    END LOOP;

    RETURN QUERY SELECT i - 1, ids[i], fresh[i] FROM generate_series(1, n) i ORDER BY i;
END
$$;

COMMENT ON FUNCTION ferry.enqueue_many(p_jobs jsonb) IS 'Enqueues a JSON array of jobs in the caller''s transaction, all or none; one row per element: ordinal, job_id, created.';

CREATE FUNCTION ferry.enqueue_request(p_kind text, p_source text, p_destination text, p_options jsonb, p_place text, OUT job_id uuid, OUT data jsonb) RETURNS record
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $_$
DECLARE
    known    CONSTANT text[] := ARRAY['account', 'batch', 'key', 'max_attempts', 'metadata', 'options', 'priority',
                                      'queue', 'run_at', 'traceparent'];
    field    text;
    local    text;
    remote   text;
    queue    text;
    priority numeric;   -- numeric until checked: {"priority": 1e300} is out of range, not a bigint overflow
    attempts numeric;
    batch    text;
    key      text;
    run_at   timestamptz;
    account  text;
    named    text;
    scheme   text;
    provider text;
    request  jsonb;
BEGIN
    IF p_kind IS NULL OR p_kind NOT IN ('upload', 'fetch', 'copy') THEN
        RAISE EXCEPTION '%kind: must be ''upload'', ''fetch'' or ''copy'', not %', p_place, coalesce(quote_literal(p_kind), 'null')
            USING ERRCODE = 'invalid_parameter_value', COLUMN = 'kind',
                  HINT = 'upload sends a local file to a provider; fetch brings a remote file to a local path; copy moves a remote file or folder to another provider.';
    END IF;
    IF p_options IS NULL OR jsonb_typeof(p_options) <> 'object' THEN
        RAISE EXCEPTION '%options: must be a JSON object', p_place
            USING ERRCODE = 'invalid_parameter_value', COLUMN = 'options', HINT = 'Pass ''{}'' for no options.';
    END IF;
    SELECT min(k) INTO field FROM jsonb_object_keys(p_options) k WHERE k <> ALL (known);
    IF field IS NOT NULL THEN
        RAISE EXCEPTION '%: unknown option', p_place || field
            USING ERRCODE = 'invalid_parameter_value', COLUMN = field,
                  HINT = 'Use only: ' || array_to_string(known, ', ') || '; provider options go inside "options".';
    END IF;
    -- Type checks: every option but metadata and options is a scalar of one type.
    FOREACH field IN ARRAY ARRAY['account', 'batch', 'key', 'queue', 'run_at', 'traceparent'] LOOP
        IF p_options ? field AND jsonb_typeof(p_options -> field) NOT IN ('string', 'null') THEN
            RAISE EXCEPTION '%: must be a string', p_place || field
                USING ERRCODE = 'invalid_parameter_value', COLUMN = field, HINT = 'Quote the value.';
        END IF;
    END LOOP;
    FOREACH field IN ARRAY ARRAY['priority', 'max_attempts'] LOOP
        IF p_options ? field AND (jsonb_typeof(p_options -> field) NOT IN ('number', 'null')
                                  OR (p_options ->> field)::numeric <> trunc((p_options ->> field)::numeric)) THEN
            RAISE EXCEPTION '%: must be a whole number', p_place || field
                USING ERRCODE = 'invalid_parameter_value', COLUMN = field, HINT = 'Write an integer without quotes.';
        END IF;
    END LOOP;
    FOREACH field IN ARRAY ARRAY['metadata', 'options'] LOOP
        IF p_options ? field AND jsonb_typeof(p_options -> field) NOT IN ('object', 'null') THEN
            RAISE EXCEPTION '%: must be a JSON object', p_place || field
                USING ERRCODE = 'invalid_parameter_value', COLUMN = field,
                      HINT = CASE field WHEN 'metadata' THEN 'Write {"title": "…"}.' ELSE 'Write {"mode": "overwrite"}.' END;
        END IF;
    END LOOP;

    -- The local side is a path on the worker's machine: absolute, since SQL has no working directory. A copy has
    -- none: its two remote sides are checked first, by the raw events' check (the same words either way).
    IF p_kind = 'copy' THEN
        PERFORM ferry.check_enqueued(jsonb_build_object('kind', 'copy', 'queue', 'default', 'priority', 0, 'max_attempts', 1,
                                                        'source', coalesce(p_source, ''), 'destination', coalesce(p_destination, '')),
                                     p_place);
    END IF;
    local := CASE p_kind WHEN 'upload' THEN p_source WHEN 'fetch' THEN p_destination ELSE '/' END;
    remote := CASE p_kind WHEN 'fetch' THEN p_source ELSE p_destination END;
    field := CASE p_kind WHEN 'upload' THEN 'source' ELSE 'destination' END;
    IF local IS NULL OR left(local, 1) <> '/' THEN
        RAISE EXCEPTION '%: must be an absolute path, not %', p_place || field, coalesce(quote_literal(local), 'null')
            USING ERRCODE = 'invalid_parameter_value', COLUMN = field, HINT = 'Start the path with /.';
    END IF;
    IF octet_length(local) > 4096 THEN
        RAISE EXCEPTION '%: longer than 4096 bytes', p_place || field
            USING ERRCODE = 'invalid_parameter_value', COLUMN = field, HINT = 'Shorten the path.';
    END IF;
    field := CASE p_kind WHEN 'fetch' THEN 'source' ELSE 'destination' END;
    IF remote IS NULL OR remote = '' THEN
        RAISE EXCEPTION '%: missing', p_place || field
            USING ERRCODE = 'invalid_parameter_value', COLUMN = field,
                  HINT = CASE p_kind WHEN 'upload' THEN 'Write a provider endpoint (PROVIDER:ACCOUNT:/Photos/, see ferry enqueue --help) or a local folder /srv/out/.'
                                   ELSE 'Write for example https://example.com/a.jpg or a provider endpoint (PROVIDER:ACCOUNT:/Photos/a.jpg).' END;
    END IF;

    queue := coalesce(p_options ->> 'queue', 'default');
    IF queue !~ '^[a-z0-9][a-z0-9_.-]{0,62}$' THEN
        RAISE EXCEPTION '%queue: queue names are 1-63 lowercase letters, digits, _ . - starting with a letter or digit', p_place
            USING ERRCODE = 'invalid_parameter_value', COLUMN = 'queue', HINT = 'Use for example "photos".';
    END IF;
    priority := coalesce((p_options ->> 'priority')::numeric, 0);
    IF priority NOT BETWEEN -100 AND 100 THEN
        RAISE EXCEPTION '%priority: must be from -100 to 100 (higher runs first), not %', p_place, CASE WHEN abs(priority) < 1e9 THEN priority::text ELSE 'a number that large' END
            USING ERRCODE = 'invalid_parameter_value', COLUMN = 'priority', HINT = 'Pick a priority in range.';
    END IF;
    attempts := coalesce((p_options ->> 'max_attempts')::numeric, 10);
    IF attempts NOT BETWEEN 1 AND 1000 THEN
        RAISE EXCEPTION '%max_attempts: must be from 1 to 1000, not %', p_place, CASE WHEN abs(attempts) < 1e9 THEN attempts::text ELSE 'a number that large' END
            USING ERRCODE = 'invalid_parameter_value', COLUMN = 'max_attempts', HINT = 'Pick a number of attempts in range.';
    END IF;
    batch := p_options ->> 'batch';
    IF batch IS NOT NULL AND (batch = '' OR octet_length(batch) > 200 OR batch ~ '[\x01-\x1f\x7f]') THEN
        RAISE EXCEPTION '%batch: batch names are 1-200 bytes of printable characters', p_place
            USING ERRCODE = 'invalid_parameter_value', COLUMN = 'batch', HINT = 'Shorten the name or remove control characters.';
    END IF;
    key := p_options ->> 'key';
    IF key IS NOT NULL AND (key = '' OR octet_length(key) > 255 OR key ~ '[\x01-\x1f\x7f]') THEN
        RAISE EXCEPTION '%key: idempotency keys are 1-255 bytes of printable characters', p_place
            USING ERRCODE = 'invalid_parameter_value', COLUMN = 'key', HINT = 'Use a shorter key (for example a hash).';
    END IF;
    IF octet_length(coalesce(p_options -> 'metadata', 'null')::text) > 16384 THEN
        RAISE EXCEPTION '%metadata: larger than 16 KiB', p_place
            USING ERRCODE = 'invalid_parameter_value', COLUMN = 'metadata', HINT = 'Keep metadata small; store large data elsewhere.';
    END IF;
    IF p_options ->> 'run_at' IS NOT NULL THEN
        BEGIN
            run_at := (p_options ->> 'run_at')::timestamptz;
        EXCEPTION WHEN invalid_datetime_format OR datetime_field_overflow OR invalid_parameter_value THEN
            RAISE EXCEPTION '%run_at: not a time: %', p_place, quote_literal(p_options ->> 'run_at')
                USING ERRCODE = 'invalid_parameter_value', COLUMN = 'run_at',
                      HINT = 'Write an ISO 8601 time with a zone, for example 2026-11-21T18:00:00Z.';
        END;
        IF run_at > now() + interval '366 days' THEN
            RAISE EXCEPTION '%run_at: more than a year ahead', p_place
                USING ERRCODE = 'invalid_parameter_value', COLUMN = 'run_at', HINT = 'Schedule within 366 days.';
        END IF;
    END IF;

    -- W3C trace context, version 00: the job's attempts join this trace (OpenTelemetry, when workers export).
    IF p_options ->> 'traceparent' IS NOT NULL
       AND (p_options ->> 'traceparent' !~ '^00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$'
            OR substr(p_options ->> 'traceparent', 4, 32) = repeat('0', 32)
            OR substr(p_options ->> 'traceparent', 37, 16) = repeat('0', 16)) THEN
        RAISE EXCEPTION '%traceparent: not a W3C traceparent', p_place
            USING ERRCODE = 'invalid_parameter_value', COLUMN = 'traceparent',
                  HINT = 'Write 00-<32 lowercase hex trace id>-<16 hex parent id>-<2 hex flags>, ids not all zero.';
    END IF;

    -- Accounts: one named in the endpoint (PROVIDER:ACCOUNT:…, as Dropbox and S3 write them) or in "account"
    -- must exist and belong to that provider; the two must agree.
    account := p_options ->> 'account';
    IF account IS NOT NULL AND account !~ '^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$' THEN
        RAISE EXCEPTION '%account: account name is empty or has characters other than letters, digits, _ . -', p_place
            USING ERRCODE = 'invalid_parameter_value', COLUMN = 'account', HINT = 'Use the name given to ferry account add.';
    END IF;
    scheme := lower(substring(remote FROM '^([A-Za-z][A-Za-z0-9+.-]{0,31}):'));
    named := substring(remote FROM '^[A-Za-z][A-Za-z0-9+.-]{0,31}:([A-Za-z0-9][A-Za-z0-9_.-]{0,62}):');
    IF named IS NOT NULL THEN
        IF account IS NOT NULL AND account <> named THEN
            RAISE EXCEPTION '%account: % names account %, but "account" is %', p_place, field, quote_literal(named),
                quote_literal(account)
                USING ERRCODE = 'invalid_parameter_value', COLUMN = 'account', HINT = 'Name the account once, in the endpoint.';
        END IF;
        account := named;
    END IF;
    IF account IS NOT NULL THEN
        SELECT a.provider INTO provider FROM ferry.accounts a WHERE a.name = account;
        IF NOT FOUND THEN
            RAISE EXCEPTION '%account: unknown account %', p_place, quote_literal(account)
                USING ERRCODE = 'invalid_parameter_value', COLUMN = 'account',
                      HINT = 'Add it with ferry account add ' || account || ' --provider PROVIDER, or check the name with ferry account list.';
        END IF;
        IF named IS NOT NULL AND provider <> scheme THEN
            RAISE EXCEPTION '%account: account % is a % account, not %', p_place, quote_literal(account), provider, scheme
                USING ERRCODE = 'invalid_parameter_value', COLUMN = 'account', HINT = 'Name a ' || scheme || ' account (see ferry account list).';
        END IF;
    END IF;

    -- A copy's source account (dropbox:ACCOUNT:…, s3:ACCOUNT:…) must exist and belong to the source's provider.
    IF p_kind = 'copy' THEN
        named := substring(p_source FROM '^[A-Za-z][A-Za-z0-9+.-]{0,31}:([A-Za-z0-9][A-Za-z0-9_.-]{0,62}):');
        scheme := lower(substring(p_source FROM '^([A-Za-z][A-Za-z0-9+.-]{0,31}):'));
        IF named IS NOT NULL THEN
            SELECT a.provider INTO provider FROM ferry.accounts a WHERE a.name = named;
            IF NOT FOUND OR provider <> scheme THEN
                RAISE EXCEPTION '%source: % is not a % account', p_place, quote_literal(named), scheme
                    USING ERRCODE = 'invalid_parameter_value', COLUMN = 'source',
                          HINT = 'Name a ' || scheme || ' account (see ferry account list), or add it with ferry account add.';
            END IF;
        END IF;
    END IF;

    -- Provider options: the names and types the remote side's provider declares (for a copy, the destination's).
    PERFORM ferry.check_provider_options(p_kind, p_source, p_destination, p_options -> 'options', p_place);

    -- What was asked, with defaults filled in: the same request written two ways is the same request. The time is
    -- left out (often relative), as on the CLI's side.
    request := jsonb_build_object('kind', p_kind, 'source', p_source, 'destination', p_destination, 'queue', queue,
                                  'priority', priority::bigint, 'max_attempts', attempts::bigint, 'batch', batch, 'account', account,
                                  'metadata', p_options -> 'metadata', 'options', coalesce(p_options -> 'options', '{}'));

    job_id := ferry.uuid_v7();
    -- Top-level nulls are left out (jsonb_strip_nulls would also rewrite nested objects, metadata included).
    SELECT jsonb_object_agg(f.key, f.value) INTO data
      FROM jsonb_each(jsonb_build_object(
        'kind', p_kind, 'queue', queue, 'priority', priority::bigint, 'max_attempts', attempts::bigint,
        'source', p_source, 'destination', p_destination, 'account', account, 'key', key,
        -- Every fetch gets a batch: whether it fans out (a folder, a photostream) only its provider knows; a copy
        -- of a folder (its source ends in /) does.
        'batch', coalesce(batch, CASE WHEN p_kind = 'fetch' OR (p_kind = 'copy' AND right(p_source, 1) = '/') THEN job_id::text END),
        'run_at', to_char(run_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
        'metadata', CASE WHEN p_options -> 'metadata' = 'null'::jsonb THEN NULL ELSE p_options -> 'metadata' END,
        'traceparent', p_options ->> 'traceparent',
        'fingerprint', 'sql:' || left(encode(sha256(convert_to(request::text, 'UTF8')), 'hex'), 32),
        'spec', jsonb_build_object('unresolved', jsonb_build_object(
            'options', coalesce(p_options -> 'options', '{}'))))) f
     WHERE f.value <> 'null'::jsonb;
    -- The rules every enqueued event obeys, whoever appends it (local paths without '..', no credentials in URLs,
    -- lengths): one definition with the check of raw appends.
    PERFORM ferry.check_enqueued(data, p_place);
END
$_$;

CREATE FUNCTION ferry.enqueued_ok(d jsonb) RETURNS boolean
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $_$
    SELECT jsonb_typeof(d) = 'object'
       AND coalesce(d ->> 'kind' IN ('upload', 'fetch', 'copy'), false)
       AND jsonb_typeof(d -> 'queue') = 'string' AND (d ->> 'queue') ~ '^[a-z0-9][a-z0-9_.-]{0,62}$'
       AND jsonb_typeof(d -> 'priority') = 'number' AND (d ->> 'priority')::numeric BETWEEN -100 AND 100
       AND (d ->> 'priority')::numeric = trunc((d ->> 'priority')::numeric)
       AND jsonb_typeof(d -> 'max_attempts') = 'number' AND (d ->> 'max_attempts')::numeric BETWEEN 1 AND 1000
       AND (d ->> 'max_attempts')::numeric = trunc((d ->> 'max_attempts')::numeric)
       AND jsonb_typeof(d -> 'source') = 'string' AND jsonb_typeof(d -> 'destination') = 'string'
       AND (NOT d ? 'batch' OR (jsonb_typeof(d -> 'batch') = 'string' AND d ->> 'batch' <> ''
                                AND octet_length(d ->> 'batch') <= 200 AND d ->> 'batch' !~ '[\x01-\x1f\x7f]'))
       AND (NOT d ? 'key' OR (jsonb_typeof(d -> 'key') = 'string' AND d ->> 'key' <> ''
                              AND octet_length(d ->> 'key') <= 255 AND d ->> 'key' !~ '[\x01-\x1f\x7f]'))
       AND (NOT d ? 'account' OR (jsonb_typeof(d -> 'account') = 'string'
                                  AND d ->> 'account' ~ '^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$'))
       AND (NOT d ? 'metadata' OR (jsonb_typeof(d -> 'metadata') = 'object' AND octet_length((d -> 'metadata')::text) <= 16384))
       AND (NOT d ? 'traceparent' OR (jsonb_typeof(d -> 'traceparent') = 'string'
                                      AND d ->> 'traceparent' ~ '^00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$'
                                      AND substr(d ->> 'traceparent', 4, 32) <> repeat('0', 32)
                                      AND substr(d ->> 'traceparent', 37, 16) <> repeat('0', 16)))
       AND (NOT d ? 'run_at' OR (jsonb_typeof(d -> 'run_at') = 'string'
                                 AND d ->> 'run_at' ~ '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,9})?(Z|[+-]\d\d:?\d\d)$'))
       AND (NOT d ? 'bytes_total' OR (jsonb_typeof(d -> 'bytes_total') = 'number' AND (d ->> 'bytes_total')::numeric >= 0
                                      AND (d ->> 'bytes_total')::numeric <= 9223372036854775807))
       AND (NOT d ? 'spec' OR jsonb_typeof(d -> 'spec') = 'object')
       -- A listing filter is bounded (definition 398); the probe runs only for a spec that carries one.
       AND (NOT coalesce(d -> 'spec' ? 'filter' OR d #> '{spec,unresolved,options}' ? 'filter', false)
            OR ferry.filter_problem(coalesce(d #> '{spec,filter}', d #> '{spec,unresolved,options,filter}')) IS NULL)
       -- The local side: absolute, bounded, no '..' (a copy has none).
       AND left(CASE d ->> 'kind' WHEN 'upload' THEN d ->> 'source' WHEN 'fetch' THEN d ->> 'destination' ELSE '/' END, 1) = '/'
       AND octet_length(CASE d ->> 'kind' WHEN 'upload' THEN d ->> 'source' WHEN 'fetch' THEN d ->> 'destination' ELSE '/' END) <= 4096
       AND CASE d ->> 'kind' WHEN 'upload' THEN d ->> 'source' WHEN 'fetch' THEN d ->> 'destination' ELSE '/' END !~ '(^|/)\.\.(/|$)'
       -- The remote side: bounded, no credentials; an upload to a local folder (a path or file: URL) has no '..'.
       AND octet_length(CASE d ->> 'kind' WHEN 'fetch' THEN d ->> 'source' ELSE d ->> 'destination' END) BETWEEN 1 AND 8192
       AND CASE d ->> 'kind' WHEN 'fetch' THEN d ->> 'source' ELSE d ->> 'destination' END !~ '^[A-Za-z][A-Za-z0-9+.-]*://[^/?#]*@'
       AND (d ->> 'kind' <> 'upload' OR d ->> 'destination' !~* '^(file:|/)' OR d ->> 'destination' !~* '(^|/)(\.|%2e){2}(/|$)')
       -- A copy: both sides remote (neither a local path nor file:), the source bounded and without credentials.
       AND (d ->> 'kind' <> 'copy' OR (octet_length(d ->> 'source') BETWEEN 1 AND 8192
                                      AND d ->> 'source' !~* '^(file:|/)' AND d ->> 'destination' !~* '^(file:|/)'
                                      AND d ->> 'source' !~ '^[A-Za-z][A-Za-z0-9+.-]*://[^/?#]*@'))
$_$;

CREATE FUNCTION ferry.filter_problem(p_filter jsonb) RETURNS text
    LANGUAGE plpgsql IMMUTABLE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
DECLARE
    f        jsonb := p_filter;
    rule     jsonb;
    pattern  text;
    total    bigint := 0;
    rules    integer;
BEGIN
    IF f IS NULL OR f = 'null'::jsonb THEN
        RETURN NULL;
    END IF;
    IF jsonb_typeof(f) = 'string' THEN
        IF octet_length(f #>> '{}') > 262144 THEN
            RETURN 'longer than 262144 bytes';
        END IF;
        BEGIN
            f := (f #>> '{}')::jsonb;
        EXCEPTION WHEN invalid_text_representation THEN
            RETURN 'not a file filter (not JSON)';
        END;
    ELSIF octet_length(f::text) > 262144 THEN
        RETURN 'longer than 262144 bytes';
    END IF;
    IF jsonb_typeof(f) <> 'object' OR coalesce(jsonb_typeof(f -> 'rules'), 'array') <> 'array' THEN
        RETURN 'not a file filter (an object whose "rules" are an array)';
    END IF;
    rules := coalesce(jsonb_array_length(f -> 'rules'), 0);
    IF rules > 1000 THEN
        RETURN format('%s rules, more than 1000', rules);
    END IF;
    FOR rule IN SELECT r.value FROM jsonb_array_elements(coalesce(f -> 'rules', '[]')) r LOOP
        IF jsonb_typeof(rule) <> 'array' OR jsonb_array_length(rule) <> 3 OR coalesce(rule ->> 0 NOT IN ('+', '-'), true)
           OR jsonb_typeof(rule -> 1) <> 'string' OR jsonb_typeof(rule -> 2) <> 'string' THEN
            RETURN 'a rule is not ["+" or "-", glob, origin]';
        END IF;
        pattern := rule ->> 1;
        IF pattern = '' THEN
            RETURN 'a pattern is empty';
        ELSIF octet_length(pattern) > 1024 THEN
            RETURN format('a pattern is %s bytes long, more than 1024', octet_length(pattern));
        ELSIF length(pattern) - length(translate(pattern, '{,', '')) > 256 THEN
            RETURN format('a pattern holds %s braces and commas, more than 256', length(pattern) - length(translate(pattern, '{,', '')));
        END IF;
        total := total + octet_length(pattern);
    END LOOP;
    IF total > 65536 THEN
        RETURN format('the rules'' patterns take %s bytes, more than 65536', total);
    END IF;
    RETURN NULL;
END
$$;

CREATE FUNCTION ferry.forbid_account_event_change() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
    RAISE EXCEPTION 'ferry.account_events is append-only: % is not allowed', TG_OP
        USING ERRCODE = 'FY010', HINT = 'Record a change by appending a new account event.';
END
$$;

CREATE FUNCTION ferry.forbid_batch_event_change() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
    RAISE EXCEPTION 'ferry.batch_events is append-only: % is not allowed', TG_OP
        USING ERRCODE = 'FY010',
              HINT = 'Batch events follow from job events; append to ferry.events instead.';
END
$$;

CREATE FUNCTION ferry.forbid_event_change() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
    RAISE EXCEPTION 'ferry.events is append-only: % is not allowed', TG_OP
        USING ERRCODE = 'FY010',
              HINT = 'Record a change by appending a new event (for example with ferry cancel or ferry retry).';
END
$$;

CREATE FUNCTION ferry.forget_remote_folder(p_scope text, p_path text, p_id text) RETURNS void
    LANGUAGE sql
    AS $$
    DELETE FROM ferry.remote_folders f WHERE f.scope = p_scope AND f.path = p_path AND f.remote_id = p_id
$$;

CREATE FUNCTION ferry.guard_event_removal() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
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

CREATE FUNCTION ferry.guard_projection() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
BEGIN
    IF NOT pg_has_role(current_user, (SELECT c.relowner FROM pg_catalog.pg_class c WHERE c.oid = TG_RELID), 'USAGE') THEN
        RAISE EXCEPTION 'ferry.jobs is a projection of ferry.events: % is not allowed', TG_OP
            USING ERRCODE = 'FY011', HINT = 'Append an event to ferry.events instead.';
    END IF;
    RETURN NULL;
END
$$;

CREATE FUNCTION ferry.guard_worker_rows() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
BEGIN
    IF pg_has_role(session_user, (SELECT c.relowner FROM pg_catalog.pg_class c WHERE c.oid = TG_RELID), 'USAGE') THEN
        RETURN CASE TG_OP WHEN 'DELETE' THEN OLD ELSE NEW END;
    END IF;
    IF TG_OP = 'INSERT' THEN
        NEW.login := session_user;
        RETURN NEW;
    END IF;
    IF OLD.login <> session_user
       AND (OLD.heartbeat_at >= now() - interval '60 seconds'
            OR EXISTS (SELECT 1 FROM ferry.jobs j WHERE j.state = 'running' AND j.worker = OLD.name)) THEN
        RAISE EXCEPTION 'permission denied to % worker %: it is registered by login %, not %', lower(TG_OP), OLD.name,
            OLD.login, session_user
            USING ERRCODE = 'insufficient_privilege', HINT = 'Give each worker a name of its own (ferry worker --name).';
    END IF;
    IF TG_OP = 'DELETE' THEN
        RETURN OLD;
    END IF;
    NEW.login := CASE WHEN OLD.login <> session_user THEN session_user ELSE OLD.login END;
    RETURN NEW;
END
$$;

CREATE FUNCTION ferry.job_from_enqueued(p_job_id uuid, p_version integer, p_data jsonb, p_at timestamp with time zone) RETURNS SETOF ferry.jobs
    LANGUAGE sql STABLE
    AS $$
    SELECT p_job_id, p_version, p_data->>'kind', p_data->>'queue', p_data->>'batch',
           (p_data->>'priority')::smallint, 'queued', 0, (p_data->>'max_attempts')::integer, 0::bigint,
           NULL::text, p_data->>'account', p_data->>'source', p_data->>'destination', p_data->>'key',
           coalesce(p_data->'spec', '{}'::jsonb), nullif(p_data->'metadata', 'null'::jsonb),
           coalesce((p_data->>'run_at')::timestamptz, p_at), false, 0::bigint, (p_data->>'bytes_total')::bigint,
           NULL::jsonb, NULL::text, NULL::jsonb, p_at, NULL::timestamptz, NULL::timestamptz, p_at
$$;

CREATE FUNCTION ferry.job_schemes(p_kind text, p_source text, p_destination text, OUT remote_scheme text, OUT origin_scheme text) RETURNS record
    LANGUAGE sql IMMUTABLE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
SELECT coalesce(lower(substring(CASE p_kind WHEN 'fetch' THEN p_source ELSE p_destination END
                                FROM '^([A-Za-z][A-Za-z0-9+.-]{0,31}):')),
                CASE WHEN p_kind = 'upload' THEN 'file' END),
       CASE WHEN p_kind = 'copy' THEN lower(substring(p_source FROM '^([A-Za-z][A-Za-z0-9+.-]{0,31}):')) END
$$;

CREATE FUNCTION ferry.lease_account_share(p_account text, p_worker text, p_demand double precision, p_seconds double precision) RETURNS TABLE(tps_limit double precision, bwlimit bigint, fraction double precision, holders integer)
    LANGUAGE plpgsql
    AS $$
DECLARE
    v_tps double precision;
    v_bw bigint;
BEGIN
    SELECT (a.settings->>'tps_limit')::float8, (a.settings->>'bwlimit')::bigint INTO v_tps, v_bw
      FROM ferry.accounts a WHERE a.name = p_account;
    IF v_tps IS NULL AND v_bw IS NULL THEN
        DELETE FROM ferry.account_shares s WHERE s.account = p_account;
        RETURN QUERY SELECT v_tps, v_bw, 1.0::float8, 0;
        RETURN;
    END IF;
    DELETE FROM ferry.account_shares s WHERE s.account = p_account AND s.expires_at <= now();
    INSERT INTO ferry.account_shares AS s (account, worker, demand, expires_at)
         VALUES (p_account, p_worker, least(greatest(p_demand, 1), 1000000), now() + make_interval(secs => least(greatest(p_seconds, 1), 60)))
    ON CONFLICT (account, worker) DO UPDATE SET demand = excluded.demand, expires_at = excluded.expires_at;
    RETURN QUERY
        SELECT v_tps, v_bw, least(greatest(p_demand, 1), 1000000) / sum(s.demand), count(*)::int
          FROM ferry.account_shares s WHERE s.account = p_account AND s.expires_at > now();
END;
$$;

CREATE FUNCTION ferry.project_events() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    SET plan_cache_mode TO 'force_generic_plan'
    SET enable_seqscan TO 'off'
    AS $$
DECLARE
    enqueued    bigint;
    others      bigint;
    jobs        bigint;
    bad_version boolean;
    wake_jobs   boolean;
    wake_cancel boolean;
    fast        uuid[];
    changes     ferry.job_change[];
    applied     bigint;
BEGIN
    -- One pass over the statement's events for everything the rest needs to know.
    SELECT count(*) FILTER (WHERE type = 'enqueued'),
           count(*) FILTER (WHERE type <> 'enqueued'),
           count(DISTINCT job_id) FILTER (WHERE type <> 'enqueued'),
           coalesce(bool_or(type = 'enqueued' AND version <> 1), false),
           coalesce(bool_or(type IN ('enqueued', 'requeued', 'released', 'rescued', 'retry_scheduled', 'deferred')), false),
           coalesce(bool_or(type = 'cancel_requested'), false)
      INTO enqueued, others, jobs, bad_version, wake_jobs, wake_cancel
      FROM new_events;

    IF enqueued > 0 THEN
        IF bad_version THEN
            RAISE EXCEPTION 'an enqueued event must be version 1' USING ERRCODE = 'FY003';
        END IF;
        WITH inserted AS (
            INSERT INTO ferry.jobs
            SELECT p.*
              FROM new_events e
             CROSS JOIN LATERAL ferry.job_from_enqueued(e.job_id, e.version, e.data, e.recorded_at) p
             WHERE e.type = 'enqueued'
            RETURNING ROW(job_id, queue, batch, NULL, state, NULL, NULL, bytes_done, bytes_total, enqueued_at, started_at,
                          finished_at, NULL, false)::ferry.job_change AS change
        )
        SELECT array_agg(change) INTO changes FROM inserted;
        PERFORM ferry.count_changes(changes);
    END IF;

    IF others > 0 THEN
        IF others <> jobs THEN
            RAISE EXCEPTION 'append at most one event per job in one statement' USING ERRCODE = 'FY003';
        END IF;

        -- The fast path: exactly what apply_event does for these types when the event fits the job. `o` is the
        -- row as it was before this statement (writers lock it before appending), for the counters.
        WITH folded AS (
            UPDATE ferry.jobs AS j
               SET version     = e.version,
                   updated_at  = e.recorded_at,
                   state       = CASE e.type WHEN 'claimed' THEN 'running' WHEN 'succeeded' THEN 'succeeded' ELSE j.state END,
                   attempt     = CASE e.type WHEN 'claimed' THEN j.attempt + 1 ELSE j.attempt END,
                   lease       = CASE e.type WHEN 'claimed' THEN j.lease + 1 ELSE j.lease END,
                   worker      = CASE e.type WHEN 'claimed' THEN e.data->>'worker' WHEN 'succeeded' THEN NULL ELSE j.worker END,
                   started_at  = CASE e.type WHEN 'claimed' THEN coalesce(j.started_at, e.recorded_at) ELSE j.started_at END,
                   finished_at = CASE e.type WHEN 'succeeded' THEN e.recorded_at ELSE j.finished_at END,
                   bytes_done  = CASE WHEN e.type IN ('progress', 'succeeded')
                                      THEN coalesce((e.data->>'bytes_done')::bigint, j.bytes_done) ELSE j.bytes_done END,
                   bytes_total = CASE WHEN e.type IN ('progress', 'succeeded')
                                      THEN coalesce((e.data->>'bytes_total')::bigint, j.bytes_total) ELSE j.bytes_total END,
                   session     = CASE WHEN e.type = 'progress' AND e.data ? 'session'
                                      THEN nullif(e.data->'session', 'null'::jsonb) ELSE j.session END,
                   result      = CASE e.type WHEN 'succeeded' THEN nullif(e.data->'result', 'null'::jsonb) ELSE j.result END,
                   last_error  = CASE e.type WHEN 'succeeded' THEN NULL ELSE j.last_error END
              FROM new_events e
              JOIN ferry.jobs o ON o.job_id = e.job_id
             WHERE j.job_id = e.job_id
               AND e.type IN ('claimed', 'progress', 'succeeded')
               AND e.version = j.version + 1
               AND CASE e.type
                       WHEN 'claimed' THEN j.state = 'queued' AND (e.data->>'lease')::bigint = j.lease + 1
                       ELSE j.state = 'running' AND (e.data->>'lease')::bigint = j.lease
                   END
            RETURNING j.job_id,
                      ROW(j.job_id, j.queue, j.batch, o.state, j.state, o.bytes_done, o.bytes_total, j.bytes_done, j.bytes_total,
                          j.enqueued_at, j.started_at, j.finished_at,
                          o.state = 'succeeded' AND o.result->>'skipped' = 'unchanged',
                          j.state = 'succeeded' AND j.result->>'skipped' = 'unchanged')::ferry.job_change AS change
        )
        SELECT coalesce(array_agg(job_id), '{}'), array_agg(change) INTO fast, changes FROM folded;
        PERFORM ferry.count_changes(changes);

        IF cardinality(fast) < others THEN
            -- Everything else, and every event that does not fit, through the one definition.
            WITH folded AS (
                UPDATE ferry.jobs AS j
                   SET version = (x.n).version, state = (x.n).state, attempt = (x.n).attempt, lease = (x.n).lease,
                       worker = (x.n).worker, run_at = (x.n).run_at, cancel_requested = (x.n).cancel_requested,
                       bytes_done = (x.n).bytes_done, bytes_total = (x.n).bytes_total, session = (x.n).session,
                       last_error = (x.n).last_error, result = (x.n).result, started_at = (x.n).started_at,
                       finished_at = (x.n).finished_at, updated_at = (x.n).updated_at,
                       source = (x.n).source, destination = (x.n).destination, account = (x.n).account,
                       spec = (x.n).spec
                  FROM (SELECT e.job_id, cur.state AS was, cur.bytes_done AS was_done, cur.bytes_total AS was_total,
                               cur.state = 'succeeded' AND cur.result->>'skipped' = 'unchanged' AS was_unchanged,
                               ferry.apply_event(cur, e.job_id, e.type, e.version, e.data, e.recorded_at) AS n
                          FROM new_events e
                          JOIN ferry.jobs cur ON cur.job_id = e.job_id
                         WHERE e.type <> 'enqueued' AND e.job_id <> ALL (fast)
                        OFFSET 0) AS x   -- OFFSET 0: evaluate apply_event once per row, not once per column
                 WHERE j.job_id = x.job_id
                RETURNING ROW(j.job_id, j.queue, j.batch, x.was, j.state, x.was_done, x.was_total, j.bytes_done, j.bytes_total,
                              j.enqueued_at, j.started_at, j.finished_at, x.was_unchanged,
                              j.state = 'succeeded' AND j.result->>'skipped' = 'unchanged')::ferry.job_change AS change
            )
            SELECT count(*), array_agg(change) INTO applied, changes FROM folded;
            IF applied + cardinality(fast) <> others THEN
                RAISE EXCEPTION 'an event names a job that does not exist' USING ERRCODE = 'FY004';
            END IF;
            PERFORM ferry.count_changes(changes);
        END IF;
    END IF;

    -- Payload-free wake-ups, at most one per channel per transaction (PostgreSQL folds duplicates).
    IF wake_jobs THEN
        PERFORM pg_notify('ferry_jobs', '');
    END IF;
    IF wake_cancel THEN
        PERFORM pg_notify('ferry_cancel', '');
    END IF;
    RETURN NULL;
END
$$;

CREATE FUNCTION ferry.project_queue_events() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
BEGIN
    INSERT INTO ferry.queue_controls AS c (queue, paused, changed_at, reason)
    SELECT DISTINCT ON (n.queue) n.queue, n.type = 'paused', n.recorded_at, n.data->>'reason'
      FROM new_events n
     ORDER BY n.queue, n.position DESC
    ON CONFLICT (queue) DO UPDATE
       SET paused = excluded.paused, changed_at = excluded.changed_at, reason = excluded.reason;
    RETURN NULL;
END
$$;

CREATE FUNCTION ferry.project_schedule_events() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
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

CREATE FUNCTION ferry.project_schedule_ticks() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
BEGIN
    -- A manual run (ferry schedule run) answers the request and leaves the regular ticks where they were.
    UPDATE ferry.schedules s
       SET next_tick = CASE WHEN t.manual THEN s.next_tick ELSE t.next_tick END,
           run_requested_at = CASE WHEN t.manual AND s.run_requested_at <= t.tick_at THEN NULL ELSE s.run_requested_at END,
           last_tick = t.tick_at, last_fired_at = t.fired_at,
           last_job_id = coalesce(t.job_id, t.skipped_for)
      FROM (SELECT DISTINCT ON (n.schedule) n.* FROM new_ticks n ORDER BY n.schedule, n.position DESC) t
     WHERE s.name = t.schedule;
    RETURN NULL;
END
$$;

CREATE FUNCTION ferry.projection_differences(p_limit integer) RETURNS TABLE(job_id uuid, stored jsonb, replayed jsonb)
    LANGUAGE sql STABLE
    AS $$
    WITH replayed AS (
        SELECT (r.j).* FROM (SELECT ferry.replay(e ORDER BY e.version) AS j FROM ferry.events e GROUP BY e.job_id) r
    )
    SELECT coalesce(p.job_id, r.job_id), to_jsonb(p), to_jsonb(r)
      FROM ferry.jobs p
      FULL JOIN replayed r ON r.job_id = p.job_id
     WHERE to_jsonb(p) IS DISTINCT FROM to_jsonb(r)
     ORDER BY 1
     LIMIT p_limit
$$;

CREATE FUNCTION ferry.queue_depth(p_queues text[] DEFAULT '{}'::text[]) RETURNS TABLE(queue text, queued bigint, running bigint, oldest_waiting_seconds double precision)
    LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    SET jit TO 'off'
    AS $$
    WITH counted AS (
        SELECT t.queue,
               sum(t.jobs) FILTER (WHERE t.state = 'queued')::bigint AS queued,
               sum(t.jobs) FILTER (WHERE t.state = 'running')::bigint AS running
          FROM (SELECT c.queue, c.state, c.jobs FROM ferry.queue_counts c WHERE c.state IN ('queued', 'running')
                UNION ALL
                SELECT d.queue, d.state, d.delta FROM ferry.queue_count_deltas d WHERE d.state IN ('queued', 'running')) t
         GROUP BY t.queue
    ), queues AS (
        SELECT c.queue FROM counted c WHERE c.queued <> 0 OR c.running <> 0
        UNION
        SELECT q FROM unnest(p_queues) AS q
    )
    SELECT q.queue,
           coalesce(c.queued, 0),
           coalesce(c.running, 0),
           CASE WHEN coalesce(c.queued, 0) > 0
                THEN greatest(0, extract(epoch FROM now() - ferry.queue_oldest_run_at(q.queue)))::double precision
                ELSE 0 END
      FROM queues q
      LEFT JOIN counted c ON c.queue = q.queue
     ORDER BY q.queue
$$;

COMMENT ON FUNCTION ferry.queue_depth(p_queues text[]) IS 'Per queue (every queue with queued or running jobs, and each of p_queues): queued and running jobs (from the counters) and the oldest due job''s wait in seconds (index probes; 0 when none is due).';

CREATE FUNCTION ferry.queue_events_append_only() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
    RAISE EXCEPTION 'ferry.queue_events is append-only' USING ERRCODE = 'insufficient_privilege',
        HINT = 'pause or resume with ferry queue pause|resume NAME';
END
$$;

CREATE FUNCTION ferry.queue_oldest_run_at(p_queue text) RETURNS timestamp with time zone
    LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    SET plan_cache_mode TO 'force_generic_plan'
    SET enable_seqscan TO 'off'
    SET jit TO 'off'
    AS $$
    WITH RECURSIVE
    accts(acct) AS (
        (SELECT coalesce(j.account, '') FROM ferry.jobs j
          WHERE j.state = 'queued' AND j.queue = p_queue
          ORDER BY coalesce(j.account, ''), j.priority DESC, j.run_at, j.job_id LIMIT 1)
        UNION ALL
        SELECT f.acct FROM accts a
         CROSS JOIN LATERAL (SELECT coalesce(j.account, '') AS acct FROM ferry.jobs j
                              WHERE j.state = 'queued' AND j.queue = p_queue AND coalesce(j.account, '') > a.acct
                              ORDER BY coalesce(j.account, ''), j.priority DESC, j.run_at, j.job_id LIMIT 1) f
    ),
    levels(acct, p, first_run_at) AS (
        SELECT a.acct, f.priority, f.run_at FROM accts a
         CROSS JOIN LATERAL (SELECT j.priority, j.run_at FROM ferry.jobs j
                              WHERE j.state = 'queued' AND j.queue = p_queue AND coalesce(j.account, '') = a.acct
                              ORDER BY j.priority DESC, j.run_at, j.job_id LIMIT 1) f
        UNION ALL
        SELECT l.acct, f.priority, f.run_at FROM levels l
         CROSS JOIN LATERAL (SELECT j.priority, j.run_at FROM ferry.jobs j
                              WHERE j.state = 'queued' AND j.queue = p_queue AND coalesce(j.account, '') = l.acct
                                AND j.priority < l.p
                              ORDER BY j.priority DESC, j.run_at, j.job_id LIMIT 1) f
    )
    -- Each level's first entry is its smallest run_at (the index orders a level by run_at).
    SELECT min(first_run_at) FROM levels
$$;

CREATE FUNCTION ferry.queue_waiting(p_queue text, OUT scheduled bigint, OUT oldest timestamp with time zone) RETURNS record
    LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    SET plan_cache_mode TO 'force_generic_plan'
    SET enable_seqscan TO 'off'
    SET jit TO 'off'
    AS $$
    WITH RECURSIVE
    accts(acct) AS (
        (SELECT coalesce(j.account, '') FROM ferry.jobs j
          WHERE j.state = 'queued' AND j.queue = p_queue
          ORDER BY coalesce(j.account, ''), j.priority DESC, j.run_at, j.job_id LIMIT 1)
        UNION ALL
        SELECT f.acct FROM accts a
         CROSS JOIN LATERAL (SELECT coalesce(j.account, '') AS acct FROM ferry.jobs j
                              WHERE j.state = 'queued' AND j.queue = p_queue AND coalesce(j.account, '') > a.acct
                              ORDER BY coalesce(j.account, ''), j.priority DESC, j.run_at, j.job_id LIMIT 1) f
    ),
    levels(acct, p) AS (
        SELECT a.acct, f.priority FROM accts a
         CROSS JOIN LATERAL (SELECT j.priority FROM ferry.jobs j
                              WHERE j.state = 'queued' AND j.queue = p_queue AND coalesce(j.account, '') = a.acct
                              ORDER BY j.priority DESC, j.run_at, j.job_id LIMIT 1) f
        UNION ALL
        SELECT l.acct, f.priority FROM levels l
         CROSS JOIN LATERAL (SELECT j.priority FROM ferry.jobs j
                              WHERE j.state = 'queued' AND j.queue = p_queue AND coalesce(j.account, '') = l.acct
                                AND j.priority < l.p
                              ORDER BY j.priority DESC, j.run_at, j.job_id LIMIT 1) f
    )
    SELECT coalesce(sum((SELECT count(*) FROM ferry.jobs j
                          WHERE j.state = 'queued' AND j.queue = p_queue AND coalesce(j.account, '') = l.acct
                            AND j.priority = l.p AND j.run_at > now())), 0)::bigint,
           min((SELECT j.run_at FROM ferry.jobs j
                 WHERE j.state = 'queued' AND j.queue = p_queue AND coalesce(j.account, '') = l.acct
                   AND j.priority = l.p
                 ORDER BY j.run_at, j.job_id LIMIT 1))
      FROM levels l
$$;

CREATE FUNCTION ferry.rebuild_projection() RETURNS bigint
    LANGUAGE plpgsql
    AS $$
DECLARE
    rebuilt bigint;
BEGIN
    LOCK TABLE ferry.events IN SHARE MODE;
    LOCK TABLE ferry.jobs IN ACCESS EXCLUSIVE MODE;
    DELETE FROM ferry.jobs;
    INSERT INTO ferry.jobs
    SELECT (r.j).* FROM (SELECT ferry.replay(e ORDER BY e.version) AS j FROM ferry.events e GROUP BY e.job_id) r;
    GET DIAGNOSTICS rebuilt = ROW_COUNT;
    RETURN rebuilt;
END
$$;

CREATE FUNCTION ferry.record_outcomes(p_jobs uuid[], p_leases bigint[], p_types text[], p_data jsonb[], p_sent timestamp with time zone) RETURNS SETOF uuid
    LANGUAGE plpgsql
    AS $$
BEGIN
    RETURN QUERY
    WITH written AS (
        INSERT INTO ferry.events (job_id, version, type, data)
        SELECT j.job_id, j.version + 1, u.type,
               u.data || jsonb_build_object('lease', u.lease)
                 || CASE WHEN u.data ? 'run_at'
                         THEN jsonb_build_object('run_at', now() + ((u.data->>'run_at')::timestamptz - p_sent))
                         ELSE '{}'::jsonb END
          FROM unnest(p_jobs, p_leases, p_types, p_data) AS u(job_id, lease, type, data)
         CROSS JOIN LATERAL (SELECT k.job_id, k.version, k.lease, k.state FROM ferry.jobs k
                              WHERE k.job_id = u.job_id OFFSET 0 FOR UPDATE) j
         WHERE j.lease = u.lease AND j.state = 'running'
        RETURNING ferry.events.job_id
    )
    SELECT w.job_id FROM written w;
END;
$$;

COMMENT ON FUNCTION ferry.record_outcomes(p_jobs uuid[], p_leases bigint[], p_types text[], p_data jsonb[], p_sent timestamp with time zone) IS 'Outcome events of many jobs, each under its current lease; answers the jobs written.';

CREATE FUNCTION ferry.record_remote_folder(p_scope text, p_path text, p_id text) RETURNS text
    LANGUAGE sql
    AS $$
    UPDATE ferry.remote_folders f SET remote_id = coalesce(f.remote_id, p_id)
     WHERE f.scope = p_scope AND f.path = p_path
    RETURNING f.remote_id
$$;

CREATE FUNCTION ferry.record_then_claim(p_jobs uuid[], p_leases bigint[], p_types text[], p_data jsonb[], p_sent timestamp with time zone, p_worker text, p_queues text[], p_limit integer) RETURNS TABLE(recorded uuid, claimed ferry.jobs)
    LANGUAGE plpgsql
    AS $$
BEGIN
    IF cardinality(p_jobs) > 0 THEN
        RETURN QUERY SELECT r, NULL::ferry.jobs FROM ferry.record_outcomes(p_jobs, p_leases, p_types, p_data, p_sent) r;
    END IF;
    IF p_limit > 0 AND cardinality(p_queues) > 0 THEN
        RETURN QUERY SELECT NULL::uuid, c FROM ferry.claim_jobs(p_worker, p_queues, p_limit) c;
    END IF;
END;
$$;

COMMENT ON FUNCTION ferry.record_then_claim(p_jobs uuid[], p_leases bigint[], p_types text[], p_data jsonb[], p_sent timestamp with time zone, p_worker text, p_queues text[], p_limit integer) IS 'A worker''s outcomes (ferry.record_outcomes), then its next claim (ferry.claim_jobs), in one call.';

CREATE FUNCTION ferry.recount_batches() RETURNS void
    LANGUAGE plpgsql
    AS $$
BEGIN
    LOCK TABLE ferry.batch_counts, ferry.batch_count_deltas IN EXCLUSIVE MODE;
    DELETE FROM ferry.batch_count_deltas;
    DELETE FROM ferry.batch_counts;
    INSERT INTO ferry.batch_counts SELECT * FROM ferry.batch_counts_actual();
END
$$;

CREATE FUNCTION ferry.recount_queues() RETURNS void
    LANGUAGE plpgsql
    AS $$
BEGIN
    LOCK TABLE ferry.queue_counts, ferry.queue_count_deltas IN EXCLUSIVE MODE;
    DELETE FROM ferry.queue_count_deltas;
    DELETE FROM ferry.queue_counts;
    INSERT INTO ferry.queue_counts (queue, state, jobs)
    SELECT queue, state, count(*) FROM ferry.jobs GROUP BY queue, state;
END
$$;

CREATE FUNCTION ferry.release_orphaned_claims(p_worker text, p_running uuid[], p_grace interval) RETURNS TABLE(job_id uuid)
    LANGUAGE sql
    AS $$
    WITH orphaned AS (
        SELECT j.job_id, j.version, j.lease
          FROM ferry.jobs j
         WHERE j.state = 'running' AND j.worker = p_worker AND j.updated_at < now() - p_grace
           AND NOT (j.job_id = ANY (p_running))
           FOR UPDATE OF j SKIP LOCKED
    )
    INSERT INTO ferry.events (job_id, version, type, data)
    SELECT o.job_id, o.version + 1, 'released',
           jsonb_build_object('lease', o.lease, 'reason', 'claim reply lost with the connection; released unstarted')
      FROM orphaned o
    RETURNING ferry.events.job_id
$$;

CREATE FUNCTION ferry.remove_job_search_terms() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
BEGIN
    IF TG_OP = 'TRUNCATE' THEN
        TRUNCATE ferry.job_search_terms;
    ELSE
        DELETE FROM ferry.job_search_terms t USING old_jobs o WHERE t.job_id = o.job_id;
    END IF;
    RETURN NULL;
END
$$;

CREATE TABLE ferry.events (
    "position" bigint NOT NULL,
    job_id uuid NOT NULL,
    version integer NOT NULL,
    type text NOT NULL,
    data jsonb DEFAULT '{}'::jsonb NOT NULL,
    tx_id xid8 DEFAULT pg_current_xact_id() NOT NULL,
    recorded_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT events_type_check CHECK ((type = ANY (ARRAY['enqueued'::text, 'claimed'::text, 'progress'::text, 'retry_scheduled'::text, 'deferred'::text, 'released'::text, 'rescued'::text, 'cancel_requested'::text, 'cancelled'::text, 'succeeded'::text, 'failed'::text, 'requeued'::text, 'resolved'::text, 'discarded'::text]))),
    CONSTRAINT events_version_check CHECK ((version > 0))
)
WITH (fillfactor='100', autovacuum_vacuum_insert_scale_factor='0.1');

COMMENT ON TABLE ferry.events IS 'Append-only job event log. UPDATE, DELETE and TRUNCATE raise for every role.';

CREATE FUNCTION ferry.replay_step(j ferry.jobs, e ferry.events) RETURNS ferry.jobs
    LANGUAGE sql STABLE
    AS $$
    SELECT ferry.apply_event(j, e.job_id, e.type, e.version, e.data, e.recorded_at)
$$;

CREATE FUNCTION ferry.requeued_spec(p_spec jsonb, p_options jsonb) RETURNS jsonb
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$
    SELECT CASE
        WHEN jsonb_typeof(p_options) IS DISTINCT FROM 'object' THEN p_spec
        WHEN jsonb_typeof(p_spec -> 'unresolved') = 'object' THEN
            jsonb_set(p_spec, '{unresolved,options}',
                      CASE WHEN jsonb_typeof(p_spec #> '{unresolved,options}') = 'object'
                           THEN p_spec #> '{unresolved,options}' ELSE '{}'::jsonb END || p_options)
        WHEN jsonb_typeof(p_spec) = 'object' THEN p_spec || p_options
        ELSE p_options
    END
$$;

CREATE FUNCTION ferry.rescue_stale_jobs(p_stale_after interval, p_poison_after integer DEFAULT 3) RETURNS TABLE(job_id uuid, outcome text, worker text)
    LANGUAGE plpgsql
    AS $$
BEGIN
    RETURN QUERY
    WITH stale AS (
        SELECT j.job_id, j.version, j.lease, j.attempt, j.max_attempts, j.worker
          FROM ferry.jobs j
          LEFT JOIN ferry.workers w ON w.name = j.worker
         WHERE j.state = 'running'
           AND (w.name IS NULL OR w.heartbeat_at < now() - p_stale_after)
           FOR UPDATE OF j SKIP LOCKED
    ), counted AS (
        -- Rescues are rare: one probe of the job's own events (events_job_version_key) per stale job.
        SELECT s.*, r.rescues, r.claimers
          FROM stale s
          CROSS JOIN LATERAL (
              SELECT count(*) FILTER (WHERE e.type = 'rescued') + 1 AS rescues,
                     (SELECT jsonb_agg(c.worker ORDER BY c.version DESC)
                        FROM (SELECT e2.data ->> 'worker' AS worker, e2.version FROM ferry.events e2
                               WHERE e2.job_id = s.job_id AND e2.type = 'claimed'
                               ORDER BY e2.version DESC LIMIT greatest(p_poison_after, 1)) c) AS claimers
                FROM ferry.events e
               WHERE e.job_id = s.job_id
                 AND e.version > coalesce((SELECT max(q.version) FROM ferry.events q
                                            WHERE q.job_id = s.job_id AND q.type = 'requeued'), 0)
          ) r
    ), decided AS (
        SELECT c.*,
               CASE WHEN p_poison_after > 0 AND c.rescues >= p_poison_after THEN 'poison'
                    WHEN c.attempt >= c.max_attempts THEN 'exhausted' END AS ending
          FROM counted c
    ), appended AS (
        INSERT INTO ferry.events (job_id, version, type, data)
        SELECT d.job_id, d.version + 1,
               CASE WHEN d.ending IS NULL THEN 'rescued' ELSE 'failed' END,
               CASE d.ending
               WHEN 'poison' THEN jsonb_build_object(
                   'lease', d.lease, 'reason', 'poison', 'claimers', d.claimers,
                   'error', format('poison: the workers that claimed this job stopped mid-job %s times (last %s); '
                                   'it is no longer handed out: find the cause in their logs, then ferry retry it',
                                   d.rescues, coalesce(d.worker, '?')))
               WHEN 'exhausted' THEN jsonb_build_object(
                   'lease', d.lease,
                   'error', format('worker %s stopped heartbeating (lease expired); attempts exhausted (%s of %s)',
                                   coalesce(d.worker, '?'), d.attempt, d.max_attempts))
               ELSE jsonb_build_object(
                   'lease', d.lease, 'reason', format('worker %s stopped heartbeating (lease expired)', coalesce(d.worker, '?')))
               END
          FROM decided d
        RETURNING ferry.events.job_id, ferry.events.type
    )
    SELECT a.job_id, CASE WHEN d.ending = 'poison' THEN 'poison' ELSE a.type END, d.worker
      FROM appended a JOIN decided d ON d.job_id = a.job_id;

    -- Forget workers that are long gone and hold nothing.
    DELETE FROM ferry.workers w
     WHERE w.heartbeat_at < now() - p_stale_after * 10
       AND NOT EXISTS (SELECT 1 FROM ferry.jobs j WHERE j.state = 'running' AND j.worker = w.name);
END
$$;

CREATE FUNCTION ferry.restoring() RETURNS boolean
    LANGUAGE plpgsql STABLE SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
DECLARE
    token text := current_setting('ferry.restore_token', true);
BEGIN
    IF coalesce(token, '') = '' THEN
        RETURN false;
    END IF;
    RETURN EXISTS (SELECT 1 FROM ferry.archives WHERE restore_token = token::uuid);
END
$$;

CREATE FUNCTION ferry.roll_up_trends() RETURNS bigint
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    SET jit TO 'off'
    AS $$
DECLARE
    v_from timestamptz;
    v_to   timestamptz := date_trunc('minute', now()) - interval '1 minute';
    n      bigint;
BEGIN
    IF NOT pg_try_advisory_xact_lock(hashtext('ferry.trend_rollup'), 0) THEN
        RETURN 0;
    END IF;
    -- Read without a row lock: most calls find nothing to do and write nothing.
    SELECT rolled_to INTO v_from FROM ferry.trend_rollup;
    IF v_from IS NULL OR v_from >= v_to THEN
        RETURN 0;
    END IF;

    WITH finished AS (
        SELECT date_trunc('minute', j.finished_at) AS bucket, j.queue, coalesce(j.account, '') AS account,
               coalesce((ferry.job_schemes(j.kind, j.source, j.destination)).remote_scheme, '') AS provider,
               count(*) FILTER (WHERE j.state = 'succeeded') AS succeeded,
               count(*) FILTER (WHERE j.state = 'failed') AS failed,
               coalesce(sum(coalesce(j.bytes_total, j.bytes_done)) FILTER (WHERE j.state = 'succeeded'), 0)::bigint AS bytes
          FROM ferry.jobs j
         WHERE j.state IN ('succeeded', 'failed') AND j.finished_at >= v_from AND j.finished_at < v_to
         GROUP BY 1, 2, 3, 4
    ), minutes AS (
        INSERT INTO ferry.trend_minutes AS t (bucket, queue, account, provider, succeeded, failed, bytes)
        SELECT * FROM finished WHERE bucket >= v_to - interval '25 hours'
        ON CONFLICT (bucket, queue, account, provider) DO UPDATE
           SET succeeded = t.succeeded + excluded.succeeded, failed = t.failed + excluded.failed,
               bytes = t.bytes + excluded.bytes
    ), hours AS (
        INSERT INTO ferry.trend_hours AS t (bucket, queue, account, provider, succeeded, failed, bytes)
        SELECT date_trunc('hour', f.bucket), f.queue, f.account, f.provider,
               sum(f.succeeded)::bigint, sum(f.failed)::bigint, sum(f.bytes)::bigint
          FROM finished f WHERE f.bucket >= v_to - interval '8 days'
         GROUP BY 1, 2, 3, 4
        ON CONFLICT (bucket, queue, account, provider) DO UPDATE
           SET succeeded = t.succeeded + excluded.succeeded, failed = t.failed + excluded.failed,
               bytes = t.bytes + excluded.bytes
    )
    SELECT coalesce(sum(f.succeeded + f.failed), 0)::bigint INTO n FROM finished f;

    UPDATE ferry.trend_rollup SET rolled_to = v_to;
    DELETE FROM ferry.trend_minutes WHERE bucket < v_to - interval '25 hours';
    DELETE FROM ferry.trend_hours WHERE bucket < v_to - interval '8 days';
    RETURN n;
END
$$;

CREATE FUNCTION ferry.schedule_history_append_only() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
    RAISE EXCEPTION '% is append-only', TG_TABLE_NAME USING ERRCODE = 'insufficient_privilege',
        HINT = 'change schedules with ferry schedule add|pause|resume|remove';
END
$$;

CREATE FUNCTION ferry.track_batches() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    SET plan_cache_mode TO 'force_generic_plan'
    SET enable_seqscan TO 'off'
    AS $$
DECLARE
    touched text[];
    changed record;
BEGIN
    -- Claims and progress, most statements, never change whether a batch is complete: leave at once.
    IF NOT EXISTS (SELECT 1 FROM new_events
                    WHERE type IN ('enqueued', 'requeued', 'succeeded', 'failed', 'cancelled',
                                   'retry_scheduled', 'deferred', 'released', 'rescued')) THEN
        RETURN NULL;
    END IF;

    -- Batches this statement may have reopened (new or requeued jobs) or completed (a job reached a terminal
    -- state; a pending cancel turns retry_scheduled, deferred, released and rescued into cancelled too).
    SELECT array_agg(t.batch) INTO touched
      FROM (SELECT e.data->>'batch' AS batch
              FROM new_events e
             WHERE e.type = 'enqueued'
            UNION   -- distinct (hashed): a bulk enqueue names few batches for many jobs
            SELECT j.batch
              FROM new_events e
              JOIN ferry.jobs j ON j.job_id = e.job_id
             WHERE e.type IN ('requeued', 'succeeded', 'failed', 'cancelled',
                              'retry_scheduled', 'deferred', 'released', 'rescued')
               AND (e.type = 'requeued' OR j.state IN ('succeeded', 'failed', 'cancelled'))) t
     WHERE t.batch IS NOT NULL;
    IF touched IS NULL THEN
        RETURN NULL;
    END IF;

    -- Serialize per batch. Two transactions finishing a batch's last two jobs at once each see the other's job
    -- still unfinished (READ COMMITTED), and neither would notice the completion; with the lock, the second
    -- waits here until the first commits and then reads afresh. Enqueues and requeues take it too, so a reopen
    -- cannot slip past a completion. Keys are bucketed (1,024) so one statement touching many batches holds a
    -- bounded number of locks; buckets are taken in ascending order, so lockers never deadlock each other.
    -- (One statement; the sub-select's order is the order the locks are taken in.)
    PERFORM pg_advisory_xact_lock(hashtext('ferry.batch'), k.bucket)
       FROM (SELECT DISTINCT hashtext(b) & 1023 AS bucket FROM unnest(touched) AS b ORDER BY 1) AS k;

    -- A new statement, so a new snapshot (READ COMMITTED, as every Ferry writer runs): it sees everything
    -- committed by earlier holders of the locks.
    -- Append an event wherever a batch's state (open or complete) differs from its latest event; usually none
    -- does (the batch still has unfinished jobs), and this one SELECT is all the work.
    FOR changed IN
        SELECT s.batch, s.open
          FROM (SELECT b AS batch,
                       -- Newest first: claimed and finished jobs leave dead entries at the oldest end of each
                       -- state's range in the batch index until vacuum, and a forward scan stepped over all of
                       -- them on every outcome (issue 35: a fifth of an outcome statement's time at 32 jobs).
                       -- (A range rather than state = …, which would let the planner walk the primary key.)
                       (SELECT true FROM ferry.jobs j WHERE j.batch = b AND j.state >= 'queued' AND j.state <= 'queued'
                         ORDER BY j.state DESC, j.job_id DESC LIMIT 1) IS NOT NULL
                       OR (SELECT true FROM ferry.jobs j WHERE j.batch = b AND j.state >= 'running' AND j.state <= 'running'
                            ORDER BY j.state DESC, j.job_id DESC LIMIT 1) IS NOT NULL AS open,
                       (SELECT e.type FROM ferry.batch_events e
                         WHERE e.batch = b ORDER BY e.position DESC LIMIT 1) AS last_type
                  FROM unnest(touched) AS b
                OFFSET 0) AS s   -- OFFSET 0: each sub-select runs once per batch, not once per reference
         WHERE (s.open AND s.last_type = 'completed') OR (NOT s.open AND s.last_type IS DISTINCT FROM 'completed')
         ORDER BY s.batch
    LOOP
        INSERT INTO ferry.batch_events (batch, type, data)
        VALUES (changed.batch,
                CASE WHEN changed.open THEN 'reopened' ELSE 'completed' END,
                CASE WHEN changed.open
                     THEN jsonb_build_object('unfinished', (SELECT count(*) FROM ferry.jobs j
                                                             WHERE j.batch = changed.batch AND j.state IN ('queued', 'running')))
                     ELSE ferry.batch_summary(changed.batch)
                END);
        PERFORM pg_notify('ferry_batch', changed.batch);
    END LOOP;
    RETURN NULL;
END
$$;

CREATE FUNCTION ferry.trend_keys() RETURNS TABLE(queue text, account text, provider text)
    LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    SET jit TO 'off'
    SET enable_seqscan TO 'off'
    AS $$
SELECT DISTINCT t.queue, t.account, t.provider
  FROM ferry.trend_hours t
UNION
SELECT j.queue, coalesce(j.account, ''), coalesce((ferry.job_schemes(j.kind, j.source, j.destination)).remote_scheme, '')
  FROM ferry.jobs j
 WHERE j.state IN ('succeeded', 'failed') AND j.finished_at >= (SELECT r.rolled_to FROM ferry.trend_rollup r)
$$;

CREATE FUNCTION ferry.trends(p_since timestamp with time zone, p_step interval, p_queue text DEFAULT NULL::text, p_account text DEFAULT NULL::text, p_provider text DEFAULT NULL::text) RETURNS TABLE(bucket timestamp with time zone, succeeded bigint, failed bigint, bytes bigint)
    LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    SET jit TO 'off'
    AS $$
-- The rollup mark is read as a scalar (an InitPlan), so each part is one index range: a join with it would hide
-- the bound from the planner and scan the jobs.
WITH counted AS (
    SELECT t.bucket AS at, t.succeeded, t.failed, t.bytes
      FROM ferry.trend_minutes t
     WHERE p_step < interval '1 hour' AND t.bucket >= p_since
       AND t.bucket < (SELECT r.rolled_to FROM ferry.trend_rollup r)
       AND (p_queue IS NULL OR t.queue = p_queue) AND (p_account IS NULL OR t.account = p_account)
       AND (p_provider IS NULL OR t.provider = p_provider)
    UNION ALL
    SELECT t.bucket, t.succeeded, t.failed, t.bytes
      FROM ferry.trend_hours t
     WHERE p_step >= interval '1 hour' AND t.bucket >= date_trunc('hour', p_since)
       AND t.bucket < (SELECT r.rolled_to FROM ferry.trend_rollup r)
       AND (p_queue IS NULL OR t.queue = p_queue) AND (p_account IS NULL OR t.account = p_account)
       AND (p_provider IS NULL OR t.provider = p_provider)
    UNION ALL
    SELECT j.finished_at, (j.state = 'succeeded')::int, (j.state = 'failed')::int,
           CASE WHEN j.state = 'succeeded' THEN coalesce(j.bytes_total, j.bytes_done) ELSE 0 END
      FROM ferry.jobs j
     WHERE j.state IN ('succeeded', 'failed')
       AND j.finished_at >= (SELECT greatest(r.rolled_to, p_since) FROM ferry.trend_rollup r)
       AND (p_queue IS NULL OR j.queue = p_queue) AND (p_account IS NULL OR coalesce(j.account, '') = p_account)
       AND (p_provider IS NULL
            OR coalesce((ferry.job_schemes(j.kind, j.source, j.destination)).remote_scheme, '') = p_provider)
)
SELECT date_bin(p_step, c.at, timestamptz '2000-01-01 00:00:00+00'), sum(c.succeeded)::bigint,
       sum(c.failed)::bigint, sum(c.bytes)::bigint
  FROM counted c
 GROUP BY 1
 ORDER BY 1
$$;

CREATE FUNCTION ferry.uuid_v7() RETURNS uuid
    LANGUAGE sql PARALLEL SAFE
    AS $$
    SELECT encode(
               set_bit(set_bit(
                   overlay(uuid_send(gen_random_uuid())
                           PLACING substring(int8send((extract(epoch FROM clock_timestamp()) * 1000)::bigint) FROM 3)
                           FROM 1 FOR 6),
                   52, 1), 53, 1),   -- version 4 (0100) → 7 (0111); the variant bits stay 10
               'hex')::uuid
$$;

CREATE AGGREGATE ferry.replay(ferry.events) (
    SFUNC = ferry.replay_step,
    STYPE = ferry.jobs
);

CREATE TABLE ferry.account_events (
    "position" bigint NOT NULL,
    account text NOT NULL,
    type text NOT NULL,
    data jsonb DEFAULT '{}'::jsonb NOT NULL,
    recorded_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT account_events_type_check CHECK ((type = ANY (ARRAY['added'::text, 'linked'::text, 'token_refreshed'::text, 'needs_reauth'::text, 'revoked'::text, 'removed'::text, 'updated'::text])))
);

COMMENT ON TABLE ferry.account_events IS 'Append-only account history (linked, token refreshed, needs re-auth, revoked). No secrets.';

ALTER TABLE ferry.account_events ALTER COLUMN "position" ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME ferry.account_events_position_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

CREATE TABLE ferry.account_shares (
    account text NOT NULL,
    worker text NOT NULL,
    demand double precision NOT NULL,
    expires_at timestamp with time zone NOT NULL,
    CONSTRAINT account_shares_account_check CHECK (((octet_length(account) >= 1) AND (octet_length(account) <= 256))),
    CONSTRAINT account_shares_demand_check CHECK (((demand > (0)::double precision) AND (demand <= (1000000)::double precision))),
    CONSTRAINT account_shares_worker_check CHECK (((octet_length(worker) >= 1) AND (octet_length(worker) <= 256)))
);

COMMENT ON TABLE ferry.account_shares IS 'Which worker processes use a rate-limited account now, and how much: each takes limit × demand / total demand.';

CREATE TABLE ferry.accounts (
    name text NOT NULL,
    provider text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    max_concurrent integer DEFAULT 4 NOT NULL,
    app_key text,
    app_secret_sealed bytea,
    refresh_token_sealed bytea,
    access_token_sealed bytea,
    access_token_issued_at timestamp with time zone,
    access_token_expires_at timestamp with time zone,
    key_id text,
    api_url text,
    content_url text,
    authorize_url text,
    provider_account_id text,
    status text DEFAULT 'active'::text NOT NULL,
    status_reason text,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    settings jsonb DEFAULT '{}'::jsonb NOT NULL,
    secrets_sealed bytea,
    CONSTRAINT accounts_max_concurrent_check CHECK (((max_concurrent >= 1) AND (max_concurrent <= 1000))),
    CONSTRAINT accounts_name_check CHECK ((name ~ '^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$'::text)),
    CONSTRAINT accounts_provider_name CHECK ((provider ~ '^[a-z][a-z0-9-]{0,31}$'::text)),
    CONSTRAINT accounts_settings_check CHECK ((jsonb_typeof(settings) = 'object'::text)),
    CONSTRAINT accounts_status_check CHECK ((status = ANY (ARRAY['active'::text, 'needs_reauth'::text, 'revoked'::text])))
)
WITH (fillfactor='70');

COMMENT ON COLUMN ferry.accounts.app_secret_sealed IS 'Before schema 30: the one secret of an account (its kind reads it); ferry account rekey moves it to secrets_sealed.';

COMMENT ON COLUMN ferry.accounts.secrets_sealed IS 'The account kind''s secrets: one JSON object sealed by Ferry (AES-GCM), never readable by PostgreSQL.';

CREATE TABLE ferry.queue_count_deltas (
    queue text NOT NULL,
    state text NOT NULL,
    delta bigint NOT NULL
)
WITH (autovacuum_vacuum_scale_factor='0', autovacuum_vacuum_threshold='1000', autovacuum_vacuum_insert_threshold='1000');

CREATE TABLE ferry.queue_counts (
    queue text NOT NULL,
    state text NOT NULL,
    jobs bigint NOT NULL
)
WITH (fillfactor='50');

COMMENT ON TABLE ferry.queue_counts IS 'Jobs per queue and state, compacted; add ferry.queue_count_deltas for the exact count.';

CREATE VIEW ferry.account_status AS
 SELECT a.name,
    a.provider,
    a.status,
    a.status_reason,
    a.updated_at,
    a.max_concurrent,
    (a.status <> 'active'::text) AS needs_login,
        CASE
            WHEN (a.status <> 'active'::text) THEN ( SELECT (COALESCE(sum(n.held), (0)::numeric))::bigint AS "coalesce"
               FROM (( SELECT c.queue
                       FROM ferry.queue_counts c
                      WHERE (c.state = 'queued'::text)
                    UNION
                     SELECT d.queue
                       FROM ferry.queue_count_deltas d
                      WHERE (d.state = 'queued'::text)) q
                 CROSS JOIN LATERAL ( SELECT count(*) AS held
                       FROM ferry.jobs j
                      WHERE ((j.state = 'queued'::text) AND (j.queue = q.queue) AND (COALESCE(j.account, ''::text) = a.name))) n))
            ELSE NULL::bigint
        END AS held_jobs,
    a.app_key,
    a.api_url,
    a.content_url,
    a.authorize_url,
    a.provider_account_id,
    ((a.secrets_sealed IS NOT NULL) OR (a.app_secret_sealed IS NOT NULL)) AS has_secrets,
    (a.refresh_token_sealed IS NOT NULL) AS has_refresh_token,
    a.access_token_expires_at,
    a.created_at,
    a.settings
   FROM ferry.accounts a;

CREATE TABLE ferry.archived_jobs (
    job_id uuid NOT NULL,
    archive_id uuid NOT NULL,
    queue text NOT NULL,
    batch text,
    state text NOT NULL,
    finished_at timestamp with time zone NOT NULL,
    bytes bigint
);

COMMENT ON TABLE ferry.archived_jobs IS 'Jobs whose events were moved to an archive file, and which file.';

CREATE TABLE ferry.archives (
    archive_id uuid NOT NULL,
    state text NOT NULL,
    file text NOT NULL,
    sha256 text NOT NULL,
    bytes bigint NOT NULL,
    jobs integer NOT NULL,
    events integer NOT NULL,
    first_position bigint,
    last_position bigint,
    finished_before timestamp with time zone NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    completed_at timestamp with time zone,
    restored_at timestamp with time zone,
    restore_token uuid,
    CONSTRAINT archives_state_check CHECK ((state = ANY (ARRAY['sealed'::text, 'complete'::text, 'restored'::text])))
);

COMMENT ON TABLE ferry.archives IS 'Archive files written by ferry archive: where, checksum, counts, and whether restored.';

CREATE VIEW ferry.archived_job_status AS
 SELECT a.job_id,
    a.batch,
    a.archive_id,
    r.file,
    r.created_at AS archived_at
   FROM (ferry.archived_jobs a
     JOIN ferry.archives r ON ((r.archive_id = a.archive_id)));

COMMENT ON VIEW ferry.archived_job_status IS 'Archived jobs: batch, archive file and time. Readable by every Ferry role; the archive tables are not.';

CREATE TABLE ferry.batch_archives (
    batch text NOT NULL,
    archive_id uuid NOT NULL,
    jobs integer NOT NULL,
    bytes bigint NOT NULL,
    unsized integer NOT NULL,
    CONSTRAINT batch_archives_bytes_check CHECK ((bytes >= 0)),
    CONSTRAINT batch_archives_jobs_check CHECK ((jobs > 0)),
    CONSTRAINT batch_archives_unsized_check CHECK ((unsized >= 0))
);

COMMENT ON TABLE ferry.batch_archives IS 'Per batch and archive: the jobs and bytes ferry archive moved out of PostgreSQL (deleted when the archive is restored).';

CREATE VIEW ferry.batch_archive_totals AS
 SELECT b.batch,
    sum(b.jobs) AS jobs,
    (sum(b.bytes))::bigint AS bytes,
    sum(b.unsized) AS unsized,
    array_agg(r.file ORDER BY r.created_at) AS files
   FROM (ferry.batch_archives b
     JOIN ferry.archives r ON ((r.archive_id = b.archive_id)))
  WHERE (r.state <> 'restored'::text)
  GROUP BY b.batch;

COMMENT ON VIEW ferry.batch_archive_totals IS 'Per batch: jobs and bytes archived out of PostgreSQL (unsized: archived before sizes were recorded) and the archive files, oldest first.';

CREATE TABLE ferry.batch_count_deltas (
    batch text NOT NULL,
    jobs bigint NOT NULL,
    queued bigint NOT NULL,
    running bigint NOT NULL,
    succeeded bigint NOT NULL,
    failed bigint NOT NULL,
    cancelled bigint NOT NULL,
    bytes_done bigint NOT NULL,
    bytes_total bigint NOT NULL,
    sized bigint NOT NULL,
    enqueued_at timestamp with time zone,
    started_at timestamp with time zone,
    finished_at timestamp with time zone,
    first_job uuid,
    unchanged bigint DEFAULT 0 NOT NULL,
    unchanged_bytes bigint DEFAULT 0 NOT NULL,
    discarded bigint DEFAULT 0 NOT NULL
)
WITH (autovacuum_vacuum_scale_factor='0', autovacuum_vacuum_threshold='1000', autovacuum_vacuum_insert_threshold='1000');

CREATE TABLE ferry.batch_events (
    "position" bigint NOT NULL,
    batch text NOT NULL,
    type text NOT NULL,
    data jsonb DEFAULT '{}'::jsonb NOT NULL,
    tx_id xid8 DEFAULT pg_current_xact_id() NOT NULL,
    recorded_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT batch_events_type_check CHECK ((type = ANY (ARRAY['completed'::text, 'reopened'::text])))
)
WITH (fillfactor='100');

COMMENT ON TABLE ferry.batch_events IS 'Append-only batch history (completed, reopened), written by a trigger on ferry.events. UPDATE, DELETE and TRUNCATE raise.';

ALTER TABLE ferry.batch_events ALTER COLUMN "position" ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME ferry.batch_events_position_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

CREATE TABLE ferry.live_progress (
    job_id uuid NOT NULL,
    worker text NOT NULL,
    batch text,
    bytes_done bigint NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT live_progress_bytes_done_check CHECK ((bytes_done >= 0))
)
WITH (fillfactor='50');

COMMENT ON TABLE ferry.live_progress IS 'Bytes moved by running transfers beyond their last progress event, published by their workers about once a second. Operational, not history.';

CREATE VIEW ferry.batch_status AS
 SELECT s.batch,
    s.jobs,
    s.queued,
    s.running,
    s.succeeded,
    s.failed,
    s.cancelled,
    (s.bytes_done + l.live) AS bytes_done,
        CASE
            WHEN (s.sized > 0) THEN s.bytes_total
            ELSE NULL::bigint
        END AS bytes_total,
    (
        CASE
            WHEN ((s.queued + s.running) = 0) THEN 100.0
            WHEN ((s.sized = s.jobs) AND (s.bytes_total > 0)) THEN LEAST(99.9, round(((100.0 * (LEAST((s.bytes_done + l.live), s.bytes_total))::numeric) / (s.bytes_total)::numeric), 1))
            ELSE LEAST(99.9, round(((100.0 * ((((s.succeeded + s.failed) + s.cancelled) + s.discarded))::numeric) / (s.jobs)::numeric), 1))
        END)::numeric(4,1) AS percent,
    ((s.queued + s.running) = 0) AS done,
    s.enqueued_at,
    s.started_at,
        CASE
            WHEN ((s.queued + s.running) = 0) THEN s.finished_at
            ELSE NULL::timestamp with time zone
        END AS finished_at,
    ( SELECT
                CASE
                    WHEN (e.type = 'completed'::text) THEN e.recorded_at
                    ELSE NULL::timestamp with time zone
                END AS "case"
           FROM ferry.batch_events e
          WHERE (e.batch = s.batch)
          ORDER BY e."position" DESC
         LIMIT 1) AS completed_at,
    (s.jobs - s.sized) AS sizes_unknown,
    s.first_job AS first_job_id,
    s.unchanged,
    s.unchanged_bytes,
    s.discarded
   FROM (( SELECT t.batch,
            (sum(t.jobs))::bigint AS jobs,
            (sum(t.queued))::bigint AS queued,
            (sum(t.running))::bigint AS running,
            (sum(t.succeeded))::bigint AS succeeded,
            (sum(t.failed))::bigint AS failed,
            (sum(t.cancelled))::bigint AS cancelled,
            (sum(t.bytes_done))::bigint AS bytes_done,
            (sum(t.bytes_total))::bigint AS bytes_total,
            (sum(t.sized))::bigint AS sized,
            min(t.enqueued_at) AS enqueued_at,
            min(t.started_at) AS started_at,
            max(t.finished_at) AS finished_at,
            (min(((t.first_job)::text COLLATE "C")))::uuid AS first_job,
            (sum(t.unchanged))::bigint AS unchanged,
            (sum(t.unchanged_bytes))::bigint AS unchanged_bytes,
            (sum(t.discarded))::bigint AS discarded
           FROM ( SELECT batch_counts.batch,
                    batch_counts.jobs,
                    batch_counts.queued,
                    batch_counts.running,
                    batch_counts.succeeded,
                    batch_counts.failed,
                    batch_counts.cancelled,
                    batch_counts.bytes_done,
                    batch_counts.bytes_total,
                    batch_counts.sized,
                    batch_counts.enqueued_at,
                    batch_counts.started_at,
                    batch_counts.finished_at,
                    batch_counts.first_job,
                    batch_counts.unchanged,
                    batch_counts.unchanged_bytes,
                    batch_counts.discarded
                   FROM ferry.batch_counts
                UNION ALL
                 SELECT batch_count_deltas.batch,
                    batch_count_deltas.jobs,
                    batch_count_deltas.queued,
                    batch_count_deltas.running,
                    batch_count_deltas.succeeded,
                    batch_count_deltas.failed,
                    batch_count_deltas.cancelled,
                    batch_count_deltas.bytes_done,
                    batch_count_deltas.bytes_total,
                    batch_count_deltas.sized,
                    batch_count_deltas.enqueued_at,
                    batch_count_deltas.started_at,
                    batch_count_deltas.finished_at,
                    batch_count_deltas.first_job,
                    batch_count_deltas.unchanged,
                    batch_count_deltas.unchanged_bytes,
                    batch_count_deltas.discarded
                   FROM ferry.batch_count_deltas) t
          GROUP BY t.batch
         HAVING (sum(t.jobs) > (0)::numeric)) s
     CROSS JOIN LATERAL ( SELECT (COALESCE(sum(GREATEST((0)::bigint, (lp.bytes_done - ( SELECT k.bytes_done
                   FROM ferry.jobs k
                  WHERE ((k.job_id = lp.job_id) AND (k.worker = lp.worker) AND (k.state = 'running'::text)))))), (0)::numeric))::bigint AS live
           FROM ferry.live_progress lp
          WHERE (lp.batch = s.batch)) l);

COMMENT ON VIEW ferry.batch_status IS 'One row per batch: jobs per state, bytes and percent done (100 only when done), start, finish, completion, how many sizes are still unknown, the jobs (and bytes) that succeeded without moving data because the destination held them already, and the failed jobs discarded since (counted apart from failed).';

ALTER TABLE ferry.events ALTER COLUMN "position" ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME ferry.events_position_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

CREATE TABLE ferry.job_search_terms (
    job_id uuid NOT NULL,
    path text NOT NULL,
    metadata jsonb
);

COMMENT ON TABLE ferry.job_search_terms IS 'Search terms of each job in ferry.jobs (endpoints and metadata), kept by triggers on ferry.jobs (definition 333); read through ferry.job_search.';

CREATE VIEW ferry.job_search AS
 SELECT t.job_id,
    t.path,
    t.metadata
   FROM ferry.job_search_terms t;

CREATE VIEW ferry.job_status AS
 SELECT j.job_id,
    j.kind,
    j.queue,
    j.batch,
        CASE
            WHEN ((j.state = 'queued'::text) AND (a.status IS NOT NULL) AND (a.status <> 'active'::text)) THEN 'held'::text
            WHEN ((j.state = 'queued'::text) AND (j.run_at > now()) AND (j.attempt > 0)) THEN 'retrying'::text
            WHEN ((j.state = 'queued'::text) AND (j.run_at > now())) THEN 'scheduled'::text
            WHEN ((j.state = 'running'::text) AND j.cancel_requested) THEN 'cancelling'::text
            ELSE j.state
        END AS status,
    j.state,
    j.attempt,
    j.max_attempts,
    j.priority,
    j.source,
    j.destination,
    j.account,
    GREATEST(j.bytes_done, lp.bytes_done) AS bytes_done,
    j.bytes_total,
    (
        CASE
            WHEN (j.state = 'succeeded'::text) THEN 100.0
            WHEN (j.bytes_total > 0) THEN LEAST(99.9, round(((100.0 * (LEAST(GREATEST(j.bytes_done, lp.bytes_done), j.bytes_total))::numeric) / (j.bytes_total)::numeric), 1))
            WHEN (j.bytes_total = 0) THEN 0.0
            ELSE NULL::numeric
        END)::numeric(4,1) AS percent,
    j.last_error,
    j.worker,
    j.metadata,
    j.run_at,
    j.enqueued_at,
    j.started_at,
    j.finished_at,
    j.updated_at,
    j.version AS event_count,
        CASE
            WHEN ((j.state = 'queued'::text) AND (a.status = 'needs_reauth'::text)) THEN ((((('account '::text || a.name) || ' needs re-authorization ('::text) || COALESCE(a.status_reason, 'token rejected'::text)) || '): run ferry account login '::text) || a.name)
            WHEN ((j.state = 'queued'::text) AND (a.status = 'revoked'::text)) THEN ((('account '::text || a.name) || ' was signed out (token revoked): run ferry account login '::text) || a.name)
            ELSE NULL::text
        END AS held_reason
   FROM ((ferry.jobs j
     LEFT JOIN ferry.accounts a ON ((a.name = j.account)))
     LEFT JOIN ferry.live_progress lp ON (((lp.job_id = j.job_id) AND (lp.worker = j.worker) AND (j.state = 'running'::text))));

COMMENT ON VIEW ferry.job_status IS 'One row per job: state, attempts, progress and last error.';

CREATE VIEW ferry.job_timeline AS
 SELECT e."position",
    e.job_id,
    e.version,
    e.type,
    e.data,
    e.tx_id,
    e.recorded_at,
    (e.data ->> 'worker'::text) AS worker,
    ((e.data ->> 'lease'::text))::bigint AS lease
   FROM ferry.events e;

CREATE TABLE ferry.provider_options (
    scheme text NOT NULL,
    kind text NOT NULL,
    name text NOT NULL,
    provider text NOT NULL,
    type text NOT NULL,
    choices text[],
    min bigint,
    max bigint,
    CONSTRAINT provider_options_check CHECK (((type = 'choice'::text) = (choices IS NOT NULL))),
    CONSTRAINT provider_options_check1 CHECK (((type = 'integer'::text) = (min IS NOT NULL))),
    CONSTRAINT provider_options_check2 CHECK (((type = 'integer'::text) = (max IS NOT NULL))),
    CONSTRAINT provider_options_kind_check CHECK ((kind = ANY (ARRAY['upload'::text, 'fetch'::text, 'copy'::text, 'copy_source'::text]))),
    CONSTRAINT provider_options_type_check CHECK ((type = ANY (ARRAY['string'::text, 'boolean'::text, 'integer'::text, 'choice'::text])))
);

COMMENT ON TABLE ferry.provider_options IS 'The provider options ferry.enqueue accepts, by scheme and role; written by ferry migrate from the Swift providers. ferry.check_requeued reads them for ferry retry --option.';

CREATE TABLE ferry.queue_controls (
    queue text NOT NULL,
    paused boolean NOT NULL,
    changed_at timestamp with time zone NOT NULL,
    reason text
);

COMMENT ON TABLE ferry.queue_controls IS 'Projection of ferry.queue_events: whether each queue is paused, since when and why.';

CREATE TABLE ferry.queue_events (
    "position" bigint NOT NULL,
    queue text NOT NULL,
    type text NOT NULL,
    data jsonb DEFAULT '{}'::jsonb NOT NULL,
    recorded_at timestamp with time zone DEFAULT now() NOT NULL,
    recorded_by text DEFAULT CURRENT_USER NOT NULL,
    CONSTRAINT queue_events_data_check CHECK ((jsonb_typeof(data) = 'object'::text)),
    CONSTRAINT queue_events_queue_check CHECK ((queue ~ '^[a-z0-9][a-z0-9_.-]{0,62}$'::text)),
    CONSTRAINT queue_events_type_check CHECK ((type = ANY (ARRAY['paused'::text, 'resumed'::text])))
);

COMMENT ON TABLE ferry.queue_events IS 'Append-only history of queue pauses and resumes (ferry queue pause|resume).';

ALTER TABLE ferry.queue_events ALTER COLUMN "position" ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME ferry.queue_events_position_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

CREATE VIEW ferry.queue_stats AS
 WITH counted AS (
         SELECT t.queue,
            t.state,
            (sum(t.jobs))::bigint AS jobs
           FROM ( SELECT queue_counts.queue,
                    queue_counts.state,
                    queue_counts.jobs
                   FROM ferry.queue_counts
                UNION ALL
                 SELECT queue_count_deltas.queue,
                    queue_count_deltas.state,
                    queue_count_deltas.delta
                   FROM ferry.queue_count_deltas) t
          GROUP BY t.queue, t.state
         HAVING (sum(t.jobs) <> (0)::numeric)
        ), waiting AS (
         SELECT c_1.queue,
            q.scheduled,
            q.oldest
           FROM (counted c_1
             CROSS JOIN LATERAL ferry.queue_waiting(c_1.queue) q(scheduled, oldest))
          WHERE (c_1.state = 'queued'::text)
        )
 SELECT c.queue,
    c.state,
    c.jobs,
        CASE
            WHEN (c.state = 'queued'::text) THEN (c.jobs - w.scheduled)
            ELSE (0)::bigint
        END AS due,
        CASE
            WHEN (w.oldest <= now()) THEN (now() - w.oldest)
            ELSE NULL::interval
        END AS oldest_waiting_age,
    (COALESCE(EXTRACT(epoch FROM
        CASE
            WHEN (w.oldest <= now()) THEN (now() - w.oldest)
            ELSE NULL::interval
        END), (0)::numeric))::double precision AS oldest_waiting_seconds,
    COALESCE(( SELECT qc.paused
           FROM ferry.queue_controls qc
          WHERE (qc.queue = c.queue)), false) AS paused
   FROM (counted c
     LEFT JOIN waiting w ON (((w.queue = c.queue) AND (c.state = 'queued'::text))));

COMMENT ON VIEW ferry.queue_stats IS 'Per queue and state: job counts (from counters), due jobs, the oldest due job''s wait (from index probes), and whether the queue is paused.';

CREATE TABLE ferry.remote_folders (
    scope text NOT NULL,
    path text NOT NULL,
    remote_id text,
    claimed_by text NOT NULL,
    claimed_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT remote_folders_claimed_by_check CHECK ((octet_length(claimed_by) <= 256)),
    CONSTRAINT remote_folders_path_check CHECK (((octet_length(path) >= 1) AND (octet_length(path) <= 8192))),
    CONSTRAINT remote_folders_remote_id_check CHECK (((octet_length(remote_id) >= 1) AND (octet_length(remote_id) <= 1024))),
    CONSTRAINT remote_folders_scope_check CHECK (((octet_length(scope) >= 1) AND (octet_length(scope) <= 1024)))
);

COMMENT ON TABLE ferry.remote_folders IS 'Folders workers created on services without unique paths, by account scope and path: each is created once fleet-wide.';

CREATE TABLE ferry.schedule_attempts (
    "position" bigint NOT NULL,
    schedule text NOT NULL,
    worker text NOT NULL,
    started_at timestamp with time zone DEFAULT now() NOT NULL
);

COMMENT ON TABLE ferry.schedule_attempts IS 'Schedule firings under way or whose worker died (a firing that ends removes its row): three left behind pause the schedule.';

ALTER TABLE ferry.schedule_attempts ALTER COLUMN "position" ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME ferry.schedule_attempts_position_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

CREATE TABLE ferry.schedule_events (
    "position" bigint NOT NULL,
    schedule text NOT NULL,
    type text NOT NULL,
    data jsonb DEFAULT '{}'::jsonb NOT NULL,
    recorded_at timestamp with time zone DEFAULT now() NOT NULL,
    recorded_by text DEFAULT CURRENT_USER NOT NULL,
    CONSTRAINT schedule_events_data_check CHECK ((jsonb_typeof(data) = 'object'::text)),
    CONSTRAINT schedule_events_schedule_check CHECK ((schedule ~ '^[a-z0-9][a-z0-9_.-]{0,62}$'::text)),
    CONSTRAINT schedule_events_type_check CHECK ((type = ANY (ARRAY['added'::text, 'replaced'::text, 'paused'::text, 'resumed'::text, 'removed'::text, 'run_requested'::text])))
);

COMMENT ON TABLE ferry.schedule_events IS 'Append-only history of schedule definitions (ferry schedule add|pause|resume|remove): who, when, what.';

ALTER TABLE ferry.schedule_events ALTER COLUMN "position" ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME ferry.schedule_events_position_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

CREATE TABLE ferry.schedule_ticks (
    "position" bigint NOT NULL,
    schedule text NOT NULL,
    tick_at timestamp with time zone NOT NULL,
    fired_at timestamp with time zone DEFAULT now() NOT NULL,
    job_id uuid,
    missed bigint DEFAULT 0 NOT NULL,
    first_missed timestamp with time zone,
    error text,
    next_tick timestamp with time zone,
    worker text,
    skipped_for uuid,
    manual boolean DEFAULT false NOT NULL,
    CONSTRAINT schedule_ticks_missed_check CHECK ((missed >= 0)),
    CONSTRAINT schedule_ticks_outcome CHECK ((num_nonnulls(job_id, error, skipped_for) = 1))
);

COMMENT ON TABLE ferry.schedule_ticks IS 'Append-only: one row per fired schedule tick (its job, or why none), with the ticks missed before it.';

CREATE VIEW ferry.schedule_runs AS
 SELECT t.schedule,
    t.tick_at,
    t.fired_at,
    t.job_id,
    j.state AS job_state,
    t.missed,
    t.first_missed,
    t.error,
    t.worker,
    t."position",
    t.skipped_for,
    t.manual
   FROM (ferry.schedule_ticks t
     LEFT JOIN ferry.jobs j ON ((j.job_id = t.job_id)));

COMMENT ON VIEW ferry.schedule_runs IS 'Per fired schedule tick: the tick, when it fired, the job (and its state), ticks missed before it, the error, or the job still going that it was skipped for (overlap skip).';

CREATE TABLE ferry.schedules (
    name text NOT NULL,
    every_seconds bigint,
    cron text,
    timezone text NOT NULL,
    template jsonb NOT NULL,
    paused boolean DEFAULT false NOT NULL,
    removed boolean DEFAULT false NOT NULL,
    next_tick timestamp with time zone,
    created_at timestamp with time zone NOT NULL,
    changed_at timestamp with time zone NOT NULL,
    last_tick timestamp with time zone,
    last_fired_at timestamp with time zone,
    last_job_id uuid,
    overlap text DEFAULT 'allow'::text NOT NULL,
    run_requested_at timestamp with time zone,
    paused_reason text,
    CONSTRAINT schedules_check CHECK (((every_seconds IS NULL) <> (cron IS NULL))),
    CONSTRAINT schedules_every_seconds_check CHECK ((every_seconds > 0)),
    CONSTRAINT schedules_overlap_check CHECK ((overlap = ANY (ARRAY['allow'::text, 'skip'::text])))
);

COMMENT ON TABLE ferry.schedules IS 'Projection of ferry.schedule_events and ferry.schedule_ticks: each schedule''s definition, state and next tick.';

CREATE VIEW ferry.schedule_status AS
 SELECT s.name,
        CASE
            WHEN (s.cron IS NOT NULL) THEN ('cron '::text || s.cron)
            ELSE (('every '::text || s.every_seconds) || 's'::text)
        END AS spec,
    s.every_seconds,
    s.cron,
    s.timezone,
    s.paused,
    s.removed,
    s.next_tick,
    s.last_tick,
    s.last_fired_at,
    s.last_job_id,
    j.state AS last_job_state,
    s.template,
    s.created_at,
    s.changed_at,
    s.overlap,
    s.run_requested_at,
    s.paused_reason
   FROM (ferry.schedules s
     LEFT JOIN ferry.jobs j ON ((j.job_id = s.last_job_id)));

COMMENT ON VIEW ferry.schedule_status IS 'Per schedule: spec, time zone, paused, removed, next tick, the last tick''s job and its state, a run asked for now (ferry schedule run) that no worker fired yet, and why a worker paused it (poison).';

ALTER TABLE ferry.schedule_ticks ALTER COLUMN "position" ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME ferry.schedule_ticks_position_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

CREATE TABLE ferry.schema_definitions (
    name text NOT NULL,
    checksum text NOT NULL,
    applied_at timestamp with time zone DEFAULT clock_timestamp() NOT NULL
);

COMMENT ON TABLE ferry.schema_definitions IS 'Each text (SHA-256 of the file) a migrations/definitions/ file was applied with; the latest per name is current.';

CREATE TABLE ferry.schema_migrations (
    version integer NOT NULL,
    name text NOT NULL,
    checksum text NOT NULL,
    applied_at timestamp with time zone DEFAULT now() NOT NULL
);

CREATE VIEW ferry.schema_version AS
 SELECT COALESCE(max(schema_migrations.version), 0) AS version
   FROM ferry.schema_migrations;

COMMENT ON VIEW ferry.schema_version IS 'The newest migration applied (ferry --version names the one a binary needs).';

CREATE TABLE ferry.settings (
    name text NOT NULL,
    value text NOT NULL
);

COMMENT ON TABLE ferry.settings IS 'Operator settings read by the database''s checks (the owner writes them).';

CREATE TABLE ferry.throughput_counts (
    minute timestamp with time zone NOT NULL,
    queue text NOT NULL,
    succeeded bigint NOT NULL,
    failed bigint NOT NULL,
    bytes bigint NOT NULL
)
WITH (fillfactor='50');

COMMENT ON TABLE ferry.throughput_counts IS 'Jobs finished per minute and queue (kept a day), compacted; add ferry.throughput_deltas.';

CREATE TABLE ferry.throughput_deltas (
    minute timestamp with time zone NOT NULL,
    queue text NOT NULL,
    succeeded bigint NOT NULL,
    failed bigint NOT NULL,
    bytes bigint NOT NULL
)
WITH (autovacuum_vacuum_scale_factor='0', autovacuum_vacuum_threshold='1000', autovacuum_vacuum_insert_threshold='1000');

CREATE VIEW ferry.throughput AS
 SELECT t.minute,
    t.queue,
    (sum(t.succeeded))::bigint AS succeeded,
    (sum(t.failed))::bigint AS failed,
    (sum(t.bytes))::bigint AS bytes
   FROM ( SELECT throughput_counts.minute,
            throughput_counts.queue,
            throughput_counts.succeeded,
            throughput_counts.failed,
            throughput_counts.bytes
           FROM ferry.throughput_counts
          WHERE (throughput_counts.minute >= (date_trunc('minute'::text, now()) - '00:59:00'::interval))
        UNION ALL
         SELECT throughput_deltas.minute,
            throughput_deltas.queue,
            throughput_deltas.succeeded,
            throughput_deltas.failed,
            throughput_deltas.bytes
           FROM ferry.throughput_deltas
          WHERE (throughput_deltas.minute >= (date_trunc('minute'::text, now()) - '00:59:00'::interval))) t
  GROUP BY t.minute, t.queue;

CREATE TABLE ferry.trend_hours (
    bucket timestamp with time zone NOT NULL,
    queue text NOT NULL,
    account text NOT NULL,
    provider text NOT NULL,
    succeeded bigint NOT NULL,
    failed bigint NOT NULL,
    bytes bigint NOT NULL
);

COMMENT ON TABLE ferry.trend_hours IS 'Jobs finished per hour, queue, account and provider before ferry.trend_rollup.rolled_to (kept 8 days).';

CREATE TABLE ferry.trend_minutes (
    bucket timestamp with time zone NOT NULL,
    queue text NOT NULL,
    account text NOT NULL,
    provider text NOT NULL,
    succeeded bigint NOT NULL,
    failed bigint NOT NULL,
    bytes bigint NOT NULL
);

COMMENT ON TABLE ferry.trend_minutes IS 'Jobs finished per minute, queue, account and provider before ferry.trend_rollup.rolled_to (kept 25 hours).';

CREATE TABLE ferry.trend_rollup (
    only_row boolean DEFAULT true NOT NULL,
    rolled_to timestamp with time zone NOT NULL,
    CONSTRAINT trend_rollup_only_row_check CHECK (only_row)
);

CREATE TABLE ferry.workers (
    name text NOT NULL,
    queues text[] NOT NULL,
    concurrency integer NOT NULL,
    host text NOT NULL,
    pid integer NOT NULL,
    started_at timestamp with time zone DEFAULT now() NOT NULL,
    heartbeat_at timestamp with time zone DEFAULT now() NOT NULL,
    stopping boolean DEFAULT false NOT NULL,
    login name DEFAULT SESSION_USER NOT NULL,
    version text
)
WITH (fillfactor='50');

CREATE VIEW ferry.worker_status AS
 SELECT w.name,
    w.host,
    w.pid,
    w.queues,
    w.concurrency,
    (EXTRACT(epoch FROM (now() - w.heartbeat_at)))::double precision AS heartbeat_age_seconds,
    w.stopping,
    ( SELECT count(*) AS count
           FROM ferry.jobs j
          WHERE ((j.state = 'running'::text) AND (j.worker = w.name))) AS running,
    w.started_at,
    w.version
   FROM ferry.workers w;

ALTER TABLE ONLY ferry.account_events
    ADD CONSTRAINT account_events_pkey PRIMARY KEY ("position");

ALTER TABLE ONLY ferry.account_shares
    ADD CONSTRAINT account_shares_pkey PRIMARY KEY (account, worker);

ALTER TABLE ONLY ferry.accounts
    ADD CONSTRAINT accounts_pkey PRIMARY KEY (name);

ALTER TABLE ONLY ferry.archived_jobs
    ADD CONSTRAINT archived_jobs_pkey PRIMARY KEY (job_id);

ALTER TABLE ONLY ferry.archives
    ADD CONSTRAINT archives_pkey PRIMARY KEY (archive_id);

ALTER TABLE ONLY ferry.batch_archives
    ADD CONSTRAINT batch_archives_pkey PRIMARY KEY (batch, archive_id);

ALTER TABLE ONLY ferry.batch_counts
    ADD CONSTRAINT batch_counts_pkey PRIMARY KEY (batch);

ALTER TABLE ONLY ferry.batch_events
    ADD CONSTRAINT batch_events_pkey PRIMARY KEY ("position");

ALTER TABLE ONLY ferry.events
    ADD CONSTRAINT events_job_version_key UNIQUE (job_id, version);

ALTER TABLE ONLY ferry.events
    ADD CONSTRAINT events_pkey PRIMARY KEY ("position");

ALTER TABLE ONLY ferry.job_search_terms
    ADD CONSTRAINT job_search_terms_pkey PRIMARY KEY (job_id);

ALTER TABLE ONLY ferry.jobs
    ADD CONSTRAINT jobs_pkey PRIMARY KEY (job_id);

ALTER TABLE ONLY ferry.live_progress
    ADD CONSTRAINT live_progress_pkey PRIMARY KEY (job_id);

ALTER TABLE ONLY ferry.provider_options
    ADD CONSTRAINT provider_options_pkey PRIMARY KEY (scheme, kind, name);

ALTER TABLE ONLY ferry.queue_controls
    ADD CONSTRAINT queue_controls_pkey PRIMARY KEY (queue);

ALTER TABLE ONLY ferry.queue_counts
    ADD CONSTRAINT queue_counts_pkey PRIMARY KEY (queue, state);

ALTER TABLE ONLY ferry.queue_events
    ADD CONSTRAINT queue_events_pkey PRIMARY KEY ("position");

ALTER TABLE ONLY ferry.remote_folders
    ADD CONSTRAINT remote_folders_pkey PRIMARY KEY (scope, path);

ALTER TABLE ONLY ferry.schedule_attempts
    ADD CONSTRAINT schedule_attempts_pkey PRIMARY KEY ("position");

ALTER TABLE ONLY ferry.schedule_events
    ADD CONSTRAINT schedule_events_pkey PRIMARY KEY ("position");

ALTER TABLE ONLY ferry.schedule_ticks
    ADD CONSTRAINT schedule_ticks_once UNIQUE (schedule, tick_at);

ALTER TABLE ONLY ferry.schedule_ticks
    ADD CONSTRAINT schedule_ticks_pkey PRIMARY KEY ("position");

ALTER TABLE ONLY ferry.schedules
    ADD CONSTRAINT schedules_pkey PRIMARY KEY (name);

ALTER TABLE ONLY ferry.schema_definitions
    ADD CONSTRAINT schema_definitions_pkey PRIMARY KEY (name, checksum);

ALTER TABLE ONLY ferry.schema_migrations
    ADD CONSTRAINT schema_migrations_pkey PRIMARY KEY (version);

ALTER TABLE ONLY ferry.settings
    ADD CONSTRAINT settings_pkey PRIMARY KEY (name);

ALTER TABLE ONLY ferry.throughput_counts
    ADD CONSTRAINT throughput_counts_pkey PRIMARY KEY (minute, queue);

ALTER TABLE ONLY ferry.trend_hours
    ADD CONSTRAINT trend_hours_pkey PRIMARY KEY (bucket, queue, account, provider);

ALTER TABLE ONLY ferry.trend_minutes
    ADD CONSTRAINT trend_minutes_pkey PRIMARY KEY (bucket, queue, account, provider);

ALTER TABLE ONLY ferry.trend_rollup
    ADD CONSTRAINT trend_rollup_pkey PRIMARY KEY (only_row);

ALTER TABLE ONLY ferry.workers
    ADD CONSTRAINT workers_pkey PRIMARY KEY (name);

CREATE INDEX account_events_account_idx ON ferry.account_events USING btree (account, "position");

CREATE INDEX archived_jobs_archive_idx ON ferry.archived_jobs USING btree (archive_id);

CREATE INDEX archived_jobs_batch_idx ON ferry.archived_jobs USING btree (batch) WHERE (batch IS NOT NULL);

CREATE INDEX batch_events_batch_idx ON ferry.batch_events USING btree (batch, "position");

CREATE INDEX events_recorded_at_brin ON ferry.events USING brin (recorded_at);

CREATE INDEX job_search_terms_metadata_idx ON ferry.job_search_terms USING gin (metadata jsonb_path_ops) WHERE (metadata IS NOT NULL);

CREATE INDEX job_search_terms_path_idx ON ferry.job_search_terms USING gin (path public.gin_trgm_ops);

CREATE INDEX jobs_batch_idx ON ferry.jobs USING btree (batch, state, job_id) WHERE (batch IS NOT NULL);

CREATE INDEX jobs_claim_idx ON ferry.jobs USING btree (queue, COALESCE(account, ''::text), priority DESC, run_at, job_id) WHERE (state = 'queued'::text);

CREATE INDEX jobs_error_code_idx ON ferry.jobs USING btree ("substring"(last_error, '^([a-z][a-z0-9_]{0,63}):'::text), job_id) WHERE (last_error IS NOT NULL);

CREATE INDEX jobs_finished_idx ON ferry.jobs USING btree (state, finished_at) WHERE (state = ANY (ARRAY['succeeded'::text, 'failed'::text, 'cancelled'::text, 'discarded'::text]));

CREATE UNIQUE INDEX jobs_idempotency_key ON ferry.jobs USING btree (idempotency_key) WHERE (idempotency_key IS NOT NULL);

CREATE INDEX jobs_running_account_idx ON ferry.jobs USING btree (account) WHERE ((state = 'running'::text) AND (account IS NOT NULL));

CREATE INDEX jobs_running_idx ON ferry.jobs USING btree (worker) WHERE (state = 'running'::text);

CREATE INDEX live_progress_batch ON ferry.live_progress USING btree (batch) WHERE (batch IS NOT NULL);

CREATE INDEX live_progress_worker ON ferry.live_progress USING btree (worker);

CREATE INDEX schedule_attempts_schedule_idx ON ferry.schedule_attempts USING btree (schedule, started_at);

CREATE INDEX schedule_events_schedule_idx ON ferry.schedule_events USING btree (schedule, "position");

CREATE INDEX schedules_due_idx ON ferry.schedules USING btree (next_tick) WHERE ((NOT paused) AND (NOT removed));

CREATE INDEX schedules_run_requested_idx ON ferry.schedules USING btree (run_requested_at) WHERE ((run_requested_at IS NOT NULL) AND (NOT removed));

CREATE TRIGGER account_events_append_only_rows BEFORE DELETE OR UPDATE ON ferry.account_events FOR EACH ROW EXECUTE FUNCTION ferry.forbid_account_event_change();

CREATE TRIGGER account_events_append_only_truncate BEFORE TRUNCATE ON ferry.account_events FOR EACH STATEMENT EXECUTE FUNCTION ferry.forbid_account_event_change();

CREATE TRIGGER account_events_authorize AFTER INSERT ON ferry.account_events REFERENCING NEW TABLE AS new_account_events FOR EACH STATEMENT EXECUTE FUNCTION ferry.authorize_account_events();

CREATE TRIGGER batch_events_append_only_rows BEFORE DELETE OR UPDATE ON ferry.batch_events FOR EACH ROW EXECUTE FUNCTION ferry.forbid_batch_event_change();

CREATE TRIGGER batch_events_append_only_truncate BEFORE TRUNCATE ON ferry.batch_events FOR EACH STATEMENT EXECUTE FUNCTION ferry.forbid_batch_event_change();

CREATE TRIGGER events_append_only_rows BEFORE UPDATE ON ferry.events FOR EACH ROW EXECUTE FUNCTION ferry.forbid_event_change();

CREATE TRIGGER events_append_only_truncate BEFORE TRUNCATE ON ferry.events FOR EACH STATEMENT EXECUTE FUNCTION ferry.forbid_event_change();

CREATE TRIGGER events_authorize AFTER INSERT ON ferry.events REFERENCING NEW TABLE AS new_events FOR EACH STATEMENT EXECUTE FUNCTION ferry.authorize_events();

CREATE TRIGGER events_leave_only_archived AFTER DELETE ON ferry.events REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION ferry.guard_event_removal();

CREATE TRIGGER events_project AFTER INSERT ON ferry.events REFERENCING NEW TABLE AS new_events FOR EACH STATEMENT WHEN (((COALESCE(current_setting('ferry.restore_token'::text, true), ''::text) = ''::text) OR (NOT ferry.restoring()))) EXECUTE FUNCTION ferry.project_events();

CREATE TRIGGER events_track_batches AFTER INSERT ON ferry.events REFERENCING NEW TABLE AS new_events FOR EACH STATEMENT WHEN (((COALESCE(current_setting('ferry.restore_token'::text, true), ''::text) = ''::text) OR (NOT ferry.restoring()))) EXECUTE FUNCTION ferry.track_batches();

CREATE TRIGGER jobs_search_terms_added AFTER INSERT ON ferry.jobs REFERENCING NEW TABLE AS new_jobs FOR EACH STATEMENT EXECUTE FUNCTION ferry.add_job_search_terms();

CREATE TRIGGER jobs_search_terms_changed AFTER UPDATE OF source, destination, metadata ON ferry.jobs FOR EACH ROW WHEN (((old.source IS DISTINCT FROM new.source) OR (old.destination IS DISTINCT FROM new.destination) OR (old.metadata IS DISTINCT FROM new.metadata))) EXECUTE FUNCTION ferry.change_job_search_terms();

CREATE TRIGGER jobs_search_terms_removed AFTER DELETE ON ferry.jobs REFERENCING OLD TABLE AS old_jobs FOR EACH STATEMENT EXECUTE FUNCTION ferry.remove_job_search_terms();

CREATE TRIGGER jobs_search_terms_truncated AFTER TRUNCATE ON ferry.jobs FOR EACH STATEMENT EXECUTE FUNCTION ferry.remove_job_search_terms();

CREATE TRIGGER jobs_written_by_projection_only BEFORE INSERT OR DELETE OR UPDATE OR TRUNCATE ON ferry.jobs FOR EACH STATEMENT EXECUTE FUNCTION ferry.guard_projection();

CREATE TRIGGER queue_events_no_change BEFORE DELETE OR UPDATE OR TRUNCATE ON ferry.queue_events FOR EACH STATEMENT EXECUTE FUNCTION ferry.queue_events_append_only();

CREATE TRIGGER queue_events_project AFTER INSERT ON ferry.queue_events REFERENCING NEW TABLE AS new_events FOR EACH STATEMENT EXECUTE FUNCTION ferry.project_queue_events();

CREATE TRIGGER schedule_events_check BEFORE INSERT ON ferry.schedule_events FOR EACH ROW EXECUTE FUNCTION ferry.check_schedule_event();

CREATE TRIGGER schedule_events_no_change BEFORE DELETE OR UPDATE OR TRUNCATE ON ferry.schedule_events FOR EACH STATEMENT EXECUTE FUNCTION ferry.schedule_history_append_only();

CREATE TRIGGER schedule_events_project AFTER INSERT ON ferry.schedule_events REFERENCING NEW TABLE AS new_events FOR EACH STATEMENT EXECUTE FUNCTION ferry.project_schedule_events();

CREATE TRIGGER schedule_ticks_no_change BEFORE DELETE OR UPDATE OR TRUNCATE ON ferry.schedule_ticks FOR EACH STATEMENT EXECUTE FUNCTION ferry.schedule_history_append_only();

CREATE TRIGGER schedule_ticks_project AFTER INSERT ON ferry.schedule_ticks REFERENCING NEW TABLE AS new_ticks FOR EACH STATEMENT EXECUTE FUNCTION ferry.project_schedule_ticks();

CREATE TRIGGER workers_guard BEFORE INSERT OR DELETE OR UPDATE ON ferry.workers FOR EACH ROW EXECUTE FUNCTION ferry.guard_worker_rows();

ALTER TABLE ONLY ferry.archived_jobs
    ADD CONSTRAINT archived_jobs_archive_id_fkey FOREIGN KEY (archive_id) REFERENCES ferry.archives(archive_id);

ALTER TABLE ONLY ferry.batch_archives
    ADD CONSTRAINT batch_archives_archive_id_fkey FOREIGN KEY (archive_id) REFERENCES ferry.archives(archive_id);

ALTER TABLE ONLY ferry.live_progress
    ADD CONSTRAINT live_progress_worker_fkey FOREIGN KEY (worker) REFERENCES ferry.workers(name) ON DELETE CASCADE;

GRANT USAGE ON SCHEMA ferry TO ferry_reader;
GRANT USAGE ON SCHEMA ferry TO ferry_producer;
GRANT USAGE ON SCHEMA ferry TO ferry_worker;

REVOKE ALL ON FUNCTION ferry.account_transfers(p_account text) FROM PUBLIC;
GRANT ALL ON FUNCTION ferry.account_transfers(p_account text) TO ferry_worker;

GRANT SELECT,UPDATE ON TABLE ferry.jobs TO ferry_producer;
GRANT SELECT,UPDATE ON TABLE ferry.jobs TO ferry_worker;

REVOKE ALL ON FUNCTION ferry.batch_counts_actual() FROM PUBLIC;

REVOKE ALL ON FUNCTION ferry.begin_schedule_attempt(p_schedule text, p_worker text, p_poison_after integer) FROM PUBLIC;
GRANT ALL ON FUNCTION ferry.begin_schedule_attempt(p_schedule text, p_worker text, p_poison_after integer) TO ferry_worker;

REVOKE ALL ON FUNCTION ferry.check_enqueued(d jsonb, p_place text) FROM PUBLIC;
GRANT ALL ON FUNCTION ferry.check_enqueued(d jsonb, p_place text) TO ferry_producer;
GRANT ALL ON FUNCTION ferry.check_enqueued(d jsonb, p_place text) TO ferry_worker;

REVOKE ALL ON FUNCTION ferry.claim_jobs(p_worker text, p_queues text[], p_limit integer) FROM PUBLIC;
GRANT ALL ON FUNCTION ferry.claim_jobs(p_worker text, p_queues text[], p_limit integer) TO ferry_worker;

REVOKE ALL ON FUNCTION ferry.compact_counters() FROM PUBLIC;
GRANT ALL ON FUNCTION ferry.compact_counters() TO ferry_worker;

REVOKE ALL ON FUNCTION ferry.compact_queue_counts() FROM PUBLIC;
GRANT ALL ON FUNCTION ferry.compact_queue_counts() TO ferry_worker;

REVOKE ALL ON FUNCTION ferry.count_changes(p_changes ferry.job_change[]) FROM PUBLIC;

REVOKE ALL ON FUNCTION ferry.end_schedule_attempt(p_attempt bigint, p_worker text) FROM PUBLIC;
GRANT ALL ON FUNCTION ferry.end_schedule_attempt(p_attempt bigint, p_worker text) TO ferry_worker;

REVOKE ALL ON FUNCTION ferry.enqueue(p_kind text, p_source text, p_destination text, p_options jsonb) FROM PUBLIC;
GRANT ALL ON FUNCTION ferry.enqueue(p_kind text, p_source text, p_destination text, p_options jsonb) TO ferry_producer;
GRANT ALL ON FUNCTION ferry.enqueue(p_kind text, p_source text, p_destination text, p_options jsonb) TO ferry_worker;

REVOKE ALL ON FUNCTION ferry.enqueue_many(p_jobs jsonb) FROM PUBLIC;
GRANT ALL ON FUNCTION ferry.enqueue_many(p_jobs jsonb) TO ferry_producer;
GRANT ALL ON FUNCTION ferry.enqueue_many(p_jobs jsonb) TO ferry_worker;

REVOKE ALL ON FUNCTION ferry.enqueue_request(p_kind text, p_source text, p_destination text, p_options jsonb, p_place text, OUT job_id uuid, OUT data jsonb) FROM PUBLIC;
GRANT ALL ON FUNCTION ferry.enqueue_request(p_kind text, p_source text, p_destination text, p_options jsonb, p_place text, OUT job_id uuid, OUT data jsonb) TO ferry_producer;
GRANT ALL ON FUNCTION ferry.enqueue_request(p_kind text, p_source text, p_destination text, p_options jsonb, p_place text, OUT job_id uuid, OUT data jsonb) TO ferry_worker;

REVOKE ALL ON FUNCTION ferry.enqueued_ok(d jsonb) FROM PUBLIC;
GRANT ALL ON FUNCTION ferry.enqueued_ok(d jsonb) TO ferry_producer;
GRANT ALL ON FUNCTION ferry.enqueued_ok(d jsonb) TO ferry_worker;

REVOKE ALL ON FUNCTION ferry.queue_waiting(p_queue text, OUT scheduled bigint, OUT oldest timestamp with time zone) FROM PUBLIC;
GRANT ALL ON FUNCTION ferry.queue_waiting(p_queue text, OUT scheduled bigint, OUT oldest timestamp with time zone) TO ferry_reader;
GRANT ALL ON FUNCTION ferry.queue_waiting(p_queue text, OUT scheduled bigint, OUT oldest timestamp with time zone) TO ferry_producer;
GRANT ALL ON FUNCTION ferry.queue_waiting(p_queue text, OUT scheduled bigint, OUT oldest timestamp with time zone) TO ferry_worker;

REVOKE ALL ON FUNCTION ferry.rebuild_projection() FROM PUBLIC;

REVOKE ALL ON FUNCTION ferry.record_outcomes(p_jobs uuid[], p_leases bigint[], p_types text[], p_data jsonb[], p_sent timestamp with time zone) FROM PUBLIC;
GRANT ALL ON FUNCTION ferry.record_outcomes(p_jobs uuid[], p_leases bigint[], p_types text[], p_data jsonb[], p_sent timestamp with time zone) TO ferry_worker;

REVOKE ALL ON FUNCTION ferry.record_then_claim(p_jobs uuid[], p_leases bigint[], p_types text[], p_data jsonb[], p_sent timestamp with time zone, p_worker text, p_queues text[], p_limit integer) FROM PUBLIC;
GRANT ALL ON FUNCTION ferry.record_then_claim(p_jobs uuid[], p_leases bigint[], p_types text[], p_data jsonb[], p_sent timestamp with time zone, p_worker text, p_queues text[], p_limit integer) TO ferry_worker;

REVOKE ALL ON FUNCTION ferry.recount_batches() FROM PUBLIC;

REVOKE ALL ON FUNCTION ferry.recount_queues() FROM PUBLIC;

REVOKE ALL ON FUNCTION ferry.release_orphaned_claims(p_worker text, p_running uuid[], p_grace interval) FROM PUBLIC;
GRANT ALL ON FUNCTION ferry.release_orphaned_claims(p_worker text, p_running uuid[], p_grace interval) TO ferry_worker;

GRANT SELECT ON TABLE ferry.events TO ferry_producer;
GRANT SELECT ON TABLE ferry.events TO ferry_worker;

GRANT INSERT(job_id) ON TABLE ferry.events TO ferry_producer;
GRANT INSERT(job_id) ON TABLE ferry.events TO ferry_worker;

GRANT INSERT(version) ON TABLE ferry.events TO ferry_producer;
GRANT INSERT(version) ON TABLE ferry.events TO ferry_worker;

GRANT INSERT(type) ON TABLE ferry.events TO ferry_producer;
GRANT INSERT(type) ON TABLE ferry.events TO ferry_worker;

GRANT INSERT(data) ON TABLE ferry.events TO ferry_producer;
GRANT INSERT(data) ON TABLE ferry.events TO ferry_worker;

REVOKE ALL ON FUNCTION ferry.rescue_stale_jobs(p_stale_after interval, p_poison_after integer) FROM PUBLIC;
GRANT ALL ON FUNCTION ferry.rescue_stale_jobs(p_stale_after interval, p_poison_after integer) TO ferry_worker;

REVOKE ALL ON FUNCTION ferry.restoring() FROM PUBLIC;
GRANT ALL ON FUNCTION ferry.restoring() TO ferry_producer;
GRANT ALL ON FUNCTION ferry.restoring() TO ferry_worker;

REVOKE ALL ON FUNCTION ferry.roll_up_trends() FROM PUBLIC;
GRANT ALL ON FUNCTION ferry.roll_up_trends() TO ferry_worker;

REVOKE ALL ON FUNCTION ferry.trend_keys() FROM PUBLIC;
GRANT ALL ON FUNCTION ferry.trend_keys() TO ferry_reader;
GRANT ALL ON FUNCTION ferry.trend_keys() TO ferry_worker;

REVOKE ALL ON FUNCTION ferry.trends(p_since timestamp with time zone, p_step interval, p_queue text, p_account text, p_provider text) FROM PUBLIC;
GRANT ALL ON FUNCTION ferry.trends(p_since timestamp with time zone, p_step interval, p_queue text, p_account text, p_provider text) TO ferry_reader;
GRANT ALL ON FUNCTION ferry.trends(p_since timestamp with time zone, p_step interval, p_queue text, p_account text, p_provider text) TO ferry_worker;

REVOKE ALL ON FUNCTION ferry.uuid_v7() FROM PUBLIC;
GRANT ALL ON FUNCTION ferry.uuid_v7() TO ferry_producer;
GRANT ALL ON FUNCTION ferry.uuid_v7() TO ferry_worker;

GRANT SELECT,INSERT ON TABLE ferry.account_events TO ferry_worker;
GRANT SELECT ON TABLE ferry.account_events TO ferry_producer;

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE ferry.account_shares TO ferry_worker;

GRANT SELECT ON TABLE ferry.accounts TO ferry_worker;

GRANT SELECT(name) ON TABLE ferry.accounts TO ferry_producer;

GRANT SELECT(provider) ON TABLE ferry.accounts TO ferry_producer;

GRANT SELECT(created_at) ON TABLE ferry.accounts TO ferry_producer;

GRANT SELECT(max_concurrent) ON TABLE ferry.accounts TO ferry_producer;

GRANT SELECT(app_key) ON TABLE ferry.accounts TO ferry_producer;

GRANT UPDATE(refresh_token_sealed) ON TABLE ferry.accounts TO ferry_worker;

GRANT UPDATE(access_token_sealed) ON TABLE ferry.accounts TO ferry_worker;

GRANT UPDATE(access_token_issued_at) ON TABLE ferry.accounts TO ferry_worker;
GRANT SELECT(access_token_issued_at) ON TABLE ferry.accounts TO ferry_producer;

GRANT UPDATE(access_token_expires_at) ON TABLE ferry.accounts TO ferry_worker;
GRANT SELECT(access_token_expires_at) ON TABLE ferry.accounts TO ferry_producer;

GRANT UPDATE(key_id) ON TABLE ferry.accounts TO ferry_worker;
GRANT SELECT(key_id) ON TABLE ferry.accounts TO ferry_producer;

GRANT SELECT(api_url) ON TABLE ferry.accounts TO ferry_producer;

GRANT SELECT(content_url) ON TABLE ferry.accounts TO ferry_producer;

GRANT SELECT(authorize_url) ON TABLE ferry.accounts TO ferry_producer;

GRANT SELECT(provider_account_id) ON TABLE ferry.accounts TO ferry_producer;

GRANT UPDATE(status) ON TABLE ferry.accounts TO ferry_worker;
GRANT SELECT(status) ON TABLE ferry.accounts TO ferry_producer;

GRANT UPDATE(status_reason) ON TABLE ferry.accounts TO ferry_worker;
GRANT SELECT(status_reason) ON TABLE ferry.accounts TO ferry_producer;

GRANT UPDATE(updated_at) ON TABLE ferry.accounts TO ferry_worker;
GRANT SELECT(updated_at) ON TABLE ferry.accounts TO ferry_producer;

GRANT SELECT(settings) ON TABLE ferry.accounts TO ferry_producer;

GRANT SELECT ON TABLE ferry.account_status TO ferry_reader;
GRANT SELECT ON TABLE ferry.account_status TO ferry_producer;
GRANT SELECT ON TABLE ferry.account_status TO ferry_worker;

GRANT SELECT ON TABLE ferry.archived_jobs TO ferry_producer;
GRANT SELECT ON TABLE ferry.archived_jobs TO ferry_worker;

GRANT SELECT(archive_id) ON TABLE ferry.archives TO ferry_producer;
GRANT SELECT(archive_id) ON TABLE ferry.archives TO ferry_worker;

GRANT SELECT(state) ON TABLE ferry.archives TO ferry_producer;
GRANT SELECT(state) ON TABLE ferry.archives TO ferry_worker;

GRANT SELECT(file) ON TABLE ferry.archives TO ferry_producer;
GRANT SELECT(file) ON TABLE ferry.archives TO ferry_worker;

GRANT SELECT(sha256) ON TABLE ferry.archives TO ferry_producer;
GRANT SELECT(sha256) ON TABLE ferry.archives TO ferry_worker;

GRANT SELECT(jobs) ON TABLE ferry.archives TO ferry_producer;
GRANT SELECT(jobs) ON TABLE ferry.archives TO ferry_worker;

GRANT SELECT(events) ON TABLE ferry.archives TO ferry_producer;
GRANT SELECT(events) ON TABLE ferry.archives TO ferry_worker;

GRANT SELECT(first_position) ON TABLE ferry.archives TO ferry_producer;
GRANT SELECT(first_position) ON TABLE ferry.archives TO ferry_worker;

GRANT SELECT(last_position) ON TABLE ferry.archives TO ferry_producer;
GRANT SELECT(last_position) ON TABLE ferry.archives TO ferry_worker;

GRANT SELECT(finished_before) ON TABLE ferry.archives TO ferry_producer;
GRANT SELECT(finished_before) ON TABLE ferry.archives TO ferry_worker;

GRANT SELECT(created_at) ON TABLE ferry.archives TO ferry_producer;
GRANT SELECT(created_at) ON TABLE ferry.archives TO ferry_worker;

GRANT SELECT(completed_at) ON TABLE ferry.archives TO ferry_producer;
GRANT SELECT(completed_at) ON TABLE ferry.archives TO ferry_worker;

GRANT SELECT(restored_at) ON TABLE ferry.archives TO ferry_producer;
GRANT SELECT(restored_at) ON TABLE ferry.archives TO ferry_worker;

GRANT SELECT ON TABLE ferry.archived_job_status TO ferry_reader;
GRANT SELECT ON TABLE ferry.archived_job_status TO ferry_producer;
GRANT SELECT ON TABLE ferry.archived_job_status TO ferry_worker;

GRANT SELECT ON TABLE ferry.batch_archive_totals TO ferry_reader;
GRANT SELECT ON TABLE ferry.batch_archive_totals TO ferry_producer;
GRANT SELECT ON TABLE ferry.batch_archive_totals TO ferry_worker;

GRANT SELECT ON TABLE ferry.batch_events TO ferry_producer;
GRANT SELECT ON TABLE ferry.batch_events TO ferry_worker;

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE ferry.live_progress TO ferry_worker;

GRANT SELECT ON TABLE ferry.batch_status TO ferry_reader;
GRANT SELECT ON TABLE ferry.batch_status TO ferry_producer;
GRANT SELECT ON TABLE ferry.batch_status TO ferry_worker;

GRANT SELECT ON TABLE ferry.job_search TO ferry_reader;
GRANT SELECT ON TABLE ferry.job_search TO ferry_producer;
GRANT SELECT ON TABLE ferry.job_search TO ferry_worker;

GRANT SELECT ON TABLE ferry.job_status TO ferry_reader;
GRANT SELECT ON TABLE ferry.job_status TO ferry_producer;
GRANT SELECT ON TABLE ferry.job_status TO ferry_worker;

GRANT SELECT ON TABLE ferry.job_timeline TO ferry_reader;
GRANT SELECT ON TABLE ferry.job_timeline TO ferry_producer;
GRANT SELECT ON TABLE ferry.job_timeline TO ferry_worker;

GRANT SELECT ON TABLE ferry.provider_options TO ferry_producer;
GRANT SELECT ON TABLE ferry.provider_options TO ferry_worker;

GRANT SELECT ON TABLE ferry.queue_controls TO ferry_producer;
GRANT SELECT ON TABLE ferry.queue_controls TO ferry_worker;

GRANT SELECT ON TABLE ferry.queue_events TO ferry_producer;
GRANT SELECT ON TABLE ferry.queue_events TO ferry_worker;

GRANT INSERT(queue) ON TABLE ferry.queue_events TO ferry_producer;

GRANT INSERT(type) ON TABLE ferry.queue_events TO ferry_producer;

GRANT INSERT(data) ON TABLE ferry.queue_events TO ferry_producer;

GRANT SELECT ON TABLE ferry.queue_stats TO ferry_reader;
GRANT SELECT ON TABLE ferry.queue_stats TO ferry_producer;
GRANT SELECT ON TABLE ferry.queue_stats TO ferry_worker;

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE ferry.remote_folders TO ferry_worker;

GRANT SELECT ON TABLE ferry.schedule_events TO ferry_producer;
GRANT SELECT ON TABLE ferry.schedule_events TO ferry_worker;

GRANT INSERT(schedule) ON TABLE ferry.schedule_events TO ferry_producer;

GRANT INSERT(type) ON TABLE ferry.schedule_events TO ferry_producer;

GRANT INSERT(data) ON TABLE ferry.schedule_events TO ferry_producer;

GRANT SELECT ON TABLE ferry.schedule_ticks TO ferry_producer;
GRANT SELECT ON TABLE ferry.schedule_ticks TO ferry_worker;

GRANT INSERT(schedule) ON TABLE ferry.schedule_ticks TO ferry_worker;

GRANT INSERT(tick_at) ON TABLE ferry.schedule_ticks TO ferry_worker;

GRANT INSERT(job_id) ON TABLE ferry.schedule_ticks TO ferry_worker;

GRANT INSERT(missed) ON TABLE ferry.schedule_ticks TO ferry_worker;

GRANT INSERT(first_missed) ON TABLE ferry.schedule_ticks TO ferry_worker;

GRANT INSERT(error) ON TABLE ferry.schedule_ticks TO ferry_worker;

GRANT INSERT(next_tick) ON TABLE ferry.schedule_ticks TO ferry_worker;

GRANT INSERT(worker) ON TABLE ferry.schedule_ticks TO ferry_worker;

GRANT INSERT(skipped_for) ON TABLE ferry.schedule_ticks TO ferry_worker;

GRANT INSERT(manual) ON TABLE ferry.schedule_ticks TO ferry_worker;

GRANT SELECT ON TABLE ferry.schedule_runs TO ferry_reader;
GRANT SELECT ON TABLE ferry.schedule_runs TO ferry_producer;
GRANT SELECT ON TABLE ferry.schedule_runs TO ferry_worker;

GRANT SELECT ON TABLE ferry.schedules TO ferry_producer;
GRANT SELECT ON TABLE ferry.schedules TO ferry_worker;

GRANT SELECT ON TABLE ferry.schedule_status TO ferry_reader;
GRANT SELECT ON TABLE ferry.schedule_status TO ferry_producer;
GRANT SELECT ON TABLE ferry.schedule_status TO ferry_worker;

GRANT SELECT ON TABLE ferry.schema_definitions TO ferry_producer;
GRANT SELECT ON TABLE ferry.schema_definitions TO ferry_worker;

GRANT SELECT ON TABLE ferry.schema_migrations TO ferry_producer;
GRANT SELECT ON TABLE ferry.schema_migrations TO ferry_worker;

GRANT SELECT ON TABLE ferry.schema_version TO ferry_reader;
GRANT SELECT ON TABLE ferry.schema_version TO ferry_producer;
GRANT SELECT ON TABLE ferry.schema_version TO ferry_worker;

GRANT SELECT ON TABLE ferry.settings TO ferry_producer;
GRANT SELECT ON TABLE ferry.settings TO ferry_worker;

GRANT SELECT ON TABLE ferry.throughput TO ferry_reader;
GRANT SELECT ON TABLE ferry.throughput TO ferry_producer;
GRANT SELECT ON TABLE ferry.throughput TO ferry_worker;

GRANT SELECT ON TABLE ferry.workers TO ferry_producer;
GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE ferry.workers TO ferry_worker;

GRANT SELECT ON TABLE ferry.worker_status TO ferry_reader;
GRANT SELECT ON TABLE ferry.worker_status TO ferry_producer;
GRANT SELECT ON TABLE ferry.worker_status TO ferry_worker;
