#!/usr/bin/env bash
# run.sh - bench/tpcds/run.py's self-test (test/tpcds/selftest.py) against a
# throw-away cluster of the server $PG_CONFIG belongs to, the cuckoo library
# preloaded as bench/tpcds/load.sh does.  About 15 s.
#
#   PG_CONFIG=... bash test/tpcds/run.sh
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
export PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
export TMPCLUSTER_OPTS="${TMPCLUSTER_OPTS:-} -c session_preload_libraries=cuckoo -c jit=off"
exec bash "$top/test/pg/tmpcluster.sh" python3 "$top/test/tpcds/selftest.py"
