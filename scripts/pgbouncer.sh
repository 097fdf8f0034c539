#!/usr/bin/env bash
# A private PgBouncer in transaction pooling mode in front of a PostgreSQL, run as an unprivileged user (PgBouncer
# refuses root), the way scripts/pg.sh runs a private cluster.
#
#   scripts/pgbouncer.sh start DIR --upstream URL [--pool-size N]   start (config, log and pid in DIR); prints its URL
#   scripts/pgbouncer.sh stop DIR                                   stop it
#   scripts/pgbouncer.sh url DIR                                    print the URL of a running one
#
# Every database name is passed through to the upstream server (a wildcard entry); --pool-size (default 10) is the
# number of server connections per database and user. Authentication is trust, as in pg.sh's clusters.
set -euo pipefail

usage="usage: pgbouncer.sh start DIR --upstream URL [--pool-size N] | stop DIR | url DIR"
cmd=${1:?$usage}
dir=${2:?$usage}
shift 2
upstream=""
pool_size=10
while (($#)); do
    case "$1" in
    --upstream) upstream=${2:?$usage}; shift 2 ;;
    --pool-size) pool_size=${2:?$usage}; shift 2 ;;
    *) echo "$usage" >&2; exit 2 ;;
    esac
done

command -v pgbouncer >/dev/null || [[ -x /usr/sbin/pgbouncer ]] \
    || { echo "error: pgbouncer not found; run scripts/install-deps.sh" >&2; exit 1; }
bin=$(command -v pgbouncer || echo /usr/sbin/pgbouncer)

# shellcheck source=scripts/pg-lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/pg-lib.sh"

url() {
    echo "postgresql://$(cat "$dir/user")@127.0.0.1:$(cat "$dir/port")/$(cat "$dir/dbname")"
}

running() {
    [[ -f "$dir/pgbouncer.pid" ]] && kill -0 "$(cat "$dir/pgbouncer.pid")" 2>/dev/null
}

case "$cmd" in
start)
    [[ -n "$upstream" ]] || { echo "$usage" >&2; exit 2; }
    mkdir -p "$dir"
    dir=$(cd "$dir" && pwd)
    # host port user dbname of the upstream URL (postgresql://user@host:port/dbname?…).
    read -r host port user dbname < <(python3 -c '
import sys, urllib.parse
u = urllib.parse.urlsplit(sys.argv[1])
print(u.hostname or "127.0.0.1", u.port or 5432, u.username or "postgres", (u.path or "/postgres").lstrip("/") or "postgres")
' "$upstream")
    [[ -f "$dir/port" ]] || free_port >"$dir/port"
    echo "$user" >"$dir/user"
    echo "$dbname" >"$dir/dbname"
    cat >"$dir/pgbouncer.ini" <<EOF
[databases]
* = host=$host port=$port

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $(cat "$dir/port")
unix_socket_dir =
auth_type = trust
auth_file = $dir/userlist.txt
pool_mode = transaction
default_pool_size = $pool_size
max_client_conn = 2000
logfile = $dir/pgbouncer.log
pidfile = $dir/pgbouncer.pid
EOF
    echo "\"$user\" \"\"" >"$dir/userlist.txt"
    [[ $(id -u) -eq 0 ]] && chown -R postgres "$dir"
    if ! running; then
        as_owner "$bin" -d "$dir/pgbouncer.ini" >>"$dir/start.log" 2>&1 \
            || { tail -20 "$dir/pgbouncer.log" "$dir/start.log" >&2 2>/dev/null; exit 1; }
        for _ in $(seq 100); do
            python3 -c 'import socket,sys; socket.create_connection(("127.0.0.1", int(sys.argv[1])), 1).close()' \
                "$(cat "$dir/port")" 2>/dev/null && break
            sleep 0.1
        done
    fi
    url
    ;;
stop)
    if running; then
        pid=$(cat "$dir/pgbouncer.pid")
        kill "$pid" 2>/dev/null || true
        for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    fi
    ;;
url)
    url
    ;;
*)
    echo "$usage" >&2
    exit 2
    ;;
esac
