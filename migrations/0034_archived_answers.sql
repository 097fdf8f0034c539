-- Archived jobs and batches answer the same way everywhere (issue 24): ferry status JOB, ferry events JOB,
-- ferry status --batch, ferry wait and the dashboard say the job or batch was archived, when, to which file, and
-- the restore command (exit 67; 410 Gone in the dashboard), where they said "no job", "no batch" or "completed".
--
-- A batch is looked up by name among the archived jobs once batch_status finds nothing: an index per name.
CREATE INDEX archived_jobs_batch_idx ON ferry.archived_jobs (batch) WHERE batch IS NOT NULL;

-- Readers (a ferry_reader login) see the status views and nothing else: they are not granted these tables, and
-- are told "no job" as before (ArchiveStore answers nil for them).
