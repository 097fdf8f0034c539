#!/usr/bin/env bash
# Benchmarks against a private PostgreSQL with default settings (fsync on), started for the run.
# Figures are printed as ratios against baselines measured in the same run: this machine is shared and noisy.
set -euo pipefail
cd "$(dirname "$0")/.."

pgdir=$(mktemp -d /tmp/ferry-bench-pg.XXXXXX)
cleanup() {
    scripts/pg.sh stop "$pgdir" || true
    rm -rf "$pgdir"
}
trap cleanup EXIT
url=$(scripts/pg.sh start "$pgdir")

echo "==> building (release)"
swift build -c release --product ferry 2>&1 | grep -E "error|Compiling|Build" | tail -3
swift build -c release --product ferry-bench 2>&1 | grep -E "error|Build" | tail -3
bin=$(swift build -c release --show-bin-path)

echo "==> enqueue benchmark"
"$bin/ferry-bench" enqueue --database-url "$url" --ferry "$bin/ferry" --jobs "${FERRY_BENCH_JOBS:-1000000}"

echo "==> tree enqueue: upload DIR --recursive of a 100,000-file tree, against find | wc -l; peak RSS"
scripts/bench-tree.sh "$bin" "$url"

echo "==> against pgqueuer 1.6.0 on the same PostgreSQL: bulk enqueue, no-op jobs, a 300,000-job backlog (alternating rounds)"
scripts/bench-pgqueuer.sh "$bin" "$url" "$pgdir"

echo "==> worker benchmark"
"$bin/ferry-bench" workers --database-url "$url" --ferry "$bin/ferry" --jobs "${FERRY_BENCH_WORKER_JOBS:-20000}"

echo "==> dashboard under load: 200 event streams and 20 page loads/s while 2 workers run no-op jobs, against no dashboard"
"$bin/ferry-bench" dashboard --database-url "$url" --ferry "$bin/ferry" --jobs "${FERRY_BENCH_DASHBOARD_JOBS:-100000}"

echo "==> soak: table and index sizes while 1,000,000 jobs are worked (bloat under churn)"
"$bin/ferry-bench" soak --database-url "$url" --ferry "$bin/ferry" --jobs "${FERRY_BENCH_SOAK_JOBS:-1000000}" --handler noop --concurrency 128
"$bin/ferry-bench" soak --database-url "$url" --ferry "$bin/ferry" --jobs "${FERRY_BENCH_SOAK_JOBS:-1000000}" --handler noop --concurrency 128 --autovacuum-naptime ""

echo "==> replay: projection verify and rebuild on 1,000,000 jobs / 10,000,000 events, against the SQL replay"
"$bin/ferry-bench" replay --database-url "$url" --ferry "$bin/ferry" --jobs "${FERRY_BENCH_REPLAY_JOBS:-1000000}"

echo "==> replay at one event per job (1,000,000 jobs just enqueued), where per-job costs show"
"$bin/ferry-bench" replay --database-url "$url" --ferry "$bin/ferry" --jobs "${FERRY_BENCH_REPLAY_JOBS:-1000000}" --events-per-job 1 --database bench_replay_one

echo "==> status views at 1,000,000 jobs / 10,000,000 events; archive and restore"
"$bin/ferry-bench" status --database-url "$url" --ferry "$bin/ferry" --jobs "${FERRY_BENCH_REPLAY_JOBS:-1000000}"

echo "==> upload benchmark (dev server, against curl)"
scripts/bench-upload.sh "$bin" "$url"

echo "==> Dropbox small files: batch commit (finish_batch_v2) against single commits, 0 and 30 ms latency"
scripts/bench-dropbox-small.sh "$bin" "$url"

echo "==> Google Drive: 1,000 x 64 KiB and 100 x 3 MiB against Google's official Python client (8 threads), 0 and 30 ms latency; a 2,000-file tree by 4 workers (duplicates: 0)"
scripts/bench-gdrive.sh "$bin" "$url" "$pgdir"

echo "==> fetch benchmark (dev server, against curl; 20,000-entry folder fan-out)"
scripts/bench-fetch.sh "$bin" "$url"

echo "==> local directory benchmark (copy_file_range, against rclone copy and cp -r + sync; peak memory at 64 jobs)"
scripts/bench-local.sh "$bin" "$url"

echo "==> S3 benchmark (moto, against rclone and aws s3 cp)"
scripts/bench-s3.sh "$bin" "$url"

echo "==> backups: ferry check against rclone check, ferry enqueue sync against rclone sync (10,000 files on moto, 1% changed, 1% deleted)"
scripts/bench-backup.sh "$bin" "$url"

echo "==> trees again: events of an unchanged schedule tick (tree job against every file); a second copy of an unchanged prefix against rclone"
scripts/bench-copy.sh "$bin" "$url"

echo "==> an idle fleet: 100 worker processes with no work, PostgreSQL CPU and transactions/s against no workers"
scripts/bench-fleet.sh "$bin" "$url" "$pgdir"

echo "==> 1,000 worker slots (16 processes x 64) through PgBouncer with 20 server connections, against direct"
scripts/bench-slots.sh "$bin" "$url" "$pgdir"

echo "==> tracing overhead (no-op jobs, tracing off against on with an OTLP/HTTP receiver on loopback)"
scripts/bench-trace.sh "$bin" "$url"
