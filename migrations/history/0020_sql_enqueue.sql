-- Enqueue from SQL, in the caller's transaction: an application's own INSERT and its upload job commit or roll back
-- together (graphile-worker's add_job is the model).
--
--   SELECT ferry.enqueue('fetch', 'https://example.com/a.jpg', '/srv/photos/',
--                        '{"queue": "photos", "priority": 5, "key": "order-17"}');
--   SELECT * FROM ferry.enqueue_many('[{"kind": "upload", "source": "/srv/in/a.jpg", "destination": "dropbox:team:/In/"}]');
--
-- The database checks what it can: kind, absolute local paths, queue name, priority and attempts ranges, batch,
-- key and metadata sizes, run_at, that a named account exists and belongs to the endpoint's provider, and that an
-- idempotency key is not reused for different arguments. What only Ferry's provider code knows (the endpoint's
-- syntax, provider options) and what only a machine with the file can see (an upload source's size, modification
-- time and inode) is settled by the first worker that claims the job: it appends a `resolved` event with the
-- canonical endpoints and details before it starts, or fails the job for good naming the field and the fix.
--
-- Errors: SQLSTATE 22023 (invalid_parameter_value) with the field in the error's COLUMN and at the start of the
-- message, the fix in HINT; FY012 for an idempotency key already used with different arguments.

-- The worker's resolution of a job enqueued from SQL: the canonical endpoints, account and details.
ALTER TABLE ferry.events DROP CONSTRAINT events_type_check;
ALTER TABLE ferry.events ADD CONSTRAINT events_type_check CHECK (type IN (
    'enqueued', 'claimed', 'progress', 'retry_scheduled', 'deferred', 'released', 'rescued',
    'cancel_requested', 'cancelled', 'succeeded', 'failed', 'requeued', 'resolved'));

-- Workers append `resolved` under their lease (like progress); the fold takes it through apply_event's one
-- definition (the slow path now also writes the columns a resolution sets).
CREATE OR REPLACE FUNCTION ferry.authorize_events() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'pg_temp'
    SET enable_seqscan TO 'off'
    AS $$
DECLARE
    worker_types   CONSTANT text[] := ARRAY['enqueued', 'claimed', 'progress', 'retry_scheduled', 'deferred',
                                            'released', 'rescued', 'cancelled', 'succeeded', 'failed', 'resolved'];
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

CREATE OR REPLACE FUNCTION ferry.apply_event(j ferry.jobs, p_job_id uuid, p_type text, p_version integer, p_data jsonb, p_at timestamp with time zone) RETURNS ferry.jobs
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
        j.bytes_done := coalesce((p_data->>'bytes_done')::bigint, j.bytes_done);
        j.bytes_total := coalesce((p_data->>'bytes_total')::bigint, j.bytes_total);
        j.result := nullif(p_data->'result', 'null'::jsonb);
    WHEN 'failed' THEN
        j.state := 'failed';
        j.worker := NULL;
        j.finished_at := p_at;
        j.last_error := p_data->>'error';
    WHEN 'requeued' THEN
        IF j.state NOT IN ('failed', 'cancelled') THEN
            RAISE EXCEPTION 'job %: only failed or cancelled jobs can be retried, this one is %', p_job_id, j.state
                USING ERRCODE = 'FY002';
        END IF;
        j.state := 'queued';
        j.attempt := 0;
        j.run_at := p_at;
        j.finished_at := NULL;
        j.cancel_requested := false;
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

CREATE OR REPLACE FUNCTION ferry.project_events() RETURNS trigger
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
        INSERT INTO ferry.jobs
        SELECT p.*
          FROM new_events e
         CROSS JOIN LATERAL ferry.job_from_enqueued(e.job_id, e.version, e.data, e.recorded_at) p
         WHERE e.type = 'enqueued';
        INSERT INTO ferry.queue_count_deltas (queue, state, delta)
        SELECT e.data->>'queue', 'queued', count(*) FROM new_events e WHERE e.type = 'enqueued' GROUP BY 1;
    END IF;

    IF others > 0 THEN
        IF others <> jobs THEN
            RAISE EXCEPTION 'append at most one event per job in one statement' USING ERRCODE = 'FY003';
        END IF;

        -- The fast path: exactly what apply_event does for these types when the event fits the job.
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
                   result      = CASE e.type WHEN 'succeeded' THEN nullif(e.data->'result', 'null'::jsonb) ELSE j.result END
              FROM new_events e
             WHERE j.job_id = e.job_id
               AND e.type IN ('claimed', 'progress', 'succeeded')
               AND e.version = j.version + 1
               AND CASE e.type
                       WHEN 'claimed' THEN j.state = 'queued' AND (e.data->>'lease')::bigint = j.lease + 1
                       ELSE j.state = 'running' AND (e.data->>'lease')::bigint = j.lease
                   END
            RETURNING j.job_id, j.queue, e.type, j.state
        ),
        -- The fast path's old state follows from the type: claimed leaves queued, the others leave running.
        counted AS (
            INSERT INTO ferry.queue_count_deltas (queue, state, delta)
            SELECT c.queue, c.state, sum(c.delta)
              FROM (SELECT f.queue, CASE f.type WHEN 'claimed' THEN 'queued' ELSE 'running' END AS state, -1 AS delta
                      FROM folded f WHERE f.type <> 'progress'
                    UNION ALL
                    SELECT f.queue, f.state, 1 FROM folded f WHERE f.type <> 'progress') c
             GROUP BY c.queue, c.state
            HAVING sum(c.delta) <> 0
        )
        SELECT coalesce(array_agg(job_id), '{}') INTO fast FROM folded;

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
                  FROM (SELECT e.job_id, cur.state AS was,
                               ferry.apply_event(cur, e.job_id, e.type, e.version, e.data, e.recorded_at) AS n
                          FROM new_events e
                          JOIN ferry.jobs cur ON cur.job_id = e.job_id
                         WHERE e.type <> 'enqueued' AND e.job_id <> ALL (fast)
                        OFFSET 0) AS x   -- OFFSET 0: evaluate apply_event once per row, not once per column
                 WHERE j.job_id = x.job_id
                RETURNING j.queue, x.was, j.state
            ),
            counted AS (
                INSERT INTO ferry.queue_count_deltas (queue, state, delta)
                SELECT c.queue, c.state, sum(c.delta)
                  FROM (SELECT f.queue, f.was AS state, -1 AS delta FROM folded f WHERE f.was <> f.state
                        UNION ALL
                        SELECT f.queue, f.state, 1 FROM folded f WHERE f.was <> f.state) c
                 GROUP BY c.queue, c.state
                HAVING sum(c.delta) <> 0
            )
            SELECT count(*) INTO applied FROM folded;
            IF applied + cardinality(fast) <> others THEN
                RAISE EXCEPTION 'an event names a job that does not exist' USING ERRCODE = 'FY004';
            END IF;
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

-- A time-ordered id, as the CLI makes them (UUIDv7: 48 bits of Unix milliseconds, then random bits), so jobs
-- enqueued from SQL sort by enqueue time like the others. PostgreSQL 15 has no uuidv7().
CREATE FUNCTION ferry.uuid_v7() RETURNS uuid
LANGUAGE sql VOLATILE PARALLEL SAFE AS $$
    SELECT encode(
               set_bit(set_bit(
                   overlay(uuid_send(gen_random_uuid())
                           PLACING substring(int8send((extract(epoch FROM clock_timestamp()) * 1000)::bigint) FROM 3)
                           FROM 1 FOR 6),
                   52, 1), 53, 1),   -- version 4 (0100) → 7 (0111); the variant bits stay 10
               'hex')::uuid
$$;

-- One request checked and turned into its `enqueued` event data. `place` prefixes messages ("jobs[2]."), so a
-- bulk call names the element. Internal: callers use ferry.enqueue and ferry.enqueue_many.
CREATE FUNCTION ferry.enqueue_request(p_kind text, p_source text, p_destination text, p_options jsonb, p_place text,
                                      OUT job_id uuid, OUT data jsonb)
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    known    CONSTANT text[] := ARRAY['account', 'batch', 'key', 'max_attempts', 'metadata', 'options', 'priority',
                                      'queue', 'run_at', 'traceparent'];
    field    text;
    local    text;
    remote   text;
    queue    text;
    priority bigint;
    attempts bigint;
    batch    text;
    key      text;
    run_at   timestamptz;
    account  text;
    named    text;
    scheme   text;
    provider text;
    request  jsonb;
BEGIN
    IF p_kind IS NULL OR p_kind NOT IN ('upload', 'fetch') THEN
        RAISE EXCEPTION '%kind: must be ''upload'' or ''fetch'', not %', p_place, coalesce(quote_literal(p_kind), 'null')
            USING ERRCODE = 'invalid_parameter_value', COLUMN = 'kind',
                  HINT = 'upload sends a local file to a provider; fetch brings a remote file to a local path.';
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

    -- The local side is a path on the worker's machine: absolute, since SQL has no working directory.
    local := CASE p_kind WHEN 'upload' THEN p_source ELSE p_destination END;
    remote := CASE p_kind WHEN 'upload' THEN p_destination ELSE p_source END;
    field := CASE p_kind WHEN 'upload' THEN 'source' ELSE 'destination' END;
    IF local IS NULL OR left(local, 1) <> '/' THEN
        RAISE EXCEPTION '%: must be an absolute path, not %', p_place || field, coalesce(quote_literal(local), 'null')
            USING ERRCODE = 'invalid_parameter_value', COLUMN = field, HINT = 'Start the path with /.';
    END IF;
    IF octet_length(local) > 4096 THEN
        RAISE EXCEPTION '%: longer than 4096 bytes', p_place || field
            USING ERRCODE = 'invalid_parameter_value', COLUMN = field, HINT = 'Shorten the path.';
    END IF;
    field := CASE p_kind WHEN 'upload' THEN 'destination' ELSE 'source' END;
    IF remote IS NULL OR remote = '' THEN
        RAISE EXCEPTION '%: missing', p_place || field
            USING ERRCODE = 'invalid_parameter_value', COLUMN = field,
                  HINT = CASE p_kind WHEN 'upload' THEN 'Write for example dropbox:ACCOUNT:/Photos/ or a local folder /srv/out/.'
                                   ELSE 'Write for example https://example.com/a.jpg or dropbox:ACCOUNT:/Photos/a.jpg.' END;
    END IF;

    queue := coalesce(p_options ->> 'queue', 'default');
    IF queue !~ '^[a-z0-9][a-z0-9_.-]{0,62}$' THEN
        RAISE EXCEPTION '%queue: queue names are 1-63 lowercase letters, digits, _ . - starting with a letter or digit', p_place
            USING ERRCODE = 'invalid_parameter_value', COLUMN = 'queue', HINT = 'Use for example "photos".';
    END IF;
    priority := coalesce((p_options ->> 'priority')::numeric, 0);
    IF priority NOT BETWEEN -100 AND 100 THEN
        RAISE EXCEPTION '%priority: must be from -100 to 100 (higher runs first), not %', p_place, priority
            USING ERRCODE = 'invalid_parameter_value', COLUMN = 'priority', HINT = 'Pick a priority in range.';
    END IF;
    attempts := coalesce((p_options ->> 'max_attempts')::numeric, 10);
    IF attempts NOT BETWEEN 1 AND 1000 THEN
        RAISE EXCEPTION '%max_attempts: must be from 1 to 1000, not %', p_place, attempts
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

    -- What was asked, with defaults filled in: the same request written two ways is the same request. The time is
    -- left out (often relative), as on the CLI's side.
    request := jsonb_build_object('kind', p_kind, 'source', p_source, 'destination', p_destination, 'queue', queue,
                                  'priority', priority, 'max_attempts', attempts, 'batch', batch, 'account', account,
                                  'metadata', p_options -> 'metadata', 'options', coalesce(p_options -> 'options', '{}'));

    job_id := ferry.uuid_v7();
    -- Top-level nulls are left out (jsonb_strip_nulls would also rewrite nested objects, metadata included).
    SELECT jsonb_object_agg(f.key, f.value) INTO data
      FROM jsonb_each(jsonb_build_object(
        'kind', p_kind, 'queue', queue, 'priority', priority, 'max_attempts', attempts,
        'source', p_source, 'destination', p_destination, 'account', account, 'key', key,
        -- Every fetch gets a batch: whether it fans out (a folder, a photostream) only its provider knows.
        'batch', coalesce(batch, CASE p_kind WHEN 'fetch' THEN job_id::text END),
        'run_at', to_char(run_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
        'metadata', CASE WHEN p_options -> 'metadata' = 'null'::jsonb THEN NULL ELSE p_options -> 'metadata' END,
        'traceparent', p_options ->> 'traceparent',
        'fingerprint', 'sql:' || left(encode(sha256(convert_to(request::text, 'UTF8')), 'hex'), 32),
        'spec', jsonb_build_object('unresolved', jsonb_build_object(
            'options', coalesce(p_options -> 'options', '{}'))))) f
     WHERE f.value <> 'null'::jsonb;
END
$$;

-- Enqueues jobs in the caller's transaction, all or none. Each element of `p_jobs` is an object with kind,
-- source, destination and the options of ferry.enqueue at the top level. Returns one row per element, in order:
-- its job, and whether it was created (false: its idempotency key already named that job).
CREATE FUNCTION ferry.enqueue_many(p_jobs jsonb)
RETURNS TABLE (ordinal integer, job_id uuid, created boolean)
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
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

-- Enqueues one job in the caller's transaction and returns its id (the existing job's when the idempotency key
-- names one enqueued with the same arguments).
CREATE FUNCTION ferry.enqueue(p_kind text, p_source text, p_destination text, p_options jsonb DEFAULT '{}')
RETURNS uuid
LANGUAGE sql SET search_path = pg_catalog, pg_temp AS $$
    SELECT m.job_id
      FROM ferry.enqueue_many(jsonb_build_array(
               coalesce(p_options, '{}'::jsonb)
               || jsonb_build_object('kind', p_kind, 'source', p_source, 'destination', p_destination))) m
$$;

COMMENT ON FUNCTION ferry.enqueue(text, text, text, jsonb) IS
    'Enqueues one upload or fetch in the caller''s transaction; returns the job id. Options: queue, priority, '
    'max_attempts, batch, run_at, key, metadata, account, traceparent, options (provider options). See migration 0020.';
COMMENT ON FUNCTION ferry.enqueue_many(jsonb) IS
    'Enqueues a JSON array of jobs in the caller''s transaction, all or none; one row per element: ordinal, job_id, created.';

REVOKE EXECUTE ON FUNCTION ferry.enqueue(text, text, text, jsonb), ferry.enqueue_many(jsonb),
    ferry.enqueue_request(text, text, text, jsonb, text), ferry.uuid_v7() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION ferry.enqueue(text, text, text, jsonb), ferry.enqueue_many(jsonb),
    ferry.enqueue_request(text, text, text, jsonb, text), ferry.uuid_v7() TO ferry_producer, ferry_worker;
