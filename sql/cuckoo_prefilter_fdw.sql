-- cuckoo.join_prefilter with foreign tables: a postgres_fdw foreign table
-- (a loopback server listing cuckoo in its extensions) gets the filter in its
-- remote SQL, or = ANY (the keys) for a few keys; a small side of another
-- wrapper (file_fdw) is declined, as a second scan of it might not see the
-- same rows.
LOAD 'cuckoo';
CREATE EXTENSION postgres_fdw;
CREATE EXTENSION file_fdw;
SET max_parallel_workers_per_gather = 0;
-- the query-level form alone (the run-time form: cuckoo_rtf)
SET cuckoo.join_prefilter_runtime = off;
DO $$
BEGIN
	EXECUTE format('CREATE SERVER pf_loop FOREIGN DATA WRAPPER postgres_fdw
	                OPTIONS (dbname %L, port %L, host %L, extensions ''cuckoo'')',
	               current_database(), current_setting('port'),
	               split_part(current_setting('unix_socket_directories'), ',', 1));
END $$;
CREATE USER MAPPING FOR CURRENT_USER SERVER pf_loop;
CREATE TABLE pf_remote (k int8, v int4);
INSERT INTO pf_remote SELECT g % 5000, g FROM generate_series(1, 20000) g;
CREATE FOREIGN TABLE pf_ft (k int8, v int4) SERVER pf_loop OPTIONS (table_name 'pf_remote');
CREATE TABLE pf_local (k int8, region text);
INSERT INTO pf_local SELECT g, CASE WHEN g % 100 = 0 THEN 'eu' ELSE 'us' END
  FROM generate_series(1, 10000) g;
ANALYZE pf_remote, pf_ft, pf_local;

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
SET cuckoo.join_prefilter_messages = notice;
-- 1.4's rule, local filtered sides too (the default, auto, costs those: at the end)
SET cuckoo.join_prefilter_query = always;
-- the filter first (a few keys get = ANY: below)
SET cuckoo.join_prefilter_max_array_keys = 0;
-- the messages without their DETAIL (the estimates, which may differ between majors)
\set VERBOSITY terse
SET cuckoo.join_prefilter = on;

-- the filter goes to the remote server: Remote SQL has the condition
SELECT pf_plan($$SELECT count(*) FROM pf_ft b JOIN pf_local s ON b.k = s.k WHERE s.region = 'eu'$$, 'VERBOSE, COSTS OFF');
SELECT count(*), sum(b.v) FROM pf_ft b JOIN pf_local s ON b.k = s.k WHERE s.region = 'eu';
-- fewer rows come back: the foreign scan returns about 1/50 of them
SELECT pf_plan($$SELECT count(*) FROM pf_ft b JOIN pf_local s ON b.k = s.k WHERE s.region = 'eu'$$, 'ANALYZE, BUFFERS OFF, COSTS OFF, TIMING OFF, SUMMARY OFF');
SET cuckoo.join_prefilter = off;
SELECT count(*), sum(b.v) FROM pf_ft b JOIN pf_local s ON b.k = s.k WHERE s.region = 'eu';
SET cuckoo.join_prefilter = on;

-- a semi join into a foreign table
SELECT pf_plan($$SELECT count(*) FROM pf_ft b WHERE b.k IN (SELECT s.k FROM pf_local s WHERE s.region = 'eu')$$, 'VERBOSE, COSTS OFF');
SELECT count(*) FROM pf_ft b WHERE b.k IN (SELECT s.k FROM pf_local s WHERE s.region = 'eu');

-- a small side of file_fdw: declined
CREATE SERVER pf_files FOREIGN DATA WRAPPER file_fdw;
CREATE FOREIGN TABLE pf_file (k int8) SERVER pf_files OPTIONS (program 'seq 100 100 1000');
SELECT pf_plan($$SELECT count(*) FROM pf_remote b JOIN pf_file s ON b.k = s.k$$);
SELECT count(*) FROM pf_remote b JOIN pf_file s ON b.k = s.k;
-- also as one partition of a partitioned table
CREATE TABLE pf_mixed (k int8) PARTITION BY RANGE (k);
CREATE TABLE pf_mixed_1 PARTITION OF pf_mixed FOR VALUES FROM (MINVALUE) TO (500);
CREATE FOREIGN TABLE pf_mixed_2 PARTITION OF pf_mixed FOR VALUES FROM (500) TO (MAXVALUE)
  SERVER pf_files OPTIONS (program 'seq 600 100 1000');
INSERT INTO pf_mixed_1 VALUES (100), (200);
SELECT pf_plan($$SELECT count(*) FROM pf_remote b JOIN pf_mixed s ON b.k = s.k$$);
SELECT count(*) FROM pf_remote b JOIN pf_mixed s ON b.k = s.k;

-- a few keys (estimated at most cuckoo.join_prefilter_max_array_keys): the
-- keys themselves go to the remote server, = ANY, compared by the join's
-- own operator; the EXISTS lets every row pass should there be more keys
RESET cuckoo.join_prefilter_max_array_keys;
SELECT pf_plan($$SELECT count(*) FROM pf_ft b JOIN pf_local s ON b.k = s.k WHERE s.region = 'eu'$$, 'VERBOSE, COSTS OFF');
SELECT count(*), sum(b.v) FROM pf_ft b JOIN pf_local s ON b.k = s.k WHERE s.region = 'eu';
SELECT pf_plan($$SELECT count(*) FROM pf_ft b JOIN pf_local s ON b.k = s.k WHERE s.region = 'eu'$$, 'ANALYZE, BUFFERS OFF, COSTS OFF, TIMING OFF, SUMMARY OFF');
SELECT count(*) FROM pf_ft b WHERE b.k IN (SELECT s.k FROM pf_local s WHERE s.region = 'eu');
SELECT count(*) FROM pf_ft b WHERE EXISTS (SELECT FROM pf_local s WHERE s.k = b.k AND s.region = 'eu');
-- an int4 key against the int8 column: the cross-type operator, commuted
CREATE TABLE pf_local4 (k int4, region text);
INSERT INTO pf_local4 SELECT k, region FROM pf_local;
ANALYZE pf_local4;
SELECT pf_plan($$SELECT count(*) FROM pf_local4 s JOIN pf_ft b ON s.k = b.k WHERE s.region = 'eu'$$, 'VERBOSE, COSTS OFF');
SELECT count(*), sum(b.v) FROM pf_local4 s JOIN pf_ft b ON s.k = b.k WHERE s.region = 'eu';
-- the small side estimated at a few rows but holding more than the limit:
-- every row passes, the same rows as without the setting
CREATE TABLE pf_few (k int8);
INSERT INTO pf_few VALUES (1), (2), (3);
ANALYZE pf_few;
INSERT INTO pf_few SELECT g FROM generate_series(10, 400) g;
SET cuckoo.join_prefilter_max_array_keys = 20;
SELECT pf_plan($$SELECT count(*) FROM pf_ft b JOIN pf_few s ON b.k = s.k$$, 'VERBOSE, COSTS OFF');
SELECT pf_plan($$SELECT count(*) FROM pf_ft b JOIN pf_few s ON b.k = s.k$$, 'ANALYZE, BUFFERS OFF, COSTS OFF, TIMING OFF, SUMMARY OFF');
SELECT count(*), sum(b.v) FROM pf_ft b JOIN pf_few s ON b.k = s.k;
SET cuckoo.join_prefilter = off;
SELECT count(*), sum(b.v) FROM pf_ft b JOIN pf_few s ON b.k = s.k;
SET cuckoo.join_prefilter = on;
RESET cuckoo.join_prefilter_max_array_keys;

-- auto (and remote, the default): a foreign table as the filtered side gets
-- the filter, the filter crossing the network; a local table filtered from a
-- foreign one is costed (here declined), remote declines it
SET cuckoo.join_prefilter_query = auto;
SET cuckoo.join_prefilter_max_array_keys = 0;
SELECT pf_plan($$SELECT count(*) FROM pf_ft b JOIN pf_local s ON b.k = s.k WHERE s.region = 'eu'$$, 'VERBOSE, COSTS OFF');
SELECT count(*), sum(b.v) FROM pf_ft b JOIN pf_local s ON b.k = s.k WHERE s.region = 'eu';
-- the local side filtered from the foreign one's keys (the default
-- min_removed leaves only that direction): auto costs it (declined here),
-- remote declines it, always applies it
SET cuckoo.join_prefilter_min_removed = 0.5;
SELECT pf_plan($$SELECT count(*) FROM pf_ft b JOIN pf_local s ON b.k = s.k WHERE b.v < 100$$, 'VERBOSE, COSTS OFF');
SET cuckoo.join_prefilter_query = remote;
SELECT pf_plan($$SELECT count(*) FROM pf_ft b JOIN pf_local s ON b.k = s.k WHERE b.v < 100$$, 'VERBOSE, COSTS OFF');
SET cuckoo.join_prefilter_query = always;
SELECT pf_plan($$SELECT count(*) FROM pf_ft b JOIN pf_local s ON b.k = s.k WHERE b.v < 100$$, 'VERBOSE, COSTS OFF');
SELECT count(*), sum(b.v) FROM pf_ft b JOIN pf_local s ON b.k = s.k WHERE b.v < 100;
SET cuckoo.join_prefilter = off;
SELECT count(*), sum(b.v) FROM pf_ft b JOIN pf_local s ON b.k = s.k WHERE b.v < 100;
SET cuckoo.join_prefilter = on;
SET cuckoo.join_prefilter_min_removed = 0;
SET cuckoo.join_prefilter_query = auto;
RESET cuckoo.join_prefilter_max_array_keys;

RESET cuckoo.join_prefilter_messages;
DROP FOREIGN TABLE pf_ft, pf_file;
DROP TABLE pf_remote, pf_local, pf_local4, pf_few, pf_mixed;
DROP SERVER pf_loop CASCADE;
DROP SERVER pf_files;
DROP EXTENSION postgres_fdw;
DROP EXTENSION file_fdw;
DROP FUNCTION pf_plan(text, text);
