#!/usr/bin/env bash
# Local directory benchmark: Ferry copying many files into a folder (2 workers × 32 jobs, copy_file_range, SHA-256
# of every file, fsync per file and per rename) against `rclone copy --transfers 32` and `cp -r` followed by `sync`,
# on the same files in the same run, as files/s and ratios. Then the peak resident memory (VmHWM) of one worker
# running 64 uploads of mixed sizes at once.
#
# Sources are read from the page cache in every run (they were just written); the destinations are on the same
# filesystem. rclone does not fsync; `cp -r` + `sync` flushes everything it wrote once, at the end.
# Workers run with their default poll interval: a freed slot wakes the claim loop by itself.
# Usage: scripts/bench-local.sh BIN_DIR DATABASE_ADMIN_URL
set -euo pipefail
shopt -s inherit_errexit   # a failure inside $(...) stops the run too
bin=$1
admin=$2
ferry="$bin/ferry"
work=$(mktemp -d /tmp/ferry-bench-local.XXXXXX)
export FERRY_LOCAL_ROOTS="$work"   # workers read and write only here
small=${FERRY_BENCH_SMALL_FILES:-4000}
medium=${FERRY_BENCH_MEDIUM_FILES:-400}
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
command -v rclone >/dev/null || { echo "error: rclone is missing (scripts/install-deps.sh installs it)" >&2; exit 1; }

psql "$admin" -qc "DROP DATABASE IF EXISTS ferry_bench_local" -c "CREATE DATABASE ferry_bench_local" 2>/dev/null
export FERRY_DATABASE_URL="${admin%/*}/ferry_bench_local"
"$ferry" migrate >/dev/null

make_files() { # folder count bytes
    python3 - "$1" "$2" "$3" <<'PY'
import os, sys
folder, count, size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
os.makedirs(folder, exist_ok=True)
for i in range(count):
    with open(f"{folder}/f{i:05d}.bin", "wb") as f:
        f.write(os.urandom(size))
PY
}
make_files "$work/small" "$small" $((64 * 1024))
make_files "$work/medium" "$medium" $((3 * 1024 * 1024))
sync
now() { date +%s.%N; }
per_second() { python3 -c "print('%.0f' % ($1 / ($3 - $2)))"; }

# Ferry: enqueue first, then 2 workers × 32; the time is the jobs' own, from the first start to the last finish.
ferry_run() { # batch folder count → files/s
    local batch=$1 folder=$2 count=$3
    "$ferry" enqueue upload "$work/$folder"/*.bin --to "file://$work/ferry-$folder/" --batch "$batch" >/dev/null
    sync   # every run starts with nothing dirty, so none pays for the writes of the one before
    local workers=()
    for w in 1 2; do
        "$ferry" worker --name "bench-$batch-$w" --concurrency 32 --log-level error &
        workers+=($!)
        pids+=($!)
    done
    until [[ $(psql "$FERRY_DATABASE_URL" -Atc "SELECT done FROM ferry.batch_status WHERE batch = '$batch'") == t ]]; do sleep 0.1; done
    for pid in "${workers[@]}"; do kill -TERM "$pid"; wait "$pid" || true; done
    [[ $(psql "$FERRY_DATABASE_URL" -Atc "SELECT count(*) FROM ferry.jobs WHERE batch = '$batch' AND state = 'succeeded'") == "$count" ]] \
        || { echo "error: not every job of $batch succeeded" >&2; exit 1; }
    psql "$FERRY_DATABASE_URL" -Atc "SELECT round(count(*) / extract(epoch FROM max(finished_at) - min(started_at)))
                                       FROM ferry.jobs WHERE batch = '$batch'"
}
rclone_run() { # folder count → files/s
    local t0 t1
    sync
    t0=$(now); rclone copy --transfers 32 --config /dev/null "$work/$1" "$work/rclone-$1"; t1=$(now)
    per_second "$2" "$t0" "$t1"
}
cp_run() { # folder count → files/s
    local t0 t1
    sync
    t0=$(now); cp -r "$work/$1" "$work/cp-$1"; sync; t1=$(now)
    per_second "$2" "$t0" "$t1"
}

# The disk is shared and its speed drifts by 3x within minutes here: each size runs in rounds (Ferry, rclone,
# cp + sync, the order rotating), and the figures are each tool's median with the median of the per-round ratios.
rounds=${FERRY_BENCH_ROUNDS:-3}
median() { python3 -c "import statistics, sys; print('%.0f' % statistics.median(float(x) for x in sys.argv[1:]))" "$@"; }
median_ratio() { python3 -c "import statistics, sys; a, b = sys.argv[1].split(), sys.argv[2].split(); print('%.2f' % statistics.median(float(x) / float(y) for x, y in zip(a, b)))" "$1" "$2"; }
compare() { # folder count → sets f_rates, r_rates, c_rates (space-separated, one per round)
    local folder=$1 count=$2 round order tool
    f_rates="" r_rates="" c_rates=""
    for round in $(seq "$rounds"); do
        case $((round % 3)) in 1) order="ferry rclone cp" ;; 2) order="rclone cp ferry" ;; 0) order="cp ferry rclone" ;; esac
        for tool in $order; do
            case $tool in
                ferry) f_rates+=" $(ferry_run "$folder-$round" "$folder" "$count")"
                       for f in "$work/$folder"/*.bin; do cmp -s "$f" "$work/ferry-$folder/${f##*/}" || { echo "error: $f differs" >&2; exit 1; }; done
                       rm -rf "$work/ferry-$folder" ;;
                rclone) r_rates+=" $(rclone_run "$folder" "$count")"; rm -rf "$work/rclone-$folder" ;;
                cp) c_rates+=" $(cp_run "$folder" "$count")"; rm -rf "$work/cp-$folder" ;;
            esac
        done
    done
}
report() { # label
    echo "local, $1: ferry $(median $f_rates) files/s; rclone copy $(median $r_rates) files/s (ferry $(median_ratio "$f_rates" "$r_rates")×); cp -r + sync $(median $c_rates) files/s (ferry $(median_ratio "$f_rates" "$c_rates")×); medians of $rounds rounds (ferry:$f_rates; rclone:$r_rates; cp:$c_rates)"
}
compare small "$small"
small_line=$(report "$small × 64 KiB")
compare medium "$medium"
medium_line=$(report "$medium × 3 MiB")

# Peak memory: one worker, 64 jobs at once, a mix of 64 KiB, 3 MiB and 64 MiB files.
make_files "$work/large" 16 $((64 * 1024 * 1024))
{
    for f in "$work"/large/*.bin "$work"/medium/f000*.bin "$work"/small/f00[0-4]*.bin; do
        echo "{\"kind\":\"upload\",\"source\":\"$f\",\"to\":\"file://$work/mem/${f#$work/}\",\"batch\":\"mem\"}"
    done
} | python3 -c 'import random, sys; lines = sys.stdin.readlines(); random.seed(1); random.shuffle(lines); sys.stdout.writelines(lines)' >"$work/mem.jsonl"
"$ferry" enqueue --from "$work/mem.jsonl" >/dev/null
"$ferry" worker --name bench-mem --concurrency 64 --log-level error &
mem_pid=$!
pids+=($mem_pid)
peak_kib=0
until [[ $(psql "$FERRY_DATABASE_URL" -Atc "SELECT done FROM ferry.batch_status WHERE batch = 'mem'") == t ]]; do
    peak_kib=$(awk '/VmHWM/ {print $2}' /proc/$mem_pid/status)
    sleep 0.2
done
peak_kib=$(awk '/VmHWM/ {print $2}' /proc/$mem_pid/status)
kill -TERM $mem_pid && wait $mem_pid || true
mem_jobs=$(wc -l <"$work/mem.jsonl")

echo "$small_line"
echo "$medium_line"
echo "worker peak resident memory (VmHWM), $mem_jobs uploads 64 at once (64 KiB, 3 MiB, 64 MiB): $(python3 -c "print('%.1f' % ($peak_kib / 1024))") MiB (target ≤ 96 MiB)"
