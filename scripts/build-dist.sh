#!/usr/bin/env bash
# Builds everything `make install` installs into a staging folder, so that installing needs no Swift toolchain
# (`make build`, then `sudo make install` where root has no swift on its PATH):
#   scripts/build-dist.sh [--configuration release|debug]
# Writes .build/dist/CONFIGURATION/, laid out as under an install prefix:
#   bin/ferry
#   share/ferry/migrations/NNNN_*.sql and baseline.sql, share/ferry/migrations/history/NNNN_*.sql,
#   share/ferry/migrations/definitions/NNN_*.sql
#   share/man/man1/ferry.1                      (generated from the argument parser by its generate-manual plugin)
#   share/bash-completion/completions/ferry, share/zsh/site-functions/_ferry, share/fish/vendor_completions.d/ferry.fish
#   .built                                      (stamped when the build started: scripts/install.sh rebuilds when a
#                                                source is newer)
set -euo pipefail
cd "$(dirname "$0")/.."

configuration=release
while (($#)); do
    case "$1" in
        --configuration) configuration=$2; shift 2 ;;
        *) echo "build-dist.sh: unknown argument $1 (use --configuration release|debug)" >&2; exit 64 ;;
    esac
done
case "$configuration" in release | debug) ;; *) echo "build-dist.sh: --configuration is release or debug, not '$configuration'" >&2; exit 64 ;; esac
command -v swift >/dev/null || {
    echo "build-dist.sh: swift is not on PATH: install the Swift toolchain (see README.md), or run this where it is" >&2
    exit 69
}

stage=.build/dist/$configuration
mkdir -p .build/dist
next=$(mktemp -d ".build/dist/.$configuration.XXXXXX")
chmod 0755 "$next"
trap 'rm -rf "$next"' EXIT
# Stamped before building: a source changed during the build is newer than the stamp, so it is built next time.
touch "$next/.built"

echo "==> building ferry ($configuration)"
swift build -c "$configuration" --product ferry 2>&1 | tail -1
bin="$(swift build -c "$configuration" --show-bin-path)/ferry"

echo "==> generating the man page"
mandir=$(cd "$next" && pwd)/share/man/man1
mkdir -p "$mandir"
swift package --disable-sandbox --allow-writing-to-directory "$mandir" \
    generate-manual --configuration "$configuration" --output-directory "$mandir" 2>&1 | tail -1
test -s "$mandir/ferry.1" || { echo "build-dist.sh: the man page was not generated" >&2; exit 70; }

echo "==> staging into $stage"
install -d "$next/bin" "$next/share/ferry/migrations/definitions" "$next/share/ferry/migrations/history" "$next/share/bash-completion/completions" \
    "$next/share/zsh/site-functions" "$next/share/fish/vendor_completions.d"
install -m 0755 "$bin" "$next/bin/ferry"
install -m 0644 migrations/[0-9][0-9][0-9][0-9]_*.sql migrations/baseline.sql "$next/share/ferry/migrations/"
install -m 0644 migrations/history/[0-9][0-9][0-9][0-9]_*.sql "$next/share/ferry/migrations/history/"
install -m 0644 migrations/definitions/[0-9]*_*.sql "$next/share/ferry/migrations/definitions/"
"$next/bin/ferry" --generate-completion-script bash >"$next/share/bash-completion/completions/ferry"
"$next/bin/ferry" --generate-completion-script zsh >"$next/share/zsh/site-functions/_ferry"
"$next/bin/ferry" --generate-completion-script fish >"$next/share/fish/vendor_completions.d/ferry.fish"
rm -rf "$stage"
mv "$next" "$stage"
trap - EXIT
echo "staged $("$stage/bin/ferry" --version) in $stage"
