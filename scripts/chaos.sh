#!/usr/bin/env bash
# The chaos suite: real worker processes, the dev server and PostgreSQL under faults, kill -9 and restarts, then
# exact checks that nothing was lost, duplicated or damaged (docs/operations.md, "Chaos"). Options go to ferry-chaos
# (ferry-chaos --help lists them all):
#
#   scripts/chaos.sh                                                 # 2 minutes of chaos, release build
#   scripts/chaos.sh --duration 600 --uploads 300 --fetches 150      # a soak (make chaos)
#   scripts/chaos.sh --seed 123456789 …                              # replay a run: the seed is printed
#   scripts/chaos.sh --failover --duration 300 --uploads 400         # the failover phase: a pg_auto_failover
#                                                                    # formation of its own (scripts/failover.sh)
#
# FERRY_BIN_DIR=DIR runs binaries already built there (scripts/test.sh passes its debug build). FERRY_CHAOS_PG_URL
# and FERRY_CHAOS_PG_DIR run against a cluster of scripts/pg.sh that is already up (it gets restarted).
set -euo pipefail
cd "$(dirname "$0")/.."

if [[ -z "${FERRY_BIN_DIR:-}" ]]; then
    echo "==> building ferry and ferry-chaos (release)"
    swift build -c release --product ferry 2>&1 | tail -1
    swift build -c release --product ferry-chaos 2>&1 | tail -1
    FERRY_BIN_DIR=$(swift build -c release --show-bin-path)
fi

# The failover phase brings its own formation (scripts/failover.sh), not a cluster of pg.sh.
for arg in "$@"; do
    if [[ "$arg" == "--failover" ]]; then
        exec "$FERRY_BIN_DIR/ferry-chaos" --ferry "$FERRY_BIN_DIR/ferry" --failover-script scripts/failover.sh "$@"
    fi
done

if [[ -n "${FERRY_CHAOS_PG_URL:-}" ]]; then
    url=$FERRY_CHAOS_PG_URL
    pgdir=${FERRY_CHAOS_PG_DIR:?FERRY_CHAOS_PG_DIR must name the cluster directory of FERRY_CHAOS_PG_URL}
else
    pgdir=$(mktemp -d /tmp/ferry-chaos-pg.XXXXXX)
    trap 'scripts/pg.sh stop "$pgdir"; rm -rf "$pgdir"' EXIT
    echo "==> starting a private PostgreSQL in $pgdir (default settings: fsync on)"
    url=$(scripts/pg.sh start "$pgdir")
fi

"$FERRY_BIN_DIR/ferry-chaos" --ferry "$FERRY_BIN_DIR/ferry" --database-url "$url" --pg-dir "$pgdir" --pg-script scripts/pg.sh "$@"
