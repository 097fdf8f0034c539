#!/usr/bin/env bash
# Ferry against pgqueuer (1.6.0, Python on asyncpg, installed from PyPI into a venv under .build) on the same private
# PostgreSQL, each side in a fresh database, alternating sides for ROUNDS rounds (median reported):
#   bulk enqueue of 30,000 jobs: `ferry enqueue --from` JSON Lines (the whole CLI process, one transaction) against
#     pgqueuer's batch enqueue with lists of 1,000 (a transaction each, on a connection opened before the clock);
#   no-op jobs: those 30,000 jobs worked by 2 processes at concurrency 128 (`ferry worker --handler noop`; pgqueuer:
#     a no-op entrypoint, max_concurrent_tasks 128 and batch size 64, the largest it accepts under that limit;
#     drain mode; FERRY_BENCH_PGQ_BATCH and FERRY_BENCH_PGQ_MAX_TASKS, 0 for none, change them);
#   a 300,000-job backlog over three queues (pgqueuer: three entrypoints) drained by the same 2 processes.
# Worker rates run from the first claim to the last success, read from each side's own log (ferry.events,
# pgqueuer_log). Also PostgreSQL's CPU per job for each side (every server process, reaped backends included) and
# the WAL it wrote per job (pg_current_wal_lsn before and after; the cluster runs nothing else).
# FERRY_BENCH_PGQ_BASELINE_ENV=NAME=VALUE (for example FERRY_PREPARED_STATEMENTS=off) puts Ferry itself with that
# environment in pgqueuer's place: a step of Ferry's measured against the step before, in the same run.
# Usage: scripts/bench-pgqueuer.sh BIN_DIR DATABASE_ADMIN_URL PG_DIR
set -euo pipefail
shopt -s inherit_errexit   # a failure inside $(...) stops the run too
bin=$1
admin=$2
pgdir=$3
ferry="$bin/ferry"
jobs=${FERRY_BENCH_PGQ_JOBS:-30000}
backlog=${FERRY_BENCH_PGQ_BACKLOG:-300000}
rounds=${FERRY_BENCH_PGQ_ROUNDS:-3}
processes=2
concurrency=128
pgq_batch=${FERRY_BENCH_PGQ_BATCH:-$((concurrency / 2))}   # pgqueuer wants max_concurrent_tasks >= 2 x batch size
pgq_max_tasks=${FERRY_BENCH_PGQ_MAX_TASKS:-$concurrency}
queues=default,video,photos
baseline_env=${FERRY_BENCH_PGQ_BASELINE_ENV:-}
other=pgqueuer
[[ -n "$baseline_env" ]] && other="ferry with $baseline_env"
venv=.build/pgqueuer-venv
driver=scripts/bench-pgqueuer.py
work=$(mktemp -d /tmp/ferry-bench-pgq.XXXXXX)
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    psql "$admin" -qc "DROP DATABASE IF EXISTS ferry_bench_pgq_ferry" -c "DROP DATABASE IF EXISTS ferry_bench_pgq_pgqueuer" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
source scripts/bench-lib.sh
ticks=$(getconf CLK_TCK)

if [[ -z "$baseline_env" ]] && ! "$venv/bin/python" -c 'import asyncpg, pgqueuer, sys; sys.exit(pgqueuer.__version__ != "1.6.0")' 2>/dev/null; then
    echo "    installing pgqueuer 1.6.0 and asyncpg into $venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q pgqueuer==1.6.0 asyncpg==0.32.0
fi
python="$venv/bin/python"

python3 - "$jobs" "$backlog" "$queues" "$work" <<'PY'
import sys
jobs, backlog, queues, work = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3].split(","), sys.argv[4]
for name, count, names in (("jobs", jobs, queues[:1]), ("backlog", backlog, queues)):
    with open(f"{work}/{name}.jsonl", "w") as out:
        for i in range(count):
            out.write('{"kind":"fetch","source":"https://bench.example.com/%d","to":"/tmp/","batch":"pgq","queue":"%s"}\n'
                      % (i, names[i % len(names)]))
PY

# CPU ticks of every PostgreSQL process, including backends that exited (a finished CLI's, pgqueuer's after its
# drain): the postmaster's reaped children count in its cutime and cstime.
pg_ticks() {
    local postmaster
    postmaster=$(head -1 "$pgdir/data/postmaster.pid")
    echo $(($(pg_cpu_ticks "$pgdir") + $(awk '{print $16 + $17}' "/proc/$postmaster/stat")))
}
now() { date +%s.%N; }
fresh() { # side → its database URL, created empty
    psql "$admin" -qc "DROP DATABASE IF EXISTS ferry_bench_pgq_$1" -c "CREATE DATABASE ferry_bench_pgq_$1" 2>/dev/null
    echo "${admin%/*}/ferry_bench_pgq_$1"
}
per_job_ms() { python3 -c "print('%.4f' % (($2 - $1) / $ticks * 1000 / $3))"; }
lsn() { psql "$admin" -Atc "SELECT pg_current_wal_lsn()"; }
per_job_wal() { psql "$admin" -Atc "SELECT round(pg_wal_lsn_diff('$2', '$1') / $3)"; } # lsn0 lsn1 jobs → bytes

ferry_enqueue() { # url file jobs → "jobs_per_s pg_cpu_ms_per_job wal_bytes_per_job"
    local c0 c1 t0 t1 l0 l1
    l0=$(lsn); c0=$(pg_ticks); t0=$(now)
    "$ferry" enqueue --from "$2" --database-url "$1" >/dev/null
    t1=$(now); c1=$(pg_ticks); l1=$(lsn)
    echo "$(python3 -c "print('%.1f' % ($3 / ($t1 - $t0)))") $(per_job_ms "$c0" "$c1" "$3") $(per_job_wal "$l0" "$l1" "$3")"
}

ferry_work() { # url jobs queues → "jobs_per_s pg_cpu_ms_per_job wal_bytes_per_job"
    local url=$1 count=$2 c0 c1 l0 l1 rate
    psql "$url" -qc "VACUUM ANALYZE ferry.jobs" -c "VACUUM ANALYZE ferry.events"
    l0=$(lsn); c0=$(pg_ticks)
    for i in $(seq 1 "$processes"); do
        "$ferry" worker --name "bench-$i" --handler noop --concurrency "$concurrency" --queues "$3" \
            --log-level error --database-url "$url" >/dev/null 2>&1 &
        pids+=($!)
    done
    until [[ $(psql "$url" -Atc "SELECT done FROM ferry.batch_status WHERE batch = 'pgq'") == t ]]; do sleep 0.2; done
    c1=$(pg_ticks); l1=$(lsn)
    for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
    wait "${pids[@]}" 2>/dev/null || true
    pids=()
    rate=$(psql "$url" -Atc "
        SELECT round((count(*) FILTER (WHERE type = 'succeeded')
                      / extract(epoch FROM max(recorded_at) FILTER (WHERE type = 'succeeded')
                                         - min(recorded_at) FILTER (WHERE type = 'claimed')))::numeric, 1)
          FROM ferry.events WHERE type IN ('claimed', 'succeeded')")
    echo "$rate $(per_job_ms "$c0" "$c1" "$count") $(per_job_wal "$l0" "$l1" "$count")"
}

pgq_install() {
    local out
    out=$("$venv/bin/pgq" --pg-dsn "$1" install 2>&1) || { echo "$out" >&2; return 1; }
}

pgq_enqueue() { # url jobs entrypoints → "jobs_per_s pg_cpu_ms_per_job wal_bytes_per_job"
    local c0 c1 l0 l1 seconds
    l0=$(lsn); c0=$(pg_ticks)
    seconds=$("$python" "$driver" enqueue "$1" "$2" "$3")
    c1=$(pg_ticks); l1=$(lsn)
    echo "$(python3 -c "print('%.1f' % ($2 / $seconds))") $(per_job_ms "$c0" "$c1" "$2") $(per_job_wal "$l0" "$l1" "$2")"
}

pgq_work() { # url jobs entrypoints → "jobs_per_s pg_cpu_ms_per_job wal_bytes_per_job"
    local c0 c1 l0 l1 rate
    psql "$1" -qc "VACUUM ANALYZE pgqueuer" -c "VACUUM ANALYZE pgqueuer_log"
    l0=$(lsn); c0=$(pg_ticks)
    rate=$("$python" "$driver" work "$1" "$2" "$3" "$processes" "$pgq_batch" "$pgq_max_tasks")
    c1=$(pg_ticks); l1=$(lsn)
    echo "$rate $(per_job_ms "$c0" "$c1" "$2") $(per_job_wal "$l0" "$l1" "$2")"
}

ferry_side() { # prints 4 lines: enqueue, work, backlog enqueue, backlog work ("jobs_per_s cpu_ms wal_bytes" each)
    local url
    url=$(fresh ferry); "$ferry" migrate --database-url "$url" >/dev/null
    ferry_enqueue "$url" "$work/jobs.jsonl" "$jobs"
    ferry_work "$url" "$jobs" default
    url=$(fresh ferry); "$ferry" migrate --database-url "$url" >/dev/null
    ferry_enqueue "$url" "$work/backlog.jsonl" "$backlog"
    ferry_work "$url" "$backlog" "$queues"
}

pgq_side() {
    local url
    if [[ -n "$baseline_env" ]]; then
        (export "${baseline_env?}"; ferry_side)
        return
    fi
    url=$(fresh pgqueuer); pgq_install "$url"
    pgq_enqueue "$url" "$jobs" default
    pgq_work "$url" "$jobs" default
    url=$(fresh pgqueuer); pgq_install "$url"
    pgq_enqueue "$url" "$backlog" "$queues"
    pgq_work "$url" "$backlog" "$queues"
}

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
results=$work/results
for round in $(seq 1 "$rounds"); do
    # Not in $(...): the workers a side starts must stay in this shell, where cleanup stops them.
    if ((round % 2)); then
        ferry_side >"$work/ferry"; pgq_side >"$work/pgqueuer"
    else
        pgq_side >"$work/pgqueuer"; ferry_side >"$work/ferry"
    fi
    f=$(tr '\n' ' ' <"$work/ferry"); p=$(tr '\n' ' ' <"$work/pgqueuer")
    echo "$f $p" >>"$results"
    read -r fe _ _ fw _ _ _ _ _ fb _ _ pe _ _ pw _ _ _ _ _ pb _ _ <<<"$f $p"
    printf '    round %d (%s first): enqueue %s vs %s jobs/s; no-op %s vs %s; backlog %s vs %s (ferry vs %s)\n' \
        "$round" "$( ((round % 2)) && echo ferry || echo "$other")" "$fe" "$pe" "$fw" "$pw" "$fb" "$pb" "$other"
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

python3 - "$results" "$jobs" "$backlog" "$rounds" "$processes" "$concurrency" "$load_before" "$load_after" \
    "$pgq_batch" "$pgq_max_tasks" "$other" <<'PY'
import statistics, sys
rows = [list(map(float, line.split())) for line in open(sys.argv[1])]
jobs, backlog, rounds, processes, concurrency = map(int, sys.argv[2:7])
med = lambda i: statistics.median(r[i] for r in rows)
side = 12   # per side: 4 measurements of (jobs/s, PostgreSQL CPU ms per job, WAL bytes per job)
other = sys.argv[11]
settings = f"pgqueuer batch size {sys.argv[9]}, max_concurrent_tasks {sys.argv[10]}" if other == "pgqueuer" else other
print(f"Ferry against {'pgqueuer 1.6.0' if other == 'pgqueuer' else other} on the same PostgreSQL, median of {rounds} "
      f"alternating rounds (load average {sys.argv[7]} before, {sys.argv[8]} after; {settings}):")
def line(label, i, unit, target):
    f, p = med(i), med(side + i)
    ratios = ", ".join(f"{r[i] / r[side + i]:.2f}x" for r in rows)
    verdict = f" (target >= {target}x: {'met' if f / p >= target else 'not met'})" if target and other == "pgqueuer" else ""
    print(f"  {label}: ferry {f:,.0f} {unit}, {other} {p:,.0f} {unit}: {f / p:.2f}x{verdict}; rounds {ratios}")
    print(f"      PostgreSQL CPU per job: ferry {med(i + 1):.4f} ms, {other} {med(side + i + 1):.4f} ms; "
          f"WAL per job: ferry {med(i + 2):,.0f} B, {other} {med(side + i + 2):,.0f} B")
line(f"bulk enqueue, {jobs:,} jobs (ferry enqueue --from, the whole process; pgqueuer lists of 1,000, "
     f"connection included)", 0, "jobs/s", 1)
line(f"no-op jobs, those {jobs:,}, {processes} processes x {concurrency}", 3, "jobs/s", 1)
line(f"bulk enqueue, {backlog:,} jobs over 3 queues", 6, "jobs/s", None)
line(f"a {backlog:,}-job backlog over 3 queues, {processes} processes x {concurrency}", 9, "jobs/s", 1)
PY
