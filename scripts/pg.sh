#!/usr/bin/env bash
# A private PostgreSQL cluster in a directory of ours, run as an unprivileged user (initdb refuses root).
#
#   scripts/pg.sh start DIR [--fast]   create (if needed) and start; prints the connection URL
#   scripts/pg.sh stop DIR             stop (fast shutdown)
#   scripts/pg.sh restart DIR [fast]   restart with the same port and data: an immediate stop by default (connections
#                                      drop as in a crash; resilience tests), a fast shutdown with "fast" (chaos runs)
#   scripts/pg.sh url DIR              print the connection URL of a running cluster
#
# --fast turns off fsync for throwaway test clusters; benchmarks and the demo use PostgreSQL's defaults.
set -euo pipefail

cmd=${1:?usage: pg.sh start|stop|restart|url DIR}
dir=${2:?usage: pg.sh start|stop|restart|url DIR}
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
*)
    echo "usage: pg.sh start|stop|restart|url DIR" >&2
    exit 2
    ;;
esac
