#!/usr/bin/env bash
# Regenerates migrations/schema.sql: the ferry schema as pg_dump prints it after every migration ran on an empty
# database. A test (SchemaSnapshotTests) fails when the migrations and the snapshot drift: run this, review the
# diff, commit both.
#   scripts/schema-snapshot.sh            starts a throwaway PostgreSQL for the run
set -euo pipefail
cd "$(dirname "$0")/.."
pgdir=$(mktemp -d /tmp/ferry-snapshot-pg.XXXXXX)
cleanup() { scripts/pg.sh stop "$pgdir" || true; rm -rf "$pgdir"; }
trap cleanup EXIT
url=$(scripts/pg.sh start "$pgdir" --fast)
swift build --product ferry 2>&1 | tail -1
"$(swift build --show-bin-path)/ferry" migrate --database-url "$url" --migrations migrations >/dev/null
scripts/schema-dump.sh "$url" > migrations/schema.sql
echo "wrote migrations/schema.sql ($(wc -l < migrations/schema.sql) lines)"
