#!/usr/bin/env bash
# Trees moved again, unchanged, in the same run:
# 1. Events written by one tick of an unchanged 10,000-file scheduled upload: the tree job a schedule of
#    `upload DIR --recursive` enqueues now (`--option tree=true`, walked by a worker, one child per new or changed
#    file), against enqueueing every file again (`enqueue upload DIR --recursive`, each job skipping its unchanged
#    file by content): events in the second run's batch, and wall time.
# 2. A second `ferry enqueue copy` of an unchanged 10,000-object S3 prefix to another bucket (from enqueue to the
#    batch done, two workers running) against `rclone copy` of the same unchanged prefix (default: size and
#    modification time; and --checksum: size and MD5 from the listings), on one moto server. The first copies
#    (Ferry 2 workers × 32, rclone --transfers 32, streamed through each tool) are reported too, and a copy within one
#    account (Ferry) or one remote (rclone), which both make with server-side CopyObject.
# Usage: scripts/bench-copy.sh BIN_DIR DATABASE_ADMIN_URL
set -euo pipefail
shopt -s inherit_errexit   # a failure inside $(...) stops the run too
bin=$1
admin=$2
ferry="$bin/ferry"
files=${FERRY_BENCH_COPY_FILES:-10000}
work=$(mktemp -d /tmp/ferry-bench-copy.XXXXXX)
export FERRY_LOCAL_ROOTS="$work"   # workers read and write only here
pids=()
cleanup() {
    local status=$?
    ((status == 0)) || { echo "moto's log (last lines):" >&2; tail -n 20 "$work"/moto/*.log >&2 2>/dev/null || true; }
    for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    scripts/moto.sh stop "$work/moto" >/dev/null 2>&1 || true
    rm -rf "$work"
}
trap cleanup EXIT
command -v rclone >/dev/null || { echo "error: rclone is missing (scripts/install-deps.sh installs it)" >&2; exit 1; }

psql "$admin" -qc "DROP DATABASE IF EXISTS ferry_bench_copy" -c "CREATE DATABASE ferry_bench_copy" 2>/dev/null
export FERRY_DATABASE_URL="${admin%/*}/ferry_bench_copy"
export FERRY_SECRET_KEY=$(head -c 32 /dev/urandom | base64)
"$ferry" migrate >/dev/null
now() { date +%s.%N; }
elapsed() { python3 -c "print('%.2f' % ($2 - $1))"; }
q() { psql "$FERRY_DATABASE_URL" -Atc "$1"; }
wait_batch() { until [[ $(q "SELECT coalesce((SELECT done FROM ferry.batch_status WHERE batch = '$1'), false)") == t ]]; do sleep 0.05; done; }
events_of() { q "SELECT count(*) FROM ferry.events e JOIN ferry.jobs j USING (job_id) WHERE j.batch = '$1'"; }
start_workers() { # name → two workers of 32 jobs
    for w in 1 2; do
        "$ferry" worker --name "bench-$1-$w" --concurrency 32 --poll-interval 0.2 --log-level error &
        pids+=($!)
    done
}
stop_workers() {
    for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
    wait "${pids[@]}" 2>/dev/null || true
    pids=()
}

# 1. An unchanged tree uploaded again to a local folder: the tree job against every file enqueued again.
python3 - "$work/tree" "$files" <<'PY'
import os, sys
root, count = sys.argv[1], int(sys.argv[2])
for i in range(count):
    folder = f"{root}/d{i % 50:02d}"
    os.makedirs(folder, exist_ok=True)
    with open(f"{folder}/f{i:06d}.jpg", "wb") as f:
        f.write(os.urandom(512))
PY
start_workers tree
"$ferry" enqueue upload "$work/tree" --option tree=true --to "$work/out-tree/" --batch tree-1 >/dev/null
wait_batch tree-1
t0=$(now); "$ferry" enqueue upload "$work/tree" --option tree=true --to "$work/out-tree/" --batch tree-2 >/dev/null; wait_batch tree-2; t1=$(now)
tree_s=$(elapsed "$t0" "$t1"); tree_events=$(events_of tree-2); tree_jobs=$(q "SELECT count(*) FROM ferry.jobs WHERE batch = 'tree-2'")
"$ferry" enqueue upload "$work/tree" --recursive --to "$work/out-flat/" --batch flat-1 >/dev/null
wait_batch flat-1
t0=$(now); "$ferry" enqueue upload "$work/tree" --recursive --to "$work/out-flat/" --batch flat-2 >/dev/null; wait_batch flat-2; t1=$(now)
flat_s=$(elapsed "$t0" "$t1"); flat_events=$(events_of flat-2)
stop_workers
[[ $(q "SELECT count(*) FROM ferry.jobs WHERE batch = 'flat-2' AND result->>'skipped' = 'unchanged'") == "$files" ]] \
    || { echo "error: the second flat upload did not skip every file" >&2; exit 1; }
python3 - "$files" "$flat_events" "$flat_s" "$tree_events" "$tree_s" "$tree_jobs" <<'PY'
import sys
files, flat_e, flat_s, tree_e, tree_s, tree_jobs = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5]), int(sys.argv[6])
print(f"an unchanged {files:,}-file tree uploaded again (one schedule tick):")
print(f"  every file enqueued again, each skipping its file: {flat_e:,} events ({flat_e / files:.1f} per file), {flat_s:.2f} s")
print(f"  the tree job a schedule enqueues: {tree_e:,} events in {tree_jobs} job(s), {tree_s:.2f} s "
      f"({flat_e / max(tree_e, 1):,.0f}x fewer events, {flat_s / tree_s:.1f}x faster)")
PY

# 2. Copies between buckets of one moto server, by Ferry and by rclone (two remotes: no server-side copy).
mkdir -p "$work/moto"
server=$(scripts/moto.sh start "$work/moto")
key=AKIABENCH0000000001 secret=bench-secret
for remote in A B; do
    export RCLONE_CONFIG_MOTO${remote}_TYPE=s3 RCLONE_CONFIG_MOTO${remote}_PROVIDER=Other RCLONE_CONFIG_MOTO${remote}_ENDPOINT="$server" \
        RCLONE_CONFIG_MOTO${remote}_ACCESS_KEY_ID="$key" RCLONE_CONFIG_MOTO${remote}_SECRET_ACCESS_KEY="$secret" \
        RCLONE_CONFIG_MOTO${remote}_REGION=us-east-1 RCLONE_CONFIG_MOTO${remote}_FORCE_PATH_STYLE=true
done
rc() { env -u AWS_CA_BUNDLE rclone --config /dev/null "$@"; }
rc mkdir motoa:src && rc mkdir motob:ferry && rc mkdir motob:rclone && rc mkdir motoa:inside && rc mkdir motoa:rclone-inside
rc copy --transfers 32 "$work/tree" motoa:src/tree
echo "$key" >"$work/key-id"
for name in src dst; do
    echo "$secret" | "$ferry" account add "$name" --provider s3 --region us-east-1 --endpoint-url "$server" --path-style \
        --access-key-id-file "$work/key-id" --secret-access-key-file - --max-concurrent 64 >/dev/null
done
start_workers copy
t0=$(now); "$ferry" enqueue copy s3:src:src/tree/ --to s3:dst:ferry/tree/ --batch copy-1 >/dev/null; wait_batch copy-1; t1=$(now)
ferry_first=$(elapsed "$t0" "$t1")
[[ $(q "SELECT count(*) FROM ferry.jobs WHERE batch = 'copy-1' AND state = 'succeeded'") == $((files + 1)) ]] \
    || { echo "error: not every copy succeeded" >&2; exit 1; }
t0=$(now); "$ferry" enqueue copy s3:src:src/tree/ --to s3:dst:ferry/tree/ --batch copy-2 >/dev/null; wait_batch copy-2; t1=$(now)
ferry_again=$(elapsed "$t0" "$t1"); again_jobs=$(q "SELECT count(*) FROM ferry.jobs WHERE batch = 'copy-2'")
# Within one account the store copies each object itself (CopyObject), as rclone does within one remote.
t0=$(now); "$ferry" enqueue copy s3:src:src/tree/ --to s3:src:inside/tree/ --batch copy-inside >/dev/null; wait_batch copy-inside; t1=$(now)
ferry_inside=$(elapsed "$t0" "$t1")
[[ $(q "SELECT count(*) FROM ferry.jobs WHERE batch = 'copy-inside' AND result->>'server_side' = 'true'") == "$files" ]] \
    || { echo "error: not every copy within one account was made by the store" >&2; exit 1; }
stop_workers
t0=$(now); rc copy --transfers 32 motoa:src/tree motoa:rclone-inside/tree; t1=$(now)
rclone_inside=$(elapsed "$t0" "$t1")
t0=$(now); rc copy --transfers 32 motoa:src/tree motob:rclone/tree; t1=$(now)
rclone_first=$(elapsed "$t0" "$t1")
t0=$(now); rc copy --transfers 32 motoa:src/tree motob:rclone/tree; t1=$(now)
rclone_again=$(elapsed "$t0" "$t1")
t0=$(now); rc copy --transfers 32 --checksum motoa:src/tree motob:rclone/tree; t1=$(now)
rclone_checksum=$(elapsed "$t0" "$t1")
python3 - "$files" "$ferry_first" "$rclone_first" "$ferry_again" "$again_jobs" "$rclone_again" "$rclone_checksum" "$ferry_inside" "$rclone_inside" <<'PY'
import sys
files = int(sys.argv[1])
ferry_first, rclone_first, ferry_again = float(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
again_jobs, rclone_again, rclone_checksum = int(sys.argv[5]), float(sys.argv[6]), float(sys.argv[7])
ferry_inside, rclone_inside = float(sys.argv[8]), float(sys.argv[9])
print(f"S3 prefix of {files:,} objects copied to another bucket (moto), Ferry 2 workers x 32 against rclone --transfers 32:")
print(f"  first copy: ferry {ferry_first:.1f} s ({files / ferry_first:,.0f} files/s); rclone {rclone_first:.1f} s ({files / rclone_first:,.0f} files/s); ferry {rclone_first / ferry_first:.2f}x rclone's speed")
print(f"  copied again, unchanged: ferry {ferry_again:.2f} s ({again_jobs} job: the listing); rclone {rclone_again:.2f} s (size and modtime), "
      f"{rclone_checksum:.2f} s (--checksum); ferry {rclone_again / ferry_again:.1f}x and {rclone_checksum / ferry_again:.1f}x faster")
print(f"  within one account (server-side copies): ferry {ferry_inside:.1f} s ({files / ferry_inside:,.0f} files/s); "
      f"rclone, one remote, {rclone_inside:.1f} s ({files / rclone_inside:,.0f} files/s); ferry {rclone_inside / ferry_inside:.2f}x rclone's speed")
PY
psql "$admin" -qc "DROP DATABASE IF EXISTS ferry_bench_copy" 2>/dev/null || true
