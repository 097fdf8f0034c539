-- ferry.job_search_terms follows ferry.jobs (migration 0037): a row per job, created with it, changed only when
-- its endpoints or metadata change, gone with it. Triggers on ferry.jobs, so every writer of the projection (the
-- fold, a rebuild, a restore, the archive, a hand repair as the owner) keeps the terms without knowing of them.
-- SECURITY DEFINER: the projection's writes are the owner's already; application roles never write the terms.
CREATE OR REPLACE FUNCTION ferry.add_job_search_terms() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    INSERT INTO ferry.job_search_terms (job_id, path, metadata)
    SELECT j.job_id, j.source || ' ' || j.destination, j.metadata FROM new_jobs j;
    RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION ferry.remove_job_search_terms() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    IF TG_OP = 'TRUNCATE' THEN
        TRUNCATE ferry.job_search_terms;
    ELSE
        DELETE FROM ferry.job_search_terms t USING old_jobs o WHERE t.job_id = o.job_id;
    END IF;
    RETURN NULL;
END
$$;

-- Row by row, but only for updates that set these columns and change them: the fold's fast path (claims,
-- progress, successes) never names them, so it never fires.
CREATE OR REPLACE FUNCTION ferry.change_job_search_terms() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    UPDATE ferry.job_search_terms
       SET path = NEW.source || ' ' || NEW.destination, metadata = NEW.metadata
     WHERE job_id = NEW.job_id;
    RETURN NULL;
END
$$;

CREATE OR REPLACE TRIGGER jobs_search_terms_added AFTER INSERT ON ferry.jobs
    REFERENCING NEW TABLE AS new_jobs FOR EACH STATEMENT EXECUTE FUNCTION ferry.add_job_search_terms();
CREATE OR REPLACE TRIGGER jobs_search_terms_removed AFTER DELETE ON ferry.jobs
    REFERENCING OLD TABLE AS old_jobs FOR EACH STATEMENT EXECUTE FUNCTION ferry.remove_job_search_terms();
CREATE OR REPLACE TRIGGER jobs_search_terms_truncated AFTER TRUNCATE ON ferry.jobs
    FOR EACH STATEMENT EXECUTE FUNCTION ferry.remove_job_search_terms();
CREATE OR REPLACE TRIGGER jobs_search_terms_changed AFTER UPDATE OF source, destination, metadata ON ferry.jobs
    FOR EACH ROW
    WHEN (OLD.source IS DISTINCT FROM NEW.source OR OLD.destination IS DISTINCT FROM NEW.destination
          OR OLD.metadata IS DISTINCT FROM NEW.metadata)
    EXECUTE FUNCTION ferry.change_job_search_terms();
