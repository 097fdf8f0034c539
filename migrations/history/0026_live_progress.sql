-- Live byte progress (issue 21): a running job's bytes are visible within about a second, for files smaller than
-- a chunk too, without an event per network write. Progress events stay the durable resume points (one per chunk
-- or part, after the bytes are safe); between them each worker publishes the bytes its transfers have moved, at
-- most once a second and only when they changed (one statement per worker), and ferry.job_status and
-- ferry.batch_status add them to the durable figures.
--
-- A row counts only while its job is running and held by the worker that wrote it, so a dead worker's rows, or a
-- finished job's row not yet deleted, change nothing; workers delete their rows as their jobs end and the rows of
-- a worker go with its registration.

CREATE TABLE ferry.live_progress (
    job_id     uuid PRIMARY KEY,
    worker     text NOT NULL REFERENCES ferry.workers (name) ON DELETE CASCADE,
    batch      text,
    bytes_done bigint NOT NULL CHECK (bytes_done >= 0),
    updated_at timestamptz NOT NULL DEFAULT now()
) WITH (fillfactor = 50);

CREATE INDEX live_progress_batch ON ferry.live_progress (batch) WHERE batch IS NOT NULL;
CREATE INDEX live_progress_worker ON ferry.live_progress (worker);

COMMENT ON TABLE ferry.live_progress IS
    'Bytes moved by running transfers beyond their last progress event, published by their workers about once a second. Operational, not history.';

GRANT SELECT, INSERT, UPDATE, DELETE ON ferry.live_progress TO ferry_worker;

CREATE OR REPLACE VIEW ferry.job_status AS
 SELECT j.job_id,
    j.kind,
    j.queue,
    j.batch,
        CASE
            WHEN ((j.state = 'queued'::text) AND (a.status IS NOT NULL) AND (a.status <> 'active'::text)) THEN 'held'::text
            WHEN ((j.state = 'queued'::text) AND (j.run_at > now()) AND (j.attempt > 0)) THEN 'retrying'::text
            WHEN ((j.state = 'queued'::text) AND (j.run_at > now())) THEN 'scheduled'::text
            WHEN ((j.state = 'running'::text) AND j.cancel_requested) THEN 'cancelling'::text
            ELSE j.state
        END AS status,
    j.state,
    j.attempt,
    j.max_attempts,
    j.priority,
    j.source,
    j.destination,
    j.account,
    GREATEST(j.bytes_done, lp.bytes_done) AS bytes_done,
    j.bytes_total,
    (
        CASE
            WHEN (j.state = 'succeeded'::text) THEN 100.0
            WHEN (j.bytes_total > 0) THEN LEAST(99.9, round(((100.0 * (LEAST(GREATEST(j.bytes_done, lp.bytes_done), j.bytes_total))::numeric) / (j.bytes_total)::numeric), 1))
            WHEN (j.bytes_total = 0) THEN 0.0
            ELSE NULL::numeric
        END)::numeric(4,1) AS percent,
    j.last_error,
    j.worker,
    j.metadata,
    j.run_at,
    j.enqueued_at,
    j.started_at,
    j.finished_at,
    j.updated_at,
    j.version AS event_count,
        CASE
            WHEN ((j.state = 'queued'::text) AND (a.status = 'needs_reauth'::text)) THEN ((((('account '::text || a.name) || ' needs re-authorization ('::text) || COALESCE(a.status_reason, 'token rejected'::text)) || '): run ferry account login '::text) || a.name)
            WHEN ((j.state = 'queued'::text) AND (a.status = 'revoked'::text)) THEN ((('account '::text || a.name) || ' was signed out (token revoked): run ferry account login '::text) || a.name)
            ELSE NULL::text
        END AS held_reason
   FROM ferry.jobs j
     LEFT JOIN ferry.accounts a ON a.name = j.account
     -- Bytes in flight, published by the worker that holds the claim (never another's).
     LEFT JOIN ferry.live_progress lp ON lp.job_id = j.job_id AND lp.worker = j.worker AND j.state = 'running';

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
            ELSE LEAST(99.9, round(((100.0 * (((s.succeeded + s.failed) + s.cancelled))::numeric) / (s.jobs)::numeric), 1))
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
    s.first_job AS first_job_id
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
            (min(((t.first_job)::text COLLATE "C")))::uuid AS first_job
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
                    batch_counts.first_job
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
                    batch_count_deltas.first_job
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
