-- Raises the first problem of an enqueued event's data as ferry.enqueue reports it: SQLSTATE 22023, the field in
-- COLUMN and at the start of the message (after `p_place`, "jobs[2]." in a bulk call), the fix in HINT.
CREATE OR REPLACE FUNCTION ferry.check_enqueued(d jsonb, p_place text) RETURNS void
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
$$;
