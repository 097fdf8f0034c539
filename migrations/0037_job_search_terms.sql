-- Search terms off the hot row (issue 25: the database's cost per job).
--
-- The dashboard's search (migration 0032) indexed text in a job's endpoints (trigram GIN) and its metadata (GIN)
-- on ferry.jobs itself. Every claim and outcome changes a job's state, which partial indexes name, so none of
-- those updates is HOT: each wrote about forty trigram entries for the same unchanged path, twice per job, and
-- the metadata's entries again. Measured with no-op jobs (2 workers x 128): 0.074 ms of PostgreSQL CPU per job
-- with the trigram index, 0.050 without; bulk enqueue 0.019 and 0.012.
--
-- The terms now live in a table of their own, written once when a job is created and again only when its
-- endpoints or metadata change (a `resolved` event, a hand repair), by triggers on ferry.jobs: every writer of
-- the projection (the fold, a rebuild, a restore, the archive) keeps them without knowing. Readers search through
-- the view ferry.job_search (definition 702).
CREATE TABLE ferry.job_search_terms (
    job_id   uuid PRIMARY KEY,
    path     text NOT NULL,    -- source || ' ' || destination, as the search matches it
    metadata jsonb
);
COMMENT ON TABLE ferry.job_search_terms IS
    'Search terms of each job in ferry.jobs (endpoints and metadata), kept by triggers on ferry.jobs (definition 333); read through ferry.job_search.';

INSERT INTO ferry.job_search_terms (job_id, path, metadata)
SELECT job_id, source || ' ' || destination, metadata FROM ferry.jobs;

CREATE INDEX job_search_terms_path_idx ON ferry.job_search_terms USING gin (path gin_trgm_ops);
CREATE INDEX job_search_terms_metadata_idx ON ferry.job_search_terms USING gin (metadata jsonb_path_ops)
    WHERE metadata IS NOT NULL;
DROP INDEX ferry.jobs_path_trgm_idx;
DROP INDEX ferry.jobs_metadata_idx;
-- Statistics now: without them a metadata search is planned as a scan of every job by primary key.
ANALYZE ferry.job_search_terms;
