-- Checks the provider options of one enqueue request against the declarations of its remote side's provider
-- (ferry.provider_options, written by ferry migrate from the Swift providers): every name declared for the job's
-- kind, every value of the declared type. Raises the first problem with SQLSTATE 22023, the option in COLUMN and
-- at the start of the message (after p_place), the options that provider takes in HINT; the words are those of
-- ProviderOptions.checked in Swift. Values a provider judges further (a SHA-256's digits, a content type) are
-- left to the worker that settles the job, as is a provider the table does not know.
CREATE OR REPLACE FUNCTION ferry.check_provider_options(p_kind text, p_source text, p_destination text, p_options jsonb,
                                                        p_place text)
RETURNS void
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp AS $$
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
$$;
