#!/usr/bin/env bash
# The HOT design for the projection sketched in SQL (issue 35; docs/benchmarks.md, "Prepared statements and HOT
# updates"): one session claims and finishes JOBS rows of ferry.jobs' shape, BATCH per statement, in a scratch schema
# `x` of the database at URL (dropped and made again), with the state's indexes either on the wide row as shipped (a)
# or on a narrow queue table whose row the claim updates and the finish deletes (b). Prints the backend's CPU per
# job, the WAL per job and the share of the wide row's updates that were HOT. Run it on a private cluster.
# Usage: scripts/bench-pgqueuer-hot.sh a|b URL [JOBS [BATCH]]
set -euo pipefail
design=${1:?usage: bench-pgqueuer-hot.sh a|b URL [JOBS [BATCH]]} url=${2:?URL} jobs=${3:-30000} batch=${4:-128}
[[ $design == a || $design == b ]] || { echo "error: the design is a (as shipped) or b (narrow queue table)" >&2; exit 2; }
tmp=$(mktemp -d /tmp/ferry-bench-hot.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
psql "$url" -q >/dev/null 2>&1 <<'SQL'
DROP SCHEMA IF EXISTS x CASCADE; CREATE SCHEMA x;
CREATE TABLE x.wide (
    job_id uuid PRIMARY KEY, version int NOT NULL, kind text NOT NULL, queue text NOT NULL, batch text,
    priority smallint NOT NULL, state text NOT NULL, attempt int NOT NULL, max_attempts int NOT NULL, lease bigint NOT NULL,
    worker text, account text, source text NOT NULL, destination text NOT NULL, idempotency_key text, spec jsonb NOT NULL,
    metadata jsonb, run_at timestamptz NOT NULL, cancel_requested bool NOT NULL, bytes_done bigint NOT NULL, bytes_total bigint,
    session jsonb, last_error text, result jsonb, enqueued_at timestamptz NOT NULL, started_at timestamptz,
    finished_at timestamptz, updated_at timestamptz NOT NULL) WITH (fillfactor = 70);
CREATE UNIQUE INDEX ON x.wide (idempotency_key) WHERE idempotency_key IS NOT NULL;
CREATE INDEX ON x.wide ("substring"(last_error, '^([a-z][a-z0-9_]{0,63}):'::text), job_id) WHERE last_error IS NOT NULL;
-- design A (as shipped): the state's indexes on the wide row
CREATE TABLE x.narrow (job_id uuid PRIMARY KEY, queue text NOT NULL, account text, priority smallint NOT NULL,
    run_at timestamptz NOT NULL, state text NOT NULL, worker text, batch text);
SQL
if [[ $design == a ]]; then
psql "$url" -q <<'SQL'
CREATE INDEX ON x.wide (batch, state, job_id) WHERE batch IS NOT NULL;
CREATE INDEX ON x.wide (queue, COALESCE(account, ''), priority DESC, run_at, job_id) WHERE state = 'queued';
CREATE INDEX ON x.wide (state, finished_at) WHERE state IN ('succeeded', 'failed', 'cancelled', 'discarded');
CREATE INDEX ON x.wide (account) WHERE state = 'running' AND account IS NOT NULL;
CREATE INDEX ON x.wide (worker) WHERE state = 'running';
SQL
else
psql "$url" -q <<'SQL'
CREATE INDEX ON x.narrow (batch, state, job_id) WHERE batch IS NOT NULL;
CREATE INDEX ON x.narrow (queue, COALESCE(account, ''), priority DESC, run_at, job_id) WHERE state = 'queued';
CREATE INDEX ON x.narrow (account) WHERE state = 'running' AND account IS NOT NULL;
CREATE INDEX ON x.narrow (worker) WHERE state = 'running';
-- finished jobs by time: their terminal event's time, on the events (here: left out, as both designs' events are)
SQL
fi
TMPDIR_HOT=$tmp psql "$url" -q -v design="$design" -v jobs="$jobs" -v batch="$batch" -v out="$tmp/out" <<'SQL'
\set QUIET on
INSERT INTO x.wide SELECT gen_random_uuid(), 1, 'fetch', 'default', 'pgq', 0, 'queued', 0, 5, 0, NULL, NULL,
   'https://bench.example.com/' || i, '/tmp/', NULL, '{"kind":"fetch","source":"x","to":"/tmp/"}', NULL, now(), false, 0, NULL,
   NULL, NULL, NULL, now(), NULL, NULL, now() FROM generate_series(1, :jobs) i;
SELECT (:'design' = 'b') AS narrow \gset
\if :narrow
INSERT INTO x.narrow SELECT job_id, queue, account, priority, run_at, state, worker, batch FROM x.wide;
\endif
VACUUM ANALYZE x.wide; VACUUM ANALYZE x.narrow;
SELECT pg_backend_pid() AS pid, pg_current_wal_lsn() AS l0 \gset
SELECT n_tup_upd AS u0, n_tup_hot_upd AS h0 FROM pg_stat_user_tables WHERE relid = 'x.wide'::regclass \gset
\setenv PGPID :pid
\! awk '{print $14 + $15}' /proc/$PGPID/stat > $TMPDIR_HOT/c0
CREATE PROCEDURE x.work_a(jobs int, n int) LANGUAGE plpgsql AS $$
DECLARE ids uuid[];
BEGIN
  LOOP
    -- claim n
    WITH c AS (SELECT job_id FROM x.wide WHERE queue = 'default' AND COALESCE(account, '') = '' AND state = 'queued'
                ORDER BY priority DESC, run_at, job_id LIMIT n FOR UPDATE SKIP LOCKED)
    UPDATE x.wide w SET state = 'running', worker = 'w1', lease = lease + 1, attempt = attempt + 1, version = version + 1,
           started_at = now(), updated_at = now() FROM c WHERE w.job_id = c.job_id;
    SELECT array_agg(job_id) INTO ids FROM x.wide WHERE state = 'running';
    EXIT WHEN ids IS NULL;
    COMMIT;
    UPDATE x.wide SET state = 'succeeded', worker = NULL, version = version + 1, finished_at = now(), updated_at = now(),
           bytes_done = 1000 WHERE job_id = ANY(ids);
    COMMIT;
  END LOOP;
END $$;
CREATE PROCEDURE x.work_b(jobs int, n int) LANGUAGE plpgsql AS $$
DECLARE ids uuid[];
BEGIN
  LOOP
    WITH c AS (SELECT job_id FROM x.narrow WHERE queue = 'default' AND COALESCE(account, '') = '' AND state = 'queued'
                ORDER BY priority DESC, run_at, job_id LIMIT n FOR UPDATE SKIP LOCKED),
         n AS (UPDATE x.narrow q SET state = 'running', worker = 'w1' FROM c WHERE q.job_id = c.job_id RETURNING q.job_id)
    UPDATE x.wide w SET state = 'running', worker = 'w1', lease = lease + 1, attempt = attempt + 1, version = version + 1,
           started_at = now(), updated_at = now() FROM n WHERE w.job_id = n.job_id;
    SELECT array_agg(job_id) INTO ids FROM x.narrow WHERE state = 'running' AND worker = 'w1';
    EXIT WHEN ids IS NULL;
    COMMIT;
    DELETE FROM x.narrow WHERE job_id = ANY(ids);
    UPDATE x.wide SET state = 'succeeded', worker = NULL, version = version + 1, finished_at = now(), updated_at = now(),
           bytes_done = 1000 WHERE job_id = ANY(ids);
    COMMIT;
  END LOOP;
END $$;
\if :narrow
CALL x.work_b(:jobs, :batch);
\else
CALL x.work_a(:jobs, :batch);
\endif
\! awk '{print $14 + $15}' /proc/$PGPID/stat > $TMPDIR_HOT/c1
SELECT pg_current_wal_lsn() AS l1 \gset
SELECT pg_sleep(0.7) \gset
SELECT n_tup_upd - :u0 AS upd, n_tup_hot_upd - :h0 AS hot FROM pg_stat_user_tables WHERE relid = 'x.wide'::regclass \gset
\o :out
SELECT round(pg_wal_lsn_diff(:'l1', :'l0') / :jobs) AS wal, round(100.0 * :hot / greatest(:upd, 1)) AS hot_pct;
\o
SQL
c0=$(cat "$tmp/c0"); c1=$(cat "$tmp/c1")
read -r wal hot <<<"$(tr -s ' |' ' ' <"$tmp/out" | sed -n 3p)"
echo "design $design: PostgreSQL CPU per job $(python3 -c "print('%.4f' % (($c1 - $c0) / $(getconf CLK_TCK) * 1000 / $jobs))") ms, WAL per job $wal B, HOT updates $hot %"
