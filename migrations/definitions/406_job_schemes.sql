-- The schemes that pick a job's providers: its remote side's (a fetch's source, else its destination; an upload to
-- a plain path goes to a local folder, file:) and, for a copy, its source's. Shared by the option checks of enqueue
-- (407) and retry (409), so both find the same provider's declarations.
CREATE OR REPLACE FUNCTION ferry.job_schemes(p_kind text, p_source text, p_destination text,
                                             OUT remote_scheme text, OUT origin_scheme text)
LANGUAGE sql IMMUTABLE SET search_path = pg_catalog, pg_temp AS $$
SELECT coalesce(lower(substring(CASE p_kind WHEN 'fetch' THEN p_source ELSE p_destination END
                                FROM '^([A-Za-z][A-Za-z0-9+.-]{0,31}):')),
                CASE WHEN p_kind = 'upload' THEN 'file' END),
       CASE WHEN p_kind = 'copy' THEN lower(substring(p_source FROM '^([A-Za-z][A-Za-z0-9+.-]{0,31}):')) END
$$;
