-- Discard and search (issue 24). A `discarded` event ends a failed job for good. The operator has seen the
-- failure and will not retry it: the job leaves the failures page and the batch's failed count, and its error and
-- history stay.
-- Only a failed job can be discarded (FY002 otherwise); queued, held and scheduled jobs are cancelled instead,
-- so a discard never races a claim. `ferry retry JOB` still brings a discarded job back; a batch retry leaves
-- it alone. Producers append it (ferry discard, the dashboard), as they append requeued; workers never do
-- (definition 240); the fold is in definition 305 and JobFold.
ALTER TABLE ferry.events DROP CONSTRAINT events_type_check;
ALTER TABLE ferry.events ADD CONSTRAINT events_type_check CHECK (type IN (
    'enqueued', 'claimed', 'progress', 'retry_scheduled', 'deferred', 'released', 'rescued',
    'cancel_requested', 'cancelled', 'succeeded', 'failed', 'requeued', 'resolved', 'discarded'));

-- Batches count discarded jobs apart from failed ones (no job is discarded yet: nothing to seed). Appended last:
-- ferry.count_changes, compact_counters and batch_counts_actual write these rows by position (definitions 320,
-- 365, 380), batch_status shows the column last (705).
ALTER TABLE ferry.batch_counts ADD COLUMN discarded bigint NOT NULL DEFAULT 0;
ALTER TABLE ferry.batch_count_deltas ADD COLUMN discarded bigint NOT NULL DEFAULT 0;

-- Archive takes finished jobs by (state, finished_at): discarded jobs are finished too. A discard keeps the
-- finished_at of the failure.
CREATE INDEX jobs_finished_idx_new ON ferry.jobs (state, finished_at)
    WHERE state IN ('succeeded', 'failed', 'cancelled', 'discarded');
DROP INDEX ferry.jobs_finished_idx;
ALTER INDEX ferry.jobs_finished_idx_new RENAME TO jobs_finished_idx;

-- Search across batches (the dashboard's /search): by job id prefix (the primary key), by text in the source or
-- destination, by error code, by metadata key=value. Each is an index range or an index lookup, and each page is
-- read newest first by keyset (job_id < the last one shown), at most 50 jobs.
--
-- Text in a path, anywhere (a file name without its folder): one trigram index over both endpoints (pg_trgm ships
-- with PostgreSQL; it is a trusted extension, so the database owner may create it).
CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE INDEX jobs_path_trgm_idx ON ferry.jobs USING gin ((source || ' ' || destination) gin_trgm_ops);
-- The error code a message starts with (`http_not_found: GET … answered 404`), as the failures page groups them,
-- with the job id for keyset pages of one code.
CREATE INDEX jobs_error_code_idx ON ferry.jobs ((substring(last_error FROM '^([a-z][a-z0-9_]{0,63}):')), job_id)
    WHERE last_error IS NOT NULL;
-- Metadata containment (`metadata @> '{"album": "trip"}'`); jobs without metadata are not indexed.
CREATE INDEX jobs_metadata_idx ON ferry.jobs USING gin (metadata jsonb_path_ops) WHERE metadata IS NOT NULL;
