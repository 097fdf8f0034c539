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
#   scripts/chaos.sh --partition --duration 180 --uploads 120        # the partition phase (root): PostgreSQL, the
#                                                                    # dev server and a full disk that do not answer
#
# The partition phase runs in a network namespace of its own with a PostgreSQL of its own (its iptables rules
# never touch the host's) and mounts a tmpfs of FERRY_CHAOS_FILL_SIZE (default 1g) over the fetch destinations,
# which it fills for a while: it needs root, ip (iproute2) and iptables.
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

for arg in "$@"; do
    if [[ "$arg" == "--partition" ]]; then
        if [[ $(id -u) != 0 ]]; then
            echo "chaos.sh --partition: needs root (a network namespace, iptables, a tmpfs); run it as root, or leave --partition out" >&2
            exit 2
        fi
        for tool in ip iptables mount; do
            command -v "$tool" >/dev/null || { echo "chaos.sh --partition: needs $tool (Debian packages iproute2, iptables)" >&2; exit 2; }
        done
        keep=0
        for a in "$@"; do [[ "$a" == "--keep" ]] && keep=1; done
        ns="ferry-chaos-$$"
        pgdir=$(mktemp -d /tmp/ferry-chaos-pg.XXXXXX)
        work=$(mktemp -d /tmp/ferry-chaos-part.XXXXXX)
        status=2
        cleanup() {
            ip netns exec "$ns" /bin/bash scripts/pg.sh stop "$pgdir" >/dev/null 2>&1 || true
            umount "$work/fetched" 2>/dev/null || true
            ip netns del "$ns" 2>/dev/null || true
            rm -rf "$pgdir"
            # A failed run keeps its logs (ferry-chaos says where); a passed one leaves nothing.
            if [[ $status == 0 && $keep == 0 ]]; then rm -rf "$work"; fi
        }
        trap cleanup EXIT
        ip netns add "$ns"
        ip netns exec "$ns" ip link set lo up
        echo "==> partition phase: network namespace $ns, a private PostgreSQL in $pgdir, a ${FERRY_CHAOS_FILL_SIZE:-1g} tmpfs on $work/fetched"
        url=$(ip netns exec "$ns" /bin/bash scripts/pg.sh start "$pgdir")
        mkdir -p "$work/fetched"
        mount -t tmpfs -o "size=${FERRY_CHAOS_FILL_SIZE:-1g}" ferry-chaos-fill "$work/fetched"
        set +e
        ip netns exec "$ns" "$FERRY_BIN_DIR/ferry-chaos" --ferry "$FERRY_BIN_DIR/ferry" --database-url "$url" --pg-dir "$pgdir" \
            --pg-script scripts/pg.sh --work-dir "$work" --fill-dir "$work/fetched" "$@"
        status=$?
        set -e
        exit $status
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
