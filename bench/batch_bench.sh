#!/usr/bin/env bash
# batch_bench.sh - the array functions of 1.1 against one call per element:
# cf_contains_each / _any / _all, cf_add_all_unique and cf_delete_all on an
# array of N bigint values, against unnest() with cf_contains, @> ANY / ALL,
# and PL/pgSQL loops of cf_add_unique / cf_delete; cf_hash(array) (hash every
# element, probe nothing) is the floor.
#
# Each measurement is one PL/pgSQL call that runs the expression R times on
# the same filter and array (held in PL/pgSQL variables) and reads
# clock_timestamp() around the loop; the result is microseconds per call.
# The runs are interleaved (rep 1: every method, rep 2: every method, ...),
# and the report gives min / median / max over REPS repetitions, of the
# time per call and of its ratio to the batch function measured in the
# same repetition.
#
# Usage: bash bench/batch_bench.sh
#   needs a running server with the extension (1.1) installed, reached
#   through the usual PGHOST / PGPORT / PGUSER / PGDATABASE, for example
#   `make install && pg_virtualenv -t -v 15 bash bench/batch_bench.sh`; it
#   creates and drops the schema cf_bbench.
#   N (array elements, default 10000), R (calls per measurement, default
#   20), REPS (default 7), CAPS (filter capacities, default "100000 10000000":
#   a filter in cache and one of 13 MB).
set -euo pipefail
N=${N:-10000}
R=${R:-20}
REPS=${REPS:-7}
CAPS=${CAPS:-100000 10000000}
PSQL=(psql -X -q -v ON_ERROR_STOP=1)
caps_sql=$(echo "$CAPS" | tr -s ' ' ',')

"${PSQL[@]}" <<SQL
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS cuckoo;
ALTER EXTENSION cuckoo UPDATE;
DROP SCHEMA IF EXISTS cf_bbench CASCADE;
CREATE SCHEMA cf_bbench;
SET search_path = cf_bbench, public;
-- filters half full: the values 1 .. cap/2
CREATE TABLE filters AS
SELECT c AS cap, (SELECT cf_agg(g::bigint, 0.01, c) FROM generate_series(1, c / 2) g) AS f
  FROM unnest(ARRAY[$caps_sql]::bigint[]) c;
-- probe arrays of N values: half present (1, 2, ...) and half absent (-1,
-- -2, ...) in turn; all present; values each filter reports absent (no
-- false positive among them, so cf_contains_any reads them all)
CREATE TABLE arrays AS
SELECT cap, 'mixed' AS kind,
       (SELECT array_agg(CASE WHEN i % 2 = 0 THEN i / 2 ELSE -i END ORDER BY i)
          FROM generate_series(1::bigint, $N) i) AS a
  FROM filters
UNION ALL
SELECT cap, 'present', (SELECT array_agg(i ORDER BY i) FROM generate_series(1::bigint, $N) i)
  FROM filters
UNION ALL
SELECT cap, 'absent', ARRAY(SELECT -i FROM generate_series(1::bigint, 2 * $N) i
                             WHERE NOT cf_contains(f, -i) ORDER BY i LIMIT $N)
  FROM filters;

CREATE TABLE runs (rep int, cap bigint, grp int, ord int, method text, us float8);

-- the methods: groups of alternatives, the batch function first in each
CREATE TABLE methods (grp int, ord int, method text);
INSERT INTO methods VALUES
	(1, 1, 'cf_contains_each(f, a)'),
	(1, 2, 'ARRAY(SELECT cf_contains(f, v) FROM unnest(a) v)'),
	(1, 3, 'cf_hash(a): hashes every element, probes none'),
	(2, 1, 'cf_contains_any(f, a), a reported absent'),
	(2, 2, 'f @> ANY (a)'),
	(2, 3, 'EXISTS (SELECT FROM unnest(a) v WHERE f @> v)'),
	(3, 1, 'cf_contains_all(f, a), all present'),
	(3, 2, 'f @> ALL (a)'),
	(3, 3, 'NOT EXISTS (SELECT FROM unnest(a) v WHERE NOT f @> v)'),
	(4, 1, 'cf_add_all_unique(f, a)'),
	(4, 2, 'PL/pgSQL FOREACH: f := cf_add_unique(f, v)'),
	(5, 1, 'cf_delete_all(f, a)'),
	(5, 2, 'PL/pgSQL FOREACH: f := cf_delete(f, v)');

-- microseconds per call of method, on the filter of capacity cap
CREATE FUNCTION run(method text, cap bigint, r int) RETURNS float8 LANGUAGE plpgsql AS \$\$
DECLARE
	-- in memory, not a pointer to the stored value: the calls measure the
	-- work on the filter, not reading it back from TOAST
	f cuckoofilter := (SELECT fl.f::text::cuckoofilter FROM filters fl WHERE fl.cap = run.cap);
	g cuckoofilter;
	mixed bigint[] := (SELECT a FROM arrays WHERE kind = 'mixed' AND arrays.cap = run.cap);
	absent bigint[] := (SELECT a FROM arrays WHERE kind = 'absent' AND arrays.cap = run.cap);
	present bigint[] := (SELECT a FROM arrays WHERE kind = 'present' AND arrays.cap = run.cap);
	res boolean[];
	ok boolean;
	h bigint;
	x bigint;
	t timestamptz;
BEGIN
	t := clock_timestamp();
	FOR k IN 1 .. r LOOP
		CASE method
		WHEN 'cf_contains_each(f, a)' THEN res := cf_contains_each(f, mixed);
		WHEN 'ARRAY(SELECT cf_contains(f, v) FROM unnest(a) v)' THEN
			res := ARRAY(SELECT cf_contains(f, v) FROM unnest(mixed) v);
		WHEN 'cf_hash(a): hashes every element, probes none' THEN h := cf_hash(mixed);
		WHEN 'cf_contains_any(f, a), a reported absent' THEN ok := cf_contains_any(f, absent);
		WHEN 'f @> ANY (a)' THEN ok := f @> ANY (absent);
		WHEN 'EXISTS (SELECT FROM unnest(a) v WHERE f @> v)' THEN
			ok := EXISTS (SELECT FROM unnest(absent) v WHERE f @> v);
		WHEN 'cf_contains_all(f, a), all present' THEN ok := cf_contains_all(f, present);
		WHEN 'f @> ALL (a)' THEN ok := f @> ALL (present);
		WHEN 'NOT EXISTS (SELECT FROM unnest(a) v WHERE NOT f @> v)' THEN
			ok := NOT EXISTS (SELECT FROM unnest(present) v WHERE NOT f @> v);
		WHEN 'cf_add_all_unique(f, a)' THEN g := cf_add_all_unique(f, mixed);
		WHEN 'PL/pgSQL FOREACH: f := cf_add_unique(f, v)' THEN
			g := f;
			FOREACH x IN ARRAY mixed LOOP g := cf_add_unique(g, x); END LOOP;
		WHEN 'cf_delete_all(f, a)' THEN g := cf_delete_all(f, mixed);
		WHEN 'PL/pgSQL FOREACH: f := cf_delete(f, v)' THEN
			g := f;
			FOREACH x IN ARRAY mixed LOOP g := cf_delete(g, x); END LOOP;
		END CASE;
	END LOOP;
	RETURN extract(epoch FROM clock_timestamp() - t) * 1e6 / r;
END \$\$;
SQL

echo "Running $REPS interleaved repetitions of $R calls per method ..." >&2
for rep in $(seq 0 "$REPS"); do		# rep 0 is a warm-up, not reported
	for cap in $CAPS; do
		"${PSQL[@]}" -c "SET search_path = cf_bbench, public;
			INSERT INTO runs SELECT $rep, $cap, grp, ord, method, run(method, $cap, $R)
			  FROM methods ORDER BY grp, ord;"
	done
done

echo "## Batch functions against one call per element: arrays of $N bigint values"
echo
echo "$(nproc) CPUs ($(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1)), $(psql -X -At -c 'SHOW server_version'), $REPS repetitions of $R calls, interleaved; load average $(cut -d' ' -f1-3 /proc/loadavg) at the end."
echo
"${PSQL[@]}" -A -F ' | ' -P footer=off -v n="$N" <<'SQL' |
SET search_path = cf_bbench, public;
WITH r AS (
	SELECT x.cap, x.grp, x.ord, x.method, x.us, x.us / b.us AS ratio
	  FROM runs x JOIN runs b ON b.rep = x.rep AND b.cap = x.cap AND b.grp = x.grp AND b.ord = 1
	 WHERE x.rep > 0)
SELECT cap AS "filter capacity", method,
       format('%s / %s / %s', round(min(us)), round(percentile_cont(0.5) WITHIN GROUP (ORDER BY us)::numeric),
              round(max(us))) AS "µs per call: min / median / max",
       round((percentile_cont(0.5) WITHIN GROUP (ORDER BY us) * 1000 / :n)::numeric, 1) AS "ns per element (median)",
       CASE WHEN ord = 1 THEN '1'
            ELSE format('%s / %s / %s', round(min(ratio)::numeric, 2),
                        round(percentile_cont(0.5) WITHIN GROUP (ORDER BY ratio)::numeric, 2),
                        round(max(ratio)::numeric, 2)) END AS "÷ the batch function: min / median / max"
  FROM r
 GROUP BY cap, grp, ord, method
 ORDER BY cap, grp, ord;
SQL
	sed -e 's/^/| /' -e 's/$/ |/' -e '1a|---|---|---|---|---|'
"${PSQL[@]}" -c "DROP SCHEMA cf_bbench CASCADE"
