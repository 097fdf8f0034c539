#!/usr/bin/env bash
# Checks the documentation: every relative link and #anchor in README.md, docs/*.md and deploy/README.md resolves (the file exists;
# an anchor names a heading of the target, slugged as GitHub does), every docs/*.md page is linked from README.md
# or docs/README.md, and README.md stays a front door (at most 200 lines). Prints each problem as FILE:LINE and
# exits 1 if there is any.
set -euo pipefail
cd "$(dirname "$0")/.."

python3 - "$@" <<'PY'
import os
import re
import sys
import unicodedata
from urllib.parse import unquote

MAX_README_LINES = 200
pages = sorted(os.path.join("docs", name) for name in os.listdir("docs") if name.endswith(".md"))
files = ["README.md"] + pages + ["deploy/README.md"]


def strip_code(lines):
    """Yields (line number, text) outside fenced code blocks, with inline code spans removed."""
    fence = None
    for number, line in enumerate(lines, 1):
        match = re.match(r"^\s*(```+|~~~+)", line)
        if match:
            marker = match.group(1)
            if fence is None:
                fence = marker[0] * len(marker)
            elif marker.startswith(fence):
                fence = None
            continue
        if fence is None:
            yield number, re.sub(r"(`+)(?:(?!\1).)+?\1", "", line)


def slug(heading):
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"`", "", heading.strip())
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)  # a link in a heading counts by its text
    text = text.lower()
    kept = []
    for char in text:
        category = unicodedata.category(char)
        if char in " -_" or category[0] in "LN" or category == "Mn":
            kept.append(char)
    return "".join(kept).replace(" ", "-")


anchor_cache = {}


def anchors(path):
    if path not in anchor_cache:
        found, seen = set(), {}
        with open(path, encoding="utf-8") as handle:
            lines = handle.read().split("\n")
        fence = None
        for line in lines:
            match = re.match(r"^\s*(```+|~~~+)", line)
            if match:
                marker = match.group(1)
                fence = marker[0] * len(marker) if fence is None else (None if marker.startswith(fence) else fence)
                continue
            if fence is not None:
                continue
            heading = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
            if heading:
                base = slug(heading.group(1))
                count = seen.get(base, 0)
                seen[base] = count + 1
                found.add(base if count == 0 else f"{base}-{count}")
        for name in re.findall(r'<a\s+(?:name|id)="([^"]+)"', "\n".join(lines)):
            found.add(name)
        anchor_cache[path] = found
    return anchor_cache[path]


problems = []
linked = set()
link_pattern = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")

for source in files:
    with open(source, encoding="utf-8") as handle:
        lines = handle.read().split("\n")
    for number, line in strip_code(lines):
        for target in link_pattern.findall(line):
            if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I):  # http:, https:, mailto: …
                continue
            path_part, _, anchor = target.partition("#")
            path_part = unquote(path_part)
            if path_part:
                resolved = os.path.normpath(os.path.join(os.path.dirname(source), path_part))
            else:
                resolved = source
            where = f"{source}:{number}: ({target})"
            if not os.path.exists(resolved):
                problems.append(f"{where} {resolved} does not exist")
                continue
            if resolved.startswith("docs" + os.sep) and resolved.endswith(".md"):
                if source in ("README.md", os.path.join("docs", "README.md")):
                    linked.add(resolved)
            if anchor:
                if not resolved.endswith(".md") or os.path.isdir(resolved):
                    problems.append(f"{where} an anchor into {resolved}, which is not a Markdown file")
                elif unquote(anchor) not in anchors(resolved):
                    problems.append(f"{where} {resolved} has no heading with the anchor #{anchor}")

for page in pages:
    if page != os.path.join("docs", "README.md") and page not in linked:
        problems.append(f"{page}:1: not linked from README.md or docs/README.md")
if not os.path.exists(os.path.join("docs", "README.md")):
    problems.append("docs/README.md:1: missing (the index of docs/)")

with open("README.md", encoding="utf-8") as handle:
    count = len(handle.read().rstrip("\n").split("\n"))
if count > MAX_README_LINES:
    problems.append(f"README.md:{count}: {count} lines; the front door holds at most {MAX_README_LINES}, move the rest to docs/")

for problem in problems:
    print(problem, file=sys.stderr)
if problems:
    print(f"check-docs: {len(problems)} problem(s)", file=sys.stderr)
    sys.exit(1)
print(f"check-docs: {len(files)} files, every link resolves")
PY
