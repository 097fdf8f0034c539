#!/usr/bin/env bash
# Many small Dropbox uploads to one account (default cap: --max-concurrent 4), batch commit (finish_batch_v2)
# against single commits (FERRY_DROPBOX_COMMIT=single: files/upload per file), with no injected latency and with
# 30 ms per request. The dev server emulates Dropbox's namespace lock: each commit holds the account's lock
# FERRY_BENCH_LOCK_MS (default 10) ms, a commit waiting as long again gets 429 too_many_write_operations.
# Prints files/s over first start to last finish (from the jobs' timestamps).
# Usage: scripts/bench-dropbox-small.sh BIN_DIR DATABASE_ADMIN_URL
set -euo pipefail
bin=$1
admin=$2
ferry="$bin/ferry"
work=$(mktemp -d /tmp/ferry-bench-dbx-small.XXXXXX)
export FERRY_LOCAL_ROOTS="$work"
small=${FERRY_BENCH_SMALL_FILES:-1000}
medium=${FERRY_BENCH_MEDIUM_FILES:-100}
lock_ms=${FERRY_BENCH_LOCK_MS:-10}
cap=${FERRY_BENCH_CAP:-4}
# The worker's default poll interval: a slot freed behind the account cap wakes the claim loop by itself.
poll=${FERRY_BENCH_POLL_INTERVAL:-2}
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

psql "$admin" -qc "DROP DATABASE IF EXISTS ferry_bench_dbx_small" -c "CREATE DATABASE ferry_bench_dbx_small" 2>/dev/null
export FERRY_DATABASE_URL="${admin%/*}/ferry_bench_dbx_small"
export FERRY_SECRET_KEY=$(head -c 32 /dev/urandom | base64)
"$ferry" migrate >/dev/null

head -c 24 /dev/urandom | base64 >"$work/app-secret"
"$ferry" dev-server --port 0 --storage "$work/dropbox" --app-key bench --app-secret-file "$work/app-secret" \
    --namespace-lock-ms "$lock_ms" --log-level error >"$work/dev.log" 2>&1 &
pids+=($!)
for _ in $(seq 100); do grep -q "listening on" "$work/dev.log" 2>/dev/null && break; sleep 0.1; done
server=$(grep -o 'http://[0-9.:]*' "$work/dev.log" | head -1)
json() { python3 -c "import json,sys; print(json.load(sys.stdin)$1)"; }
refresh=$(curl -fsS -X POST "$server/__dev/accounts" -d '{"account":"bench"}' | json '["refresh_token"]')
echo "$refresh" | "$ferry" account add bench --provider dropbox --app-key bench --app-secret-file "$work/app-secret" --refresh-token-file - \
    --api-url "$server" --content-url "$server" --authorize-url "$server" --max-concurrent "$cap" >/dev/null

mkdir -p "$work/small" "$work/medium"
for i in $(seq -w 1 "$small"); do head -c 65536 /dev/urandom >"$work/small/s$i.bin"; done
for i in $(seq -w 1 "$medium"); do head -c $((3 * 1024 * 1024)) /dev/urandom >"$work/medium/m$i.bin"; done

run() { # batch files-dir latency-ms commit-mode → prints files/s
    local batch=$1 dir=$2 latency=$3 mode=$4
    curl -fsS -X POST "$server/__dev/faults" -d "{\"latency_milliseconds\":$latency,\"namespace_lock_milliseconds\":$lock_ms}" >/dev/null
    curl -fsS -X POST "$server/__dev/reset-stats" >/dev/null
    for f in "$dir"/*.bin; do echo "{\"kind\":\"upload\",\"source\":\"$f\",\"to\":\"dropbox:bench:/$batch/\",\"batch\":\"$batch\"}"; done >"$work/$batch.jsonl"
    "$ferry" enqueue --from "$work/$batch.jsonl" >/dev/null
    local port=$((19400 + RANDOM % 500))
    FERRY_DROPBOX_COMMIT=$mode "$ferry" worker --name "bench-$batch" --concurrency 16 --poll-interval "$poll" --log-level error \
        --metrics-listen "127.0.0.1:$port" &
    local pid=$!
    pids+=($pid)
    until [[ $(psql "$FERRY_DATABASE_URL" -Atc "SELECT count(*) FILTER (WHERE state IN ('succeeded', 'failed')) = count(*) FROM ferry.jobs WHERE batch = '$batch'") == t ]]; do
        sleep 0.2
    done
    # Slot-free-to-next-start latency, p50 and p99 as the bucket bounds that hold them (ferry_worker_slot_wait_seconds).
    local slots
    slots=$(curl -fsS "http://127.0.0.1:$port/metrics" | python3 -c '
import re, sys
buckets = sorted((float("inf") if le == "+Inf" else float(le), float(n))
                 for le, n in re.findall(r"ferry_worker_slot_wait_seconds_bucket\{le=\"([^\"]+)\"\} (\S+)", sys.stdin.read()))
total = buckets[-1][1] if buckets else 0
def q(f):
    for le, n in buckets:
        if total and n >= f * total: return "<= %g ms" % (le * 1000) if le != float("inf") else "> 30 s"
    return "?"
print("slot wait p50 %s, p99 %s over %d starts" % (q(0.5), q(0.99), total))' || echo "slot wait: metrics unavailable")
    kill -TERM $pid && wait $pid || true
    local failed
    failed=$(psql "$FERRY_DATABASE_URL" -Atc "SELECT count(*) FROM ferry.jobs WHERE batch = '$batch' AND state <> 'succeeded'")
    local stats
    stats=$(curl -fsS "$server/__dev/stats" | python3 -c "import json,sys; s=json.load(sys.stdin); b=s.get('finish_batch_entries',[]); print('batch calls %d (mean %.1f entries), single commits %d, lock 429s %d' % (len(b), sum(b)/max(1,len(b)), s.get('single_commits',0), s.get('namespace_lock_contention',0)))")
    # Account slot free to next transfer start: with the account saturated, claim k can only follow transfer end
    # k - cap (a transfer ends at its attempt's first event with every byte up, or the attempt's end), so the gap
    # between the two is how long a freed account slot stayed idle (transaction start times from the log).
    local account_slots
    account_slots=$(psql "$FERRY_DATABASE_URL" -Atc "
        WITH ev AS (SELECT e.position, e.job_id, e.type, e.data, e.recorded_at FROM ferry.events e
                      JOIN ferry.jobs j ON j.job_id = e.job_id WHERE j.batch = '$batch'),
        c AS (SELECT recorded_at AS t, row_number() OVER (ORDER BY position) AS k FROM ev WHERE type = 'claimed'),
        f AS (SELECT t, row_number() OVER (ORDER BY t) AS k FROM (
                SELECT min(recorded_at) AS t FROM ev
                 WHERE type IN ('succeeded', 'failed', 'retry_scheduled', 'deferred', 'released', 'rescued', 'cancelled')
                    OR (type = 'progress' AND (data->>'bytes_total')::bigint > 0
                        AND (data->>'bytes_done')::bigint >= (data->>'bytes_total')::bigint)
                 GROUP BY job_id, data->>'lease') x),
        g AS (SELECT extract(epoch FROM c.t - f.t) * 1000 AS ms FROM c JOIN f ON f.k = c.k - $cap)
        SELECT format('account slot free to next start p50 %s ms, p99 %s ms',
                      round(percentile_cont(0.5) WITHIN GROUP (ORDER BY ms)::numeric, 1),
                      round(percentile_cont(0.99) WITHIN GROUP (ORDER BY ms)::numeric, 1)) FROM g")
    local rate
    rate=$(psql "$FERRY_DATABASE_URL" -Atc "SELECT round((count(*) / extract(epoch FROM max(finished_at) - min(started_at)))::numeric, 1)
                                           FROM ferry.jobs WHERE batch = '$batch'")
    echo "$rate files/s ($failed failed; $stats; $account_slots; worker $slots)"
}

for latency in 0 30; do
    for set in small medium; do
        if [[ $set == small ]]; then dir="$work/small" label="$small × 64 KiB"; else dir="$work/medium" label="$medium × 3 MiB"; fi
        batch_rate=$(run "b-$set-$latency" "$dir" "$latency" batch)
        single_rate=$(run "s-$set-$latency" "$dir" "$latency" single)
        echo "dropbox $label, latency ${latency} ms, cap $cap: batch commit $batch_rate"
        echo "dropbox $label, latency ${latency} ms, cap $cap: single commits $single_rate"
    done
done
