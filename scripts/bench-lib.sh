# What the benchmark scripts share (sourced by bench-fleet.sh and bench-slots.sh).

# CPU seconds × CLK_TCK of a private cluster's postmaster (DIR as pg.sh made it) and every process it started:
# backends, autovacuum, checkpointer, WAL writer.
pg_cpu_ticks() {
    local dir=$1 postmaster total=0 pid
    postmaster=$(head -1 "$dir/data/postmaster.pid")
    for pid in $postmaster $(pgrep -P "$postmaster"); do
        [[ -r /proc/$pid/stat ]] || continue
        total=$((total + $(awk '{print $14 + $15}' "/proc/$pid/stat")))
    done
    echo "$total"
}

# Transactions committed or rolled back by the whole server so far.
pg_transactions() {
    psql "$1" -Atc "SELECT sum(xact_commit + xact_rollback) FROM pg_stat_database"
}

# Gives PRIVATE cluster DIR at URL room for N connections (restarting it when needed); prints its URL.
pg_room_for() {
    local dir=$1 url=$2 needed=$3
    if (($(psql "$url" -Atc "SHOW max_connections") < needed)); then
        psql "$url" -qc "ALTER SYSTEM SET max_connections = $needed" >/dev/null
        scripts/pg.sh stop "$dir" >/dev/null
        url=$(scripts/pg.sh start "$dir")
    fi
    echo "$url"
}
