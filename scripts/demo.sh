#!/usr/bin/env bash
# The demo: a private PostgreSQL under .ferry/, real sample photos, a batch upload worked by two real worker
# processes, live progress, the status views, and a check that every file arrived intact.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
state="$root/.ferry"
mkdir -p "$state"

say() { printf '\n\033[1m==> %s\033[0m\n' "$*"; }

say "building ferry"
swift build --product ferry 2>&1 | tail -1
ferry="$(swift build --show-bin-path)/ferry"

say "starting a private PostgreSQL in .ferry/pg"
admin=$(scripts/pg.sh start "$state/pg")
psql "$admin" -qc "DROP DATABASE IF EXISTS ferry_demo" -c "CREATE DATABASE ferry_demo" 2>/dev/null
export FERRY_DATABASE_URL="${admin%/postgres}/ferry_demo"
export FERRY_MIGRATIONS_DIR="$root/migrations"
echo "FERRY_DATABASE_URL=$FERRY_DATABASE_URL"

say "ferry migrate"
"$ferry" migrate

say "generating 20 sample photos (the original app's batch)"
/usr/bin/python3 scripts/sample-photos.py "$state/demo/photos" 20
nas="$state/demo/nas"
rm -rf "$nas"

say "ferry enqueue upload … --to file://$nas/Photos/2026/ --batch holiday-2026"
"$ferry" enqueue upload "$state"/demo/photos/*.jpg --to "file://$nas/Photos/2026/" --batch holiday-2026 | head -3
echo "…"

workers=()
cleanup() {
    for pid in "${workers[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
}
trap cleanup EXIT

say "starting two workers (1 MiB chunks, so progress is visible)"
for name in demo-worker-1 demo-worker-2; do
    "$ferry" worker --name "$name" --concurrency 3 --chunk-size 1 --log-level warning &
    workers+=($!)
done

say "progress (ferry.batch_status)"
while true; do
    line=$(psql "$FERRY_DATABASE_URL" -Atc \
        "SELECT format('%s/%s done, %s running, %s%%', succeeded + failed + cancelled, jobs, running, percent), done
           FROM ferry.batch_status WHERE batch = 'holiday-2026'")
    echo "  ${line%|*}"
    [[ "${line##*|}" == "t" ]] && break
    sleep 0.3
done

say "SIGTERM both workers: they drain and exit 0"
for pid in "${workers[@]}"; do kill -TERM "$pid"; done
for pid in "${workers[@]}"; do wait "$pid"; echo "  worker $pid exited $?"; done
workers=()

say "the status views are plain SQL"
psql "$FERRY_DATABASE_URL" -P pager=off -c \
    "SELECT left(job_id::text, 8) AS job, status, attempt || '/' || max_attempts AS attempt, bytes_done, percent,
            regexp_replace(destination, '^.*/', '') AS file
       FROM ferry.job_status WHERE batch = 'holiday-2026' ORDER BY destination LIMIT 8"
psql "$FERRY_DATABASE_URL" -P pager=off -c "SELECT batch, jobs, succeeded, failed, bytes_done, percent, done, finished_at - started_at AS took FROM ferry.batch_status"
psql "$FERRY_DATABASE_URL" -P pager=off -c "SELECT queue, state, jobs FROM ferry.queue_stats"

say "one job's history (ferry events)"
first=$(psql "$FERRY_DATABASE_URL" -Atc "SELECT job_id FROM ferry.jobs ORDER BY bytes_total DESC LIMIT 1")
"$ferry" events "$first" | cut -c1-150

say "every photo arrived intact"
failed=0
for photo in "$state"/demo/photos/*.jpg; do
    if ! cmp -s "$photo" "$nas/Photos/2026/$(basename "$photo")"; then echo "  MISMATCH: $photo"; failed=1; fi
done
[[ $failed -eq 0 ]] && echo "  20 of 20 identical (cmp)"
"$ferry" projection verify

say "done. Explore with:  FERRY_DATABASE_URL=$FERRY_DATABASE_URL $ferry status --batch holiday-2026"
echo "PostgreSQL keeps running in .ferry/pg; stop it with: scripts/pg.sh stop .ferry/pg"
exit $failed
