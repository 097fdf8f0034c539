#!/usr/bin/env bash
# 1,000 worker slots on one database: 16 worker processes × 64 (no-op jobs, --poll-only) working a backlog through
# PgBouncer in transaction mode with 20 server connections, against the same slots connected directly, in the same
# run: jobs/s, PostgreSQL CPU per job (every server process, from /proc), and the connections PostgreSQL saw
# (pg_stat_activity, peak) against the budget formula.
# Usage: scripts/bench-slots.sh BIN_DIR DATABASE_ADMIN_URL PG_DIR
set -euo pipefail
shopt -s inherit_errexit   # a failure inside $(...) stops the run too
bin=$1
admin=$2
pgdir=$3
ferry="$bin/ferry"
processes=${FERRY_BENCH_SLOTS_PROCESSES:-16}
concurrency=${FERRY_BENCH_SLOTS_CONCURRENCY:-64}
jobs=${FERRY_BENCH_SLOTS_JOBS:-200000}
work=$(mktemp -d /tmp/ferry-bench-slots.XXXXXX)
chmod 0755 "$work"   # PgBouncer runs as the postgres user
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    scripts/pgbouncer.sh stop "$work/bouncer" >/dev/null 2>&1 || true
    psql "$admin" -qc "DROP DATABASE IF EXISTS ferry_bench_slots" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
source scripts/bench-lib.sh
admin=$(pg_room_for "$pgdir" "$admin" $((processes * (8 + 2) + 50)))
ticks=$(getconf CLK_TCK)

mkdir -p "$work/bouncer"
bouncer=$(scripts/pgbouncer.sh start "$work/bouncer" --upstream "$admin" --pool-size 20)
python3 - "$jobs" >"$work/jobs.jsonl" <<'PY'
import sys
for i in range(int(sys.argv[1])):
    print('{"kind":"fetch","source":"https://example.com/%d.jpg","to":"/srv/in/","batch":"slots"}' % i)
PY

run() { # label database-url-for-workers extra-flag → "seconds cpu_ms_per_job peak_connections"
    local label=$1 url=$2 flag=$3 c0 c1 t0 t1 peak=0 now
    psql "$admin" -qc "DROP DATABASE IF EXISTS ferry_bench_slots" -c "CREATE DATABASE ferry_bench_slots" 2>/dev/null
    FERRY_DATABASE_URL="${admin%/*}/ferry_bench_slots" "$ferry" migrate >/dev/null
    FERRY_DATABASE_URL="${admin%/*}/ferry_bench_slots" "$ferry" enqueue --from "$work/jobs.jsonl" >/dev/null
    c0=$(pg_cpu_ticks "$pgdir"); t0=$(date +%s.%N)
    for i in $(seq 1 "$processes"); do
        FERRY_DATABASE_URL="${url%/*}/ferry_bench_slots" "$ferry" worker --name "$label-$i" --handler noop \
            --concurrency "$concurrency" $flag --log-level error >/dev/null 2>&1 &
        pids+=($!)
    done
    until [[ $(psql "${admin%/*}/ferry_bench_slots" -Atc "SELECT done FROM ferry.batch_status WHERE batch = 'slots'") == t ]]; do
        now=$(psql "$admin" -Atc "SELECT count(*) FROM pg_stat_activity WHERE datname = 'ferry_bench_slots'")
        ((now > peak)) && peak=$now
        sleep 0.2
    done
    t1=$(date +%s.%N); c1=$(pg_cpu_ticks "$pgdir")
    for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
    wait "${pids[@]}" 2>/dev/null || true
    pids=()
    python3 -c "print('%.2f %.3f %d' % ($t1 - $t0, ($c1 - $c0) / $ticks * 1000 / $jobs, $peak))"
}
read -r direct_s direct_cpu direct_peak <<<"$(run direct "$admin" "")"
read -r pooled_s pooled_cpu pooled_peak <<<"$(run pooled "$bouncer" --poll-only)"
python3 - "$processes" "$concurrency" "$jobs" "$direct_s" "$direct_cpu" "$direct_peak" "$pooled_s" "$pooled_cpu" "$pooled_peak" <<'PY'
import sys
p, c, jobs = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
ds, dc, dp, ps, pc, pp = float(sys.argv[4]), float(sys.argv[5]), int(sys.argv[6]), float(sys.argv[7]), float(sys.argv[8]), int(sys.argv[9])
print(f"{p * c:,} worker slots ({p} processes x {c}), {jobs:,} no-op jobs:")
print(f"  direct: {jobs / ds:,.0f} jobs/s, PostgreSQL {dc:.3f} ms CPU per job, {dp} connections at peak "
      f"(budget: {p} x (min(8, {c} + 3) + 2) = {p * (min(8, c + 3) + 2)})")
print(f"  through PgBouncer (transaction mode, 20 server connections, --poll-only): {jobs / ps:,.0f} jobs/s "
      f"({(jobs / ps) / (jobs / ds):.2f}x direct), PostgreSQL {pc:.3f} ms CPU per job, {pp} server connections at peak")
PY
