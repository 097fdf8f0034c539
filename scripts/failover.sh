#!/usr/bin/env bash
# A private pg_auto_failover formation in a directory of ours: a monitor and two nodes with synchronous replication,
# each a cluster on a free local port run by its keeper (`pg_autoctl run`) as an unprivileged user, the way
# scripts/pg.sh runs one cluster (Debian packages postgresql-15-auto-failover and pg-auto-failover-cli; run
# scripts/install-deps.sh). Timeouts are cut for tests: a dead primary is noticed within seconds.
#
#   scripts/failover.sh start DIR [--fast]   create (if needed) and start; prints Ferry's multi-host URL
#                                            (postgresql://postgres@127.0.0.1:P1,127.0.0.1:P2/ferry?target_session_attrs=read-write)
#   scripts/failover.sh stop DIR             stop every keeper and cluster of the formation, dead ones included
#   scripts/failover.sh status DIR           the monitor's view (pg_autoctl show state)
#   scripts/failover.sh url DIR              print Ferry's URL again
#   scripts/failover.sh node-url DIR NODE    the URL of one node (node1, node2), for reads that must go to it
#   scripts/failover.sh primary DIR          the name of the node that is primary now (exit 1 if none is)
#   scripts/failover.sh wait-ready DIR [S]   wait (at most S seconds, default 120) for a primary and a secondary in
#                                            synchronous replication, as after start
#   scripts/failover.sh switchover DIR       a planned switchover (pg_autoctl perform switchover); returns once the
#                                            other node is primary and the old one its synchronous standby again
#   scripts/failover.sh kill-primary DIR     kill -9 the primary's keeper and PostgreSQL (as a machine that dies);
#                                            prints the killed node's name and the moment of the kill (Unix time,
#                                            "node2 1764212345.123456789"); the monitor promotes the standby
#   scripts/failover.sh restart DIR NODE     start a killed node's keeper again: it rejoins as a standby
#
# --fast turns off fsync (see pg-lib.sh); commits stay synchronous (synchronous_commit on, the standby confirms
# each one) and full_page_writes stays on (pg_rewind needs it to turn an old primary into a standby).
set -euo pipefail

# The keepers and their PostgreSQL inherit what the caller left open, and a caller holding many descriptors (a test
# process, ferry-chaos) would leave PostgreSQL too few to start ("insufficient file descriptors available to start
# server process"): close everything but stdin, stdout, stderr and bash's own copy of this script (255).
for fd in /proc/$$/fd/*; do
    fd=${fd##*/}
    if [[ "$fd" =~ ^[0-9]+$ ]] && ((fd > 2 && fd != 255)); then eval "exec $fd>&-" 2>/dev/null || true; fi
done

usage="usage: failover.sh start DIR [--fast] | stop DIR | status DIR | url DIR | node-url DIR NODE | primary DIR | wait-ready DIR [SECONDS] | switchover DIR | kill-primary DIR | restart DIR NODE"
cmd=${1:?$usage}
dir=${2:?$usage}
arg=${3:-}

# shellcheck source=scripts/pg-lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/pg-lib.sh"
bindir=$(pg_bindir)
[[ -n "$bindir" ]] || { echo "error: PostgreSQL server binaries not found; run scripts/install-deps.sh" >&2; exit 1; }
command -v pg_autoctl >/dev/null && [[ -f "$(dirname "$bindir")/lib/pgautofailover.so" || -n $(ls /usr/lib/postgresql/*/lib/pgautofailover.so 2>/dev/null) ]] \
    || { echo "error: pg_auto_failover not found; run scripts/install-deps.sh" >&2; exit 1; }

nodes=(node1 node2)

# The monitor's health checks and the keepers' timeouts, cut from the defaults (checks every 5 s, 2 retries 2 s
# apart, unhealthy after 20 s without a report, 30 s for a primary to demote, 20 s network partition): a dead
# primary is declared unhealthy after about 2 s and its standby promoted a few seconds later. The rule that keeps
# split brain away still holds: an isolated primary demotes itself (network_partition_timeout) before the monitor
# gives up waiting for it (primary_demote_timeout).
monitor_settings() {
    echo "pgautofailover.health_check_period = 1000"
    echo "pgautofailover.health_check_timeout = 1000"
    echo "pgautofailover.health_check_max_retries = 1"
    echo "pgautofailover.health_check_retry_delay = 500"
    echo "pgautofailover.node_considered_unhealthy_timeout = 2000"
    echo "pgautofailover.primary_demote_timeout = 4000"
    echo "pgautofailover.startup_grace_period = 1000"
}
keeper_timeouts=(
    timeout.network_partition_timeout 2
    timeout.postgresql_restart_failure_timeout 5
    timeout.postgresql_restart_failure_max_retries 2
)

# pg_autoctl keeps its configuration, state and pid files under the XDG directories: ours, inside DIR, so that
# formations never meet and stop leaves nothing behind.
autoctl() {
    as_owner env XDG_CONFIG_HOME="$dir/xdg/config" XDG_DATA_HOME="$dir/xdg/data" XDG_RUNTIME_DIR="$dir/xdg/run" \
        PATH="$bindir:/usr/bin:/bin" pg_autoctl "$@"
}

psql_at() {
    "$bindir/psql" -X -At -v ON_ERROR_STOP=1 "$@"
}

monitor_uri() {
    echo "postgres://autoctl_node@127.0.0.1:$(cat "$dir/monitor.port")/pg_auto_failover?sslmode=disable"
}

url() {
    echo "postgresql://postgres@127.0.0.1:$(cat "$dir/node1.port"),127.0.0.1:$(cat "$dir/node2.port")/ferry?target_session_attrs=read-write"
}

node_url() {
    echo "postgresql://postgres@127.0.0.1:$(cat "$dir/$1.port")/ferry"
}

# The keeper of NAME runs in a session of its own (setsid): its process group holds the keeper, its services and
# the postmaster (PostgreSQL's own children set up sessions of their own and exit when the postmaster dies), so one
# kill -9 of the group is a machine going down. The group id is in NAME.pid.
running() {
    [[ -f "$dir/$1.pid" ]] && kill -0 -- "-$(cat "$dir/$1.pid")" 2>/dev/null
}

run_keeper() {
    local name=$1
    running "$name" && return 0
    if [[ $(id -u) -eq 0 ]]; then
        setsid runuser -u postgres -- env XDG_CONFIG_HOME="$dir/xdg/config" XDG_DATA_HOME="$dir/xdg/data" \
            XDG_RUNTIME_DIR="$dir/xdg/run" PATH="$bindir:/usr/bin:/bin" \
            pg_autoctl run --pgdata "$dir/$name" >>"$dir/$name.log" 2>&1 </dev/null &
    else
        setsid env XDG_CONFIG_HOME="$dir/xdg/config" XDG_DATA_HOME="$dir/xdg/data" XDG_RUNTIME_DIR="$dir/xdg/run" \
            PATH="$bindir:/usr/bin:/bin" pg_autoctl run --pgdata "$dir/$name" >>"$dir/$name.log" 2>&1 </dev/null &
    fi
    echo $! >"$dir/$name.pid"
}

# The monitor's view as lines "name reported-state assigned-state".
states() {
    psql_at "$(monitor_uri)" -F ' ' -c \
        "SELECT nodename, reportedstate, goalstate FROM pgautofailover.node WHERE formationid = 'default' ORDER BY nodeid"
}

primary() {
    states 2>/dev/null | awk '($2 == "primary" || $2 == "wait_primary" || $2 == "single") && $2 == $3 { print $1; exit }'
}

# Waits until one node is primary and the other its secondary, and the primary requires the standby's
# confirmation for commits (synchronous_standby_names set): the formation's steady state.
wait_ready() {
    local seconds=${1:-120} deadline p
    deadline=$((SECONDS + seconds))
    while ((SECONDS < deadline)); do
        if [[ $(states 2>/dev/null | awk '$2 == $3 && ($2 == "primary" || $2 == "secondary")' | wc -l) -eq 2 ]]; then
            p=$(primary)
            if [[ -n "$p" && -n $(psql_at "$(node_url "$p")" -c "SHOW synchronous_standby_names" 2>/dev/null) ]]; then
                return 0
            fi
        fi
        sleep 0.2
    done
    echo "error: formation in $dir not ready after ${seconds}s:" >&2
    states >&2 || true
    return 1
}

start() {
    mkdir -p "$dir/xdg/config" "$dir/xdg/data" "$dir/xdg/run"
    dir=$(cd "$dir" && pwd)
    [[ -n "$arg" ]] && echo "$arg" >"$dir/options"
    local fast
    fast=$(cat "$dir/options" 2>/dev/null || true)
    [[ $(id -u) -eq 0 ]] && chown -R postgres "$dir"
    chmod 700 "$dir/xdg/run"
    for name in monitor "${nodes[@]}"; do
        [[ -f "$dir/$name.port" ]] || free_port >"$dir/$name.port"
    done

    if [[ ! -f "$dir/monitor/PG_VERSION" ]]; then
        autoctl create monitor --pgdata "$dir/monitor" --pgport "$(cat "$dir/monitor.port")" --pgctl "$bindir/pg_ctl" \
            --hostname 127.0.0.1 --listen 127.0.0.1 --auth trust --no-ssl >"$dir/monitor.log" 2>&1 \
            || { tail -20 "$dir/monitor.log" >&2; exit 1; }
        { pg_private_settings "$dir" "$fast"; monitor_settings; } | as_owner tee -a "$dir/monitor/postgresql.conf" >/dev/null
    fi
    run_keeper monitor
    for _ in $(seq 300); do
        psql_at "$(monitor_uri)" -c "SELECT 1" >/dev/null 2>&1 && break
        sleep 0.1
    done

    # One node after the other: the first registers as the primary (initdb), the second as its standby
    # (pg_basebackup from the first, settings included).
    for name in "${nodes[@]}"; do
        if [[ ! -f "$dir/$name/PG_VERSION" ]]; then
            autoctl create postgres --pgdata "$dir/$name" --pgport "$(cat "$dir/$name.port")" --pgctl "$bindir/pg_ctl" \
                --pghost 127.0.0.1 --listen 127.0.0.1 --hostname 127.0.0.1 --name "$name" --dbname ferry \
                --monitor "$(monitor_uri)" --auth trust --no-ssl >>"$dir/$name.log" 2>&1 \
                || { tail -20 "$dir/$name.log" >&2; exit 1; }
            grep -q '^# failover.sh' "$dir/$name/postgresql.conf" \
                || { echo "# failover.sh"; pg_private_settings "$dir" "$fast"; } | as_owner tee -a "$dir/$name/postgresql.conf" >/dev/null
            local i
            for ((i = 0; i < ${#keeper_timeouts[@]}; i += 2)); do
                autoctl config set --pgdata "$dir/$name" "${keeper_timeouts[i]}" "${keeper_timeouts[i + 1]}" >/dev/null
            done
        fi
        run_keeper "$name"
        # The first node must be primary before the second can clone it.
        if [[ "$name" == node1 ]]; then
            for _ in $(seq 600); do
                [[ -n $(primary) ]] && break
                sleep 0.1
            done
        fi
    done
    wait_ready 180 || exit 1
    url
}

stop() {
    [[ -d "$dir" ]] || return 0
    local name pid
    # Nodes first: a keeper whose monitor is gone would wait for it.
    for name in "${nodes[@]}" monitor; do
        [[ -f "$dir/$name.pid" ]] || continue
        if running "$name"; then
            autoctl stop --pgdata "$dir/$name" >/dev/null 2>&1 || kill -- "-$(cat "$dir/$name.pid")" 2>/dev/null || true
        fi
    done
    for name in "${nodes[@]}" monitor; do
        [[ -f "$dir/$name.pid" ]] || continue
        for _ in $(seq 300); do running "$name" || break; sleep 0.1; done
        running "$name" && kill -9 -- "-$(cat "$dir/$name.pid")" 2>/dev/null || true
        # A postmaster left behind by a keeper that did not stop it (its pid file names it).
        if [[ -f "$dir/$name/postmaster.pid" ]]; then
            pid=$(head -1 "$dir/$name/postmaster.pid")
            kill -0 "$pid" 2>/dev/null && as_owner "$bindir/pg_ctl" -D "$dir/$name" -m immediate -w stop >/dev/null 2>&1 || true
        fi
    done
}

kill_primary() {
    local name pid
    name=$(primary)
    [[ -n "$name" ]] || { echo "error: no primary in $dir" >&2; states >&2; exit 1; }
    pid=$(head -1 "$dir/$name/postmaster.pid")
    # Taken before the kill: a transaction that began later can only have run on another node.
    killed_at=$(date +%s.%N)
    kill -9 -- "-$(cat "$dir/$name.pid")"
    # The postmaster is in the keeper's group; this makes sure of it, whatever a version of pg_autoctl does.
    kill -9 "$pid" 2>/dev/null || true
    # Gone, or a zombie waiting for init to reap it.
    for _ in $(seq 100); do [[ $(ps -o stat= -p "$pid" 2>/dev/null) == [^Z]* ]] || break; sleep 0.05; done
    echo "$name $killed_at"
}

switchover() {
    local before after
    before=$(primary)
    [[ -n "$before" ]] || { echo "error: no primary in $dir" >&2; exit 1; }
    autoctl perform switchover --monitor "$(monitor_uri)" >>"$dir/switchover.log" 2>&1 \
        || { tail -20 "$dir/switchover.log" >&2; exit 1; }
    wait_ready 120
    after=$(primary)
    [[ "$after" != "$before" ]] || { echo "error: $before is still primary after the switchover" >&2; exit 1; }
}

case "$cmd" in
start) start ;;
stop) stop ;;
status) autoctl show state --monitor "$(monitor_uri)" ;;
url) url ;;
node-url) node_url "${arg:?$usage}" ;;
primary)
    p=$(primary)
    [[ -n "$p" ]] || exit 1
    echo "$p"
    ;;
wait-ready) wait_ready "${arg:-120}" ;;
switchover) switchover ;;
kill-primary) kill_primary ;;
restart) run_keeper "${arg:?$usage}" ;;
*)
    echo "$usage" >&2
    exit 2
    ;;
esac
