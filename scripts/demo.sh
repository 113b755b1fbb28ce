#!/usr/bin/env bash
# demo.sh - sets up everything on a fresh Debian 12 machine, builds and
# installs cuckoo, starts a throwaway PostgreSQL 15 cluster and runs a demo.
set -euo pipefail
cd "$(dirname "$0")/.."
export PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
bash scripts/deps.sh
SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
make -s PG_CONFIG="$PG_CONFIG"
$SUDO make -s PG_CONFIG="$PG_CONFIG" install
# pg_virtualenv creates a temporary cluster, runs psql against it, drops it
pg_virtualenv -t -v 15 psql -X -q -f demo/demo.sql
