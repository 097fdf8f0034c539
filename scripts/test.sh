#!/usr/bin/env bash
# Starts a throwaway PostgreSQL (as an unprivileged user) and moto (S3), builds, runs every test, checks deploy/
# and the documentation's links, stops both.
set -euo pipefail
cd "$(dirname "$0")/.."

pgdir=$(mktemp -d /tmp/ferry-test-pg.XXXXXX)
motodir=$(mktemp -d /tmp/ferry-test-moto.XXXXXX)
cleanup() {
    scripts/pg.sh stop "$pgdir" || true
    scripts/moto.sh stop "$motodir" || true
    rm -rf "$pgdir" "$motodir"
}
trap cleanup EXIT

echo "==> starting throwaway PostgreSQL in $pgdir"
url=$(scripts/pg.sh start "$pgdir" --fast)
export FERRY_TEST_DATABASE_URL="$url"
export FERRY_TEST_PG_DIR="$pgdir"

echo "==> starting moto (S3 test server) in $motodir"
FERRY_TEST_S3_URL=$(scripts/moto.sh start "$motodir")
export FERRY_TEST_S3_URL

echo "==> building"
swift build --build-tests
export FERRY_BIN_DIR="$(swift build --show-bin-path)"

echo "==> running tests"
# The log is kept so that a failure ends with the failing tests and their issues, which CI shows even when it keeps
# only the tail of the output.
testlog="$pgdir/swift-test.log"
# The fast tier (make check: every test tagged .fast, many Workers in one process, millisecond timers) runs on its own
# first, as `make check` does, with FERRY_TEST_TIER=fast so that its tests may not reach PostgreSQL or start a process:
# run inside the full suite, its workers stalled past any timeout while hundreds of process tests ran beside them.
# The worker tests (real workers, dev servers, moto) then run apart from the rest: Swift Testing starts every
# suite's tests at once, and all of them together kept a 2-core machine at a load of 13, where tests that watch a
# transfer in flight sometimes saw it already over.
fast=$(scripts/fast-tier.sh filter)
run_tests() {
    if (($# == 0)); then
        FERRY_TEST_TIER=fast swift test --skip-build --filter "$fast" \
            && swift test --skip-build --filter FerryWorkerTests --skip "$fast" \
            && swift test --skip-build --skip "$fast" --skip FerryWorkerTests
    else
        swift test --skip-build "$@"
    fi
}
if ! run_tests "$@" 2>&1 | tee "$testlog"; then
    echo
    echo "==> FAILED tests and their recorded issues (full output above):"
    grep -E '(✘|recorded an issue|Expectation failed|Caught error|error:)' "$testlog" | grep -v '^✘ Test run with' | tail -n 60 || true
    grep -E '^✘ Test run with' "$testlog" || true
    exit 1
fi

echo "==> checking deploy/ (systemd-analyze verify, Kubernetes manifests, Dockerfile)"
scripts/check-deploy.sh

echo "==> checking docs links"
scripts/check-docs.sh

# Only for a full run (arguments select Swift tests): the official Dropbox SDK against the dev server, the dashboard
# in a real browser, an install into a temporary prefix, then the chaos suite, short (about a minute: real workers,
# the dev server and this PostgreSQL under faults, kill -9 and restarts; make chaos runs the 10-minute soak). It
# comes last because it restarts this PostgreSQL.
if (($# == 0)); then
    scripts/sdk-test.sh
    echo "==> ferry dashboard in headless chromium (screenshots in .build/artifacts/dashboard/)"
    scripts/browser-test.sh
    echo "==> make install into a temporary prefix"
    scripts/check-install.sh "$url"
    echo "==> chaos (short)"
    FERRY_CHAOS_PG_URL="$url" FERRY_CHAOS_PG_DIR="$pgdir" \
        scripts/chaos.sh --duration 40 --uploads 40 --fetches 24 --max-size 24 --kill-every 3
fi
