#!/usr/bin/env bash
# sql_reference.sh - checks docs/sql-reference.md, the generated reference of
# every SQL object, against the catalog of a fresh CREATE EXTENSION cuckoo on
# a throw-away cluster of $PG_CONFIG's server (cuckoo installed there: make
# install); with --write, writes it instead (after changing an SQL script).
# The definitions are PostgreSQL 15's (pg_get_functiondef's text differs
# between majors): the quick run checks it on 15.
# Usage: PG_CONFIG=... bash test/pg/sql_reference.sh [--write]
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
mode=--check
[ "${1:-}" = --write ] && mode=--write
exec bash "$top/test/pg/tmpcluster.sh" python3 "$top/scripts/sql_reference.py" "$mode" "$top/docs/sql-reference.md"
