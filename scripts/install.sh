#!/usr/bin/env bash
# Installs Ferry: the ferry binary, its migrations, shell completions and a man page.
#   scripts/install.sh [--prefix /usr/local] [--destdir DIR] [--configuration release|debug]
# Layout under PREFIX (DESTDIR is prepended, for packaging):
#   bin/ferry
#   share/ferry/migrations/NNNN_*.sql           (ferry migrate finds them beside the binary)
#   share/ferry/migrations/definitions/NNN_*.sql (the current functions and views, applied after them)
#   share/bash-completion/completions/ferry, share/zsh/site-functions/_ferry, share/fish/vendor_completions.d/ferry.fish
#   share/man/man1/ferry.1                      (generated from the argument parser by its generate-manual plugin)
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
root="$destdir$prefix"

echo "==> building ferry ($configuration)"
swift build -c "$configuration" --product ferry 2>&1 | tail -1
bin="$(swift build -c "$configuration" --show-bin-path)/ferry"

echo "==> generating the man page"
mandir=$(mktemp -d /tmp/ferry-man.XXXXXX)
trap 'rm -rf "$mandir"' EXIT
swift package --disable-sandbox --allow-writing-to-directory "$mandir" \
    generate-manual --configuration "$configuration" --output-directory "$mandir" 2>&1 | tail -1
test -s "$mandir/ferry.1" || { echo "install.sh: the man page was not generated" >&2; exit 70; }

echo "==> installing into $root"
install -d "$root/bin" "$root/share/ferry/migrations/definitions" "$root/share/man/man1" \
    "$root/share/bash-completion/completions" "$root/share/zsh/site-functions" "$root/share/fish/vendor_completions.d"
install -m 0755 "$bin" "$root/bin/ferry"
install -m 0644 migrations/[0-9][0-9][0-9][0-9]_*.sql "$root/share/ferry/migrations/"
install -m 0644 migrations/definitions/[0-9]*_*.sql "$root/share/ferry/migrations/definitions/"
install -m 0644 "$mandir/ferry.1" "$root/share/man/man1/ferry.1"
"$root/bin/ferry" --generate-completion-script bash > "$root/share/bash-completion/completions/ferry"
"$root/bin/ferry" --generate-completion-script zsh > "$root/share/zsh/site-functions/_ferry"
"$root/bin/ferry" --generate-completion-script fish > "$root/share/fish/vendor_completions.d/ferry.fish"
echo "installed $("$root/bin/ferry" --version) into $root"
