-- Per batch, what ferry archive moved out of PostgreSQL and where: batch_status counts only the jobs still here, so
-- every place that shows a batch's totals adds these ("24 archived (48.0 MiB) in FILE"). Readable by every Ferry
-- role, as archived_job_status is; the tables behind it stay the owner's. A lookup by batch reads that batch's rows
-- only (the primary key leads with the batch).
CREATE OR REPLACE VIEW ferry.batch_archive_totals AS
SELECT b.batch,
       sum(b.jobs)::bigint AS jobs,
       sum(b.bytes)::bigint AS bytes,
       sum(b.unsized)::bigint AS unsized,
       array_agg(r.file ORDER BY r.created_at) AS files
  FROM ferry.batch_archives b
  JOIN ferry.archives r ON r.archive_id = b.archive_id
 WHERE r.state <> 'restored'
 GROUP BY b.batch;

COMMENT ON VIEW ferry.batch_archive_totals IS
    'Per batch: jobs and bytes archived out of PostgreSQL (unsized: archived before sizes were recorded) and the archive files, oldest first.';
GRANT SELECT ON ferry.batch_archive_totals TO ferry_reader, ferry_producer, ferry_worker;
