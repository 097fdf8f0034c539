#!/usr/bin/env bash
# Prints the ferry schema of DATABASE_URL as pg_dump does, without the lines that differ between runs
# (pg_dump's random \restrict key, its version comments).
set -euo pipefail
pg_dump --schema-only --schema=ferry --no-owner "$1" \
    | grep -v -e '^\\restrict ' -e '^\\unrestrict ' -e '^-- Dumped from database version' -e '^-- Dumped by pg_dump version'
