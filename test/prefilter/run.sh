#!/usr/bin/env bash
# run.sh - the join pre-filter's differential test (test/prefilter/difftest.py)
# against a throw-away cluster of the server $PG_CONFIG belongs to (cuckoo
# installed there, postgres_fdw with it).  Prints the seed; exits as
# difftest.py does (77: the build has no cuckoo.join_prefilter).
#
#   PG_CONFIG=... bash test/prefilter/run.sh            a short run (25 s of queries)
#   DIFFTEST_SECONDS=240 bash test/prefilter/run.sh     the complete run's size
#   DIFFTEST_SEED=N DIFFTEST_QUERIES=M ...              replays a run's first M queries
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
export PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
# parallel workers for the plans that force them; max_connections for the
# loopback server's connections; the query-level form wherever the thresholds
# accept (always: auto only declines more of what always applies, and the
# thresholds difftest.py sets to their extremes make every join a candidate)
export TMPCLUSTER_OPTS="${TMPCLUSTER_OPTS:-} -c max_worker_processes=8 -c max_parallel_workers=4 -c cuckoo.join_prefilter_query=always"
exec bash "$top/test/pg/tmpcluster.sh" python3 "$top/test/prefilter/difftest.py"
