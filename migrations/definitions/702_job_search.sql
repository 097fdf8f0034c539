-- What the dashboard's search matches, per job: the text of its endpoints (source || ' ' || destination, trigram
-- indexed) and its metadata (jsonb_path_ops). Joined to ferry.job_status by job_id; nothing here that
-- ferry.job_status does not show.
CREATE OR REPLACE VIEW ferry.job_search AS
 SELECT t.job_id,
    t.path,
    t.metadata
   FROM ferry.job_search_terms t;

GRANT SELECT ON ferry.job_search TO ferry_reader, ferry_producer, ferry_worker;
