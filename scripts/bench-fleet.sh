#!/usr/bin/env bash
# An idle fleet on one database: N worker processes (default 100, concurrency 1, default intervals: heartbeats,
# rescue checks, counter folding, schedule ticks, polling) with no work, against the same PostgreSQL with no
# worker at all, measured over the same window length in the same run: PostgreSQL's CPU (every server process,
# from /proc), its transactions per second (pg_stat_database), and the connections the fleet holds
# (pg_stat_activity) against the budget formula in docs/operations.md.
# Usage: scripts/bench-fleet.sh BIN_DIR DATABASE_ADMIN_URL PG_DIR
set -euo pipefail
shopt -s inherit_errexit   # a failure inside $(...) stops the run too
bin=$1
admin=$2
pgdir=$3
ferry="$bin/ferry"
workers=${FERRY_BENCH_FLEET_WORKERS:-100}
window=${FERRY_BENCH_FLEET_WINDOW:-60}
warmup=${FERRY_BENCH_FLEET_WARMUP:-30}
work=$(mktemp -d /tmp/ferry-bench-fleet.XXXXXX)
export FERRY_LOCAL_ROOTS="$work"
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    psql "$admin" -qc "DROP DATABASE IF EXISTS ferry_bench_fleet" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

# Room for the fleet: up to min(8, concurrency + 3) + 2 connections per worker.
source scripts/bench-lib.sh
admin=$(pg_room_for "$pgdir" "$admin" $((workers * 6 + 50)))

psql "$admin" -qc "DROP DATABASE IF EXISTS ferry_bench_fleet" -c "CREATE DATABASE ferry_bench_fleet" 2>/dev/null
export FERRY_DATABASE_URL="${admin%/*}/ferry_bench_fleet"
"$ferry" migrate >/dev/null
# A schedule, as a live installation has one: the fleet reads the next ticks.
"$ferry" schedule add hourly --every 1h -- fetch https://example.com/a.jpg --to "$work/in/" >/dev/null

ticks=$(getconf CLK_TCK)
measure() { # → "cpu_percent_of_one_core transactions_per_second"
    local c0 t0 c1 t1
    c0=$(pg_cpu_ticks "$pgdir"); t0=$(pg_transactions "$admin")
    sleep "$window"
    c1=$(pg_cpu_ticks "$pgdir"); t1=$(pg_transactions "$admin")
    python3 -c "print('%.2f %.1f' % (($c1 - $c0) / $ticks / $window * 100, ($t1 - $t0) / $window))"
}

read -r idle_cpu idle_tps <<<"$(measure)"
for i in $(seq 1 "$workers"); do
    "$ferry" worker --name "fleet-$i" --concurrency 1 --log-level error >/dev/null 2>&1 &
    pids+=($!)
done
sleep "$warmup"
alive=0
for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null && alive=$((alive + 1)); done
[[ $alive -eq $workers ]] || { echo "error: $((workers - alive)) of $workers workers exited" >&2; exit 1; }
connections=$(psql "$admin" -Atc "SELECT count(*) FROM pg_stat_activity WHERE datname = 'ferry_bench_fleet'")
read -r fleet_cpu fleet_tps <<<"$(measure)"
python3 - "$workers" "$window" "$idle_cpu" "$idle_tps" "$fleet_cpu" "$fleet_tps" "$connections" <<'PY'
import sys
workers, window = int(sys.argv[1]), int(sys.argv[2])
idle_cpu, idle_tps, fleet_cpu, fleet_tps, connections = map(float, sys.argv[3:8])
budget_idle = workers * 3   # an idle worker: one pooled connection opened, LISTEN, heartbeat (see operations.md)
budget_max = workers * (min(8, 1 + 3) + 2)
print(f"an idle fleet of {workers} workers (concurrency 1, default intervals), {window} s windows:")
print(f"  PostgreSQL CPU {fleet_cpu:.2f}% of one core (no workers: {idle_cpu:.2f}%); {fleet_tps:.0f} transactions/s "
      f"(no workers: {idle_tps:.1f}); target at most 5%: {'met' if fleet_cpu - idle_cpu <= 5 else 'NOT met'}")
print(f"  connections held: {connections:.0f} ({connections / workers:.1f} per worker); the budget formula's ceiling "
      f"at concurrency 1: {budget_max} (min(8, concurrency + 3) + 2 per worker)")
PY
