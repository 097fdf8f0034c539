-- The batch index also orders each state's jobs by id, so the dashboard's batch page walks a batch by keyset.
--
-- (batch, state, job_id) answers everything (batch, state) did (the same leading columns) and, per state, "the
-- next 50 jobs after this id": a page is one index range per state merged in id order (Merge Append), about 70
-- buffers at any depth of a 1M-job batch, instead of a scan of the primary key filtered by batch. Still one batch
-- index (see 0010): job_id never changes, so it adds no index update beyond the state changes already paid.

DROP INDEX ferry.jobs_batch_idx;
CREATE INDEX jobs_batch_idx ON ferry.jobs (batch, state, job_id) WHERE batch IS NOT NULL;
