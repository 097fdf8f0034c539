#!/usr/bin/env bash
# Backups (issue 32), against rclone on the same moto server in the same run:
#
# 1. `ferry check` of a 10,000-file local tree against its S3 copy, size only and --checksum, against `rclone check`
#    (size only with --size-only, and its default, which compares MD5s): wall time each and the ratio.
# 2. After 1% of the files changed and 1% deleted, `ferry enqueue sync` of the tree (one job: the copy, then the
#    deletions; 2 workers × 16) against `rclone sync --transfers 32`, each into its own prefix that held the same
#    copy before: wall time, the ratio, and the events Ferry wrote for the run. Both end equal to the tree (checked).
# Files are 1 KiB. Usage: scripts/bench-backup.sh BIN_DIR DATABASE_ADMIN_URL
set -euo pipefail
shopt -s inherit_errexit
bin=$1
admin=$2
ferry="$bin/ferry"
files=${FERRY_BENCH_BACKUP_FILES:-10000}
work=$(mktemp -d /tmp/ferry-bench-backup.XXXXXX)
export FERRY_LOCAL_ROOTS="$work"
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    scripts/moto.sh stop "$work/moto" >/dev/null 2>&1 || true
    psql "$admin" -qc "DROP DATABASE IF EXISTS ferry_bench_backup" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
command -v rclone >/dev/null || { echo "error: rclone is missing (scripts/install-deps.sh installs it)" >&2; exit 1; }

psql "$admin" -qc "DROP DATABASE IF EXISTS ferry_bench_backup" -c "CREATE DATABASE ferry_bench_backup" 2>/dev/null
export FERRY_DATABASE_URL="${admin%/*}/ferry_bench_backup"
export FERRY_SECRET_KEY=$(head -c 32 /dev/urandom | base64)
"$ferry" migrate >/dev/null
mkdir -p "$work/moto"
server=$(scripts/moto.sh start "$work/moto")
export AWS_ACCESS_KEY_ID=AKIABENCH0000000001 AWS_SECRET_ACCESS_KEY=bench-secret AWS_DEFAULT_REGION=us-east-1
echo "$AWS_ACCESS_KEY_ID" >"$work/key-id"
echo "$AWS_SECRET_ACCESS_KEY" | "$ferry" account add bench --provider s3 --region us-east-1 --endpoint-url "$server" --path-style \
    --access-key-id-file "$work/key-id" --secret-access-key-file - --max-concurrent 32 >/dev/null
export RCLONE_CONFIG_MOTO_TYPE=s3 RCLONE_CONFIG_MOTO_PROVIDER=Other RCLONE_CONFIG_MOTO_ENDPOINT="$server" \
    RCLONE_CONFIG_MOTO_ACCESS_KEY_ID="$AWS_ACCESS_KEY_ID" RCLONE_CONFIG_MOTO_SECRET_ACCESS_KEY="$AWS_SECRET_ACCESS_KEY" \
    RCLONE_CONFIG_MOTO_REGION=us-east-1 RCLONE_CONFIG_MOTO_FORCE_PATH_STYLE=true
rc() { env -u AWS_CA_BUNDLE rclone --config /dev/null "$@"; }
rc mkdir moto:bench

# The tree: 10 folders of files/10 files of 1 KiB.
python3 - "$work/tree" "$files" <<'PY'
import os, sys
root, count = sys.argv[1], int(sys.argv[2])
for i in range(count):
    folder = f"{root}/d{i % 10:02d}"
    os.makedirs(folder, exist_ok=True)
    with open(f"{folder}/f{i:05d}.bin", "wb") as f:
        f.write(os.urandom(1024))
PY
start_workers() {
    for w in 1 2; do
        "$ferry" worker --name "bench-backup-$w" --concurrency 16 --log-level error &
        pids+=($!)
    done
}
stop_workers() {
    for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
    pids=()
}
elapsed() { python3 -c "print('%.2f' % ($2 - $1))"; }
ratio() { python3 -c "print('%.2f' % ($1 / $2))"; }

# The starting copies: Ferry's by a sync (nothing to delete yet), rclone's by its own sync.
start_workers
"$ferry" enqueue sync "$work/tree" --to s3:bench:bench/ferry/ --batch first >/dev/null
"$ferry" wait --batch first --timeout 1800 >/dev/null
stop_workers
rc sync --transfers 32 "$work/tree" moto:bench/rclone/

echo "check of $files files against their S3 copy (wall time, s):"
t0=$(date +%s.%N); "$ferry" check "$work/tree" s3:bench:bench/ferry/ >/dev/null 2>&1; t1=$(date +%s.%N)
ferry_size=$(elapsed "$t0" "$t1")
t0=$(date +%s.%N); rc check --size-only "$work/tree" moto:bench/ferry/ >/dev/null 2>&1; t1=$(date +%s.%N)
rclone_size=$(elapsed "$t0" "$t1")
t0=$(date +%s.%N); "$ferry" check --checksum "$work/tree" s3:bench:bench/ferry/ >/dev/null 2>&1; t1=$(date +%s.%N)
ferry_sum=$(elapsed "$t0" "$t1")
t0=$(date +%s.%N); rc check "$work/tree" moto:bench/ferry/ >/dev/null 2>&1; t1=$(date +%s.%N)
rclone_sum=$(elapsed "$t0" "$t1")
echo "  size only:  ferry check $ferry_size  rclone check --size-only $rclone_size  (rclone/ferry $(ratio "$rclone_size" "$ferry_size")×)"
echo "  checksums:  ferry check --checksum $ferry_sum  rclone check $rclone_sum  (rclone/ferry $(ratio "$rclone_sum" "$ferry_sum")×)"

# 1% changed, 1% deleted.
python3 - "$work/tree" "$files" <<'PY'
import os, sys
root, count = sys.argv[1], int(sys.argv[2])
for i in range(0, count, 100):
    with open(f"{root}/d{i % 10:02d}/f{i:05d}.bin", "wb") as f:
        f.write(os.urandom(1024))
for i in range(50, count, 100):
    os.remove(f"{root}/d{i % 10:02d}/f{i:05d}.bin")
PY
events_before=$(psql "$FERRY_DATABASE_URL" -Atc "SELECT count(*) FROM ferry.events")
start_workers
t0=$(date +%s.%N)
"$ferry" enqueue sync "$work/tree" --to s3:bench:bench/ferry/ --batch second >/dev/null
"$ferry" wait --batch second --timeout 1800 >/dev/null
t1=$(date +%s.%N)
stop_workers
ferry_sync=$(elapsed "$t0" "$t1")
events=$(( $(psql "$FERRY_DATABASE_URL" -Atc "SELECT count(*) FROM ferry.events") - events_before ))
deleted=$(psql "$FERRY_DATABASE_URL" -Atc "SELECT result->>'deleted' FROM ferry.jobs WHERE batch = 'second' AND spec ? 'sync'")
t0=$(date +%s.%N); rc sync --transfers 32 "$work/tree" moto:bench/rclone/; t1=$(date +%s.%N)
rclone_sync=$(elapsed "$t0" "$t1")
"$ferry" check "$work/tree" s3:bench:bench/ferry/ --checksum >/dev/null 2>&1 || { echo "error: Ferry's copy differs from the tree after the sync" >&2; exit 1; }
rc check "$work/tree" moto:bench/rclone/ >/dev/null 2>&1 || { echo "error: rclone's copy differs from the tree after its sync" >&2; exit 1; }
echo "sync after 1% changed and 1% deleted ($files files):"
echo "  ferry enqueue sync + wait $ferry_sync s ($deleted deleted, $events events)  rclone sync $rclone_sync s  (rclone/ferry $(ratio "$rclone_sync" "$ferry_sync")×)"
