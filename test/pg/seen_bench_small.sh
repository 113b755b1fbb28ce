#!/usr/bin/env bash
# seen_bench_small.sh - the correctness run of bench/seen/run.sh (issue 34):
# 100 users (113k pairs), page marks, unsees and the feed mix from 1 and 4
# pgbench clients on the two-column recipe of docs/seen.md, then every item
# of the exact table must be reported seen (0 false negatives).  About 10 s.
#
# Usage: PG_CONFIG=... bash test/pg/seen_bench_small.sh   (after make install)
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
exec bash "$top/bench/seen/run.sh" --scale small --check --clients 1,4 --txns 400
