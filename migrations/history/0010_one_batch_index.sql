-- One batch index instead of two.
--
-- jobs_batch_idx (every job of a batch) and jobs_batch_unfinished_idx (its queued and running jobs) each took an
-- entry on every insert and every state change of a batch job, and a claim or finish changes state, so neither
-- update is HOT. (batch, state) answers both questions from one index: "is anything left?" is two probes
-- (state = 'queued', state = 'running'), and the batch views and commands read the batch's range.

DROP INDEX ferry.jobs_batch_unfinished_idx;
DROP INDEX ferry.jobs_batch_idx;
CREATE INDEX jobs_batch_idx ON ferry.jobs (batch, state) WHERE batch IS NOT NULL;
