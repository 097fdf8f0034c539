-- True when `d` is an enqueued event's data that ferry.enqueue could have written. No SET clause: it must inline.
CREATE OR REPLACE FUNCTION ferry.enqueued_ok(d jsonb) RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
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
$$;
