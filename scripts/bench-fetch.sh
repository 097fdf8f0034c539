#!/usr/bin/env bash
# Fetch benchmarks against Ferry's dev server:
#   - download throughput for many small photos and for one large file, as ratios to curl fetching the same
#     URLs from the same server in the same run;
#   - listing + fan-out rate of a 20,000-entry Dropbox folder (time from the listing job's claim until all
#     20,000 child jobs are queued).
# Usage: scripts/bench-fetch.sh BIN_DIR DATABASE_ADMIN_URL
set -euo pipefail
bin=$1
admin=$2
ferry="$bin/ferry"
work=$(mktemp -d /tmp/ferry-bench-fetch.XXXXXX)
photos=${FERRY_BENCH_PHOTOS:-128}
photo_kib=${FERRY_BENCH_PHOTO_KIB:-2048}
big_mib=${FERRY_BENCH_BIG_MIB:-1024}
entries=${FERRY_BENCH_FOLDER_ENTRIES:-20000}
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

psql "$admin" -qc "DROP DATABASE IF EXISTS ferry_bench_fetch" -c "CREATE DATABASE ferry_bench_fetch" 2>/dev/null
export FERRY_DATABASE_URL="${admin%/*}/ferry_bench_fetch"
export FERRY_SECRET_KEY=$(head -c 32 /dev/urandom | base64)
"$ferry" migrate >/dev/null

head -c 24 /dev/urandom | base64 >"$work/app-secret"
"$ferry" dev-server --port 0 --storage "$work/server" --app-key bench --app-secret-file "$work/app-secret" >"$work/dev.log" 2>&1 &
pids+=($!)
for _ in $(seq 100); do grep -q "listening on" "$work/dev.log" 2>/dev/null && break; sleep 0.1; done
server=$(grep -o 'http://[0-9.:]*' "$work/dev.log" | head -1)
json() { python3 -c "import json,sys; print(json.load(sys.stdin)$1)"; }
now() { date +%s.%N; }

# The same URLs for curl and for Ferry: pseudo-random files served from the dev server's /web/.
for i in $(seq -w 1 "$photos"); do
    curl -fsS -o /dev/null -X POST "$server/__dev/web" -d "{\"path\":\"photos/p$i.jpg\",\"size\":$((photo_kib * 1024)),\"seed\":$((10#$i))}"
done
curl -fsS -o /dev/null -X POST "$server/__dev/web" -d "{\"path\":\"big.bin\",\"size\":$((big_mib * 1024 * 1024)),\"seed\":7}"
photo_bytes=$((photos * photo_kib * 1024))
big_bytes=$((big_mib * 1024 * 1024))

# Baselines: curl, 4 in parallel for the photos (the worker's concurrency), one curl for the big file.
mkdir -p "$work/curl"
t0=$(now)
for i in $(seq -w 1 "$photos"); do echo "$server/web/photos/p$i.jpg"; done |
    xargs -P 4 -I{} sh -c 'curl -fsS -o "$0/$(basename {})" {}' "$work/curl"
t1=$(now)
curl_photos=$(python3 -c "print('%.1f' % ($photo_bytes / 1048576 / ($t1 - $t0)))")
t0=$(now)
curl -fsS -o "$work/curl/big.bin" "$server/web/big.bin"
t1=$(now)
curl_big=$(python3 -c "print('%.1f' % ($big_bytes / 1048576 / ($t1 - $t0)))")
rm -rf "$work/curl"

# Ferry: one worker; MiB/s over the batch's first start to last finish.
run_batch() { # batch concurrency bytes
    local batch=$1 concurrency=$2 bytes=$3
    "$ferry" worker --name "bench-$batch" --concurrency "$concurrency" --log-level error &
    local pid=$!
    pids+=($pid)
    "$ferry" wait --batch "$batch" --timeout 900 >/dev/null
    kill -TERM $pid && wait $pid || true
    psql "$FERRY_DATABASE_URL" -Atc "SELECT round(($bytes / 1048576.0 / extract(epoch FROM max(finished_at) - min(started_at)))::numeric, 1)
                                       FROM ferry.jobs WHERE batch = '$batch'"
}
for i in $(seq -w 1 "$photos"); do
    echo "{\"kind\":\"fetch\",\"source\":\"$server/web/photos/p$i.jpg\",\"to\":\"$work/ferry/\",\"batch\":\"photos\"}"
done | "$ferry" enqueue --from - >/dev/null
ferry_photos=$(run_batch photos 4 $photo_bytes)
"$ferry" enqueue fetch "$server/web/big.bin" --to "$work/ferry/big.bin" --batch big >/dev/null
ferry_big=$(run_batch big 1 $big_bytes)
rm -rf "$work/ferry"

# Fan-out: a 20,000-entry folder listed in pages of 2,000; the worker runs only the listing job (concurrency 1),
# so the figure is listing + enqueuing, not downloading.
refresh=$(curl -fsS -X POST "$server/__dev/accounts" -d '{"account":"bench"}' | json '["refresh_token"]')
echo "$refresh" | "$ferry" account add bench --provider dropbox --app-key bench --app-secret-file "$work/app-secret" --refresh-token-file - \
    --api-url "$server" --content-url "$server" --authorize-url "$server" >/dev/null
curl -fsS -o /dev/null -X POST "$server/__dev/seed" -d "{\"account\":\"bench\",\"folder\":\"/big\",\"count\":$entries,\"size\":1024}"
listing=$("$ferry" enqueue fetch dropbox:bench:/big --to "$work/fan/" --batch fan)
"$ferry" worker --name bench-fan --concurrency 1 --log-level error &
fan_pid=$!
pids+=($fan_pid)
until [[ $(psql "$FERRY_DATABASE_URL" -Atc "SELECT state FROM ferry.jobs WHERE job_id = '$listing'") =~ ^(succeeded|failed)$ ]]; do sleep 0.2; done
kill -TERM $fan_pid && wait $fan_pid || true
read -r children fan_seconds < <(psql "$FERRY_DATABASE_URL" -AtF' ' -c "
    SELECT count(c.*), round(extract(epoch FROM max(c.enqueued_at) - p.started_at)::numeric, 2)
      FROM ferry.jobs p JOIN ferry.jobs c ON c.batch = p.batch AND c.job_id <> p.job_id
     WHERE p.job_id = '$listing' GROUP BY p.started_at")

ratio() { python3 -c "print('%.2f' % ($1 / $2))"; }
echo "download, $photos × $((photo_kib / 1024)) MiB photos: ferry $ferry_photos MiB/s vs curl (4 parallel) $curl_photos MiB/s = $(ratio "$ferry_photos" "$curl_photos")× (target ≥ 0.9×)"
echo "download, one $big_mib MiB file:   ferry $ferry_big MiB/s vs curl $curl_big MiB/s = $(ratio "$ferry_big" "$curl_big")× (target ≥ 0.9×)"
echo "fan-out, $entries-entry Dropbox folder: $children child jobs queued in $fan_seconds s = $(python3 -c "print(int($children / max($fan_seconds, 0.001)))") entries/s (target: 20,000 in < 5 s)"
