#!/usr/bin/env bash
# multi_filter_bench.sh - issue #18.4: one query probing several stored
# filters in turn (a nested loop over a table of filters) against one filter.
#
# Each probe query reads P probe rows whose filter changes on every row
# (uid = i % K + 1, so K distinct filters alternate) and counts the rows
# cf_contains reports present.  Per-probe cost = query time / P; the ratio is
# against K = 1 (every row probes the same filter).  Runs are interleaved
# (rep 1: k = 1, 2, 10, ...; rep 2: ...) and min/median/max are reported.
#
# The cache holds 64 filters: k = 50 fits, k = 1,000 misses on every row.
#
# Usage: bash bench/multi_filter_bench.sh
#   needs a running server with the extension installed, reached through
#   the usual PGHOST / PGPORT / PGUSER / PGDATABASE; it creates and drops the
#   schema cf_mfbench.  REPS (default 7), P (probe rows, default 200000),
#   BIG (capacity of the large filters, default 1000000), SMALL (capacity of
#   the 1,000 filters, default 10000).
set -euo pipefail
REPS=${REPS:-7}
P=${P:-200000}
BIG=${BIG:-1000000}
SMALL=${SMALL:-10000}
PSQL=${PSQL:-psql}

$PSQL -X -q -v ON_ERROR_STOP=1 <<SQL
SET client_min_messages = warning;
DROP SCHEMA IF EXISTS cf_mfbench CASCADE;
CREATE SCHEMA cf_mfbench;
SET search_path = cf_mfbench, public;
-- large filters: 10 of capacity BIG, half full; small: 1,000 of capacity SMALL
CREATE TABLE big (id int PRIMARY KEY, f cuckoofilter);
INSERT INTO big
SELECT k, cf_add_all(cf_create($BIG), array(SELECT k * 100000000::bigint + g
                                              FROM generate_series(1, $BIG / 2) g))
  FROM generate_series(1, 10) k;
CREATE TABLE small (id int PRIMARY KEY, f cuckoofilter);
INSERT INTO small
SELECT k, cf_add_all(cf_create($SMALL), array(SELECT k * 100000000::bigint + g
                                                FROM generate_series(1, $SMALL / 2) g))
  FROM generate_series(1, 1000) k;
VACUUM ANALYZE big;
VACUUM ANALYZE small;
CREATE TABLE probes (i int, item bigint);
INSERT INTO probes SELECT i, i FROM generate_series(1, $P) i;
VACUUM ANALYZE probes;

CREATE TABLE runs (rep int, tbl text, k int, ms float8);
-- one probe query: every row looks its filter up by id (a nested loop
-- with an index scan), so row i probes filter i % k + 1
CREATE FUNCTION run(tbl text, k int) RETURNS float8 LANGUAGE plpgsql AS \$\$
DECLARE
	t timestamptz;
	n bigint;
BEGIN
	t := clock_timestamp();
	EXECUTE format('SELECT count(*) FROM probes p JOIN %I b ON b.id = p.i %% %s + 1
	                 WHERE cf_contains(b.f, p.item)', tbl, k) INTO n;
	RETURN extract(epoch FROM clock_timestamp() - t) * 1000;
END \$\$;
SQL

$PSQL -X -q -v ON_ERROR_STOP=1 <<SQL
SET search_path = cf_mfbench, public;
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET max_parallel_workers_per_gather = 0;
SELECT pg_size_pretty(avg(pg_column_size(f))) AS big_filter FROM big;
SELECT pg_size_pretty(avg(pg_column_size(f))) AS small_filter FROM small;
EXPLAIN (COSTS OFF) SELECT count(*) FROM probes p JOIN big b ON b.id = p.i % 2 + 1
 WHERE cf_contains(b.f, p.item);
-- warm up
SELECT run('big', 1), run('big', 2), run('small', 1000);
DO \$\$
BEGIN
	FOR r IN 1..$REPS LOOP
		INSERT INTO runs VALUES (r, 'big', 1, run('big', 1));
		INSERT INTO runs VALUES (r, 'big', 2, run('big', 2));
		INSERT INTO runs VALUES (r, 'big', 10, run('big', 10));
		INSERT INTO runs VALUES (r, 'small', 1, run('small', 1));
		INSERT INTO runs VALUES (r, 'small', 2, run('small', 2));
		INSERT INTO runs VALUES (r, 'small', 10, run('small', 10));
		INSERT INTO runs VALUES (r, 'small', 50, run('small', 50));
		INSERT INTO runs VALUES (r, 'small', 1000, run('small', 1000));
	END LOOP;
END \$\$;
\echo per-probe microseconds ($P probes per query, $REPS interleaved reps) and ratio of medians to k = 1
WITH s AS (
	SELECT tbl, k, min(ms) * 1000 / $P AS min_us,
	       percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) * 1000 / $P AS med_us,
	       max(ms) * 1000 / $P AS max_us
	  FROM runs GROUP BY tbl, k)
SELECT s.tbl AS filters, s.k AS distinct_filters,
       round(s.min_us::numeric, 2) AS min_us, round(s.med_us::numeric, 2) AS median_us,
       round(s.max_us::numeric, 2) AS max_us,
       round((s.med_us / b.med_us)::numeric, 2) AS ratio_to_one
  FROM s JOIN s b ON b.tbl = s.tbl AND b.k = 1
 ORDER BY s.tbl, s.k;
SQL
if [ "${KEEP:-0}" != 1 ]; then
	$PSQL -X -q -c 'SET client_min_messages = warning; DROP SCHEMA cf_mfbench CASCADE'
fi
