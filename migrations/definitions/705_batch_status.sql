-- One row per batch: jobs per state, bytes and percent done, start, finish and completion, from the batch
-- counters plus their pending deltas and live progress.
CREATE OR REPLACE VIEW ferry.batch_status AS
 SELECT s.batch,
    s.jobs,
    s.queued,
    s.running,
    s.succeeded,
    s.failed,
    s.cancelled,
    (s.bytes_done + l.live) AS bytes_done,
        CASE
            WHEN (s.sized > 0) THEN s.bytes_total
            ELSE NULL::bigint
        END AS bytes_total,
    (
        CASE
            WHEN ((s.queued + s.running) = 0) THEN 100.0
            WHEN ((s.sized = s.jobs) AND (s.bytes_total > 0)) THEN LEAST(99.9, round(((100.0 * (LEAST(s.bytes_done + l.live, s.bytes_total))::numeric) / (s.bytes_total)::numeric), 1))
            ELSE LEAST(99.9, round(((100.0 * ((((s.succeeded + s.failed) + s.cancelled) + s.discarded))::numeric) / (s.jobs)::numeric), 1))
        END)::numeric(4,1) AS percent,
    ((s.queued + s.running) = 0) AS done,
    s.enqueued_at,
    s.started_at,
        CASE
            WHEN ((s.queued + s.running) = 0) THEN s.finished_at
            ELSE NULL::timestamp with time zone
        END AS finished_at,
    ( SELECT
                CASE
                    WHEN (e.type = 'completed'::text) THEN e.recorded_at
                    ELSE NULL::timestamp with time zone
                END AS "case"
           FROM ferry.batch_events e
          WHERE (e.batch = s.batch)
          ORDER BY e."position" DESC
         LIMIT 1) AS completed_at,
    (s.jobs - s.sized) AS sizes_unknown,
    s.first_job AS first_job_id,
    s.unchanged,
    s.unchanged_bytes,
    s.discarded
   FROM ( SELECT t.batch,
            (sum(t.jobs))::bigint AS jobs,
            (sum(t.queued))::bigint AS queued,
            (sum(t.running))::bigint AS running,
            (sum(t.succeeded))::bigint AS succeeded,
            (sum(t.failed))::bigint AS failed,
            (sum(t.cancelled))::bigint AS cancelled,
            (sum(t.bytes_done))::bigint AS bytes_done,
            (sum(t.bytes_total))::bigint AS bytes_total,
            (sum(t.sized))::bigint AS sized,
            min(t.enqueued_at) AS enqueued_at,
            min(t.started_at) AS started_at,
            max(t.finished_at) AS finished_at,
            (min(((t.first_job)::text COLLATE "C")))::uuid AS first_job,
            (sum(t.unchanged))::bigint AS unchanged,
            (sum(t.unchanged_bytes))::bigint AS unchanged_bytes,
            (sum(t.discarded))::bigint AS discarded
           FROM ( SELECT batch_counts.batch,
                    batch_counts.jobs,
                    batch_counts.queued,
                    batch_counts.running,
                    batch_counts.succeeded,
                    batch_counts.failed,
                    batch_counts.cancelled,
                    batch_counts.bytes_done,
                    batch_counts.bytes_total,
                    batch_counts.sized,
                    batch_counts.enqueued_at,
                    batch_counts.started_at,
                    batch_counts.finished_at,
                    batch_counts.first_job,
                    batch_counts.unchanged,
                    batch_counts.unchanged_bytes,
                    batch_counts.discarded
                   FROM ferry.batch_counts
                UNION ALL
                 SELECT batch_count_deltas.batch,
                    batch_count_deltas.jobs,
                    batch_count_deltas.queued,
                    batch_count_deltas.running,
                    batch_count_deltas.succeeded,
                    batch_count_deltas.failed,
                    batch_count_deltas.cancelled,
                    batch_count_deltas.bytes_done,
                    batch_count_deltas.bytes_total,
                    batch_count_deltas.sized,
                    batch_count_deltas.enqueued_at,
                    batch_count_deltas.started_at,
                    batch_count_deltas.finished_at,
                    batch_count_deltas.first_job,
                    batch_count_deltas.unchanged,
                    batch_count_deltas.unchanged_bytes,
                    batch_count_deltas.discarded
                   FROM ferry.batch_count_deltas) t
          GROUP BY t.batch
         HAVING (sum(t.jobs) > (0)::numeric)) s
     -- Bytes in flight beyond each running job's durable progress: the batch's live rows only, each job by its key.
     CROSS JOIN LATERAL (
         -- The batch's live rows by their index, then each job by its primary key (a subquery per row, so the
         -- planner never scans the running jobs instead); a job no longer running adds nothing.
         SELECT COALESCE(sum(GREATEST(0, lp.bytes_done - (SELECT k.bytes_done FROM ferry.jobs k
                                                           WHERE k.job_id = lp.job_id AND k.worker = lp.worker
                                                             AND k.state = 'running'))), 0)::bigint AS live
           FROM ferry.live_progress lp
          WHERE lp.batch = s.batch) l;

COMMENT ON VIEW ferry.batch_status IS
    'One row per batch: jobs per state, bytes and percent done (100 only when done), start, finish, completion, how many sizes are still unknown, the jobs (and bytes) that succeeded without moving data because the destination held them already, and the failed jobs discarded since (counted apart from failed).';
