#!/usr/bin/env bash
# Checks deploy/: the systemd units pass `systemd-analyze verify` without a single message, every Kubernetes
# manifest parses and its probes, ports and flags agree with what `ferry worker` serves, and the Dockerfile's
# Swift image is at least the swift-tools-version that Package.swift and its dependencies declare.
# Run by scripts/test.sh after the Swift tests; fails loudly (non-zero, the reason on stderr) on any problem.
#   scripts/check-deploy.sh
set -euo pipefail
cd "$(dirname "$0")/.."

fail() { echo "check-deploy: $*" >&2; exit 1; }

# --- systemd ------------------------------------------------------------------------------------------------
# verify checks that ExecStart= names an executable, so it runs on copies whose ExecStart points at a stand-in.
# The template is verified as an instance (ferry-worker@1.service), the timer beside its service.
command -v systemd-analyze >/dev/null || fail "systemd-analyze not found (Debian package systemd; scripts/install-deps.sh installs it)"
units=$(mktemp -d /tmp/ferry-check-deploy.XXXXXX)
trap 'rm -rf "$units"' EXIT
cp deploy/systemd/*.service deploy/systemd/*.timer "$units/"
printf '#!/bin/sh\nexit 0\n' >"$units/ferry"
chmod 0755 "$units/ferry"
grep -l '^ExecStart=/usr/local/bin/ferry ' "$units"/*.service >/dev/null || fail "no unit starts /usr/local/bin/ferry"
sed -i "s#^ExecStart=/usr/local/bin/ferry #ExecStart=$units/ferry #" "$units"/*.service
ln -s ferry-worker@.service "$units/ferry-worker@1.service"
verify_output=$(cd "$units" && systemd-analyze verify ./ferry-worker@1.service ./ferry-migrate.service \
    ./ferry-archive.service ./ferry-archive.timer 2>&1) || fail "systemd-analyze verify failed:"$'\n'"$verify_output"
[[ -z "$verify_output" ]] || fail "systemd-analyze verify is not clean:"$'\n'"$verify_output"
echo "check-deploy: systemd units verify clean ($(systemd-analyze --version | head -1))"

# --- Prometheus rules ----------------------------------------------------------------------------------------
promtool=$(command -v promtool || true)
[[ -n "$promtool" ]] || fail "promtool not found (Debian package prometheus; scripts/install-deps.sh installs it)"
rules_output=$("$promtool" check rules deploy/prometheus/ferry-alerts.yaml 2>&1) || fail "promtool check rules failed:"$'\n'"$rules_output"
echo "check-deploy: Prometheus rules check clean ($(grep -c 'alert:' deploy/prometheus/ferry-alerts.yaml) alerts)"
rules_tests=$(cd deploy/prometheus && "$promtool" test rules ferry-alerts-tests.yaml 2>&1) || fail "promtool test rules failed:"$'\n'"$rules_tests"
echo "check-deploy: Prometheus rule tests pass (a paused queue stays quiet)"

# --- Kubernetes, systemd flags, Dockerfile ---------------------------------------------------------------------
python=python3
python3 -c 'import yaml' 2>/dev/null || python=/usr/bin/python3
"$python" -c 'import yaml' 2>/dev/null || fail "PyYAML not found (Debian package python3-yaml; scripts/install-deps.sh installs it)"
"$python" - <<'PY'
import glob, os, re, sys
import yaml

problems = []
def check(condition, message):
    if not condition:
        problems.append(message)

# Every manifest parses; every document has apiVersion, kind and a name.
documents = {}
for path in sorted(glob.glob("deploy/kubernetes/*.yaml")):
    try:
        docs = [d for d in yaml.safe_load_all(open(path)) if d is not None]
    except yaml.YAMLError as error:
        problems.append(f"{path}: does not parse: {error}")
        continue
    check(docs, f"{path}: no document")
    for doc in docs:
        check(isinstance(doc, dict) and doc.get("apiVersion") and doc.get("kind"), f"{path}: a document without apiVersion/kind")
        if doc.get("kind") != "Kustomization":
            check(doc.get("metadata", {}).get("name"), f"{path}: {doc.get('kind')} without metadata.name")
        documents.setdefault(doc.get("kind"), []).append((path, doc))

# The kustomization lists files that exist.
for path, kustomization in documents.get("Kustomization", []):
    for resource in kustomization.get("resources", []):
        check(os.path.exists(os.path.join(os.path.dirname(path), resource)), f"{path}: resource {resource} does not exist")

def flag(args, name):
    return args[args.index(name) + 1] if name in args and args.index(name) + 1 < len(args) else None

def seconds(text):
    match = re.fullmatch(r"(\d+(?:\.\d+)?)([smh]?)", text or "")
    return float(match.group(1)) * {"": 1, "s": 1, "m": 60, "h": 3600}[match.group(2)] if match else None

# The worker Deployment: probes on /health (startup, liveness) and /ready (readiness), on the port the worker
# listens on; scrape annotations agree; the grace period outlasts the shutdown timeout.
deployments = [(p, d) for p, d in documents.get("Deployment", []) if d["metadata"]["name"] == "ferry-worker"]
check(len(deployments) == 1, "deploy/kubernetes: one Deployment named ferry-worker")
jobs = [d for _, d in documents.get("Job", [])]
for path, deployment in deployments:
    pod = deployment["spec"]["template"]["spec"]
    container = next((c for c in pod["containers"] if c["name"] == "worker"), None)
    check(container is not None, f"{path}: no container named worker")
    if container is None:
        continue
    args = container.get("args", [])
    check(args[:1] == ["worker"], f"{path}: the container runs `ferry worker`")
    listen = flag(args, "--metrics-listen")
    check(listen is not None, f"{path}: worker args lack --metrics-listen")
    check("--metrics-port" not in args, f"{path}: use --metrics-listen, not --metrics-port")
    ports = {p["name"]: p["containerPort"] for p in container.get("ports", [])}
    if listen:
        host, _, port = listen.rpartition(":")
        check(host in ("0.0.0.0", "[::]"), f"{path}: --metrics-listen {listen} must listen on every interface for the kubelet")
        check(ports.get("metrics") == int(port), f"{path}: containerPort 'metrics' {ports.get('metrics')} != --metrics-listen port {port}")
    expected = {"startupProbe": "/health", "livenessProbe": "/health", "readinessProbe": "/ready"}
    for probe, want in expected.items():
        get = container.get(probe, {}).get("httpGet", {})
        check(get.get("path") == want, f"{path}: {probe} must GET {want}, not {get.get('path')}")
        check(get.get("port") in ports or get.get("port") in ports.values(), f"{path}: {probe} port {get.get('port')} is not a container port")
    annotations = deployment["spec"]["template"]["metadata"].get("annotations", {})
    if "prometheus.io/port" in annotations:
        check(int(annotations["prometheus.io/port"]) == ports.get("metrics"), f"{path}: prometheus.io/port disagrees with the metrics port")
        check(annotations.get("prometheus.io/path", "/metrics") == "/metrics", f"{path}: prometheus.io/path must be /metrics")
    timeout = seconds(flag(args, "--shutdown-timeout")) or 30
    check(pod.get("terminationGracePeriodSeconds", 30) > timeout,
          f"{path}: terminationGracePeriodSeconds must exceed --shutdown-timeout {timeout}")
    wait = seconds(flag(args, "--wait-for-schema"))
    check(wait is not None, f"{path}: worker args lack --wait-for-schema (pods would exit while the migrate Job runs)")
    for job in jobs:
        deadline = job["spec"].get("activeDeadlineSeconds")
        if wait is not None and deadline:
            check(wait >= deadline, f"{path}: --wait-for-schema {wait:.0f}s is shorter than the migrate Job's activeDeadlineSeconds {deadline}")
    if wait is not None:
        check(deployment["spec"].get("progressDeadlineSeconds", 600) > wait,
              f"{path}: progressDeadlineSeconds must exceed --wait-for-schema")
for job in jobs:
    containers = job["spec"]["template"]["spec"]["containers"]
    check(any(c.get("args", [None])[0] == "migrate" for c in containers), "the Job runs `ferry migrate`")

# systemd: the worker unit serves the probes, waits for the schema, and stops within TimeoutStopSec.
unit = open("deploy/systemd/ferry-worker@.service").read()
exec_start = re.search(r"^ExecStart=(.*)$", unit, re.M).group(1).split()
check(flag(exec_start, "--metrics-listen") is not None, "ferry-worker@.service: ExecStart lacks --metrics-listen")
check(flag(exec_start, "--wait-for-schema") is not None, "ferry-worker@.service: ExecStart lacks --wait-for-schema")
stop = seconds(re.search(r"^TimeoutStopSec=(\S+)$", unit, re.M).group(1))
check(stop > (seconds(flag(exec_start, "--shutdown-timeout")) or 30), "ferry-worker@.service: TimeoutStopSec must exceed --shutdown-timeout")

# Dockerfile: the Swift image is at least every swift-tools-version of the package and its checkouts.
def version(text):
    return tuple(int(x) for x in text.split("."))
dockerfile = open("deploy/docker/Dockerfile").read()
image = re.search(r"^ARG SWIFT_IMAGE=swift:(\d+(?:\.\d+)*)-", dockerfile, re.M)
check(image is not None, "Dockerfile: ARG SWIFT_IMAGE=swift:X.Y-DISTRO not found")
manifests = ["Package.swift"] + sorted(glob.glob(".build/checkouts/*/Package.swift"))
needed = max(((version(m.group(1)), path) for path in manifests
              for m in [re.search(r"swift-tools-version:\s*(\d+(?:\.\d+)*)", open(path).readline())] if m),
             default=((0,), ""))
if image:
    check(version(image.group(1))[:2] >= needed[0][:2],
          f"Dockerfile: swift:{image.group(1)} is older than swift-tools-version {'.'.join(map(str, needed[0]))} of {needed[1]}")
if len(manifests) == 1:
    print("check-deploy: no .build/checkouts (run swift build first): checked the Swift image against Package.swift only")

if problems:
    for problem in problems:
        print(f"check-deploy: {problem}", file=sys.stderr)
    sys.exit(1)
print(f"check-deploy: {sum(len(v) for v in documents.values())} Kubernetes documents parse; probes, ports and flags agree; "
      f"Dockerfile swift:{image.group(1)} >= tools {'.'.join(map(str, needed[0]))} ({needed[1]})")
PY
