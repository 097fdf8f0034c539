#!/usr/bin/env bash
# Installs Ferry: the ferry binary, its migrations, shell completions and a man page.
#   scripts/install.sh [--prefix /usr/local] [--destdir DIR] [--configuration release|debug]
# Layout under PREFIX (DESTDIR is prepended, for packaging):
#   bin/ferry
#   share/ferry/migrations/NNNN_*.sql           (ferry migrate finds them beside the binary)
#   share/ferry/migrations/baseline.sql, history/NNNN_*.sql (a fresh database applies the baseline; older ones history)
#   share/ferry/migrations/definitions/NNN_*.sql (the current functions and views, applied after them)
#   share/bash-completion/completions/ferry, share/zsh/site-functions/_ferry, share/fish/vendor_completions.d/ferry.fish
#   share/man/man1/ferry.1                      (generated from the argument parser by its generate-manual plugin)
# Everything is copied from the staging folder scripts/build-dist.sh writes (.build/dist/CONFIGURATION, what
# `make build` makes), so no Swift toolchain is needed here; it is built first only when missing or older than
# the sources (which does need swift, and the build packages scripts/install-deps.sh installs).
set -euo pipefail
cd "$(dirname "$0")/.."

prefix=/usr/local
destdir=
configuration=release
while (($#)); do
    case "$1" in
        --prefix) prefix=$2; shift 2 ;;
        --destdir) destdir=$2; shift 2 ;;
        --configuration) configuration=$2; shift 2 ;;
        *) echo "install.sh: unknown argument $1 (use --prefix DIR, --destdir DIR, --configuration release|debug)" >&2; exit 64 ;;
    esac
done
case "$prefix" in /*) ;; *) echo "install.sh: --prefix must be an absolute path, got '$prefix'" >&2; exit 64 ;; esac
case "$configuration" in release | debug) ;; *) echo "install.sh: --configuration is release or debug, not '$configuration'" >&2; exit 64 ;; esac
root="$destdir$prefix"
stage=.build/dist/$configuration

# The staged build is current when nothing it is made of changed since it was stamped.
stale() {
    [[ -x "$stage/bin/ferry" && -f "$stage/.built" && -s "$stage/share/man/man1/ferry.1" ]] || return 0
    local sources=(Sources migrations Package.swift scripts/build-dist.sh)
    [[ -f Package.resolved ]] && sources+=(Package.resolved)
    [[ -n "$(find "${sources[@]}" -newer "$stage/.built" -print -quit)" ]]
}
if stale; then
    if ! command -v swift >/dev/null; then
        echo "install.sh: $stage is missing or older than the sources, and swift is not on PATH to build it:" \
            "run 'make build' (or scripts/build-dist.sh --configuration $configuration) where the toolchain is, then install again" >&2
        exit 69
    fi
    scripts/install-deps.sh
    scripts/build-dist.sh --configuration "$configuration"
else
    echo "==> using the staged build in $stage"
fi

echo "==> installing into $root"
install -d "$root/bin" "$root/share/ferry/migrations/definitions" "$root/share/ferry/migrations/history" "$root/share/man/man1" \
    "$root/share/bash-completion/completions" "$root/share/zsh/site-functions" "$root/share/fish/vendor_completions.d"
install -m 0755 "$stage/bin/ferry" "$root/bin/ferry"
install -m 0644 "$stage"/share/ferry/migrations/[0-9][0-9][0-9][0-9]_*.sql "$stage"/share/ferry/migrations/baseline.sql \
    "$root/share/ferry/migrations/"
install -m 0644 "$stage"/share/ferry/migrations/history/[0-9][0-9][0-9][0-9]_*.sql "$root/share/ferry/migrations/history/"
install -m 0644 "$stage"/share/ferry/migrations/definitions/[0-9]*_*.sql "$root/share/ferry/migrations/definitions/"
install -m 0644 "$stage/share/man/man1/ferry.1" "$root/share/man/man1/ferry.1"
install -m 0644 "$stage/share/bash-completion/completions/ferry" "$root/share/bash-completion/completions/ferry"
install -m 0644 "$stage/share/zsh/site-functions/_ferry" "$root/share/zsh/site-functions/_ferry"
install -m 0644 "$stage/share/fish/vendor_completions.d/ferry.fish" "$root/share/fish/vendor_completions.d/ferry.fish"
echo "installed $("$root/bin/ferry" --version) into $root"
