#!/usr/bin/env bash
# Tracing overhead: no-op jobs worked to completion by one worker with tracing off, against the same worker with
# tracing on (OTLP/HTTP protobuf to a receiver on loopback that accepts and drops every request). Off and on run
# interleaved for FERRY_BENCH_ROUNDS rounds (default 3) and the medians are compared: the machine is shared and
# noisy, so only the ratio of the same run means anything. With tracing on, every job costs one attempt span and
# the claim one more statement (the claimed jobs' trace facts).
# Usage: scripts/bench-trace.sh BIN_DIR DATABASE_ADMIN_URL
set -euo pipefail
bin=$1
admin=$2
ferry="$bin/ferry"
jobs=${FERRY_BENCH_TRACE_JOBS:-20000}
concurrency=${FERRY_BENCH_TRACE_CONCURRENCY:-64}
rounds=${FERRY_BENCH_ROUNDS:-3}
work=$(mktemp -d /tmp/ferry-bench-trace.XXXXXX)
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

export FERRY_DATABASE_URL="${admin%/*}/ferry_bench_trace"

# The receiver: answers every export with an empty protobuf message and counts the requests.
cat >"$work/receiver.py" <<'PY'
import http.server, sys
class Handler(http.server.BaseHTTPRequestHandler):
    count = 0
    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        Handler.count += 1
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", "0")
        self.end_headers()
        with open(sys.argv[1], "w") as f: f.write(str(Handler.count))
    def log_message(self, *args): pass
server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(server.server_address[1], flush=True)
server.serve_forever()
PY
python3 "$work/receiver.py" "$work/requests" >"$work/receiver.port" &
pids+=($!)
for _ in $(seq 50); do [ -s "$work/receiver.port" ] && break; sleep 0.1; done
endpoint="http://127.0.0.1:$(cat "$work/receiver.port")"

echo x >"$work/a.bin"
python3 -c "
import json, sys
for i in range($jobs): print(json.dumps({'kind': 'upload', 'source': '$work/a.bin', 'to': 'file://$work/out/%d/' % i}))
" >"$work/jobs.jsonl"

now() { date +%s.%N; }
median() { python3 -c "import statistics,sys; print('%.0f' % statistics.median(map(float, sys.argv[1:])))" "$@"; }

# Jobs per second from the worker's start until every job succeeded.
run() { # off|on
    # A fresh database each run (the event log refuses TRUNCATE).
    psql "$admin" -qc "DROP DATABASE IF EXISTS ferry_bench_trace" -c "CREATE DATABASE ferry_bench_trace" 2>/dev/null
    "$ferry" migrate >/dev/null
    "$ferry" enqueue --from "$work/jobs.jsonl" >/dev/null
    local start end pid
    start=$(now)
    if [ "$1" = on ]; then
        OTEL_EXPORTER_OTLP_ENDPOINT=$endpoint "$ferry" worker --handler noop --concurrency "$concurrency" --log-level error &
    else
        "$ferry" worker --handler noop --concurrency "$concurrency" --log-level error &
    fi
    pid=$!
    while [ "$(psql "$FERRY_DATABASE_URL" -Atc "SELECT count(*) FROM ferry.jobs WHERE state = 'succeeded'")" -lt "$jobs" ]; do sleep 0.05; done
    end=$(now)
    kill -TERM "$pid"
    wait "$pid" || true
    python3 -c "print('%.0f' % ($jobs / ($end - $start)))"
}

off=() on=()
for round in $(seq "$rounds"); do
    off+=("$(run off)")
    on+=("$(run on)")
    echo "round $round: tracing off ${off[-1]} jobs/s, on ${on[-1]} jobs/s"
done
off_median=$(median "${off[@]}")
on_median=$(median "${on[@]}")
echo "no-op jobs, 1 worker, concurrency $concurrency: tracing on $on_median jobs/s, off $off_median jobs/s," \
    "ratio $(python3 -c "print('%.2f' % ($on_median / $off_median))")x; $(cat "$work/requests" 2>/dev/null || echo 0) export requests received"
