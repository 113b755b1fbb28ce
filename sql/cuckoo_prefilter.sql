-- cuckoo.join_prefilter: the planner adds the hand-made join pre-filter
-- (SELECT cf_agg(s.k) FROM small s WHERE ...) @> b.k where it cannot change
-- the result (docs/prefilter.md).  Plans with COSTS OFF on analyzed tables;
-- each decision shows as a DEBUG1 message; every query's rows are compared
-- with the setting off and on.
LOAD 'cuckoo';
SET max_parallel_workers_per_gather = 0;
SET jit = off;
CREATE TABLE pf_big (k int8, v int4, t text COLLATE "C", n numeric, d date);
INSERT INTO pf_big
SELECT g % 5000, g, 't' || (g % 5000), g % 5000, DATE '2026-01-01' + g % 5000
  FROM generate_series(1, 20000) g;
INSERT INTO pf_big VALUES (NULL, 0, NULL, NULL, NULL);
CREATE TABLE pf_small (k int8, k4 int4, region text, t text COLLATE "C", n numeric, ts timestamp);
INSERT INTO pf_small
SELECT g, g, CASE WHEN g % 100 = 0 THEN 'eu' ELSE 'us' END, 't' || g, g,
       TIMESTAMP '2026-01-01' + g * INTERVAL '1 day'
  FROM generate_series(1, 10000) g;
INSERT INTO pf_small VALUES (NULL, NULL, 'eu', NULL, NULL, NULL);
ANALYZE pf_big, pf_small;

-- the rows of a query with the setting off and on, as multisets
CREATE FUNCTION pf_same(q text) RETURNS text LANGUAGE plpgsql
SET cuckoo.join_prefilter_messages = debug1 AS $$
DECLARE
	r record;
	off_rows text[] := '{}';
	on_rows text[] := '{}';
BEGIN
	PERFORM set_config('cuckoo.join_prefilter', 'off', true);
	FOR r IN EXECUTE q LOOP off_rows := off_rows || r::text; END LOOP;
	PERFORM set_config('cuckoo.join_prefilter', 'on', true);
	FOR r IN EXECUTE q LOOP on_rows := on_rows || r::text; END LOOP;
	IF (SELECT array_agg(x ORDER BY x) FROM unnest(off_rows) x) IS NOT DISTINCT FROM
	   (SELECT array_agg(x ORDER BY x) FROM unnest(on_rows) x) THEN
		RETURN format('same %s rows', cardinality(on_rows));
	END IF;
	RETURN format('DIFFERENT: %s rows off, %s on', cardinality(off_rows), cardinality(on_rows));
END $$;

-- the thresholds at their extremes: the rule applies wherever it is allowed
-- the plan's scans, each with its Filter (or Remote SQL) and rows, sorted, and
-- the number of InitPlans: where each filter went, whatever join shape a
-- PostgreSQL major picks (15 writes $0, 17 and later (InitPlan 1).col1)
CREATE FUNCTION pf_plan(q text, opts text DEFAULT 'COSTS OFF') RETURNS SETOF text
LANGUAGE plpgsql AS $$
DECLARE
	line text;
	cur text;
	scans text[] := '{}';
	n int := 0;
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (' || opts || ') ' || q LOOP
		line := regexp_replace(line, '^\s*(->\s*)?', '');
		line := regexp_replace(line, '(\(InitPlan \d+\)\.col1|\$\d+) (@>|OPERATOR\(public\.@>\))',
							   '$f \2', 'g');
		line := regexp_replace(line, '\(actual rows=([0-9]+)(\.[0-9]+)? loops=[0-9]+\)', '(rows=\1)');
		IF line ~ '^InitPlan' THEN
			n := n + 1;
		ELSIF line ~ '^(Filter|Remote SQL|Rows Removed by Filter):' THEN
			IF cur IS NOT NULL THEN
				cur := cur || ' | ' || line;
			END IF;
		ELSIF line ~ 'Scan' THEN
			IF cur IS NOT NULL THEN
				scans := scans || cur;
			END IF;
			cur := line;
		END IF;
	END LOOP;
	IF cur IS NOT NULL THEN
		scans := scans || cur;
	END IF;
	RETURN NEXT n || ' InitPlan(s)';
	RETURN QUERY SELECT s FROM unnest(scans) s ORDER BY s;
END $$;

SET cuckoo.join_prefilter_min_big_rows = 0;
SET cuckoo.join_prefilter_max_small_rows = -1;
SET cuckoo.join_prefilter_max_small_ratio = -1;
SET cuckoo.join_prefilter_min_removed = 0;
-- 1.4's rule: every candidate the thresholds accept, local plans uncosted
-- (the default, auto, costs a local one: sql/cuckoo_prefilter_query.sql)
SET cuckoo.join_prefilter_query = always;
SET cuckoo.join_prefilter = on;
SET cuckoo.join_prefilter_messages = notice;
-- the messages without their DETAIL (the estimates, which may differ between majors)
\set VERBOSITY terse

-- an inner join: a filter of the 'eu' keys in pf_big's scan (and one of
-- pf_big's keys in pf_small's, as the thresholds allow it)
SELECT pf_plan($$SELECT count(*) FROM pf_big b JOIN pf_small s ON b.k = s.k WHERE s.region = 'eu'$$);
SELECT pf_same($$SELECT b.k, b.v FROM pf_big b JOIN pf_small s ON b.k = s.k WHERE s.region = 'eu'$$);
-- the same join written in WHERE, across int8 = int4, and on text and numeric keys
SELECT pf_plan($$SELECT count(*) FROM pf_big b, pf_small s WHERE b.k = s.k4 AND s.region = 'eu'$$);
SELECT pf_same($$SELECT b.v FROM pf_big b, pf_small s WHERE b.k = s.k4 AND s.region = 'eu'$$);
SELECT pf_same($$SELECT b.v FROM pf_big b, pf_small s WHERE b.t = s.t AND s.region = 'eu'$$);
SELECT pf_same($$SELECT b.v FROM pf_big b, pf_small s WHERE b.n = s.n AND s.region = 'eu'$$);
-- a small side with no row: the filter is NULL, NULL @> k drops every row
SELECT pf_same($$SELECT b.v FROM pf_big b JOIN pf_small s ON b.k = s.k WHERE s.region = 'none'$$);

-- semi joins: IN and EXISTS
SELECT pf_plan($$SELECT count(*) FROM pf_big b WHERE b.k IN (SELECT s.k FROM pf_small s WHERE s.region = 'eu')$$);
SELECT pf_same($$SELECT b.v FROM pf_big b WHERE b.k IN (SELECT s.k FROM pf_small s WHERE s.region = 'eu')$$);
SELECT pf_plan($$SELECT count(*) FROM pf_big b WHERE EXISTS (SELECT FROM pf_small s WHERE s.k = b.k AND s.region = 'eu')$$);
SELECT pf_same($$SELECT b.v FROM pf_big b WHERE EXISTS (SELECT FROM pf_small s WHERE s.k = b.k AND s.region = 'eu')$$);
-- EXISTS (... LIMIT 1) is EXISTS (...); LIMIT 0 is not
SELECT pf_plan($$SELECT count(*) FROM pf_big b WHERE EXISTS (SELECT 1 FROM pf_small s WHERE s.k = b.k AND s.region = 'eu' LIMIT 1)$$);
SELECT pf_same($$SELECT b.v FROM pf_big b WHERE EXISTS (SELECT 1 FROM pf_small s WHERE s.k = b.k AND s.region = 'eu' LIMIT 1)$$);
SELECT pf_same($$SELECT b.v FROM pf_big b WHERE EXISTS (SELECT 1 FROM pf_small s WHERE s.k = b.k AND s.region = 'eu' LIMIT 0)$$);
-- a correlated condition of the subquery is left out of the filter (its keys: a superset)
SELECT pf_plan($$SELECT count(*) FROM pf_big b
 WHERE EXISTS (SELECT FROM pf_small s WHERE s.k = b.k AND s.k4 < b.v AND s.region = 'eu')$$);
SELECT pf_same($$SELECT b.v FROM pf_big b
 WHERE EXISTS (SELECT FROM pf_small s WHERE s.k = b.k AND s.k4 < b.v AND s.region = 'eu')$$);

-- a condition that could raise an error (%: division by zero) is left out of
-- the filter: its subquery may read rows the join never evaluates it on
SELECT pf_plan($$SELECT count(*) FROM pf_big b JOIN pf_small s ON b.k = s.k WHERE s.k4 % 100 = 0 AND s.region = 'eu'$$);
SELECT pf_same($$SELECT b.v FROM pf_big b JOIN pf_small s ON b.k = s.k WHERE s.k4 % 100 = 0 AND s.region = 'eu'$$);

-- outer joins: the nullable side gets the filter in its ON clause; never the preserved side
SELECT pf_plan($$SELECT count(*) FROM pf_small s LEFT JOIN pf_big b ON b.k = s.k WHERE s.region = 'eu'$$);
SELECT pf_same($$SELECT s.k, b.v FROM pf_small s LEFT JOIN pf_big b ON b.k = s.k WHERE s.region = 'eu'$$);
SELECT pf_same($$SELECT s.k, b.v FROM pf_small s LEFT JOIN pf_big b ON b.k = s.k AND s.region = 'eu'$$);
SELECT pf_plan($$SELECT count(*) FROM pf_big b RIGHT JOIN pf_small s ON b.k = s.k WHERE s.region = 'eu'$$);
SELECT pf_same($$SELECT s.k, b.v FROM pf_big b RIGHT JOIN pf_small s ON b.k = s.k WHERE s.region = 'eu'$$);
-- FULL: neither side
SELECT pf_plan($$SELECT count(*) FROM pf_big b FULL JOIN pf_small s ON b.k = s.k WHERE s.region = 'eu'$$);
SELECT pf_same($$SELECT s.k, b.v FROM pf_big b FULL JOIN pf_small s ON b.k = s.k WHERE s.region = 'eu'$$);
-- anti joins: never the outer side
SELECT pf_plan($$SELECT count(*) FROM pf_big b WHERE NOT EXISTS (SELECT FROM pf_small s WHERE s.k = b.k AND s.region = 'eu')$$);
SELECT pf_same($$SELECT b.v FROM pf_big b WHERE NOT EXISTS (SELECT FROM pf_small s WHERE s.k = b.k AND s.region = 'eu')$$);
SELECT pf_same($$SELECT b.v FROM pf_big b WHERE b.k NOT IN (SELECT s.k FROM pf_small s WHERE s.region = 'eu')$$);

-- declined: a volatile function in the conditions
SELECT pf_plan($$SELECT count(*) FROM pf_big b JOIN pf_small s ON b.k = s.k WHERE s.region = 'eu' AND random() >= 0$$);
-- date = timestamp: a date hashes as the timestamp of its midnight
SELECT pf_plan($$SELECT count(*) FROM pf_big b JOIN pf_small s ON b.d = s.ts WHERE s.region = 'eu'$$);
-- numeric = int8 casts the int8 to numeric: the filter takes the integer column
SELECT pf_plan($$SELECT count(*) FROM pf_big b JOIN pf_small s ON b.n = s.k WHERE s.region = 'eu'$$);
SELECT pf_same($$SELECT b.v FROM pf_big b JOIN pf_small s ON b.n = s.k WHERE s.region = 'eu'$$);
SELECT pf_same($$SELECT b.v FROM pf_big b JOIN pf_small s ON b.k = s.n WHERE s.region = 'eu'$$);
SELECT pf_same($$SELECT b.v FROM pf_big b WHERE b.v IN (SELECT s.n FROM pf_small s WHERE s.region = 'eu')$$);
CREATE TABLE pf_frac AS SELECT g / 2.0 AS n, g::float8 / 2 AS f FROM generate_series(1, 400) g;
ANALYZE pf_frac;
SELECT pf_same($$SELECT b.v, s.n FROM pf_big b JOIN pf_frac s ON b.k = s.n$$);
SELECT pf_same($$SELECT b.v FROM pf_big b WHERE b.n IN (SELECT s.n FROM pf_frac s)$$);
-- int4 = float8 casts the int4 to float8 (exactly): the filter takes the int4 column
SELECT pf_plan($$SELECT count(*) FROM pf_big b JOIN pf_frac s ON b.v = s.f$$);
SELECT pf_same($$SELECT b.v, s.f FROM pf_big b JOIN pf_frac s ON b.v = s.f$$);
SELECT pf_same($$SELECT s.f FROM pf_frac s WHERE s.f IN (SELECT b.v FROM pf_big b WHERE b.v < 100)$$);
-- no candidate: int8 = float8 (the cast of int8 to float8 rounds)
SELECT pf_plan($$SELECT count(*) FROM pf_big b JOIN pf_frac s ON b.k = s.f$$);
-- char(n) against text and varchar (trailing blanks ignored), timestamp against date
CREATE TABLE pf_chars (ch char(6), vc varchar(8), t text, d date, ts timestamp, tz timestamptz);
INSERT INTO pf_chars SELECT 't' || g, 't' || g || CASE WHEN g % 2 = 0 THEN ' ' ELSE '' END,
       't' || g, DATE '2026-01-01' + g, TIMESTAMP '2026-01-01' + g * INTERVAL '12 hours',
       TIMESTAMPTZ '2026-01-01 00:00+00' + g * INTERVAL '12 hours'
  FROM generate_series(1, 300) g;
ANALYZE pf_chars;
SELECT pf_plan($$SELECT count(*) FROM pf_big b JOIN pf_chars s ON b.t = s.ch$$);
SELECT pf_same($$SELECT b.v, s.ch FROM pf_big b JOIN pf_chars s ON b.t = s.ch$$);
SELECT pf_same($$SELECT x.vc, y.ch FROM pf_chars x JOIN pf_chars y ON x.vc = y.ch$$);
SELECT pf_same($$SELECT x.ch, y.vc FROM pf_chars x JOIN pf_chars y ON x.ch = y.vc$$);
SELECT pf_same($$SELECT x.t FROM pf_chars x WHERE x.t IN (SELECT y.ch FROM pf_chars y)$$);
SELECT pf_same($$SELECT x.ts, y.d FROM pf_chars x JOIN pf_chars y ON x.ts = y.d$$);
SELECT pf_same($$SELECT b.v FROM pf_big b JOIN pf_chars s ON b.d = s.ts$$);
-- declined: key types the filter does not hash alike (timestamp = timestamptz
-- compares under the session's TimeZone)
SELECT pf_plan($$SELECT count(*) FROM pf_chars x JOIN pf_chars y ON x.ts = y.tz$$);
-- declined: keys that are not columns (whole rows, system columns)
SELECT pf_plan($$SELECT count(*) FROM pf_big b JOIN pf_big c ON b = c$$);
SELECT pf_plan($$SELECT count(*) FROM pf_big b JOIN pf_big c ON b.ctid = c.ctid$$);
-- no candidate: a key that is an expression
SELECT pf_plan($$SELECT count(*) FROM pf_big b JOIN pf_small s ON b.k = s.k4 + 0 WHERE s.region = 'eu'$$);
-- declined: a nondeterministic collation
CREATE COLLATION pf_ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
CREATE TABLE pf_ci_small (t text COLLATE pf_ci);
INSERT INTO pf_ci_small VALUES ('T1'), ('t2');
ANALYZE pf_ci_small;
SELECT pf_plan($$SELECT count(*) FROM pf_big b JOIN pf_ci_small s ON b.t = s.t COLLATE pf_ci$$);
SELECT pf_plan($$SELECT count(*) FROM pf_ci_small s1 JOIN pf_ci_small s2 ON s1.t = s2.t$$);
SELECT pf_same($$SELECT s1.t, s2.t FROM pf_ci_small s1 JOIN pf_ci_small s2 ON s1.t = s2.t$$);
-- declined: data-modifying statements and FOR UPDATE
BEGIN;
SELECT pf_plan($$UPDATE pf_big b SET v = b.v FROM pf_small s WHERE b.k = s.k AND s.region = 'eu'$$);
SELECT pf_plan($$SELECT b.v FROM pf_big b JOIN pf_small s ON b.k = s.k WHERE s.region = 'eu' FOR UPDATE OF b$$);
SELECT pf_plan($$SELECT b.v FROM pf_big b JOIN pf_small s ON b.k = s.k
 WHERE s.region = 'eu' AND b.v IN (SELECT v FROM pf_big FOR SHARE)$$);
ROLLBACK;

-- joins inside a view, a subquery in FROM, UNION ALL branches and WITH queries
CREATE VIEW pf_eu AS
SELECT b.k, b.v FROM pf_big b JOIN pf_small s ON b.k = s.k WHERE s.region = 'eu';
SELECT pf_plan($$SELECT count(*) FROM pf_eu$$);
SELECT pf_same($$SELECT * FROM pf_eu$$);
SELECT pf_plan($$SELECT count(*) FROM (SELECT b.v FROM pf_big b JOIN pf_small s ON b.k = s.k
                       WHERE s.region = 'eu' OFFSET 0) sub$$);
SELECT pf_same($$SELECT sub.v, sub.n FROM (SELECT b.v, count(*) OVER () AS n FROM pf_big b
  JOIN pf_small s ON b.k = s.k WHERE s.region = 'eu') sub$$);
SELECT pf_same($$SELECT b.v FROM pf_big b JOIN pf_small s ON b.k = s.k WHERE s.region = 'eu'
  UNION ALL SELECT b.v FROM pf_big b WHERE b.k IN (SELECT k FROM pf_small WHERE region = 'us' AND k4 < 50)$$);
SELECT pf_plan($$WITH w AS MATERIALIZED (SELECT b.v FROM pf_big b JOIN pf_small s ON b.k = s.k WHERE s.region = 'eu')
SELECT count(*) FROM w$$);
SELECT pf_same($$WITH w AS MATERIALIZED (SELECT b.v FROM pf_big b JOIN pf_small s ON b.k = s.k
  WHERE s.region = 'eu') SELECT * FROM w$$);
-- a view's own levels only: a volatile function declines that level, not the other
SELECT pf_same($$SELECT w.v FROM pf_eu w JOIN pf_big x ON x.v = w.v WHERE random() >= 0$$);
-- not looked into: a security-barrier view, a recursive WITH
CREATE VIEW pf_eu_sb WITH (security_barrier) AS
SELECT b.k, b.v FROM pf_big b JOIN pf_small s ON b.k = s.k WHERE s.region = 'eu';
SELECT pf_plan($$SELECT count(*) FROM pf_eu_sb$$);
SELECT pf_same($$WITH RECURSIVE r(k, d) AS (SELECT s.k, 0 FROM pf_small s WHERE s.region = 'eu'
  UNION ALL SELECT b.k + 1, r.d + 1 FROM r JOIN pf_big b ON b.k = r.k WHERE r.d < 2)
  SELECT k, d FROM r$$);
DROP VIEW pf_eu, pf_eu_sb;

-- a prepared statement's generic plan: the filter's parameter is the statement's
PREPARE pf_q(text) AS
SELECT count(*) FROM pf_big b JOIN pf_small s ON b.k = s.k WHERE s.region = $1;
SET plan_cache_mode = force_generic_plan;
SELECT pf_plan($$EXECUTE pf_q('eu')$$);
EXECUTE pf_q('eu');
EXECUTE pf_q('none');
SET cuckoo.join_prefilter = off;
EXECUTE pf_q('eu');
SET cuckoo.join_prefilter = on;
RESET plan_cache_mode;
DEALLOCATE pf_q;

-- a parallel plan: the InitPlan's value goes to the workers
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SELECT pf_plan($$SELECT count(*) FROM pf_big b WHERE b.k IN (SELECT s.k FROM pf_small s WHERE s.region = 'eu')$$);
SELECT pf_same($$SELECT b.v FROM pf_big b WHERE b.k IN (SELECT s.k FROM pf_small s WHERE s.region = 'eu')$$);
RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
SET max_parallel_workers_per_gather = 0;

-- a partitioned table: the filter in every partition's scan
CREATE TABLE pf_part (k int8, v int4) PARTITION BY RANGE (k);
CREATE TABLE pf_part_1 PARTITION OF pf_part FOR VALUES FROM (MINVALUE) TO (2500);
CREATE TABLE pf_part_2 PARTITION OF pf_part FOR VALUES FROM (2500) TO (MAXVALUE);
CREATE TABLE pf_part_null PARTITION OF pf_part DEFAULT;
INSERT INTO pf_part SELECT k, v FROM pf_big;
ANALYZE pf_part;
SELECT pf_plan($$SELECT count(*) FROM pf_part p JOIN pf_small s ON p.k = s.k WHERE s.region = 'eu'$$);
SELECT pf_same($$SELECT p.v FROM pf_part p JOIN pf_small s ON p.k = s.k WHERE s.region = 'eu'$$);

-- EXPLAIN ANALYZE: the rows the filter removed (about 1% of the others pass)
SELECT pf_plan($$SELECT count(*) FROM pf_big b JOIN pf_small s ON b.k = s.k WHERE s.region = 'eu'$$, 'ANALYZE, BUFFERS OFF, COSTS OFF, TIMING OFF, SUMMARY OFF');

-- the thresholds: at their defaults this small join is declined
RESET cuckoo.join_prefilter_min_big_rows;
RESET cuckoo.join_prefilter_max_small_rows;
RESET cuckoo.join_prefilter_max_small_ratio;
RESET cuckoo.join_prefilter_min_removed;
SHOW cuckoo.join_prefilter_min_big_rows;
SHOW cuckoo.join_prefilter_max_small_rows;
SHOW cuckoo.join_prefilter_max_small_ratio;
SHOW cuckoo.join_prefilter_min_removed;
SELECT pf_plan($$SELECT count(*) FROM pf_big b JOIN pf_small s ON b.k = s.k WHERE s.region = 'eu'$$);
SET cuckoo.join_prefilter_min_big_rows = 1000;
SET cuckoo.join_prefilter_max_small_rows = 1000;
-- pf_big is filtered; pf_small is too big to build a filter from, and an
-- unfiltered pf_small removes too little
SELECT pf_plan($$SELECT count(*) FROM pf_big b JOIN pf_small s ON b.k = s.k WHERE s.region = 'eu'$$);
SELECT pf_plan($$SELECT count(*) FROM pf_big b JOIN pf_small s ON b.k = s.k$$);
-- a filter's side with more rows than a quarter of the filtered side's: declined
SET cuckoo.join_prefilter_max_small_rows = -1;
SET cuckoo.join_prefilter_min_removed = 0;
SET cuckoo.join_prefilter_max_small_ratio = 0.25;
SELECT pf_plan($$SELECT count(*) FROM pf_big b JOIN pf_small s ON b.k = s.k$$);
RESET cuckoo.join_prefilter_max_small_ratio;
-- the fraction removed with the key ranges (docs/prefilter.md): the small
-- side's keys outside the big side's range of values match none of its rows
RESET cuckoo.join_prefilter_max_small_rows;
RESET cuckoo.join_prefilter_min_removed;
CREATE TABLE pf_miss (k int8, k4 int4, n numeric);
INSERT INTO pf_miss
SELECT CASE WHEN g % 100 = 0 THEN g % 5000 ELSE 100000 + g END,
       CASE WHEN g % 100 = 0 THEN g % 5000 ELSE 100000 + g END,
       CASE WHEN g % 100 = 0 THEN g % 5000 ELSE 100000 + g END
  FROM generate_series(1, 5000) g;
CREATE TABLE pf_hit (k int8);
INSERT INTO pf_hit SELECT g % 5000 FROM generate_series(1, 5000) g;
CREATE TABLE pf_nostat (k int8, v int4);
INSERT INTO pf_nostat SELECT k, 0 FROM pf_miss;
ANALYZE pf_miss, pf_hit;
ANALYZE pf_nostat (v);
-- 1% of pf_miss's keys in pf_big's range: filtered (pf_big is too big a filter's side)
SELECT pf_plan($$SELECT count(*) FROM pf_big b JOIN pf_miss s ON b.k = s.k$$);
SELECT pf_same($$SELECT b.v FROM pf_big b JOIN pf_miss s ON b.k = s.k$$);
-- every key of pf_hit in pf_big's range: nothing to remove, declined
SELECT pf_plan($$SELECT count(*) FROM pf_big b JOIN pf_hit s ON b.k = s.k$$);
-- across int8 = int4: the integer family's cross-type "<" compares the ranges
SELECT pf_plan($$SELECT count(*) FROM pf_big b JOIN pf_miss s ON b.k = s.k4$$);
SELECT pf_same($$SELECT b.v FROM pf_big b JOIN pf_miss s ON b.k = s.k4$$);
-- numeric = numeric: one type (its "<" is not leakproof; the user reads both tables)
SELECT pf_plan($$SELECT count(*) FROM pf_big b JOIN pf_miss s ON b.n = s.n$$);
-- int8 = numeric (the int8 cast): no family orders both, no clip, declined
SELECT pf_plan($$SELECT count(*) FROM pf_big b JOIN pf_miss s ON b.k = s.n$$);
-- a key without statistics: the fraction of the rows kept (all), declined
SELECT pf_plan($$SELECT count(*) FROM pf_big b JOIN pf_nostat s ON b.k = s.k$$);
-- new statistics, a new estimate (the backend's clip of pf_miss is dropped):
-- every key of pf_miss in pf_big's range now, declined
UPDATE pf_miss SET k = k % 5000;
ANALYZE pf_miss;
SELECT pf_plan($$SELECT count(*) FROM pf_big b JOIN pf_miss s ON b.k = s.k$$);
DROP TABLE pf_miss, pf_hit, pf_nostat;
-- off: nothing
SET cuckoo.join_prefilter = off;
SELECT pf_plan($$SELECT count(*) FROM pf_big b JOIN pf_small s ON b.k = s.k WHERE s.region = 'eu'$$);
RESET cuckoo.join_prefilter_messages;
DROP TABLE pf_big, pf_small, pf_ci_small, pf_part, pf_frac, pf_chars;
DROP COLLATION pf_ci;
DROP FUNCTION pf_same(text);
DROP FUNCTION pf_plan(text, text);
