#!/usr/bin/env bash
# S3 benchmark against a moto server: Ferry's uploads and downloads of many photos and of one large file, as
# ratios to the AWS CLI (`aws s3 cp`) moving the same bytes to and from the same server in the same run, plus the
# worker's peak resident memory with 8 concurrent multipart uploads of the large file. First, many small files:
# 1,000 × 64 KiB and 150 × 3 MiB uploaded by Ferry (2 workers × 32 jobs) against `rclone copy --transfers 32`
# and `aws s3 cp --recursive`, as files/s and ratios (FERRY_BENCH_S3_FILES_ONLY=1 stops after that part).
# Ferry's workers run with their default poll interval: a freed slot wakes the claim loop by itself.
# Usage: scripts/bench-s3.sh BIN_DIR DATABASE_ADMIN_URL
set -euo pipefail
shopt -s inherit_errexit   # a failure inside $(...) stops the run too
bin=$1
admin=$2
ferry="$bin/ferry"
work=$(mktemp -d /tmp/ferry-bench-s3.XXXXXX)
export FERRY_LOCAL_ROOTS="$work"   # workers read and write only here
photos=${FERRY_BENCH_PHOTOS:-64}
big_mib=${FERRY_BENCH_BIG_MIB:-1024}
part_mib=8
pids=()
cleanup() {
    local status=$?
    ((status == 0)) || { echo "moto's log (last lines):" >&2; tail -n 40 "$work"/moto/*.log >&2 2>/dev/null || true; }
    for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    scripts/moto.sh stop "$work/moto" >/dev/null 2>&1 || true
    rm -rf "$work"
}
trap cleanup EXIT
command -v aws >/dev/null || python3 -m pip install --quiet awscli

psql "$admin" -qc "DROP DATABASE IF EXISTS ferry_bench_s3" -c "CREATE DATABASE ferry_bench_s3" 2>/dev/null
export FERRY_DATABASE_URL="${admin%/*}/ferry_bench_s3"
export FERRY_SECRET_KEY=$(head -c 32 /dev/urandom | base64)
"$ferry" migrate >/dev/null

mkdir -p "$work/moto"
server=$(scripts/moto.sh start "$work/moto")
export AWS_ACCESS_KEY_ID=AKIABENCH0000000001 AWS_SECRET_ACCESS_KEY=bench-secret AWS_DEFAULT_REGION=us-east-1
unset AWS_PROFILE
export AWS_CONFIG_FILE="$work/aws-config" AWS_SHARED_CREDENTIALS_FILE="$work/aws-credentials"
s3() { aws --endpoint-url "$server" s3 "$@" >/dev/null; }
s3 mb s3://bench
echo "$AWS_ACCESS_KEY_ID" >"$work/key-id"
echo "$AWS_SECRET_ACCESS_KEY" | "$ferry" account add bench --provider s3 --region us-east-1 --endpoint-url "$server" --path-style \
    --access-key-id-file "$work/key-id" --secret-access-key-file - --max-concurrent 16 >/dev/null

# Many files: Ferry (2 workers × 32, an account that allows 64 at once) against rclone and the AWS CLI.
# rclone 1.60 cannot use AWS_CA_BUNDLE with its HTTP transport (and needs none for a plain-HTTP moto): unset for it.
command -v rclone >/dev/null || { echo "error: rclone is missing (scripts/install-deps.sh installs it)" >&2; exit 1; }
export RCLONE_CONFIG_MOTO_TYPE=s3 RCLONE_CONFIG_MOTO_PROVIDER=Other RCLONE_CONFIG_MOTO_ENDPOINT="$server" \
    RCLONE_CONFIG_MOTO_ACCESS_KEY_ID="$AWS_ACCESS_KEY_ID" RCLONE_CONFIG_MOTO_SECRET_ACCESS_KEY="$AWS_SECRET_ACCESS_KEY" \
    RCLONE_CONFIG_MOTO_REGION=us-east-1 RCLONE_CONFIG_MOTO_FORCE_PATH_STYLE=true
echo "$AWS_SECRET_ACCESS_KEY" | "$ferry" account add wide --provider s3 --region us-east-1 --endpoint-url "$server" --path-style \
    --access-key-id-file "$work/key-id" --secret-access-key-file - --max-concurrent 64 >/dev/null
files_per_second() { python3 -c "print('%.0f' % ($1 / ($3 - $2)))"; }
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
s3_files() { # name count bytes → prints "ferry rclone aws" in files/s
    local name=$1 count=$2 t0 t1 workers=() rclone_fps aws_fps ferry_fps
    make_files "$work/$name" "$count" "$3"
    t0=$(date +%s.%N); env -u AWS_CA_BUNDLE rclone copy --transfers 32 --config /dev/null "$work/$name" "moto:bench/rclone/$name/"; t1=$(date +%s.%N)
    rclone_fps=$(files_per_second "$count" "$t0" "$t1")
    t0=$(date +%s.%N); s3 cp --recursive "$work/$name" "s3://bench/aws/$name/"; t1=$(date +%s.%N)
    aws_fps=$(files_per_second "$count" "$t0" "$t1")
    "$ferry" enqueue upload "$work/$name"/*.bin --to "s3:wide:bench/ferry/$name/" --batch "files-$name" >/dev/null
    for w in 1 2; do
        "$ferry" worker --name "bench-$name-$w" --concurrency 32 --log-level error &
        workers+=($!)
        pids+=($!)
    done
    until [[ $(psql "$FERRY_DATABASE_URL" -Atc "SELECT done FROM ferry.batch_status WHERE batch = 'files-$name'") == t ]]; do sleep 0.1; done
    for pid in "${workers[@]}"; do kill -TERM "$pid"; wait "$pid" || true; done
    [[ $(psql "$FERRY_DATABASE_URL" -Atc "SELECT count(*) FROM ferry.jobs WHERE batch = 'files-$name' AND state = 'succeeded'") == "$count" ]] \
        || { echo "error: not every upload of $name succeeded" >&2; exit 1; }
    ferry_fps=$(psql "$FERRY_DATABASE_URL" -Atc "SELECT round(count(*) / extract(epoch FROM max(finished_at) - min(started_at)))
                                                  FROM ferry.jobs WHERE batch = 'files-$name'")
    rm -rf "${work:?}/$name"
    s3 rm --recursive s3://bench/rclone/ && s3 rm --recursive s3://bench/aws/ && s3 rm --recursive s3://bench/ferry/
    echo "$ferry_fps $rclone_fps $aws_fps"
}
files_ratio() { python3 -c "print('%.2f' % ($1 / $2))"; }
out=$(s3_files small "${FERRY_BENCH_S3_SMALL_FILES:-1000}" $((64 * 1024)))
read -r f r a <<<"$out"
echo "S3 upload, ${FERRY_BENCH_S3_SMALL_FILES:-1000} × 64 KiB: ferry $f files/s; rclone $r files/s (ferry $(files_ratio "$f" "$r")×); aws s3 cp $a files/s (ferry $(files_ratio "$f" "$a")×)"
out=$(s3_files medium "${FERRY_BENCH_S3_MEDIUM_FILES:-150}" $((3 * 1024 * 1024)))
read -r f r a <<<"$out"
echo "S3 upload, ${FERRY_BENCH_S3_MEDIUM_FILES:-150} × 3 MiB: ferry $f files/s; rclone $r files/s (ferry $(files_ratio "$f" "$r")×); aws s3 cp $a files/s (ferry $(files_ratio "$f" "$a")×)"
[[ "${FERRY_BENCH_S3_FILES_ONLY:-}" == 1 ]] && exit 0

mkdir -p "$work/src"
for i in $(seq -w 1 "$photos"); do head -c $((3 * 1024 * 1024)) /dev/urandom >"$work/src/p$i.jpg"; done
head -c $((big_mib * 1024 * 1024)) /dev/urandom >"$work/big.bin"
now() { date +%s.%N; }
rate() { python3 -c "print('%.1f' % ($1 / 1048576 / ($3 - $2)))"; }
photo_bytes=$((photos * 3 * 1024 * 1024))
big_bytes=$((big_mib * 1024 * 1024))
# The AWS CLI's own defaults: 10 concurrent requests, 8 MiB parts above 8 MiB.
aws configure set default.s3.multipart_chunksize ${part_mib}MB

# Baselines: the AWS CLI.
t0=$(now); s3 cp --recursive "$work/src" s3://bench/aws/photos/; t1=$(now)
aws_up_photos=$(rate $photo_bytes "$t0" "$t1")
t0=$(now); s3 cp "$work/big.bin" s3://bench/aws/big.bin; t1=$(now)
aws_up_big=$(rate $big_bytes "$t0" "$t1")
t0=$(now); s3 cp --recursive s3://bench/aws/photos/ "$work/aws-down/"; t1=$(now)
aws_down_photos=$(rate $photo_bytes "$t0" "$t1")
t0=$(now); s3 cp s3://bench/aws/big.bin "$work/aws-down/big.bin"; t1=$(now)
aws_down_big=$(rate $big_bytes "$t0" "$t1")
rm -rf "$work/aws-down"
s3 rm --recursive s3://bench/aws/

# Ferry: one worker, 10 jobs at once (the CLI's concurrency), 8 MiB parts.
run_batch() { # batch, concurrency → MiB/s from the first start to the last finish
    local batch=$1 concurrency=$2
    "$ferry" worker --name "bench-$batch" --concurrency "$concurrency" --chunk-size $part_mib --log-level error &
    local pid=$!
    pids+=($pid)
    until [[ $(psql "$FERRY_DATABASE_URL" -Atc "SELECT coalesce(bool_and(state = 'succeeded'), false) FROM ferry.jobs WHERE batch = '$batch'") == t ]]; do
        sleep 0.2
        [[ -n "${PEAK_FILE:-}" ]] && awk '/VmHWM/ {print $2}' /proc/$pid/status >"$PEAK_FILE" 2>/dev/null || true
    done
    [[ -n "${PEAK_FILE:-}" ]] && awk '/VmHWM/ {print $2}' /proc/$pid/status >"$PEAK_FILE" 2>/dev/null || true
    kill -TERM $pid && wait $pid || true
    psql "$FERRY_DATABASE_URL" -Atc "SELECT round((sum(bytes_done) / 1048576.0 / extract(epoch FROM max(finished_at) - min(started_at)))::numeric, 1)
                                       FROM ferry.jobs WHERE batch = '$batch' AND kind = '$3'"
}
"$ferry" enqueue upload "$work"/src/p*.jpg --to s3:bench:bench/ferry/photos/ --batch up-photos >/dev/null
ferry_up_photos=$(run_batch up-photos 10 upload)
"$ferry" enqueue upload "$work/big.bin" --to s3:bench:bench/ferry/big.bin --batch up-big >/dev/null
ferry_up_big=$(run_batch up-big 10 upload)
"$ferry" enqueue fetch s3:bench:bench/ferry/photos/ --to "$work/ferry-down/" --batch down-photos >/dev/null
ferry_down_photos=$(run_batch down-photos 10 fetch)
"$ferry" enqueue fetch s3:bench:bench/ferry/big.bin --to "$work/ferry-down/big.bin" --batch down-big >/dev/null
ferry_down_big=$(run_batch down-big 10 fetch)
cmp "$work/big.bin" "$work/ferry-down/big.bin"
rm -rf "$work/ferry-down"
s3 rm --recursive s3://bench/ferry/

# Peak memory: 8 concurrent multipart uploads of the large file.
for i in 1 2 3 4 5 6 7 8; do echo "{\"kind\":\"upload\",\"source\":\"$work/big.bin\",\"to\":\"s3:bench:bench/mem/big-$i.bin\",\"batch\":\"mem\"}"; done >"$work/mem.jsonl"
"$ferry" enqueue --from "$work/mem.jsonl" >/dev/null
PEAK_FILE="$work/peak" run_batch mem 8 upload >/dev/null
peak_kib=$(cat "$work/peak")

ratio() { python3 -c "print('%.2f' % ($1 / $2))"; }
echo "S3 upload,   $photos × 3 MiB photos: ferry $ferry_up_photos MiB/s vs aws s3 cp $aws_up_photos MiB/s = $(ratio "$ferry_up_photos" "$aws_up_photos")×"
echo "S3 upload,   one $big_mib MiB file:   ferry $ferry_up_big MiB/s vs aws s3 cp $aws_up_big MiB/s = $(ratio "$ferry_up_big" "$aws_up_big")×"
echo "S3 download, $photos × 3 MiB photos: ferry $ferry_down_photos MiB/s vs aws s3 cp $aws_down_photos MiB/s = $(ratio "$ferry_down_photos" "$aws_down_photos")×"
echo "S3 download, one $big_mib MiB file:   ferry $ferry_down_big MiB/s vs aws s3 cp $aws_down_big MiB/s = $(ratio "$ferry_down_big" "$aws_down_big")×"
echo "worker peak resident memory, 8 concurrent $big_mib MiB multipart uploads: $(python3 -c "print('%.1f' % ($peak_kib / 1024))") MiB (target ≤ 64 MiB)"
