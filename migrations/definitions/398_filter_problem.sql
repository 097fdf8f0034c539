-- What is wrong with a file filter that a producer wrote (a fetch's or copy's `filter` option as JSON text, or the
-- filter object of a resolved spec), or NULL when nothing is. Every listed file is matched against every rule, so
-- the filter is bounded as the workers bound it (FileFilter+Bounds, GlobPattern in Swift): at most 1000 rules,
-- 1024 bytes and 256 `{` or `,` per pattern, 65536 bytes of patterns in all, 262144 bytes as JSON. The patterns'
-- syntax is left to the worker, which compiles them in linear time and fails the job with the reason. Never
-- echoes the producer's text.
CREATE OR REPLACE FUNCTION ferry.filter_problem(p_filter jsonb) RETURNS text
LANGUAGE plpgsql IMMUTABLE SET search_path = pg_catalog, pg_temp AS $$
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
