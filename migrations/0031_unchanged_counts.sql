-- Jobs that found their destination already holding the same content (`--if-changed`, a folder or prefix fetched
-- again) succeed without moving data; their result says {"skipped": "unchanged"}. Batches count them apart, with
-- their bytes, so `batch_status` and `ferry wait` can say "51 checked, 0 transferred" instead of reporting the
-- bytes as moved (issue 23).
--
-- ferry.job_change gains whether the job was and is such a job; ferry.count_changes, the projection, archive
-- and restore fill them (definitions 320, 330; FerryStore's archive statements).
ALTER TYPE ferry.job_change ADD ATTRIBUTE was_unchanged boolean, ADD ATTRIBUTE unchanged boolean;

ALTER TABLE ferry.batch_counts
    ADD COLUMN unchanged       bigint NOT NULL DEFAULT 0,
    ADD COLUMN unchanged_bytes bigint NOT NULL DEFAULT 0;
ALTER TABLE ferry.batch_count_deltas
    ADD COLUMN unchanged       bigint NOT NULL DEFAULT 0,
    ADD COLUMN unchanged_bytes bigint NOT NULL DEFAULT 0;

-- Jobs skipped before this migration (Dropbox folders fetched again) are counted once; their deltas carry none.
UPDATE ferry.batch_counts c
   SET unchanged = x.n, unchanged_bytes = x.bytes
  FROM (SELECT j.batch, count(*) AS n, coalesce(sum(j.bytes_total), 0)::bigint AS bytes
          FROM ferry.jobs j
         WHERE j.batch IS NOT NULL AND j.state = 'succeeded' AND j.result->>'skipped' = 'unchanged'
         GROUP BY j.batch) x
 WHERE c.batch = x.batch;

-- batch_status shows the two new columns (appended: CREATE OR REPLACE keeps the others as they are).
