#!/usr/bin/env bash
# `ferry dashboard` in a real browser: Debian's chromium and chromium-driver, headless, driven by Selenium (PyPI)
# through pytest (Tests/DashboardBrowser). Starts its own throwaway PostgreSQL; screenshots of each page go to
# .build/artifacts/dashboard/ (or $FERRY_BROWSER_ARTIFACTS). Uses the built `ferry` ($FERRY_BIN_DIR, else swift's).
set -euo pipefail
cd "$(dirname "$0")/.."

selenium_version=4.51.0
pytest_version=9.0.3

for tool in chromium chromedriver; do
    command -v "$tool" >/dev/null || { echo "error: $tool is missing: run scripts/install-deps.sh" >&2; exit 1; }
done

venv=.build/browser-venv
if [[ ! -x "$venv/bin/python" ]]; then
    "${PYTHON:-python3}" -m venv --system-site-packages "$venv"
fi
python="$venv/bin/python"
if ! "$python" -c "import selenium" 2>/dev/null; then
    echo "==> installing Selenium $selenium_version"
    "$python" -m pip install --quiet --disable-pip-version-check "selenium==$selenium_version"
fi
if ! "$python" -c "import pytest" 2>/dev/null; then
    "$python" -m pip install --quiet --disable-pip-version-check "pytest==$pytest_version"
fi

bin_dir=${FERRY_BIN_DIR:-$(swift build --show-bin-path)}
[[ -x "$bin_dir/ferry" ]] || swift build --product ferry

pgdir=$(mktemp -d /tmp/ferry-browser-pg.XXXXXX)
cleanup() { scripts/pg.sh stop "$pgdir" || true; rm -rf "$pgdir"; }
trap cleanup EXIT
url=$(scripts/pg.sh start "$pgdir" --fast)

echo "==> dashboard in headless chromium"
FERRY_BIN="$bin_dir/ferry" FERRY_BROWSER_DATABASE_URL="$url" FERRY_MIGRATIONS_DIR="$PWD/migrations" \
    FERRY_BROWSER_ARTIFACTS="${FERRY_BROWSER_ARTIFACTS:-$PWD/.build/artifacts/dashboard}" \
    "$python" -m pytest -q Tests/DashboardBrowser "$@"
