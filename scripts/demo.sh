#!/usr/bin/env bash
# The demo: a private PostgreSQL under .ferry/, real sample photos, a batch upload worked by two real worker
# processes, live progress, the status views, a check that every file arrived intact, then the folder fetched
# back (files and thumbnails), a Flickr photostream and an Instagram feed downloaded and the photos copied to Google
# Drive, all through the dev server.
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

say "starting Ferry's Dropbox-compatible dev server (seeded faults: 5% failures, short-lived tokens)"
mkdir -p "$state/demo"
storage="$state/demo/dropbox"
rm -rf "$storage"
devlog="$state/demo/dev-server.log"
# The demo app is a confidential one: its refresh tokens only refresh with this secret.
appsecret="$state/demo/app-secret"
(umask 077 && head -c 24 /dev/urandom | base64 >"$appsecret")
"$ferry" dev-server --port 0 --storage "$storage" --app-key ferry-demo --app-secret-file "$appsecret" --token-lifetime 20 \
    --latency-ms 40 --failure-rate 0.05 --rate-limit-rate 0.02 --seed 2026 >"$devlog" 2>&1 &
devserver=$!
for _ in $(seq 100); do grep -q "listening on" "$devlog" 2>/dev/null && break; sleep 0.1; done
dropbox=$(grep -o 'http://[0-9.:]*' "$devlog" | head -1)
echo "dev server at $dropbox (files stored under $storage)"

say "linking a demo account (secrets come from stdin, stored encrypted with FERRY_SECRET_KEY_FILE)"
keyfile="$state/secret.key"
[[ -s "$keyfile" ]] || (umask 077 && head -c 32 /dev/urandom | base64 >"$keyfile")
export FERRY_SECRET_KEY_FILE="$keyfile"
# Workers read and write local files only inside their roots (ferry worker --local-root; here the demo's folder).
export FERRY_LOCAL_ROOTS="$state/demo"
curl -fsS -X POST "$dropbox/__dev/accounts" -d '{"account":"demo"}' | python3 -c 'import json,sys; print(json.load(sys.stdin)["refresh_token"])' |
    "$ferry" account add demo --provider dropbox --app-key ferry-demo --app-secret-file "$appsecret" --refresh-token-file - \
        --api-url "$dropbox" --content-url "$dropbox" --authorize-url "$dropbox"
"$ferry" account list

say "generating 20 sample photos (the original app's batch) and one 40 MiB video (chunked upload session)"
/usr/bin/python3 scripts/sample-photos.py "$state/demo/photos" 20
head -c $((40 * 1024 * 1024)) /dev/urandom >"$state/demo/photos/video.mov"

say "ferry enqueue upload … --to dropbox:demo:/Photos/2026/ --batch holiday-2026"
"$ferry" enqueue upload "$state"/demo/photos/*.jpg "$state/demo/photos/video.mov" --to "dropbox:demo:/Photos/2026/" --batch holiday-2026 | head -3
echo "…"

workers=()
cleanup() {
    for pid in "${workers[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
    kill -TERM "$devserver" 2>/dev/null || true
    wait 2>/dev/null || true
}
trap cleanup EXIT

say "starting two workers (4 MiB chunks, so progress is visible)"
for name in demo-worker-1 demo-worker-2; do
    "$ferry" worker --name "$name" --concurrency 3 --chunk-size 4 --log-level warning &
    workers+=($!)
done

say "progress (ferry.batch_status)"
while true; do
    line=$(psql "$FERRY_DATABASE_URL" -Atc \
        "SELECT format('%s/%s done, %s running, %s of %s, %s%%', succeeded + failed + cancelled, jobs, running,
                       pg_size_pretty(bytes_done), pg_size_pretty(bytes_total), percent), done
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

say "the files on the dev server (list_folder, the real Dropbox API)"
token=$(curl -fsS "$dropbox/oauth2/token" -d grant_type=refresh_token -d client_id=ferry-demo --data-urlencode "client_secret=$(cat "$appsecret")" \
    --data-urlencode "refresh_token=$(curl -fsS -X POST "$dropbox/__dev/accounts" -d '{"account":"demo"}' | python3 -c 'import json,sys; print(json.load(sys.stdin)["refresh_token"])')" |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["access_token"])')
curl -fsS "$dropbox/2/files/list_folder" -H "Authorization: Bearer $token" -H "Content-Type: application/json" \
    -d '{"path": "/Photos/2026"}' |
    python3 -c 'import json,sys
for e in json.load(sys.stdin)["entries"][:6]: print("  %-18s %9d  %s" % (e["name"], e["size"], e["content_hash"][:16] + "…"))
print("  …")'
curl -fsS "$dropbox/__dev/stats" | python3 -c 'import json,sys; s=json.load(sys.stdin)
print("  dev server: %d files committed, %d token refreshes, faults injected %s" % (s["files_committed"], sum(s["token_refreshes_per_account"].values()), s["faults_injected"]))'

say "every file arrived intact"
failed=0
for photo in "$state"/demo/photos/*; do
    if ! cmp -s "$photo" "$storage/demo/Photos/2026/$(basename "$photo")"; then echo "  MISMATCH: $photo"; failed=1; fi
done
[[ $failed -eq 0 ]] && echo "  21 of 21 identical (cmp)"

say "fetching the folder back, and its thumbnails (one listing job per folder fans out a child per file)"
fetched="$state/demo/fetched"
rm -rf "$fetched"
"$ferry" enqueue fetch dropbox:demo:/Photos/2026 --to "$fetched/full/" --page-size 8 --batch fetch-back >/dev/null
"$ferry" enqueue fetch dropbox:demo:/Photos/2026 --to "$fetched/thumbs/" --thumbnail w256h256 --batch fetch-back >/dev/null
echo "  ferry enqueue fetch dropbox:demo:/Photos/2026 --to …/full/ --page-size 8 --batch fetch-back"
echo "  ferry enqueue fetch dropbox:demo:/Photos/2026 --to …/thumbs/ --thumbnail w256h256 --batch fetch-back"
for name in demo-worker-1 demo-worker-2; do
    "$ferry" worker --name "$name" --concurrency 4 --log-level warning &
    workers+=($!)
done
"$ferry" wait --batch fetch-back --progress --timeout 300 || failed=1
for pid in "${workers[@]}"; do kill -TERM "$pid"; done
for pid in "${workers[@]}"; do wait "$pid" || true; done
workers=()
psql "$FERRY_DATABASE_URL" -P pager=off -c "SELECT batch, jobs, succeeded, failed, pg_size_pretty(bytes_done) AS bytes, done FROM ferry.batch_status WHERE batch = 'fetch-back'"
same=0
for photo in "$state"/demo/photos/*; do
    if cmp -s "$photo" "$fetched/full/$(basename "$photo")"; then same=$((same + 1)); else echo "  MISMATCH: $(basename "$photo")"; failed=1; fi
done
echo "  $same of 21 fetched files identical to the originals (cmp)"
thumbs=0
for photo in "$state"/demo/photos/*.jpg; do
    thumb="$fetched/thumbs/$(basename "$photo")"
    # A JPEG (FF D8), and much smaller than the photo.
    if [[ -s "$thumb" && $(head -c 2 "$thumb" | od -An -tx1 | tr -d ' ') == ffd8 && $(stat -c %s "$thumb") -lt $(stat -c %s "$photo") ]]; then
        thumbs=$((thumbs + 1))
    else
        echo "  BAD THUMBNAIL: $(basename "$photo")"; failed=1
    fi
done
[[ -e "$fetched/thumbs/video.mov" ]] && { echo "  a thumbnail was made for a video"; failed=1; }
echo "  $thumbs of 20 thumbnails are w256h256 JPEGs smaller than their photos (the video is skipped)"

say "a Flickr photostream (the dev server stands in for api.flickr.com): metadata first, then every photo, then all done"
curl -fsS -o /dev/null -X POST "$dropbox/__dev/flickr/users" -d '{"user_id":"98765432@N00","count":30}'
printf 'ferry-dev-flickr' | "$ferry" account add flickr --provider flickr --api-key-file - \
    --api-url "$dropbox/services/rest/" --content-url "$dropbox/flickr/photos"
"$ferry" enqueue fetch flickr:98765432@N00 --to "$fetched/flickr/" --batch flickr >/dev/null
"$ferry" worker --name demo-worker-1 --concurrency 4 --log-level warning &
workers+=($!)
"$ferry" wait --batch flickr --progress --timeout 300 || failed=1
kill -TERM "${workers[0]}"; wait "${workers[0]}" || true
workers=()
psql "$FERRY_DATABASE_URL" -P pager=off -c \
    "SELECT metadata->>'title' AS title, metadata->>'owner' AS owner, status, bytes_done
       FROM ferry.job_status WHERE batch = 'flickr' AND metadata ? 'title' ORDER BY destination LIMIT 5"
psql "$FERRY_DATABASE_URL" -P pager=off -c "SELECT batch, type, data, recorded_at FROM ferry.batch_events ORDER BY position"
echo "  $(ls "$fetched/flickr" | wc -l) photos in $fetched/flickr"
"$ferry" projection verify

say "an Instagram feed (the dev server stands in for graph.instagram.com): every image, video and album child"
ig=$(curl -fsS -X POST "$dropbox/__dev/instagram/users" -d '{"username":"ferry.demo","count":12}')
ig_files=$(python3 -c 'import json,sys; print(json.load(sys.stdin)["files"])' <<<"$ig")
python3 -c 'import json,sys; print(json.load(sys.stdin)["access_token"])' <<<"$ig" |
    "$ferry" account add ig --provider instagram --token-file - --api-url "$dropbox"
"$ferry" enqueue fetch instagram:ig --to "$fetched/instagram/" --batch instagram >/dev/null
"$ferry" worker --name demo-worker-1 --concurrency 4 --log-level warning &
workers+=($!)
"$ferry" wait --batch instagram --progress --timeout 300 || failed=1
kill -TERM "${workers[0]}"; wait "${workers[0]}" || true
workers=()
psql "$FERRY_DATABASE_URL" -P pager=off -c \
    "SELECT metadata->>'username' AS username, metadata->>'posted' AS posted, metadata->>'like_count' AS likes,
            regexp_replace(destination, '.*/', '') AS file
       FROM ferry.job_status WHERE batch = 'instagram' AND metadata ? 'username' ORDER BY destination LIMIT 5"
ig_got=$(ls "$fetched/instagram" | wc -l)
echo "  $ig_got of $ig_files files of 12 posts in $fetched/instagram"
[[ "$ig_got" -eq "$ig_files" ]] || { echo "  WRONG NUMBER OF INSTAGRAM FILES"; failed=1; }

say "Google Drive (the dev server speaks Drive v3 on Google's own paths): the Dropbox folder copied there, through the capabilities"
curl -fsS -X POST "$dropbox/__dev/gdrive/accounts" -d '{"account":"drive"}' | python3 -c 'import json,sys; print(json.load(sys.stdin)["refresh_token"])' |
    "$ferry" account add drive --provider gdrive --client-id ferry-demo --client-secret-file "$appsecret" --refresh-token-file - \
        --api-url "$dropbox"
echo "  ferry enqueue copy dropbox:demo:/Photos/2026/ --to gdrive:drive:/Backup/2026/ --batch to-drive"
"$ferry" enqueue copy dropbox:demo:/Photos/2026/ --to gdrive:drive:/Backup/2026/ --batch to-drive >/dev/null
for name in demo-worker-1 demo-worker-2; do
    "$ferry" worker --name "$name" --concurrency 4 --chunk-size 4 --log-level warning &
    workers+=($!)
done
"$ferry" wait --batch to-drive --progress --timeout 300 || failed=1
for pid in "${workers[@]}"; do kill -TERM "$pid"; done
for pid in "${workers[@]}"; do wait "$pid" || true; done
workers=()
psql "$FERRY_DATABASE_URL" -P pager=off -c "SELECT batch, jobs, succeeded, failed, pg_size_pretty(bytes_done) AS bytes, done FROM ferry.batch_status WHERE batch = 'to-drive'"
curl -fsS -X POST "$dropbox/__dev/gdrive/items" -d '{"account":"drive"}' | python3 -c 'import json,sys,hashlib,os
items = [i for i in json.load(sys.stdin)["items"] if i.get("mimeType") != "application/vnd.google-apps.folder"]
photos = sys.argv[1]
same = sum(1 for i in items if os.path.exists(os.path.join(photos, i["name"])) and
           hashlib.md5(open(os.path.join(photos, i["name"]), "rb").read()).hexdigest() == i.get("md5Checksum"))
for i in sorted(items, key=lambda i: i["path"])[:4]: print("  %-34s id %s…  md5 %s…" % (i["path"], i["id"][:10], i.get("md5Checksum", "")[:12]))
print("  …\n  %d of %d files in the Drive have the MD5 of their original photo" % (same, len(items)))
sys.exit(0 if same == len(items) == 21 else 1)' "$state/demo/photos" || failed=1

say "a backup that holds: sync mirrors a folder (new and changed files copied, deleted ones deleted), check proves it"
backup="$state/demo/backup-src"
rm -rf "$backup"; mkdir -p "$backup"; cp "$state"/demo/photos/*.jpg "$backup/"
echo "  ferry enqueue sync $backup --to dropbox:demo:/Backup/ --exclude '*.tmp' --batch backup-1"
"$ferry" enqueue sync "$backup" --to dropbox:demo:/Backup/ --exclude '*.tmp' --batch backup-1 >/dev/null
"$ferry" worker --name demo-worker-1 --concurrency 4 --log-level warning &
workers+=($!)
"$ferry" wait --batch backup-1 --timeout 300 || failed=1
# The next night: one photo edited, one deleted, one scratch file that the filter leaves out.
first_photo=$(ls "$backup"/*.jpg | head -1); last_photo=$(ls "$backup"/*.jpg | tail -1)
printf 'edited' >> "$first_photo"; rm "$last_photo"; echo scratch > "$backup/notes.tmp"
"$ferry" enqueue sync "$backup" --to dropbox:demo:/Backup/ --exclude '*.tmp' --dry-run 2>&1 | sed 's/^/  /'
"$ferry" enqueue sync "$backup" --to dropbox:demo:/Backup/ --exclude '*.tmp' --batch backup-2 >/dev/null
"$ferry" wait --batch backup-2 --timeout 300 || failed=1
kill -TERM "${workers[0]}"; wait "${workers[0]}" || true
workers=()
psql "$FERRY_DATABASE_URL" -P pager=off -c \
    "SELECT batch, state, result->>'source_files' AS source_files, result->>'deleted' AS deleted FROM ferry.jobs WHERE spec ? 'sync' ORDER BY batch"
echo "  ferry check $backup dropbox:demo:/Backup/ --checksum --exclude '*.tmp'"
"$ferry" check "$backup" dropbox:demo:/Backup/ --checksum --exclude '*.tmp' --differ-only || failed=1

say "retention: every finished job leaves PostgreSQL for a checksummed archive file, and comes back"
rm -rf "$state/demo/archive"
"$ferry" archive --finished-before 0s --to "$state/demo/archive"
"$ferry" archive list
# An archived batch answers with where it went and how to bring it back (exit 67), and its completion record.
"$ferry" wait --batch holiday-2026 --timeout 5 || echo "(ferry wait exited $?: the batch is archived)"
first=$(ls "$state/demo/archive"/*.jsonl.gz | head -1)
"$ferry" archive restore "$first"
"$ferry" projection verify
say "done. Explore with:  FERRY_DATABASE_URL=$FERRY_DATABASE_URL $ferry status --batch holiday-2026"
echo "PostgreSQL keeps running in .ferry/pg; stop it with: scripts/pg.sh stop .ferry/pg"
exit $failed
