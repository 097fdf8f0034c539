#!/usr/bin/env bash
# Proves `make install`: installs into a temporary prefix (debug build, so it reuses the test build) and uses the
# installed ferry as a user would, from another directory through PATH: version, migrations found beside the
# binary, completions that parse, a man page that renders.
#   scripts/check-install.sh ADMIN_DATABASE_URL
set -euo pipefail
cd "$(dirname "$0")/.."
admin=${1:?usage: scripts/check-install.sh ADMIN_DATABASE_URL}
prefix=$(mktemp -d /tmp/ferry-install.XXXXXX)
trap 'rm -rf "$prefix"; psql "$admin" -qc "DROP DATABASE IF EXISTS ferry_install_check" >/dev/null 2>&1 || true' EXIT

scripts/install.sh --prefix "$prefix" --configuration debug >/dev/null
fail() { echo "check-install: $*" >&2; exit 1; }

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

bash -n "$prefix/share/bash-completion/completions/ferry" || fail "the bash completion does not parse"
grep -q "enqueue" "$prefix/share/bash-completion/completions/ferry" || fail "the bash completion lacks subcommands"
grep -q "#compdef ferry" "$prefix/share/zsh/site-functions/_ferry" || fail "the zsh completion is not a compdef"
grep -q "complete -c 'ferry'" "$prefix/share/fish/vendor_completions.d/ferry.fish" || fail "the fish completion is empty"
page=$(MANWIDTH=100 man -l "$prefix/share/man/man1/ferry.1" 2>/dev/null | col -b)
grep -q "enqueue" <<<"$page" || fail "the man page does not render or lacks the subcommands"
echo "check-install: ok ($got; migrations, completions for bash/zsh/fish and the man page installed under a prefix)"
