#!/usr/bin/env bash
# Fetch benchmarks against Ferry's dev server:
#   - download throughput for many small photos, as a ratio to curl fetching the same URLs from the same server
#     in the same run;
#   - one large file, against two baselines: plain curl (its bytes end in the page cache, unsynced) and curl
#     followed by an fsync of the file (durable, as Ferry's are). The machine is shared and noisy, so the three
#     run interleaved for FERRY_BENCH_ROUNDS rounds (default 3) and the medians are compared; every round is
#     printed too. Also the worker's peak resident memory (VmHWM) during the large fetch;
#   - listing + fan-out rate of a 20,000-entry Dropbox folder (time from the listing job's claim until all
#     20,000 child jobs are queued).
# Usage: scripts/bench-fetch.sh BIN_DIR DATABASE_ADMIN_URL
set -euo pipefail
bin=$1
admin=$2
ferry="$bin/ferry"
work=$(mktemp -d /tmp/ferry-bench-fetch.XXXXXX)
export FERRY_LOCAL_ROOTS="$work"   # workers read and write only here
photos=${FERRY_BENCH_PHOTOS:-128}
photo_kib=${FERRY_BENCH_PHOTO_KIB:-2048}
big_mib=${FERRY_BENCH_BIG_MIB:-1024}
entries=${FERRY_BENCH_FOLDER_ENTRIES:-20000}
rounds=${FERRY_BENCH_ROUNDS:-3}
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

mibps() { python3 -c "print('%.1f' % ($1 / 1048576 / ($3 - $2)))"; } # bytes start end
median() { python3 -c "import statistics,sys; print('%.1f' % statistics.median(map(float, sys.argv[1:])))" "$@"; }

# Ferry: one worker; MiB/s over the batch's first start to last finish (the final fsync and rename included).
# The worker's peak resident memory (VmHWM, in KiB) goes to $work/peak.
run_batch() { # batch concurrency bytes
    local batch=$1 concurrency=$2 bytes=$3
    "$ferry" worker --name "bench-$batch" --concurrency "$concurrency" --log-level error &
    local pid=$!
    pids+=($pid)
    "$ferry" wait --batch "$batch" --timeout 900 >/dev/null
    awk '/VmHWM/ {print $2}' /proc/$pid/status >"$work/peak"
    kill -TERM $pid && wait $pid || true
    psql "$FERRY_DATABASE_URL" -Atc "SELECT round(($bytes / 1048576.0 / extract(epoch FROM max(finished_at) - min(started_at)))::numeric, 1)
                                       FROM ferry.jobs WHERE batch = '$batch'"
}

# Photos: curl 4 in parallel (the worker's concurrency), then the worker.
mkdir -p "$work/curl"
t0=$(now)
for i in $(seq -w 1 "$photos"); do echo "$server/web/photos/p$i.jpg"; done |
    xargs -P 4 -I{} sh -c 'curl -fsS -o "$0/$(basename {})" {}' "$work/curl"
t1=$(now)
curl_photos=$(mibps $photo_bytes "$t0" "$t1")
rm -rf "$work/curl"
for i in $(seq -w 1 "$photos"); do
    echo "{\"kind\":\"fetch\",\"source\":\"$server/web/photos/p$i.jpg\",\"to\":\"$work/ferry/\",\"batch\":\"photos\"}"
done | "$ferry" enqueue --from - >/dev/null
ferry_photos=$(run_batch photos 4 $photo_bytes)
rm -rf "$work/ferry"

# The large file: curl, curl + fsync, Ferry, interleaved; each writes to the same disk and deletes its file.
curl_big=() synced_big=() ferry_big=() peaks=()
for round in $(seq "$rounds"); do
    t0=$(now)
    curl -fsS -o "$work/curl-big.bin" "$server/web/big.bin"
    t1=$(now)
    curl_big+=("$(mibps $big_bytes "$t0" "$t1")")
    rm -f "$work/curl-big.bin"
    t0=$(now)
    curl -fsS -o "$work/curl-big.bin" "$server/web/big.bin"
    python3 -c 'import os, sys; fd = os.open(sys.argv[1], os.O_RDONLY); os.fsync(fd)' "$work/curl-big.bin"
    t1=$(now)
    synced_big+=("$(mibps $big_bytes "$t0" "$t1")")
    rm -f "$work/curl-big.bin"
    "$ferry" enqueue fetch "$server/web/big.bin" --to "$work/ferry/big.bin" --batch "big-$round" >/dev/null
    ferry_big+=("$(run_batch "big-$round" 1 $big_bytes)")
    peaks+=("$(cat "$work/peak")")
    rm -rf "$work/ferry"
done

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
ferry_median=$(median "${ferry_big[@]}") curl_median=$(median "${curl_big[@]}") synced_median=$(median "${synced_big[@]}")
peak_mib=$(python3 -c "print('%.1f' % (max(map(int, '${peaks[*]}'.split())) / 1024))")
echo "download, one $big_mib MiB file (median of $rounds): ferry $ferry_median MiB/s;" \
    "vs curl + fsync $synced_median MiB/s = $(ratio "$ferry_median" "$synced_median")× (target ≥ 0.9×);" \
    "vs plain curl $curl_median MiB/s = $(ratio "$ferry_median" "$curl_median")× (target ≥ 0.7×)"
echo "    rounds: ferry ${ferry_big[*]} | curl + fsync ${synced_big[*]} | curl ${curl_big[*]} MiB/s;" \
    "worker peak RSS $peak_mib MiB (target ≤ 64 MiB)"
echo "fan-out, $entries-entry Dropbox folder: $children child jobs queued in $fan_seconds s = $(python3 -c "print(int($children / max($fan_seconds, 0.001)))") entries/s (target: 20,000 in < 5 s)"
