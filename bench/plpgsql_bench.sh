#!/usr/bin/env bash
# plpgsql_bench.sh - issue #18.3: PL/pgSQL adds after a caught error.
#
# fill(f) adds 1, 2, ... to f, each add in an exception block, until the
# filter (expansion 0) is full and the add fails; it returns f.  In one
# transaction (one DO block) the bench times:
#   first     fill(cf_create(C)): the first call, ends by catching the error
#   second    fill(cf_create(C)) again: PL/pgSQL now runs fill's cf_add
#             expression through the executor (see bench/README.md), which
#             flattens the filter on every add
#   other_fn  fill_b(cf_create(C)), a copy of fill: its expression never
#             failed, so its adds stay in place
#   try_first, try_second  fill_try(cf_create(C)) twice: the loop of 1.2 with
#             no exception block, cf_try_add and cf_items (issue 27 item 4)
# and, in a fresh transaction each, a plain loop of 10k and of 100k adds to
# a 1M-capacity filter (cf_add, and cf_try_add + cf_items as fill_try does).  Repetitions are interleaved; min / median / max.
#
# Usage: bash bench/plpgsql_bench.sh
#   needs a running server with the extension installed (PGHOST, PGPORT,
#   PGUSER, PGDATABASE as usual); creates and drops the schema cf_plbench.
#   REPS (default 7), CAPS (filter capacities to fill, default "5000 20000").
set -euo pipefail
REPS=${REPS:-7}
CAPS=${CAPS:-5000 20000}
PSQL=${PSQL:-psql}

$PSQL -X -q -v ON_ERROR_STOP=1 <<SQL
SET client_min_messages = warning;
DROP SCHEMA IF EXISTS cf_plbench CASCADE;
CREATE SCHEMA cf_plbench;
SET search_path = cf_plbench, public;
CREATE TABLE runs (rep int, what text, cap int, ms float8);
CREATE FUNCTION fill(f cuckoofilter) RETURNS cuckoofilter LANGUAGE plpgsql AS \$\$
BEGIN
	FOR i IN 1..100000000 LOOP
		BEGIN
			f := cf_add(f, i);
		EXCEPTION WHEN program_limit_exceeded THEN
			RETURN f;
		END;
	END LOOP;
	RETURN f;
END \$\$;
CREATE FUNCTION fill_b(f cuckoofilter) RETURNS cuckoofilter LANGUAGE plpgsql AS \$\$
BEGIN
	FOR i IN 1..100000000 LOOP
		BEGIN
			f := cf_add(f, i);
		EXCEPTION WHEN program_limit_exceeded THEN
			RETURN f;
		END;
	END LOOP;
	RETURN f;
END \$\$;
CREATE FUNCTION fill_try(f cuckoofilter) RETURNS cuckoofilter LANGUAGE plpgsql AS \$\$
DECLARE
	n bigint := cf_items(f);
BEGIN
	LOOP
		f := cf_try_add(f, n + 1);
		EXIT WHEN cf_items(f) = n;
		n := n + 1;
	END LOOP;
	RETURN f;
END \$\$;
CREATE FUNCTION try_adds(n int) RETURNS float8 LANGUAGE plpgsql AS \$\$
DECLARE
	f cuckoofilter := cf_create(1000000);
	t timestamptz := clock_timestamp();
	k bigint := 0;
BEGIN
	FOR i IN 1..n LOOP
		f := cf_try_add(f, i);
		EXIT WHEN cf_items(f) = k;
		k := k + 1;
	END LOOP;
	RETURN extract(epoch FROM clock_timestamp() - t) * 1000;
END \$\$;
CREATE FUNCTION adds(n int) RETURNS float8 LANGUAGE plpgsql AS \$\$
DECLARE
	f cuckoofilter := cf_create(1000000);
	t timestamptz := clock_timestamp();
BEGIN
	FOR i IN 1..n LOOP
		f := cf_add(f, i);
	END LOOP;
	RETURN extract(epoch FROM clock_timestamp() - t) * 1000;
END \$\$;
SQL

# one session (each DO block and INSERT its own transaction); rep 0 warms
# up (compiles the functions) and is dropped
{
	echo "SET search_path = cf_plbench, public;"
	for rep in $(seq 0 "$REPS"); do
		# one DO block (one transaction) per capacity: the error of one
		# capacity's first call must not reach the next capacity's
		for c in $CAPS; do
			cat <<SQL
DO \$\$
DECLARE
	t timestamptz;
	f cuckoofilter;
BEGIN
	t := clock_timestamp();
	f := fill(cf_create($c, expansion => 0));
	INSERT INTO runs VALUES ($rep, 'first', $c, extract(epoch FROM clock_timestamp() - t) * 1000);
	t := clock_timestamp();
	f := fill(cf_create($c, expansion => 0));
	INSERT INTO runs VALUES ($rep, 'second', $c, extract(epoch FROM clock_timestamp() - t) * 1000);
	t := clock_timestamp();
	f := fill_b(cf_create($c, expansion => 0));
	INSERT INTO runs VALUES ($rep, 'other_fn', $c, extract(epoch FROM clock_timestamp() - t) * 1000);
END \$\$;
DO \$\$
DECLARE
	t timestamptz;
	f cuckoofilter;
BEGIN
	t := clock_timestamp();
	f := fill_try(cf_create($c, expansion => 0));
	INSERT INTO runs VALUES ($rep, 'try_first', $c, extract(epoch FROM clock_timestamp() - t) * 1000);
	t := clock_timestamp();
	f := fill_try(cf_create($c, expansion => 0));
	INSERT INTO runs VALUES ($rep, 'try_second', $c, extract(epoch FROM clock_timestamp() - t) * 1000);
END \$\$;
SQL
		done
		cat <<SQL
INSERT INTO runs SELECT $rep, 'adds', 10000, adds(10000);
INSERT INTO runs SELECT $rep, 'adds', 100000, adds(100000);
INSERT INTO runs SELECT $rep, 'try_adds', 10000, try_adds(10000);
INSERT INTO runs SELECT $rep, 'try_adds', 100000, try_adds(100000);
SQL
	done
	echo "DELETE FROM runs WHERE rep = 0;"
} | $PSQL -X -q -v ON_ERROR_STOP=1

$PSQL -X -q -v ON_ERROR_STOP=1 <<SQL
SET search_path = cf_plbench, public;
\echo fill until full (C = capacity, expansion 0), ms, $REPS interleaved reps; ratio of medians to the first call
WITH s AS (
	SELECT what, cap, min(ms) AS lo, percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) AS med, max(ms) AS hi
	  FROM runs WHERE what NOT IN ('adds', 'try_adds') GROUP BY what, cap)
SELECT s.cap AS capacity, s.what AS call, round(s.lo::numeric, 1) AS min_ms,
       round(s.med::numeric, 1) AS median_ms, round(s.hi::numeric, 1) AS max_ms,
       round((s.med / f.med)::numeric, 2) AS ratio_to_first
  FROM s JOIN s f ON f.cap = s.cap
   AND f.what = CASE WHEN s.what LIKE 'try%' THEN 'try_first' ELSE 'first' END
 ORDER BY s.cap, array_position(ARRAY['first', 'second', 'other_fn', 'try_first', 'try_second'], s.what);
\echo plain loop of n adds to a 1M-capacity filter, ms; ratio of medians 100k / 10k
WITH s AS (
	SELECT what, cap AS n, min(ms) AS lo, percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) AS med, max(ms) AS hi
	  FROM runs WHERE what IN ('adds', 'try_adds') GROUP BY what, cap)
SELECT s.what AS loop, s.n, round(s.lo::numeric, 1) AS min_ms, round(s.med::numeric, 1) AS median_ms,
       round(s.hi::numeric, 1) AS max_ms, round((s.med / t.med)::numeric, 2) AS ratio_to_10k
  FROM s JOIN s t ON t.n = 10000 AND t.what = s.what ORDER BY s.what, s.n;
SQL
if [ "${KEEP:-0}" != 1 ]; then
	$PSQL -X -q -c 'SET client_min_messages = warning; DROP SCHEMA cf_plbench CASCADE'
fi
