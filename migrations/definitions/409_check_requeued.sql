-- Checks a requeued event's data against the job it retries (kind, endpoints and spec before the retry), raising
-- the first problem with SQLSTATE 22023 as ferry.enqueue does: the field in COLUMN and at the start of the message
-- (after p_place), the fix in HINT. A retry changes what its documentation says and nothing else (least
-- privilege: a producer that may retry a job may not point it elsewhere):
--   - no field of the job itself (source, destination, account, kind, queue …): a new job is the way to change those;
--   - "options": provider options, by the declarations of the job's own provider for its kind
--     (ferry.provider_options, as ferry.check_provider_options checks an enqueue), except those fixed at enqueue
--     because they decide what the job is (account, tree, recursive, filter); strings are short and printable,
--     a sha256 is 64 lowercase hex digits (what the worker compares);
--   - "spec": present exactly when "options" is, and equal to ferry.requeued_spec(the job's spec, options): the
--     fold takes it as it is, so it can carry no other change.
-- Any other key ("by", "requested_by", "reason") is the producer's note and left alone.
CREATE OR REPLACE FUNCTION ferry.check_requeued(p_kind text, p_source text, p_destination text, p_spec jsonb,
                                                p_data jsonb, p_place text)
RETURNS void
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp AS $$
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
$$;
