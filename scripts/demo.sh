#!/usr/bin/env bash
# demo.sh - sets up everything on a fresh Debian 12 machine, builds and
# installs cuckoo, starts a throwaway PostgreSQL 15 cluster and runs a demo.
# Independent of the caller's environment: its own locale (C.UTF-8), a
# cluster of its own (UTF8, in a temporary directory, removed afterwards).
set -euo pipefail
cd "$(dirname "$0")/.."
export LC_ALL=C.UTF-8 LANG=C.UTF-8 LANGUAGE=
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:$PATH
export PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
bash scripts/deps.sh quick
SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
make -s PG_CONFIG="$PG_CONFIG"
$SUDO make -s PG_CONFIG="$PG_CONFIG" install
# a temporary cluster: psql runs the demo against it, then it is dropped
bash test/pg/tmpcluster.sh psql -X -q -f demo/demo.sql
