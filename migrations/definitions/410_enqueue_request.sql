-- Checks one enqueue request (kind, source, destination and options) as the CLI would, raising the first problem
-- with SQLSTATE 22023 (the field in COLUMN, the fix in HINT), and returns the job id and its 'enqueued' data.
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
$$;
