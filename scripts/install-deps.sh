#!/usr/bin/env bash
# Installs the Debian packages Ferry needs, only when something is missing.
set -euo pipefail

# systemd (for systemd-analyze) and python3-yaml: scripts/check-deploy.sh checks deploy/ with them.
# chromium and chromium-driver: scripts/browser-test.sh drives `ferry dashboard` in a headless browser.
# rclone: the baseline of the local and S3 benchmarks (make bench); nothing else needs it.
# prometheus: only for its promtool, which lints a worker's /metrics in the tests.
# pgbouncer: scripts/pgbouncer.sh runs Ferry's tests behind a transaction-mode pooler.
# postgresql-15-auto-failover and pg-auto-failover-cli (pg_autoctl): scripts/failover.sh runs a failover formation.
# zsh and fish: the completion tests drive ferry's generated scripts in each shell (and zsh's zpty drives the
# interactive ones); bash is always there.
# iproute2 and iptables: the black-hole tests (Tests/FerryWorkerTests/BlackHoleTests) make a network namespace and
# drop PostgreSQL's port in it (as root; skipped otherwise).
packages=(postgresql libpq-dev zlib1g-dev pkg-config curl python3 python3-pil python3-venv openssl systemd python3-yaml
    chromium chromium-driver rclone prometheus pgbouncer postgresql-15-auto-failover pg-auto-failover-cli zsh fish
    iproute2 iptables)
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# FerryS3's integration tests run against moto, an in-memory S3 server from PyPI.
install_moto() {
    command -v moto_server >/dev/null && return 0
    echo "==> installing moto (S3 test server)"
    python3 -m pip install --quiet 'moto[server]'
    if command -v pyenv >/dev/null; then pyenv rehash; fi
}
if ((${#missing[@]} == 0)); then
    install_moto
    exit 0
fi
echo "==> installing: ${missing[*]}"
sudo=""
if [[ $(id -u) -ne 0 ]]; then
    command -v sudo >/dev/null || { echo "error: need root or sudo to install ${missing[*]}" >&2; exit 1; }
    sudo="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
# Debian's package starts a system cluster; Ferry never uses it, so leave the machine as it was.
$sudo systemctl disable --now postgresql >/dev/null 2>&1 || $sudo service postgresql stop >/dev/null 2>&1 || true
# The same for the Prometheus server that comes with promtool.
$sudo systemctl disable --now prometheus >/dev/null 2>&1 || $sudo service prometheus stop >/dev/null 2>&1 || true
# And the system PgBouncer: scripts/pgbouncer.sh runs private ones.
$sudo systemctl disable --now pgbouncer >/dev/null 2>&1 || $sudo service pgbouncer stop >/dev/null 2>&1 || true
install_moto
