#!/usr/bin/env bash
# Runs the official Dropbox Python SDK (PyPI `dropbox`, a client nobody here wrote) against `ferry dev-server`:
# Tests/DropboxSDK; then Google's official Python client (`google-api-python-client` with `google-auth`) against its
# Drive v3 emulation: Tests/GoogleDriveSDK; and Microsoft's Graph SDK (`msgraph-sdk`) against its OneDrive emulation:
# Tests/OneDriveSDK. All three only speak https (Google's keeps https for media uploads), so the
# server terminates TLS with a throwaway certificate made here. Installs the pinned clients (and pytest) when missing;
# uses the built `ferry` ($FERRY_BIN_DIR, else swift's bin path).
set -euo pipefail
cd "$(dirname "$0")/.."

sdk_version=12.2.4
google_client_version=2.202.0
google_auth_httplib2_version=0.4.4
msgraph_version=1.65.0
pytest_version=9.0.3

# A virtual environment of our own (seeing the system's packages): pip may not install into a Debian-managed
# Python, and the pinned SDK must not disturb whatever else the machine has.
venv=.build/dropbox-sdk-venv
if [[ ! -x "$venv/bin/python" ]]; then
    "${PYTHON:-python3}" -m venv --system-site-packages "$venv"
fi
python="$venv/bin/python"
if ! "$python" -c "import sys, dropbox; sys.exit(dropbox.__version__ != '$sdk_version')" 2>/dev/null; then
    echo "==> installing the Dropbox Python SDK $sdk_version"
    "$python" -m pip install --quiet --disable-pip-version-check "dropbox==$sdk_version"
fi
if ! "$python" -c "import sys, googleapiclient, google_auth_httplib2; sys.exit(googleapiclient.__version__ != '$google_client_version')" 2>/dev/null; then
    echo "==> installing google-api-python-client $google_client_version"
    "$python" -m pip install --quiet --disable-pip-version-check "google-api-python-client==$google_client_version" \
        "google-auth-httplib2==$google_auth_httplib2_version"
fi
if ! "$python" -c "import sys; from msgraph._version import VERSION; sys.exit(VERSION != '$msgraph_version')" 2>/dev/null; then
    echo "==> installing msgraph-sdk $msgraph_version"
    "$python" -m pip install --quiet --disable-pip-version-check "msgraph-sdk==$msgraph_version"
fi
if ! "$python" -c "import pytest" 2>/dev/null; then
    echo "==> installing pytest $pytest_version"
    "$python" -m pip install --quiet --disable-pip-version-check "pytest==$pytest_version"
fi

bin_dir=${FERRY_BIN_DIR:-$(swift build --show-bin-path)}
ferry="$bin_dir/ferry"
[[ -x "$ferry" ]] || swift build --product ferry

work=$(mktemp -d /tmp/ferry-sdk-test.XXXXXX)
server_pid=""
cleanup() {
    if [[ -n "$server_pid" ]]; then
        kill "$server_pid" 2>/dev/null || true
        wait "$server_pid" 2>/dev/null || true
    fi
    rm -rf "$work"
}
trap cleanup EXIT

# A throwaway CA and a certificate for 127.0.0.1 signed by it (a CA-signed leaf also satisfies strict verifiers).
cat >"$work/server.ext" <<'EOF'
subjectAltName = IP:127.0.0.1, DNS:localhost
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature
extendedKeyUsage = serverAuth
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
EOF
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 -subj "/CN=Ferry SDK test CA" \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" \
    -keyout "$work/ca.key" -out "$work/ca.pem" 2>/dev/null
openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj "/CN=127.0.0.1" \
    -keyout "$work/server.key" -out "$work/server.csr" 2>/dev/null
openssl x509 -req -in "$work/server.csr" -CA "$work/ca.pem" -CAkey "$work/ca.key" -CAcreateserial -days 2 \
    -extfile "$work/server.ext" -out "$work/server.pem" 2>/dev/null

head -c 24 /dev/urandom | base64 | tr -d '/+=' >"$work/app-secret"
"$ferry" dev-server --port 0 --storage "$work/storage" --app-key ferry-sdk-test --app-secret-file "$work/app-secret" \
    --tls-cert "$work/server.pem" --tls-key "$work/server.key" --log-level warning >"$work/server.log" 2>&1 &
server_pid=$!
url=""
for _ in $(seq 600); do
    url=$(grep -o 'https://[0-9.]*:[0-9]*' "$work/server.log" | head -n 1 || true)
    [[ -n "$url" ]] && break
    kill -0 "$server_pid" 2>/dev/null || break
    sleep 0.1
done
if [[ -z "$url" ]]; then
    echo "error: ferry dev-server did not start:" >&2
    cat "$work/server.log" >&2
    exit 1
fi

echo "==> Dropbox Python SDK $sdk_version against ferry dev-server at $url"
status=0
# requests lets REQUESTS_CA_BUNDLE / CURL_CA_BUNDLE (httplib2 HTTPLIB2_CA_CERTS) override the CA file a client is
# given; the tests hand theirs over explicitly (the SDK's ca_certs), so the machine's bundles must not win. Each
# suite runs on its own: their conftest.py files are separate modules of the same name.
for suite in Tests/DropboxSDK Tests/GoogleDriveSDK Tests/OneDriveSDK; do
    echo "==> $suite"
    env -u REQUESTS_CA_BUNDLE -u CURL_CA_BUNDLE -u HTTPLIB2_CA_CERTS FERRY_SDK_SERVER="$url" FERRY_SDK_CA_FILE="$work/ca.pem" \
        FERRY_SDK_APP_KEY=ferry-sdk-test FERRY_SDK_APP_SECRET_FILE="$work/app-secret" PYTHONDONTWRITEBYTECODE=1 \
        "$python" -m pytest -q -p no:cacheprovider "$suite" || status=$?
done
if ((status != 0)); then
    echo "==> dev server log:" >&2
    tail -n 50 "$work/server.log" >&2
fi
exit "$status"
