#!/usr/bin/env bash
# Proves `make build` then `make install`: stages a build (debug, so it reuses the test build), installs it into a
# temporary prefix with no swift on PATH, and uses the installed ferry as a user would, from another directory
# through PATH: version, migrations found beside the binary, completions that parse and call back into ferry for
# names from the database, a man page that renders.
#   scripts/check-install.sh ADMIN_DATABASE_URL
set -euo pipefail
cd "$(dirname "$0")/.."
admin=${1:?usage: scripts/check-install.sh ADMIN_DATABASE_URL}
prefix=$(mktemp -d /tmp/ferry-install.XXXXXX)
noswift=$(mktemp -d /tmp/ferry-noswift.XXXXXX)
trap 'rm -rf "$prefix" "$noswift"; psql "$admin" -qc "DROP DATABASE IF EXISTS ferry_install_check" >/dev/null 2>&1 || true' EXIT
fail() { echo "check-install: $*" >&2; exit 1; }

scripts/build-dist.sh --configuration debug >/dev/null

# Install as root would after `make build`: no toolchain. PATH keeps every directory but those holding swift, and
# a swift that records being called stands first in case one is left (a toolchain in /usr/bin).
path=
while IFS= read -r -d: dir; do
    [[ -n "$dir" && ! -x "$dir/swift" ]] && path+="$dir:"
done <<<"$PATH:"
printf '#!/bin/sh\necho "swift $*" >>"%s/called"\nexit 127\n' "$noswift" >"$noswift/swift"
chmod +x "$noswift/swift"
PATH="$noswift:${path%:}" scripts/install.sh --prefix "$prefix" --configuration debug >/dev/null \
    || fail "install without swift on PATH failed"
[[ ! -e "$noswift/called" ]] || fail "install ran swift although the staged build was current: $(cat "$noswift/called")"

expected=$("$(swift build --show-bin-path)/ferry" --version)
got=$(cd / && PATH="$prefix/bin:$PATH" ferry --version)
[[ "$got" == "$expected" ]] || fail "installed ferry --version says '$got', expected '$expected'"

psql "$admin" -qc "DROP DATABASE IF EXISTS ferry_install_check" -c "CREATE DATABASE ferry_install_check" >/dev/null 2>&1
url="${admin%/*}/ferry_install_check"
# From /, with no migrations directory in sight: the installed share/ferry/migrations must be found.
(cd / && PATH="$prefix/bin:$PATH" ferry migrate --database-url "$url" >/dev/null) || fail "installed ferry migrate failed"
version=$(psql "$url" -Atc "SELECT max(version) FROM ferry.schema_migrations")
[[ "$got" == *"(schema $version)"* ]] || fail "migrated to schema $version, but the binary says '$got'"
definitions=$(psql "$url" -Atc "SELECT count(DISTINCT name) FROM ferry.schema_definitions")
[[ "$definitions" == "$(ls migrations/definitions/*.sql | wc -l)" ]] \
    || fail "applied $definitions definitions: share/ferry/migrations/definitions is incomplete"

bash_completion="$prefix/share/bash-completion/completions/ferry"
bash -n "$bash_completion" || fail "the bash completion does not parse"
grep -q "enqueue" "$bash_completion" || fail "the bash completion lacks subcommands"
grep -q "#compdef ferry" "$prefix/share/zsh/site-functions/_ferry" || fail "the zsh completion is not a compdef"
grep -q "complete -c 'ferry'" "$prefix/share/fish/vendor_completions.d/ferry.fish" || fail "the fish completion is empty"

# TAB in bash, as the shell would press it: the script calls the installed ferry back for the batch names.
(cd / && PATH="$prefix/bin:$PATH" ferry enqueue fetch https://example.com/check.jpg --to /srv/check/ \
    --batch install-check-batch --database-url "$url" >/dev/null) || fail "installed ferry enqueue failed"
complete_bash() { # LINE: the words typed, the last one being completed (a generous timeout: CI is loaded)
    (cd / && PATH="$prefix/bin:$PATH" FERRY_DATABASE_URL="$url" FERRY_COMPLETION_TIMEOUT=30 bash -c '
        source "$1"
        read -ra COMP_WORDS <<<"$2"
        [[ "$2" == *" " ]] && COMP_WORDS+=("")
        COMP_CWORD=$((${#COMP_WORDS[@]} - 1)) COMP_LINE=$2 COMP_POINT=${#2}
        COMPREPLY=()
        "$(complete -p ferry | sed -E "s/.* -F ([^ ]+) .*/\1/")" ferry "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
        printf "%s\n" "${COMPREPLY[@]}"' bash "$bash_completion" "$1")
}
reply=$(complete_bash "ferry status --batch install-ch")
[[ "$reply" == "install-check-batch" ]] || fail "bash TAB after 'status --batch install-ch' gave '$reply', not the batch"
reply=$(complete_bash "ferry worker --log-format j")
[[ "$reply" == "json" ]] || fail "bash TAB after 'worker --log-format j' gave '$reply'"

page=$(MANWIDTH=100 man -l "$prefix/share/man/man1/ferry.1" 2>/dev/null | col -b)
grep -q "enqueue" <<<"$page" || fail "the man page does not render or lacks the subcommands"
grep -q -- "--log-format" <<<"$page" || fail "the man page lacks the subcommands' options"
echo "check-install: ok ($got; installed without swift: migrations, completions for bash/zsh/fish calling back for names, the man page)"
