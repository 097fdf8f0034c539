#!/usr/bin/env bash
# Google Drive uploads on the dev server's Drive v3 emulation (issue 31), against Google's official Python client
# (google-api-python-client, scripts/bench-gdrive-official.py) on the same server in the same run:
#
# 1. 1,000 × 64 KiB and 100 × 3 MiB files into a new folder of one account, without and with 30 ms per request
#    (`POST /__dev/faults {"latency_milliseconds": 30}`): Ferry with one worker (--concurrency 16, the account's cap
#    raised from 4 to 8 with `account add --max-concurrent 8`: 8 transfers at once, as the client's 8 threads)
#    against the official client with 8 threads (its own account), both over plain HTTP to one server. The client
#    keeps https for media uploads whatever its endpoint, and Ferry's HTTP client trusts only the system's CA store
#    (no flag or variable adds a CA), so the script hands the client's transport the upload URL with http: instead
#    (the client's own code is untouched). Also measured: the client doing what Ferry does per file (a same-name
#    `files.list` before each create, --lookup), and, for reference, the client as shipped over TLS against a second
#    dev server with a throwaway CA (FERRY_BENCH_GDRIVE_TLS=0 skips it). Files/s once warm: the client's threads'
#    wall time once its token is fetched, its connections open and its folder made; Ferry's jobs claimed after the
#    first job finished (token, connections and folder id in hand by then), first finish to last finish (the rate
#    with Ferry's warm-up included is printed too), requests per
#    file from the server's counters, CPU per file of the worker, the client, the dev server and (with PG_DIR)
#    PostgreSQL, WAL per job, Ferry's job time and how long a freed account slot stayed idle. Each case runs
#    FERRY_BENCH_ROUNDS times (default 2; the order of the sides rotates); medians and the ratios of the medians
#    (Ferry / client) are printed at the end.
# 2. A 2,000-file, 3-level tree (4 × 5 × 5 folders, 20 files of 4 KiB in each leaf) enqueued with
#    `upload DIR --recursive` into a new folder and worked by 4 worker processes at once (× 8 slots, account cap
#    16): time, files/s, folders and files created, and duplicates (two items with one path, from
#    `POST /__dev/gdrive/items`), which must be 0.
# Usage: scripts/bench-gdrive.sh BIN_DIR DATABASE_ADMIN_URL [PG_DIR]
set -euo pipefail
shopt -s inherit_errexit
cd "$(dirname "$0")/.."
bin=$1
admin=$2
pgdir=${3:-}
ferry="$bin/ferry"
small=${FERRY_BENCH_SMALL_FILES:-1000}
medium=${FERRY_BENCH_MEDIUM_FILES:-100}
rounds=${FERRY_BENCH_ROUNDS:-2}
cap=${FERRY_BENCH_CAP:-8}
concurrency=${FERRY_BENCH_CONCURRENCY:-16}
threads=${FERRY_BENCH_THREADS:-8}
tree_workers=${FERRY_BENCH_TREE_WORKERS:-4}
tree_concurrency=${FERRY_BENCH_TREE_CONCURRENCY:-8}
tree_cap=${FERRY_BENCH_TREE_CAP:-16}
tls=${FERRY_BENCH_GDRIVE_TLS:-1}
latencies=${FERRY_BENCH_LATENCIES:-"0 30"}
sets=${FERRY_BENCH_SETS:-"small medium"}  # a quick look at one case: FERRY_BENCH_SETS=small FERRY_BENCH_LATENCIES=30
tree_rounds=${FERRY_BENCH_TREE_ROUNDS:-$rounds}
lookup=${FERRY_BENCH_LOOKUP:-1}
work=$(mktemp -d /tmp/ferry-bench-gdrive.XXXXXX)
export FERRY_LOCAL_ROOTS="$work"
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    psql "$admin" -qc "DROP DATABASE IF EXISTS ferry_bench_gdrive" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
ticks=$(getconf CLK_TCK)

# The official client in the venv scripts/sdk-test.sh uses (same pins).
venv=.build/dropbox-sdk-venv
[[ -x "$venv/bin/python" ]] || "${PYTHON:-python3}" -m venv --system-site-packages "$venv"
python="$venv/bin/python"
if ! "$python" -c "import sys, importlib.metadata as m; sys.exit(m.version('google-api-python-client') != '2.202.0')" 2>/dev/null; then
    echo "==> installing google-api-python-client 2.202.0" >&2
    "$python" -m pip install --quiet --disable-pip-version-check "google-api-python-client==2.202.0" "google-auth-httplib2==0.4.4"
fi
client_version=$("$python" -c "import importlib.metadata as m; print(m.version('google-api-python-client'))")

psql "$admin" -qc "DROP DATABASE IF EXISTS ferry_bench_gdrive" -c "CREATE DATABASE ferry_bench_gdrive" 2>/dev/null
export FERRY_DATABASE_URL="${admin%/*}/ferry_bench_gdrive"
export FERRY_SECRET_KEY=$(head -c 32 /dev/urandom | base64)
"$ferry" migrate >/dev/null

head -c 24 /dev/urandom | base64 | tr -d '/+=' >"$work/app-secret"
start_server() { # name [tls options…] → the server's base URL; its pid in $work/NAME.pid
    local name=$1 url=""
    shift
    "$ferry" dev-server --port 0 --storage "$work/$name-storage" --app-key bench --app-secret-file "$work/app-secret" \
        "$@" --log-level error >"$work/$name.log" 2>&1 &
    pids+=($!)
    echo $! >"$work/$name.pid"
    for _ in $(seq 300); do
        url=$(grep -o 'https\?://[0-9.]*:[0-9]*' "$work/$name.log" | head -n 1 || true)
        [[ -n "$url" ]] && break
        sleep 0.1
    done
    [[ -n "$url" ]] || { echo "error: ferry dev-server did not start" >&2; cat "$work/$name.log" >&2; exit 1; }
    echo "$url"
}
server=$(start_server plain)
server_pid=$(cat "$work/plain.pid")
pids+=("$server_pid")
if ((tls)); then
    # A throwaway CA and a certificate for 127.0.0.1 signed by it, as scripts/sdk-test.sh makes them.
    printf '%s\n' "subjectAltName = IP:127.0.0.1, DNS:localhost" "basicConstraints = critical, CA:FALSE" \
        "keyUsage = critical, digitalSignature" "extendedKeyUsage = serverAuth" >"$work/server.ext"
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 -subj "/CN=Ferry bench CA" \
        -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" \
        -keyout "$work/ca.key" -out "$work/ca.pem" 2>/dev/null
    openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj "/CN=127.0.0.1" \
        -keyout "$work/server.key" -out "$work/server.csr" 2>/dev/null
    openssl x509 -req -in "$work/server.csr" -CA "$work/ca.pem" -CAkey "$work/ca.key" -CAcreateserial -days 2 \
        -extfile "$work/server.ext" -out "$work/server.pem" 2>/dev/null
    tls_server=$(start_server tls --tls-cert "$work/server.pem" --tls-key "$work/server.key")
    tls_pid=$(cat "$work/tls.pid")
    pids+=("$tls_pid")
fi

json() { python3 -c "import json,sys; print(json.load(sys.stdin)$1)"; }
drive_account() { # base-url name [ca-file] → writes $work/NAME.token
    curl -fsS ${3:+--cacert "$3"} -X POST "$1/__dev/gdrive/accounts" -d "{\"account\":\"$2\"}" | json '["refresh_token"]' >"$work/$2.token"
}
drive_account "$server" ferry
drive_account "$server" tree
drive_account "$server" official
if ((tls)); then drive_account "$tls_server" official-tls "$work/ca.pem"; fi
"$ferry" account add ferry --provider gdrive --client-id bench --client-secret-file "$work/app-secret" \
    --refresh-token-file "$work/ferry.token" --api-url "$server" --max-concurrent "$cap" >/dev/null
"$ferry" account add tree --provider gdrive --client-id bench --client-secret-file "$work/app-secret" \
    --refresh-token-file "$work/tree.token" --api-url "$server" --max-concurrent "$tree_cap" >/dev/null

# Random files; none ends in a CR byte: the dev server's multipart parser (for bare-LF bodies, as Python's email
# generator writes) takes a CR before the closing "\n--boundary" for part of a CRLF and drops it (1 file in 256).
python3 - "$work" "$small" "$medium" <<'PY'
import os, sys
work, small, medium = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
def write(path, size):
    data = bytearray(os.urandom(size))
    if data[-1] == 0x0D: data[-1] = 0x0A
    with open(path, "wb") as handle: handle.write(data)
for folder, count, size, prefix in (("small", small, 65536, "s"), ("medium", medium, 3 * 1024 * 1024, "m")):
    os.makedirs(f"{work}/{folder}")
    for i in range(1, count + 1): write(f"{work}/{folder}/{prefix}{i:0{len(str(count))}d}.bin", size)
for a in range(1, 5):
    for b in range(1, 6):
        for c in range(1, 6):
            leaf = f"{work}/tree/a{a}/b{b}/c{c}"
            os.makedirs(leaf)
            for f in range(1, 21): write(f"{leaf}/f{f:02d}.bin", 4096)
PY

cpu() { awk '{print $14 + $15}' "/proc/$1/stat"; }
# CPU ticks of every PostgreSQL process, reaped backends included (the postmaster's cutime and cstime): a worker's
# backends exit with it. A backend may exit between the listing and the read; it is then counted as reaped.
pg_cpu() {
    [[ -n "$pgdir" ]] || { echo 0; return; }
    local postmaster total=0 pid t
    postmaster=$(head -1 "$pgdir/data/postmaster.pid")
    total=$(awk '{print $16 + $17}' "/proc/$postmaster/stat")
    for pid in $postmaster $(pgrep -P "$postmaster"); do
        t=$(awk '{print $14 + $15}' "/proc/$pid/stat" 2>/dev/null) || continue
        total=$((total + ${t:-0}))
    done
    echo "$total"
}
wal() { psql "$admin" -Atc "SELECT pg_current_wal_lsn() - '0/0'::pg_lsn"; }
# Transactions committed in the benchmark's database (a backend reports its own when idle or at exit).
commits() { psql "$admin" -Atc "SELECT xact_commit FROM pg_stat_database WHERE datname = 'ferry_bench_gdrive'"; }
routes() { curl -fsS ${2:+--cacert "$2"} "$1/__dev/stats"; }
faults() { # latency-ms
    curl -fsS -X POST "$server/__dev/faults" -d "{\"latency_milliseconds\":$1}" >/dev/null
    if ((tls)); then curl -fsS --cacert "$work/ca.pem" -X POST "$tls_server/__dev/faults" -d "{\"latency_milliseconds\":$1}" >/dev/null; fi
}
# Requests per file by route, from two /__dev/stats snapshots.
per_file() { # before.json after.json files
    python3 - "$@" <<'PY'
import json, sys
a, b, n = json.load(open(sys.argv[1]))["requests_per_route"], json.load(open(sys.argv[2]))["requests_per_route"], int(sys.argv[3])
d = {k: v - a.get(k, 0) for k, v in b.items() if v - a.get(k, 0)}
print("%.2f requests/file (%s)" % (sum(d.values()) / n, ", ".join("%s %d" % kv for kv in sorted(d.items()))))
PY
}

ferry_run() { # label dir files → "rate|details"
    local label=$1 dir=$2 n=$3 pid s0 s1 p0 p1 w0 w1 x0 x1 wc rate failed
    routes "$server" >"$work/before.json"
    s0=$(cpu "$server_pid"); p0=$(pg_cpu); w0=$(wal); x0=$(commits)
    "$ferry" enqueue upload "$dir" --recursive --to "gdrive:ferry:/$label/" --batch "$label" >/dev/null
    "$ferry" worker --name "bench-$label" --concurrency "$concurrency" --log-level error >>"$work/worker.log" 2>&1 &
    pid=$!
    pids+=($pid)
    "$ferry" wait --batch "$label" --interval 1 >/dev/null 2>&1 || true
    wc=$(cpu "$pid")
    s1=$(cpu "$server_pid"); p1=$(pg_cpu); w1=$(wal)
    kill -TERM "$pid" && wait "$pid" || true
    x1=$(commits)
    routes "$server" >"$work/after.json"
    failed=$(psql "$FERRY_DATABASE_URL" -Atc "SELECT count(*) FROM ferry.jobs WHERE batch = '$label' AND state <> 'succeeded'")
    # The rate once warm, as the client's clock starts once its tokens are fetched, its connections open and its
    # folder made: the jobs claimed after the first one finished (by then the worker has its token, its open
    # connections and the new folder's id), over first finish to last finish. The whole run's rate, warm-up
    # included, is printed beside it.
    local whole
    read -r rate whole < <(psql "$FERRY_DATABASE_URL" -AtF' ' -c "
        WITH b AS (SELECT started_at, finished_at FROM ferry.jobs WHERE batch = '$label'),
             w AS (SELECT min(finished_at) AS t FROM b)
        SELECT round(((SELECT count(*) FROM b, w WHERE b.started_at >= w.t)
                      / extract(epoch FROM (SELECT max(finished_at) FROM b) - (SELECT t FROM w)))::numeric, 1),
               round((count(*) / extract(epoch FROM max(finished_at) - min(started_at)))::numeric, 1) FROM b")
    # How long a job took (claim to finish) and how long a freed account slot stayed idle: with the account
    # saturated, claim k can only follow transfer end k - cap (as scripts/bench-dropbox-small.sh measures it).
    local timing
    timing=$(psql "$FERRY_DATABASE_URL" -Atc "
        WITH ev AS (SELECT e.position, e.job_id, e.type, e.recorded_at FROM ferry.events e
                      JOIN ferry.jobs j ON j.job_id = e.job_id WHERE j.batch = '$label'),
        c AS (SELECT recorded_at AS t, row_number() OVER (ORDER BY position) AS k FROM ev WHERE type = 'claimed'),
        f AS (SELECT recorded_at AS t, row_number() OVER (ORDER BY recorded_at) AS k FROM ev
               WHERE type IN ('succeeded', 'failed', 'retry_scheduled', 'deferred', 'released')),
        g AS (SELECT extract(epoch FROM c.t - f.t) * 1000 AS ms FROM c JOIN f ON f.k = c.k - $cap),
        d AS (SELECT extract(epoch FROM finished_at - started_at) * 1000 AS ms FROM ferry.jobs WHERE batch = '$label')
        SELECT format('job p50 %s ms; account slot free to next start p50 %s ms, p99 %s ms',
                      (SELECT round(percentile_cont(0.5) WITHIN GROUP (ORDER BY ms)::numeric, 1) FROM d),
                      round(percentile_cont(0.5) WITHIN GROUP (ORDER BY ms)::numeric, 1),
                      round(percentile_cont(0.99) WITHIN GROUP (ORDER BY ms)::numeric, 1)) FROM g")
    echo "$rate|$failed failed; warm-up included $whole files/s; $timing; $(per_file "$work/before.json" "$work/after.json" "$n"); CPU ms/file: worker $(
        python3 -c "t=$ticks; n=$n; print('%.1f, dev server %.1f, PostgreSQL %s (enqueue included); WAL %.1f kB, %.1f commits per job' % (
            $wc * 1000 / t / n, ($s1 - $s0) * 1000 / t / n, ('%.1f' % (($p1 - $p0) * 1000 / t / n)) if '$pgdir' else '-',
            ($w1 - $w0) / 1024 / n, ($x1 - $x0) / n))")"
}

official_run() { # label dir files server server-pid account [client options…] → "rate|details"
    local label=$1 dir=$2 n=$3 base=$4 spid=$5 account=$6 s0 s1 out cacert=""
    shift 6
    [[ $base == https:* ]] && cacert="$work/ca.pem"
    routes "$base" "$cacert" >"$work/before.json"
    s0=$(cpu "$spid")
    out=$(env -u REQUESTS_CA_BUNDLE -u CURL_CA_BUNDLE -u HTTPLIB2_CA_CERTS "$python" scripts/bench-gdrive-official.py \
        --server "$base" --client-id bench --client-secret-file "$work/app-secret" --refresh-token-file "$work/$account.token" \
        --threads "$threads" --folder "$label" "$@" "$dir")
    s1=$(cpu "$spid")
    routes "$base" "$cacert" >"$work/after.json"
    python3 - "$out" "$n" "$s0" "$s1" "$ticks" <<PY
import json, sys
r, n, s0, s1, t = json.loads(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
print("%s|%d failed; %s; CPU ms/file: client %.1f, dev server %.1f (warm-up requests included)" % (
    r["files_per_second"], r["failed"], "$(per_file "$work/before.json" "$work/after.json" "$n")",
    r["cpu_seconds"] * 1000 / n, (s1 - s0) * 1000 / t / n))
PY
}

results="$work/results"
: >"$results"
record() { # case side round (reads "rate|details" from $work/out)
    local out
    out=$(cat "$work/out")
    echo "  $1, $2, round $3: ${out%%|*} files/s (${out#*|})" >&2
    printf '%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "${out%%|*}" >>"$results"
}
echo "Google Drive on ferry dev-server: Ferry (1 worker x $concurrency, account cap $cap) against google-api-python-client $client_version ($threads threads); $rounds rounds" >&2
for round in $(seq 1 "$rounds"); do
    for latency in $latencies; do
        faults "$latency"
        for set in $sets; do
            if [[ $set == small ]]; then dir="$work/small" n=$small label="$small x 64 KiB"; else dir="$work/medium" n=$medium label="$medium x 3 MiB"; fi
            name="$label, ${latency} ms"
            tag="$set-$latency-r$round"
            sides=(ferry official)
            if ((lookup)); then sides+=(lookup); fi
            for ((i = 1; i < round; i++)); do sides=("${sides[@]:1}" "${sides[0]}"); done
            for side in "${sides[@]}"; do
                case $side in
                ferry)
                    ferry_run "f-$tag" "$dir" "$n" >"$work/out"
                    record "$name" "Ferry" "$round" ;;
                official)
                    official_run "o-$tag" "$dir" "$n" "$server" "$server_pid" official --plain-http >"$work/out"
                    record "$name" "official (http)" "$round" ;;
                lookup)
                    official_run "l-$tag" "$dir" "$n" "$server" "$server_pid" official --plain-http --lookup >"$work/out"
                    record "$name" "official + same-name lookup (http)" "$round" ;;
                esac
            done
            if ((tls)); then
                official_run "t-$tag" "$dir" "$n" "$tls_server" "$tls_pid" official-tls --ca-file "$work/ca.pem" >"$work/out"
                record "$name" "official (https, as shipped)" "$round"
            fi
        done
    done
done
faults 0

# The tree: 4 workers start together on one new folder's 2,000 files.
tree_run() { # round → "seconds rate folders files duplicates failed"
    local label="tree-r$1" tpids=() i rate seconds failed
    "$ferry" enqueue upload "$work/tree" --recursive --to "gdrive:tree:/$label/" --batch "$label" >/dev/null
    for i in $(seq 1 "$tree_workers"); do
        "$ferry" worker --name "tree-$1-$i" --concurrency "$tree_concurrency" --log-level error >>"$work/worker.log" 2>&1 &
        tpids+=($!)
        pids+=($!)
    done
    "$ferry" wait --batch "$label" --interval 1 >/dev/null 2>&1 || true
    kill -TERM "${tpids[@]}" && wait "${tpids[@]}" || true
    read -r seconds rate failed < <(psql "$FERRY_DATABASE_URL" -AtF' ' -c "
        SELECT round(extract(epoch FROM max(finished_at) - min(started_at))::numeric, 2),
               round((count(*) / extract(epoch FROM max(finished_at) - min(started_at)))::numeric, 1),
               count(*) FILTER (WHERE state <> 'succeeded') FROM ferry.jobs WHERE batch = '$label'")
    curl -fsS -X POST "$server/__dev/gdrive/items" -d '{"account":"tree"}' | python3 -c "
import collections, json, sys
items = [i for i in json.load(sys.stdin)['items'] if i['path'] == '/$label' or i['path'].startswith('/$label/')]
folders = sum(1 for i in items if i.get('mimeType') == 'application/vnd.google-apps.folder')
paths = collections.Counter(i['path'] for i in items)
print('$seconds $rate', folders, len(items) - folders, sum(c - 1 for c in paths.values()), '$failed')"
}
echo "tree: $(find "$work/tree" -type f | wc -l) files in $(find "$work/tree" -mindepth 1 -type d | wc -l) folders, $tree_workers workers x $tree_concurrency, account cap $tree_cap" >&2
for round in $(seq 1 "$tree_rounds"); do
    tree_run "$round" >"$work/out"
    read -r seconds rate folders files duplicates failed <"$work/out"
    echo "  tree, round $round: $seconds s, $rate files/s; created $folders folders and $files files, duplicates $duplicates, failed $failed" >&2
    printf '%s\t%s\t%s\t%s\n' "tree" "Ferry" "$round" "$rate" >>"$results"
    ((duplicates == 0 && files == 2000)) || echo "error: $duplicates duplicate paths, $files of 2000 files in the tree" >&2
done

python3 - "$results" "$cap" "$concurrency" "$threads" <<'PY'
import collections, statistics, sys
rates = collections.defaultdict(list)
cases = []
for line in open(sys.argv[1]):
    case, side, _, rate = line.rstrip("\n").split("\t")
    rates[case, side].append(float(rate))
    if case not in cases: cases.append(case)
print(f"Google Drive, medians (Ferry: 1 worker x {sys.argv[3]}, cap {sys.argv[2]}; official client: {sys.argv[4]} threads):")
for case in cases:
    if case == "tree":
        if not rates[case, "Ferry"]: continue
        print(f"  tree, 2,000 files by 4 workers: {statistics.median(rates[case, 'Ferry']):.1f} files/s")
        continue
    ferry, official = statistics.median(rates[case, "Ferry"]), statistics.median(rates[case, "official (http)"])
    line = f"  gdrive {case}: Ferry {ferry:.1f} files/s, official client {official:.1f} (http): {ferry / official:.2f}x"
    lookup = rates.get((case, "official + same-name lookup (http)"))
    if lookup:
        line += f"; official with Ferry's lookup {statistics.median(lookup):.1f}: {ferry / statistics.median(lookup):.2f}x"
    if (case, "official (https, as shipped)") in rates:
        tls = statistics.median(rates[case, "official (https, as shipped)"])
        line += f"; official over https {tls:.1f}: {ferry / tls:.2f}x"
    print(line)
PY
