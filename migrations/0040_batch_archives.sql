-- Backups that hold (issue 32): a partly archived batch says so wherever its totals appear.
--
-- ferry archive moves finished jobs out, and batch_status counts only the jobs still in PostgreSQL: a batch of 30
-- with 24 archived read "all 6 job(s) succeeded (12.0 MiB)". Each archive now records, per batch, how many of its
-- jobs and bytes it took (one row per batch and archive, written in the archive's transaction, deleted by its
-- restore), so the figure is one index probe per batch however many jobs were archived.
ALTER TABLE ferry.archived_jobs ADD COLUMN bytes bigint;

CREATE TABLE ferry.batch_archives (
    batch      text    NOT NULL,
    archive_id uuid    NOT NULL REFERENCES ferry.archives,
    jobs       integer NOT NULL CHECK (jobs > 0),
    -- Bytes of the jobs whose size was recorded; `unsized` counts those archived before sizes were (bytes NULL).
    bytes      bigint  NOT NULL CHECK (bytes >= 0),
    unsized    integer NOT NULL CHECK (unsized >= 0),
    PRIMARY KEY (batch, archive_id)
);
COMMENT ON TABLE ferry.batch_archives IS
    'Per batch and archive: the jobs and bytes ferry archive moved out of PostgreSQL (deleted when the archive is restored).';

-- Archives made before this migration: their jobs counted, their sizes unknown.
INSERT INTO ferry.batch_archives (batch, archive_id, jobs, bytes, unsized)
SELECT a.batch, a.archive_id, count(*), 0, count(*)
  FROM ferry.archived_jobs a
 WHERE a.batch IS NOT NULL
 GROUP BY a.batch, a.archive_id;
