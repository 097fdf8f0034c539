# What the scripts that run private PostgreSQL servers share (sourced by pg.sh, pgbouncer.sh and failover.sh):
# finding the server binaries, running as the unprivileged owner, picking a free port, and the settings of a
# private cluster.

# The newest installed PostgreSQL's bin directory; empty if none is installed.
pg_bindir() {
    ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1
}

# Runs a command as the `postgres` user when we are root (initdb, pg_autoctl and PgBouncer refuse root), else as we are.
as_owner() {
    if [[ $(id -u) -eq 0 ]]; then
        runuser -u postgres -- "$@"
    else
        "$@"
    fi
}

free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

# The postgresql.conf lines of a private cluster whose sockets live in SOCKET_DIR. With "--fast" (throwaway test
# clusters): many connections, and no fsync, which only matters if the machine itself goes down. The settings that
# trade acknowledged commits for speed (synchronous_commit, full_page_writes) are pg.sh's alone: a failover
# formation needs them on.
pg_private_settings() {
    local socket_dir=$1 fast=${2:-}
    echo "listen_addresses = '127.0.0.1'"
    echo "unix_socket_directories = '$socket_dir'"
    echo "shared_buffers = 256MB"
    if [[ "$fast" == "--fast" ]]; then
        # The test suite runs dozens of real worker processes at once, each with a small pool.
        echo "max_connections = 1000"
        echo "fsync = off"
    else
        echo "max_connections = 300"
    fi
}
