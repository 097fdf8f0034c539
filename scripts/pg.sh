#!/usr/bin/env bash
# A private PostgreSQL cluster in a directory of ours, run as an unprivileged user (initdb refuses root).
#
#   scripts/pg.sh start DIR [--fast]   create (if needed) and start; prints the connection URL
#   scripts/pg.sh stop DIR             stop (fast shutdown)
#   scripts/pg.sh restart DIR [fast]   restart with the same port and data: an immediate stop by default (connections
#                                      drop as in a crash; resilience tests), a fast shutdown with "fast" (chaos runs)
#   scripts/pg.sh url DIR              print the connection URL of a running cluster
#   scripts/pg.sh standby DIR PRIMARY_URL [--fast]
#                                      create (if needed) and start a streaming hot standby of the cluster at
#                                      PRIMARY_URL (pg_basebackup -R from it, as the unprivileged user); prints its
#                                      URL. stop, restart and url work on DIR as on any cluster of pg.sh.
#   scripts/pg.sh lag DIR              on a standby: seconds since the last replayed commit's time on the primary
#                                      (now() - pg_last_xact_replay_timestamp()), and whether WAL is all replayed
#
# --fast turns off fsync for throwaway test clusters; benchmarks and the demo use PostgreSQL's defaults. A standby
# starts from a copy of its primary's settings (so --fast is the primary's): what it adds is its own socket
# directory and, with --fast, fsync off.
set -euo pipefail

usage="usage: pg.sh start DIR [--fast] | stop DIR | restart DIR [fast] | url DIR | standby DIR PRIMARY_URL [--fast] | lag DIR"
cmd=${1:?$usage}
dir=${2:?$usage}
fast=${3:-}

# shellcheck source=scripts/pg-lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/pg-lib.sh"
bindir=$(pg_bindir)
[[ -n "$bindir" ]] || { echo "error: PostgreSQL server binaries not found; run scripts/install-deps.sh" >&2; exit 1; }

url() {
    local port
    port=$(cat "$dir/port")
    echo "postgresql://postgres@127.0.0.1:${port}/postgres"
}

case "$cmd" in
start)
    mkdir -p "$dir"
    dir=$(cd "$dir" && pwd)
    [[ $(id -u) -eq 0 ]] && chown postgres "$dir"
    if [[ ! -f "$dir/data/PG_VERSION" ]]; then
        as_owner "$bindir/initdb" -D "$dir/data" -U postgres -A trust -E UTF8 --no-locale >"$dir/initdb.log" 2>&1 \
            || { cat "$dir/initdb.log" >&2; exit 1; }
        {
            pg_private_settings "$dir" "$fast"
            if [[ "$fast" == "--fast" ]]; then
                echo "synchronous_commit = off"
                echo "full_page_writes = off"
            fi
        } | as_owner tee -a "$dir/data/postgresql.conf" >/dev/null
    fi
    [[ -f "$dir/port" ]] || free_port >"$dir/port"
    port=$(cat "$dir/port")
    if ! as_owner "$bindir/pg_ctl" -D "$dir/data" status >/dev/null 2>&1; then
        as_owner "$bindir/pg_ctl" -D "$dir/data" -o "-p $port" -l "$dir/server.log" -w -t 60 start >/dev/null \
            || { tail -20 "$dir/server.log" >&2; exit 1; }
    fi
    url
    ;;
stop)
    [[ -d "$dir/data" ]] && as_owner "$bindir/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null 2>&1 || true
    ;;
restart)
    port=$(cat "$dir/port")
    mode=immediate
    [[ "$fast" == "fast" ]] && mode=fast
    as_owner "$bindir/pg_ctl" -D "$dir/data" -m "$mode" -w stop >/dev/null 2>&1 || true
    as_owner "$bindir/pg_ctl" -D "$dir/data" -o "-p $port" -l "$dir/server.log" -w -t 60 start >/dev/null
    ;;
url)
    url
    ;;
standby)
    primary=${3:?$usage}
    fast=${4:-}
    mkdir -p "$dir"
    dir=$(cd "$dir" && pwd)
    [[ $(id -u) -eq 0 ]] && chown postgres "$dir"
    if [[ ! -f "$dir/data/PG_VERSION" ]]; then
        # A clone of the whole cluster over the replication protocol: -R writes standby.signal and primary_conninfo
        # (the same host, port and user), -X stream carries the WAL written meanwhile, --checkpoint=fast starts at
        # once. initdb's pg_hba.conf already trusts replication connections from 127.0.0.1.
        as_owner "$bindir/pg_basebackup" -d "$primary" -D "$dir/data" -R -X stream --checkpoint=fast \
            >"$dir/basebackup.log" 2>&1 || { cat "$dir/basebackup.log" >&2; rm -rf "$dir/data"; exit 1; }
        {
            echo "# pg.sh standby"
            echo "unix_socket_directories = '$dir'"
            echo "hot_standby = on"
            [[ "$fast" == "--fast" ]] && echo "fsync = off"
        } | as_owner tee -a "$dir/data/postgresql.conf" >/dev/null
    fi
    [[ -f "$dir/port" ]] || free_port >"$dir/port"
    port=$(cat "$dir/port")
    if ! as_owner "$bindir/pg_ctl" -D "$dir/data" status >/dev/null 2>&1; then
        as_owner "$bindir/pg_ctl" -D "$dir/data" -o "-p $port" -l "$dir/server.log" -w -t 60 start >/dev/null \
            || { tail -20 "$dir/server.log" >&2; exit 1; }
    fi
    url
    ;;
lag)
    # pg_last_xact_replay_timestamp() is null before the first replayed commit; the lag then reads as 0.
    "$bindir/psql" -X -At -F ' ' -v ON_ERROR_STOP=1 "$(url)" -c "SELECT
        coalesce(extract(epoch FROM now() - pg_last_xact_replay_timestamp()), 0)::numeric(12, 3),
        CASE WHEN pg_last_wal_receive_lsn() = pg_last_wal_replay_lsn() THEN 'replayed' ELSE 'replaying' END"
    ;;
*)
    echo "$usage" >&2
    exit 2
    ;;
esac
