-- Least privilege that holds (issue 20): what a producer writes is checked the same way however it arrives.
--
-- 1. One definition of what an `enqueued` event may say, shared by ferry.enqueue and by every enqueued event a
--    non-owner appends directly (INSERT or COPY): kind, queue, priority, attempts, batch, key, metadata, run_at,
--    traceparent, account name, and the endpoints. Local paths (an upload's source, a local folder it copies to, a
--    fetch's target) are absolute, at most 4096 bytes and have no `..` component (also not as %2e%2e in a file:
--    URL); remote endpoints are at most 8192 bytes and carry no credentials (user:password@ in a URL). Until now a
--    producer could INSERT an event with kind 'teleport', queue 'BAD Q <script>' or max_attempts 0, and
--    ferry.enqueue accepted `..` in local folders.
-- 2. Claims are bound to the login that registered the worker (ferry.workers.login): another login's events
--    under a claim it does not hold are refused, and it may rescue a claim only once the holder has missed its
--    heartbeats for 3 seconds (rescue_stale_jobs with a zero interval no longer takes live workers' jobs). A
--    worker's registration is changed or removed only by its login (or, long gone and holding nothing, by rescue).
-- 3. ferry.enqueue checks numbers before narrowing them: {"priority": 1e300} is a 22023 naming the field, not a
--    raw "bigint out of range".
--
-- The check is two functions kept in step (a test appends each bad case both ways): ferry.enqueued_ok, one SQL
-- expression the planner inlines into the trigger's scan of the statement's events (a bulk enqueue pays no
-- function call per row), and ferry.check_enqueued, which names the field, the problem and the fix (SQLSTATE
-- 22023, the field in COLUMN) for the first event that fails.

-- True when `d` is an enqueued event's data that ferry.enqueue could have written. No SET clause: it must inline.
CREATE FUNCTION ferry.enqueued_ok(d jsonb) RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT jsonb_typeof(d) = 'object'
       AND coalesce(d ->> 'kind' IN ('upload', 'fetch'), false)
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
       -- The local side: absolute, bounded, no '..'.
       AND left(CASE d ->> 'kind' WHEN 'upload' THEN d ->> 'source' ELSE d ->> 'destination' END, 1) = '/'
       AND octet_length(CASE d ->> 'kind' WHEN 'upload' THEN d ->> 'source' ELSE d ->> 'destination' END) <= 4096
       AND CASE d ->> 'kind' WHEN 'upload' THEN d ->> 'source' ELSE d ->> 'destination' END !~ '(^|/)\.\.(/|$)'
       -- The remote side: bounded, no credentials; an upload to a local folder (a path or file: URL) has no '..'.
       AND octet_length(CASE d ->> 'kind' WHEN 'upload' THEN d ->> 'destination' ELSE d ->> 'source' END) BETWEEN 1 AND 8192
       AND CASE d ->> 'kind' WHEN 'upload' THEN d ->> 'destination' ELSE d ->> 'source' END !~ '^[A-Za-z][A-Za-z0-9+.-]*://[^/?#]*@'
       AND (d ->> 'kind' <> 'upload' OR d ->> 'destination' !~* '^(file:|/)' OR d ->> 'destination' !~* '(^|/)(\.|%2e){2}(/|$)')
$$;

-- Raises the first problem of an enqueued event's data as ferry.enqueue reports it: SQLSTATE 22023, the field in
-- COLUMN and at the start of the message (after `p_place`, "jobs[2]." in a bulk call), the fix in HINT.
CREATE FUNCTION ferry.check_enqueued(d jsonb, p_place text) RETURNS void
LANGUAGE plpgsql IMMUTABLE SET search_path = pg_catalog, pg_temp AS $$
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
    ELSIF NOT coalesce(d ->> 'kind' IN ('upload', 'fetch'), false) THEN
        field := 'kind'; problem := format('must be ''upload'' or ''fetch'', not %s', coalesce(quote_literal(left(d ->> 'kind', 64)), 'null'));
        hint := 'upload sends a local file to a provider; fetch brings a remote file to a local path.';
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

    IF field IS NULL THEN
        local_field := CASE d ->> 'kind' WHEN 'upload' THEN 'source' ELSE 'destination' END;
        remote_field := CASE d ->> 'kind' WHEN 'upload' THEN 'destination' ELSE 'source' END;
        local := d ->> local_field;
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

    IF field IS NOT NULL THEN
        RAISE EXCEPTION '%: %', p_place || field, problem
            USING ERRCODE = 'invalid_parameter_value', COLUMN = field, HINT = hint;
    END IF;
END
$$;

REVOKE EXECUTE ON FUNCTION ferry.enqueued_ok(jsonb), ferry.check_enqueued(jsonb, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION ferry.enqueued_ok(jsonb), ferry.check_enqueued(jsonb, text) TO ferry_producer, ferry_worker;

CREATE OR REPLACE FUNCTION ferry.enqueue_request(p_kind text, p_source text, p_destination text, p_options jsonb, p_place text,
                                      OUT job_id uuid, OUT data jsonb)
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
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
        -- Every fetch gets a batch: whether it fans out (a folder, a photostream) only its provider knows.
        'batch', coalesce(batch, CASE p_kind WHEN 'fetch' THEN job_id::text END),
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
$$;

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

-- Who registered each worker. Existing rows belong to whoever runs this migration (the owner): their workers
-- register again on restart.
ALTER TABLE ferry.workers ADD COLUMN login name NOT NULL DEFAULT session_user;

-- The registration is the login's: set on insert, never changed, and changed or removed by another login only
-- when it is long gone and holds nothing (as rescue_stale_jobs forgets workers). Owners may do anything.
CREATE FUNCTION ferry.guard_worker_rows() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
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

CREATE TRIGGER workers_guard BEFORE INSERT OR UPDATE OR DELETE ON ferry.workers
    FOR EACH ROW EXECUTE FUNCTION ferry.guard_worker_rows();
