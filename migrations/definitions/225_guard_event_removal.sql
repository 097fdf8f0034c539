-- Events may leave only with an archive marker. Checked once per statement over every deleted row.
CREATE OR REPLACE FUNCTION ferry.guard_event_removal() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM gone g
                WHERE NOT EXISTS (SELECT 1 FROM ferry.archived_jobs a WHERE a.job_id = g.job_id)) THEN
        RAISE EXCEPTION 'ferry.events is append-only: DELETE is allowed only for archived jobs'
            USING ERRCODE = 'FY010',
                  HINT = 'Finished jobs leave the log with ferry archive --finished-before AGE --to DIR.';
    END IF;
    RETURN NULL;
END
$$;
