-- Enqueues jobs in the caller's transaction, all or none. Each element of `p_jobs` is an object with kind,
-- source, destination and the options of ferry.enqueue at the top level. Returns one row per element, in order:
-- its job, and whether it was created (false: its idempotency key already named that job).
CREATE OR REPLACE FUNCTION ferry.enqueue_many(p_jobs jsonb)
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

COMMENT ON FUNCTION ferry.enqueue_many(jsonb) IS
    'Enqueues a JSON array of jobs in the caller''s transaction, all or none; one row per element: ordinal, job_id, created.';
