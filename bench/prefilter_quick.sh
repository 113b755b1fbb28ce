#!/usr/bin/env bash
# prefilter_quick.sh - a quick local check of cuckoo.join_prefilter at its
# default thresholds: three joins of a BIG-row table with a table of BIG/4
# keys (multiples of 4), timed with the setting off and on, alternated in
# ROUNDS rounds in one session of a throw-away cluster (no parallel workers):
#   1 inner join, the small side filtered to 1% of its rows (region 'eu')
#   2 inner join, the small side unfiltered: the rule declines
#   3 IN (SELECT ...) with a condition the filter must leave out (%: it may
#     raise), so a filter would hold all BIG/4 keys: the estimates decide
# The machine's noise shows in 2 and 3 when both plans are the same.
# Prints the medians (ms) and the median of the rounds' on/off ratios, then
# the plans with the rule's messages.  bench/prefilter (helper prefbench) has
# the full measurements (postgres_fdw, Citus, 10M rows).
# Usage: PG_CONFIG=... bash bench/prefilter_quick.sh [BIG] [ROUNDS]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
big=${1:-4000000}
rounds=${2:-5}
sql=$(mktemp -t pf-quick.XXXXXX.sql)
trap 'rm -f "$sql"' EXIT
cat > "$sql" <<SQL
\set QUIET on
CREATE EXTENSION cuckoo;
LOAD 'cuckoo';
SET max_parallel_workers_per_gather = 0;
SELECT setseed(0.4);
CREATE TABLE big AS SELECT (random() * $big)::int8 AS key, g AS v FROM generate_series(1, $big) g;
CREATE TABLE small AS SELECT g * 4 AS key, CASE WHEN g % 100 = 0 THEN 'eu' ELSE 'us' END AS region
  FROM generate_series(1, $big / 4) g;
ANALYZE big, small;
CREATE FUNCTION t(q text, setting text) RETURNS float8 LANGUAGE plpgsql AS \$\$
DECLARE t0 timestamptz; r record;
BEGIN
  PERFORM set_config('cuckoo.join_prefilter', setting, true);
  t0 := clock_timestamp(); EXECUTE q INTO r;
  RETURN extract(epoch FROM clock_timestamp() - t0) * 1000;
END \$\$;
CREATE TEMP TABLE runs (q int, i int, off_ms float8, on_ms float8);
CREATE TEMP TABLE qs (q int, sql text);
INSERT INTO qs VALUES
 (1, 'SELECT count(*), sum(b.v) FROM big b JOIN small s ON b.key = s.key WHERE s.region = ''eu'''),
 (2, 'SELECT count(*), sum(b.v) FROM big b JOIN small s ON b.key = s.key'),
 (3, 'SELECT count(*), sum(b.v) FROM big b WHERE b.key IN (SELECT key FROM small WHERE key % 100 < 5)');
DO \$\$
DECLARE i int; r record; a float8; b float8;
BEGIN
  FOR i IN 1..$rounds LOOP
    FOR r IN SELECT * FROM qs ORDER BY q LOOP
      IF i % 2 = 0 THEN a := t(r.sql, 'off'); b := t(r.sql, 'on');
      ELSE b := t(r.sql, 'on'); a := t(r.sql, 'off'); END IF;
      INSERT INTO runs VALUES (r.q, i, a, b);
    END LOOP;
  END LOOP;
END \$\$;
\set QUIET off
SELECT q, count(*) AS rounds,
       round(percentile_cont(0.5) WITHIN GROUP (ORDER BY off_ms)::numeric, 0) AS off_ms,
       round(percentile_cont(0.5) WITHIN GROUP (ORDER BY on_ms)::numeric, 0) AS on_ms,
       round(percentile_cont(0.5) WITHIN GROUP (ORDER BY on_ms / off_ms)::numeric, 3) AS median_on_off
  FROM runs GROUP BY q ORDER BY q;
SET cuckoo.join_prefilter = on;
SET cuckoo.join_prefilter_messages = notice;
SELECT 'EXPLAIN (COSTS OFF) ' || sql AS explain FROM qs ORDER BY q \gexec
SQL
chmod 644 "$sql"
PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config} \
TMPCLUSTER_OPTS="${TMPCLUSTER_OPTS:--c shared_buffers=512MB -c work_mem=64MB}" \
	bash "$top/test/pg/tmpcluster.sh" psql -X -v ON_ERROR_STOP=1 -f "$sql"
