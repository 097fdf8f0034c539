-- Discard (issue 24): a `discarded` event ends a failed job for good. The operator has seen the failure and will
-- not retry it: the job leaves the failures page and the batch's failed count, and its error and history stay.
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
