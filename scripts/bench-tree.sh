#!/usr/bin/env bash
# Tree enqueue benchmark: `ferry enqueue upload DIR --recursive` of a 100,000-file tree (tiny files, 3 levels) into
# a local directory destination, against `find DIR -type f | wc -l` walking the same tree in the same run, as files/s,
# the ratio of the two wall times, and ferry's peak resident memory (VmHWM, from /usr/bin/time -v).
# The tree is walked once beforehand so both read it from the dentry and inode caches.
# Usage: scripts/bench-tree.sh BIN_DIR DATABASE_ADMIN_URL
set -euo pipefail
shopt -s inherit_errexit   # a failure inside $(...) stops the run too
bin=$1
admin=$2
ferry="$bin/ferry"
files=${FERRY_BENCH_TREE_FILES:-100000}
work=$(mktemp -d /tmp/ferry-bench-tree.XXXXXX)
trap 'rm -rf "$work"' EXIT
[ -x /usr/bin/time ] || { echo "error: /usr/bin/time is missing (apt-get install time)" >&2; exit 1; }

psql "$admin" -qc "DROP DATABASE IF EXISTS ferry_bench_tree" -c "CREATE DATABASE ferry_bench_tree" 2>/dev/null
export FERRY_DATABASE_URL="${admin%/*}/ferry_bench_tree"
"$ferry" migrate >/dev/null

# 100 folders of 10 folders of files: tree/dNN/eNN/fNNNNN (tiny files: the walk and the enqueue are measured).
python3 - "$work/tree" "$files" <<'PY'
import os, sys
root, count = sys.argv[1], int(sys.argv[2])
for i in range(count):
    folder = f"{root}/d{i % 100:02d}/e{(i // 100) % 10:02d}"
    if i < 1000:
        os.makedirs(folder, exist_ok=True)
    with open(f"{folder}/f{i:06d}.txt", "w") as f:
        f.write("x")
PY
find "$work/tree" -type f | wc -l >/dev/null   # warm the caches

seconds() { python3 -c 'import sys; print(f"{float(sys.argv[1]):.3f}")' "$1"; }
now() { date +%s.%N; }

start=$(now)
found=$(find "$work/tree" -type f | wc -l)
find_s=$(python3 -c "print($(now) - $start)")

start=$(now)
/usr/bin/time -v -o "$work/time.txt" "$ferry" enqueue upload "$work/tree" --recursive --to "$work/out/" --batch tree >"$work/ids.txt"
ferry_s=$(python3 -c "print($(now) - $start)")
enqueued=$(wc -l <"$work/ids.txt")
rss_kb=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$work/time.txt")
[ "$enqueued" -eq "$found" ] || { echo "error: enqueued $enqueued of $found files" >&2; exit 1; }

python3 - "$found" "$find_s" "$ferry_s" "$rss_kb" <<'PY'
import sys
files, find_s, ferry_s, rss = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4])
print(f"tree of {files:,} files: find | wc -l {find_s:.2f} s ({files / find_s:,.0f} files/s)")
print(f"  ferry enqueue upload --recursive: {ferry_s:.2f} s ({files / ferry_s:,.0f} files/s, one transaction), "
      f"{ferry_s / find_s:.1f}x find's time; peak RSS {rss / 1024:.1f} MiB")
PY
psql "$admin" -qc "DROP DATABASE IF EXISTS ferry_bench_tree" 2>/dev/null || true
