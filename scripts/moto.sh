#!/usr/bin/env bash
# A throwaway moto S3 server (in memory) on a free loopback port, for FerryS3's integration tests.
#
#   scripts/moto.sh start DIR   start in the background (pid, port and log in DIR); prints its URL
#   scripts/moto.sh stop DIR    stop the server started in DIR
#   scripts/moto.sh url DIR     print the URL of a running server
#
# moto accepts any credentials and keeps everything in memory: stopping it forgets every bucket.
set -euo pipefail

cmd=${1:?usage: moto.sh start|stop|url DIR}
dir=${2:?usage: moto.sh start|stop|url DIR}

free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

url() {
    echo "http://127.0.0.1:$(cat "$dir/port")"
}

running() {
    [[ -f "$dir/pid" ]] && kill -0 "$(cat "$dir/pid")" 2>/dev/null
}

answers() {
    curl -s -o /dev/null --max-time 2 "$(url)/moto-api/" 2>/dev/null
}

case "$cmd" in
start)
    command -v moto_server >/dev/null || { echo "error: moto_server not found; run scripts/install-deps.sh" >&2; exit 1; }
    mkdir -p "$dir"
    dir=$(cd "$dir" && pwd)
    if running && answers; then
        url
        exit 0
    fi
    free_port >"$dir/port"
    # setsid: the server outlives this script and is not hit by the caller's terminal signals;
    # `stop` ends it by its own pid. Descriptors the caller leaked to us (a test runner's pipes)
    # are closed first, or the caller would wait for an end of file that never comes.
    (
        for fd in $(ls /proc/$BASHPID/fd); do
            ((fd > 2)) && eval "exec $fd>&-" 2>/dev/null
        done
        exec setsid moto_server -H 127.0.0.1 -p "$(cat "$dir/port")" >"$dir/moto.log" 2>&1 </dev/null
    ) &
    echo $! >"$dir/pid"
    for _ in $(seq 1 300); do
        if answers; then
            url
            exit 0
        fi
        running || { tail -20 "$dir/moto.log" >&2; echo "error: moto_server exited" >&2; exit 1; }
        sleep 0.1
    done
    tail -20 "$dir/moto.log" >&2
    echo "error: moto_server did not answer within 30 s" >&2
    exit 1
    ;;
stop)
    if running; then
        pid=$(cat "$dir/pid")
        kill "$pid" 2>/dev/null || true
        for _ in $(seq 1 50); do
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.1
        done
        kill -9 "$pid" 2>/dev/null || true
    fi
    rm -f "$dir/pid"
    ;;
url)
    url
    ;;
*)
    echo "usage: moto.sh start|stop|url DIR" >&2
    exit 2
    ;;
esac
