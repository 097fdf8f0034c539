#!/usr/bin/env bash
# Prints the ferry schema of DATABASE_URL as pg_dump does, normalized to the schema itself: without pg_dump's
# framing (the "-- Name: …; Type: …" comment blocks, its header and footer, the SET lines of its session) and
# with runs of blank lines squeezed to one, and without what differs between runs (the random \restrict key,
# version comments). pg_dump's order is kept, so the output is deterministic.
set -euo pipefail
pg_dump --schema-only --schema=ferry --no-owner "$1" \
    | grep -v -x \
        -e '\\restrict .*' -e '\\unrestrict .*' \
        -e '-- Dumped from database version.*' -e '-- Dumped by pg_dump version.*' \
        -e '--' -e '-- Name: .*; Type: .*; Schema: .*; Owner: .*' -e '-- PostgreSQL database dump\( complete\)\{0,1\}' \
        -e 'SET [a-z_]* = .*;' -e "SELECT pg_catalog.set_config('search_path', '', false);" \
    | cat -s | sed -e '1{/^$/d}' -e '${/^$/d}'
