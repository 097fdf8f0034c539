#!/usr/bin/env bash
# Upload benchmark against Ferry's dev server, as ratios to curl sending the same bytes to the same server in
# the same run, plus the worker's peak resident memory with 8 concurrent 1 GiB uploads.
# Usage: scripts/bench-upload.sh BIN_DIR DATABASE_ADMIN_URL
set -euo pipefail
bin=$1
admin=$2
ferry="$bin/ferry"
work=$(mktemp -d /tmp/ferry-bench-upload.XXXXXX)
export FERRY_LOCAL_ROOTS="$work"   # workers read and write only here
photos=${FERRY_BENCH_PHOTOS:-64}
big_mib=${FERRY_BENCH_BIG_MIB:-1024}
chunk_mib=8
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

psql "$admin" -qc "DROP DATABASE IF EXISTS ferry_bench_upload" -c "CREATE DATABASE ferry_bench_upload" 2>/dev/null
export FERRY_DATABASE_URL="${admin%/*}/ferry_bench_upload"
export FERRY_SECRET_KEY=$(head -c 32 /dev/urandom | base64)
"$ferry" migrate >/dev/null

head -c 24 /dev/urandom | base64 >"$work/app-secret"
"$ferry" dev-server --port 0 --storage "$work/dropbox" --app-key bench --app-secret-file "$work/app-secret" >"$work/dev.log" 2>&1 &
pids+=($!)
for _ in $(seq 100); do grep -q "listening on" "$work/dev.log" 2>/dev/null && break; sleep 0.1; done
server=$(grep -o 'http://[0-9.:]*' "$work/dev.log" | head -1)
json() { python3 -c "import json,sys; print(json.load(sys.stdin)$1)"; }
refresh=$(curl -fsS -X POST "$server/__dev/accounts" -d '{"account":"bench"}' | json '["refresh_token"]')
echo "$refresh" | "$ferry" account add bench --provider dropbox --app-key bench --app-secret-file "$work/app-secret" --refresh-token-file - \
    --api-url "$server" --content-url "$server" --authorize-url "$server" --max-concurrent 8 >/dev/null
token=$(curl -fsS "$server/oauth2/token" -d grant_type=refresh_token -d client_id=bench --data-urlencode "client_secret=$(cat "$work/app-secret")" \
    --data-urlencode "refresh_token=$refresh" | json '["access_token"]')

mkdir -p "$work/src"
for i in $(seq -w 1 "$photos"); do head -c $((3 * 1024 * 1024)) /dev/urandom >"$work/src/p$i.jpg"; done
head -c $((big_mib * 1024 * 1024)) /dev/urandom >"$work/src/big.bin"
now() { date +%s.%N; }
rate() { python3 -c "print('%.1f' % ($1 / 1048576 / ($3 - $2)))"; }

# Baseline 1: curl, 4 in parallel (the worker's concurrency), /2/files/upload per photo.
t0=$(now)
ls "$work/src"/p*.jpg | xargs -P 4 -I{} sh -c 'curl -fsS -o /dev/null -H "Expect:" "$0/2/files/upload" -H "Authorization: Bearer $1" \
    -H "Content-Type: application/octet-stream" -H "Dropbox-API-Arg: {\"path\":\"/curl/$(basename {})\",\"mode\":\"add\"}" \
    --data-binary @{}' "$server" "$token"
t1=$(now)
photo_bytes=$((photos * 3 * 1024 * 1024))
curl_photos=$(rate $photo_bytes "$t0" "$t1")

# Baseline 2: curl, one upload session in 8 MiB chunks (start, append_v2 per chunk, finish).
session=$(curl -fsS "$server/2/files/upload_session/start" -H "Authorization: Bearer $token" \
    -H "Content-Type: application/octet-stream" -H 'Dropbox-API-Arg: {"close":false}' --data-binary @/dev/null | json '["session_id"]')
t0=$(now)
chunks=$((big_mib / chunk_mib))
for ((i = 0; i < chunks; i++)); do
    offset=$((i * chunk_mib * 1024 * 1024))
    dd if="$work/src/big.bin" bs=1M skip=$((i * chunk_mib)) count=$chunk_mib status=none |
        curl -fsS -o /dev/null -H "Expect:" "$server/2/files/upload_session/append_v2" -H "Authorization: Bearer $token" \
            -H "Content-Type: application/octet-stream" \
            -H "Dropbox-API-Arg: {\"cursor\":{\"session_id\":\"$session\",\"offset\":$offset},\"close\":false}" --data-binary @-
done
curl -fsS -o /dev/null "$server/2/files/upload_session/finish" -H "Authorization: Bearer $token" \
    -H "Content-Type: application/octet-stream" --data-binary @/dev/null \
    -H "Dropbox-API-Arg: {\"cursor\":{\"session_id\":\"$session\",\"offset\":$((big_mib * 1024 * 1024))},\"commit\":{\"path\":\"/curl/big.bin\",\"mode\":\"add\"}}"
t1=$(now)
curl_big=$(rate $((big_mib * 1024 * 1024)) "$t0" "$t1")

# Ferry: the same photos, then the same big file, with one worker (concurrency 4, 8 MiB chunks).
run_batch() { # batch, concurrency → prints MiB/s over first start to last finish
    local batch=$1 concurrency=$2
    "$ferry" worker --name "bench-$batch" --concurrency "$concurrency" --chunk-size $chunk_mib --log-level error &
    local pid=$!
    pids+=($pid)
    until [[ $(psql "$FERRY_DATABASE_URL" -Atc "SELECT coalesce(bool_and(state = 'succeeded'), false) FROM ferry.jobs WHERE batch = '$batch'") == t ]]; do
        sleep 0.2
        [[ -n "${PEAK_FILE:-}" ]] && awk '/VmHWM/ {print $2}' /proc/$pid/status >"$PEAK_FILE" 2>/dev/null || true
    done
    [[ -n "${PEAK_FILE:-}" ]] && awk '/VmHWM/ {print $2}' /proc/$pid/status >"$PEAK_FILE" 2>/dev/null || true
    kill -TERM $pid && wait $pid || true
    psql "$FERRY_DATABASE_URL" -Atc "SELECT round((sum(bytes_total) / 1048576.0 / extract(epoch FROM max(finished_at) - min(started_at)))::numeric, 1)
                                       FROM ferry.jobs WHERE batch = '$batch'"
}
"$ferry" enqueue upload "$work"/src/p*.jpg --to dropbox:bench:/ferry/ --batch photos >/dev/null
ferry_photos=$(run_batch photos 4)
"$ferry" enqueue upload "$work/src/big.bin" --to dropbox:bench:/ferry/big.bin --batch big >/dev/null
ferry_big=$(run_batch big 1)
rm -rf "$work/dropbox/bench/ferry" "$work/dropbox/bench/curl"

# Peak memory: 8 concurrent uploads of the 1 GiB file.
for i in 1 2 3 4 5 6 7 8; do echo "{\"kind\":\"upload\",\"source\":\"$work/src/big.bin\",\"to\":\"dropbox:bench:/mem/big-$i.bin\",\"batch\":\"mem\"}"; done >"$work/mem.jsonl"
"$ferry" enqueue --from "$work/mem.jsonl" >/dev/null
PEAK_FILE="$work/peak" run_batch mem 8 >/dev/null
peak_kib=$(cat "$work/peak")

ratio() { python3 -c "print('%.2f' % ($1 / $2))"; }
echo "upload, $photos × 3 MiB photos: ferry $ferry_photos MiB/s vs curl (4 parallel) $curl_photos MiB/s = $(ratio "$ferry_photos" "$curl_photos")× (target ≥ 0.9×)"
echo "upload, one $big_mib MiB file:   ferry $ferry_big MiB/s vs curl (8 MiB chunks) $curl_big MiB/s = $(ratio "$ferry_big" "$curl_big")× (target ≥ 0.9×)"
echo "worker peak resident memory, 8 concurrent $big_mib MiB uploads: $((peak_kib / 1024)) MiB (target ≤ 64 MiB)"
