#!/usr/bin/env bash
# The fast tier, selected by tag: every test whose suite (or itself) is tagged .fast (Tests/FerryTestSupport/Tags.swift),
# read from the built test bundle's own listing, since `swift test --filter` matches names, not tags.
#
#   scripts/fast-tier.sh            run the fast tier (make check): no PostgreSQL, no ferry binaries, FERRY_TEST_TIER=fast
#                                   (the test-support helpers refuse PostgreSQL and child processes under it); prints
#                                   how many tests ran and how long they took
#   scripts/fast-tier.sh filter     print the --filter pattern of the fast tier (scripts/test.sh skips it afterwards)
#
# Needs a build with tests (swift build --build-tests). Fails, naming them, when a test carries no tier tag at all
# (.fast, .postgres, .s3 or .process): every new test says where it runs.
set -euo pipefail
cd "$(dirname "$0")/.."

bundle="$(swift build --show-bin-path)/ferryPackageTests.xctest"
[[ -x "$bundle" ]] || { echo "fast-tier.sh: no test bundle at $bundle; run swift build --build-tests first" >&2; exit 1; }
listing=$(mktemp /tmp/ferry-fast-tier.XXXXXX)
trap 'rm -f "$listing"' EXIT
"$bundle" --testing-library swift-testing --list-tests --event-stream-version 0 --event-stream-output-path "$listing" >/dev/null

# The listing's records carry each suite's and test's own tags (experimental field _tags); a test inherits its suites'.
filter=$(python3 - "$listing" "$listing.count" <<'PY'
import json, re, sys
tests, suites = {}, {}
for line in open(sys.argv[1]):
    record = json.loads(line)
    if record.get("kind") != "test":
        continue
    payload = record["payload"]
    tags = set(payload.get("_tags", []))
    if payload["kind"] == "suite":
        suites[payload["id"]] = tags
    else:
        tests[payload["id"]] = tags
tiers = {".fast", ".postgres", ".s3", ".process"}
def inherited(test_id):
    parts = test_id.split("/")
    own = set(tests[test_id])
    for end in range(1, len(parts)):
        own |= suites.get("/".join(parts[:end]), set())
    return own
untiered, fast = [], []
for test_id in sorted(tests):
    tags = inherited(test_id)
    name = "/".join(test_id.split("/")[:-1])  # without the source location
    if not tags & tiers:
        untiered.append(name)
    elif ".fast" in tags:
        fast.append(name)
if untiered:
    print("fast-tier.sh: tests without a tier tag (.fast, .postgres, .s3 or .process; Tests/FerryTestSupport/Tags.swift):",
          *untiered, sep="\n  ", file=sys.stderr)
    sys.exit(1)
print("^(" + "|".join(re.escape(name) for name in fast) + ")(/|$)")
open(sys.argv[2], "w").write(str(len(fast)))
PY
)
count=$(cat "$listing.count")
rm -f "$listing.count"

if [[ "${1:-}" == "filter" ]]; then
    echo "$filter"
    exit 0
fi

echo "==> make check: the fast tier, $count tests tagged .fast (no PostgreSQL, no child process)"
start=$(date +%s)
env -u FERRY_TEST_DATABASE_URL -u FERRY_TEST_PG_DIR -u FERRY_BIN_DIR -u FERRY_TEST_S3_URL FERRY_TEST_TIER=fast \
    swift test --skip-build --filter "$filter"
echo "==> make check: $count tests in $(($(date +%s) - start)) s"
