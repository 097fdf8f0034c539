-- Where archived jobs went: one row per job moved out of PostgreSQL by ferry archive, with its batch, the archive's
-- file and when. Readers may read it (the tables behind it stay the owner's), so ferry status, events and wait as a
-- ferry_reader login say "archived" with the restore command, as they do for the other roles.
CREATE OR REPLACE VIEW ferry.archived_job_status AS
SELECT a.job_id, a.batch, a.archive_id, r.file, r.created_at AS archived_at
  FROM ferry.archived_jobs a
  JOIN ferry.archives r ON r.archive_id = a.archive_id;

COMMENT ON VIEW ferry.archived_job_status IS
    'Archived jobs: batch, archive file and time. Readable by every Ferry role; the archive tables are not.';
GRANT SELECT ON ferry.archived_job_status TO ferry_reader, ferry_producer, ferry_worker;
