-- Run-time join filters (cuckoo.join_prefilter_runtime, docs/prefilter.md,
-- "Run-time filters"): a hash join's build side fills a cuckoo filter of
-- its keys (CuckooFilterBuild, under the Hash node), which a check
-- (CuckooFilter) applies where the probe side's key is produced.  Plans
-- with COSTS OFF, ANALYZE with TIMING OFF on small deterministic tables;
-- every query's rows are compared with the run-time form off and on.
LOAD 'cuckoo';
SET max_parallel_workers_per_gather = 0;
SET jit = off;
SET cuckoo.join_prefilter = on;
-- the query-level form declines everything here: the run-time form alone
SET cuckoo.join_prefilter_min_big_rows = 1e15;
SET cuckoo.join_prefilter_runtime_min_rows = 0;
CREATE TABLE rtf_fact AS
SELECT g AS id, g % 1000 AS d1, (g * 7) % 500 AS d2, g % 10 AS v,
       CASE WHEN g % 97 = 0 THEN NULL ELSE 't' || (g % 300) END AS t,
       (g % 400)::numeric AS n
  FROM generate_series(1, 20000) g;
CREATE TABLE rtf_dim1 AS SELECT g AS id, g % 10 AS cat FROM generate_series(0, 999) g;
CREATE TABLE rtf_dim2 AS SELECT g::int8 AS id, g % 5 AS cat FROM generate_series(0, 499) g;
CREATE TABLE rtf_dim3 AS
SELECT 't' || g AS t, g::int8 AS n, g % 4 AS cat FROM generate_series(0, 299) g;
INSERT INTO rtf_dim3 VALUES (NULL, NULL, 0);
CREATE TABLE rtf_few AS SELECT g AS id FROM generate_series(1, 10) g;
CREATE INDEX ON rtf_fact (id);
CREATE INDEX ON rtf_fact (d2);
ANALYZE rtf_fact, rtf_dim1, rtf_dim2, rtf_dim3, rtf_few;

-- the rows of a query with the run-time form off and on, as multisets
CREATE FUNCTION rtf_same(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	a text;
	b text;
	n bigint;
BEGIN
	PERFORM set_config('cuckoo.join_prefilter_runtime', 'off', true);
	EXECUTE 'SELECT count(*), string_agg(x::text, '','' ORDER BY x::text) FROM (' || q || ') x'
		INTO n, a;
	PERFORM set_config('cuckoo.join_prefilter_runtime', 'on', true);
	EXECUTE 'SELECT string_agg(x::text, '','' ORDER BY x::text) FROM (' || q || ') x' INTO b;
	RETURN CASE WHEN a IS NOT DISTINCT FROM b THEN 'same, ' || n || ' rows' ELSE 'DIFFERENT' END;
END $$;

-- EXPLAIN ANALYZE with TIMING OFF, the same on every major (18 prints
-- rows=N.00 and buffers)
CREATE FUNCTION rtf_explain(q text, verb bool DEFAULT false) RETURNS SETOF text
LANGUAGE plpgsql AS $$
DECLARE
	line text;
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (COSTS OFF, ANALYZE, TIMING OFF, SUMMARY OFF, BUFFERS OFF, VERBOSE '
		|| verb || ') ' || q LOOP
		RETURN NEXT regexp_replace(line, '(rows=\d+)\.00', '\1', 'g');
	END LOOP;
END $$;

-- EXPLAIN (COSTS OFF) without 18's "Disabled: true" under enable_* = off
CREATE FUNCTION rtf_plan(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
	line text;
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
		IF line !~ '^\s*Disabled: true$' THEN
			RETURN NEXT line;
		END IF;
	END LOOP;
END $$;

-- a filter placed on the probe side's scan
SELECT rtf_explain($q$SELECT count(*) FROM rtf_fact f JOIN rtf_dim1 d ON f.d1 = d.id WHERE d.cat = 3$q$);
SELECT rtf_same('SELECT f.id, d.id FROM rtf_fact f JOIN rtf_dim1 d ON f.d1 = d.id WHERE d.cat = 3');

-- a star join: the second join's filter is pushed below the first join
-- (int4 = int8: the opfamily's hash functions agree across its types)
SELECT rtf_explain($q$SELECT count(*), sum(f.v) FROM rtf_fact f
  JOIN rtf_dim1 d1 ON f.d1 = d1.id
  JOIN rtf_dim2 d2 ON f.d2 = d2.id
 WHERE d1.cat = 3 AND d2.cat < 2$q$, true);
SELECT rtf_same('SELECT f.id FROM rtf_fact f JOIN rtf_dim1 d1 ON f.d1 = d1.id
  JOIN rtf_dim2 d2 ON f.d2 = d2.id WHERE d1.cat = 3 AND d2.cat < 2');

-- text keys (NULLs on both sides: never kept, removed by the strict
-- equality) and numeric = int8
SELECT rtf_explain($q$SELECT count(*) FROM rtf_fact f JOIN rtf_dim3 d ON f.t = d.t WHERE d.cat = 1$q$);
SELECT rtf_same('SELECT f.id FROM rtf_fact f JOIN rtf_dim3 d ON f.t = d.t WHERE d.cat = 1');
SELECT rtf_same('SELECT f.id FROM rtf_fact f JOIN rtf_dim3 d ON f.n = d.n WHERE d.cat = 2');
SELECT rtf_same('SELECT f.id FROM rtf_fact f WHERE f.t IN (SELECT t FROM rtf_dim3 WHERE cat = 1)');

-- an expression key: checked directly above the join's outer child
EXPLAIN (COSTS OFF)
SELECT count(*) FROM rtf_fact f JOIN rtf_dim1 d ON f.d1 + 1 = d.id WHERE d.cat = 3;
SELECT rtf_same('SELECT f.id FROM rtf_fact f JOIN rtf_dim1 d ON f.d1 + 1 = d.id WHERE d.cat = 3');
-- an expression after the first key gets no filter (the join does not
-- evaluate it on a row whose first key is NULL; a volatile key, which no
-- hash join has, would get none either)
EXPLAIN (COSTS OFF)
SELECT count(*) FROM rtf_fact f JOIN rtf_dim1 d ON f.d1 = d.id AND f.v * 2 = d.cat WHERE d.cat < 5;
SELECT rtf_same('SELECT f.id FROM rtf_fact f JOIN rtf_dim1 d ON f.d1 = d.id AND f.v * 2 = d.cat WHERE d.cat < 5');

-- a LEFT join keeps its outer rows: no filter; through a LEFT join's
-- non-preserved side, one
EXPLAIN (COSTS OFF)
SELECT count(*) FROM rtf_fact f LEFT JOIN rtf_dim1 d ON f.d1 = d.id AND d.cat = 3;
SET enable_mergejoin = off;
EXPLAIN (COSTS OFF)
SELECT count(*) FROM rtf_few x
  LEFT JOIN (rtf_fact f JOIN rtf_dim1 d ON f.d1 = d.id AND d.cat = 3) ON f.v = x.id;
SELECT rtf_same('SELECT x.id, f.id FROM rtf_few x
  LEFT JOIN (rtf_fact f JOIN rtf_dim1 d ON f.d1 = d.id AND d.cat = 3) ON f.v = x.id');
RESET enable_mergejoin;

-- never on a nested loop's parameterized inner side: the check stays above
-- the nested loop
SET enable_mergejoin = off;
SET enable_seqscan = off;
SELECT rtf_plan($q$SELECT count(*) FROM rtf_few x JOIN rtf_fact f ON f.d2 = x.id
  JOIN rtf_dim1 d ON f.d1 = d.id WHERE d.cat = 3$q$);
SELECT rtf_same('SELECT f.id FROM rtf_few x JOIN rtf_fact f ON f.d2 = x.id
  JOIN rtf_dim1 d ON f.d1 = d.id WHERE d.cat = 3');
RESET enable_mergejoin;
RESET enable_seqscan;

-- a filter that removes too little switches itself off after its sample
SET cuckoo.join_prefilter_runtime_sample = 1000;
SELECT rtf_explain($q$SELECT count(*) FROM rtf_fact f JOIN rtf_dim1 d ON f.d1 = d.id$q$);
RESET cuckoo.join_prefilter_runtime_sample;

-- a build side over the bound gives up: every row passes
SET cuckoo.join_prefilter_runtime_max_keys = 50;
SELECT rtf_explain($q$SELECT count(*) FROM rtf_fact f JOIN rtf_dim1 d ON f.d1 = d.id WHERE d.cat = 3$q$);
SELECT rtf_same('SELECT f.id FROM rtf_fact f JOIN rtf_dim1 d ON f.d1 = d.id WHERE d.cat = 3');
RESET cuckoo.join_prefilter_runtime_max_keys;

-- a build side of over 64 keys is made a filter only after its check has
-- passed 512 rows: under a LIMIT that stops earlier, never
CREATE TABLE rtf_big AS SELECT g AS id FROM generate_series(0, 9999) g;
ANALYZE rtf_big;
SET enable_indexscan = off;
SET enable_bitmapscan = off;
SELECT rtf_explain($q$SELECT count(*) FROM rtf_fact f JOIN rtf_big b ON f.id = b.id WHERE b.id % 2 = 0$q$);
SELECT rtf_explain($q$SELECT f.id FROM rtf_fact f JOIN rtf_big b ON f.id = b.id WHERE b.id % 2 = 0 LIMIT 3$q$);
SELECT rtf_same('SELECT f.id FROM rtf_fact f JOIN rtf_big b ON f.id = b.id WHERE b.id % 2 = 0');
RESET enable_indexscan;
RESET enable_bitmapscan;

-- an empty build side: every checked row is removed
SELECT rtf_explain($q$SELECT count(*) FROM rtf_fact f RIGHT JOIN rtf_dim1 d ON f.d1 = d.id WHERE d.cat = 42$q$);

-- a semi join and a generic plan of a prepared statement
PREPARE rtf_p(int) AS
SELECT count(*) FROM rtf_fact f WHERE f.d1 IN (SELECT id FROM rtf_dim1 WHERE cat = $1);
SET plan_cache_mode = force_generic_plan;
EXPLAIN (COSTS OFF) EXECUTE rtf_p(3);
EXECUTE rtf_p(3);
EXECUTE rtf_p(4);
SET cuckoo.join_prefilter_runtime = off;
-- the cached plan keeps its nodes; with the setting off they pass every row
SELECT rtf_explain($q$EXECUTE rtf_p(4)$q$);
EXECUTE rtf_p(4);
RESET plan_cache_mode;
RESET cuckoo.join_prefilter_runtime;
DEALLOCATE rtf_p;

-- a rescan with new parameters rebuilds the filter (a correlated subquery)
SELECT rtf_same('SELECT x.id, (SELECT count(*) FROM rtf_fact f JOIN rtf_dim1 d ON f.d1 = d.id
   WHERE d.cat = x.id % 10) FROM rtf_few x');

-- a cursor, read forward and back
BEGIN;
DECLARE rtf_c SCROLL CURSOR FOR
SELECT f.id FROM rtf_fact f JOIN rtf_dim1 d ON f.d1 = d.id WHERE d.cat = 3 AND f.id < 3000 ORDER BY f.id;
FETCH 3 FROM rtf_c;
FETCH BACKWARD 2 FROM rtf_c;
COMMIT;

-- parallel plans: a Parallel Hash (a table several processes build) gets
-- no filter; a hash that every process builds whole gets one in each
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET enable_parallel_hash = on;
EXPLAIN (COSTS OFF)
SELECT count(*) FROM rtf_fact f JOIN rtf_dim1 d ON f.d1 = d.id WHERE d.cat = 3;
SELECT rtf_same('SELECT f.id FROM rtf_fact f JOIN rtf_dim1 d ON f.d1 = d.id WHERE d.cat = 3');
SET enable_parallel_hash = off;
EXPLAIN (COSTS OFF)
SELECT count(*) FROM rtf_fact f JOIN rtf_dim1 d ON f.d1 = d.id WHERE d.cat = 3;
SELECT rtf_same('SELECT f.id FROM rtf_fact f JOIN rtf_dim1 d ON f.d1 = d.id WHERE d.cat = 3');
RESET enable_parallel_hash;
RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
SET max_parallel_workers_per_gather = 0;

-- off: no node of this form in any plan
SET cuckoo.join_prefilter_runtime = off;
EXPLAIN (COSTS OFF)
SELECT count(*) FROM rtf_fact f JOIN rtf_dim1 d ON f.d1 = d.id WHERE d.cat = 3;
RESET cuckoo.join_prefilter_runtime;
SET cuckoo.join_prefilter = off;
EXPLAIN (COSTS OFF)
SELECT count(*) FROM rtf_fact f JOIN rtf_dim1 d ON f.d1 = d.id WHERE d.cat = 3;
RESET cuckoo.join_prefilter;
DROP FUNCTION rtf_same(text);
DROP FUNCTION rtf_explain(text, bool);
DROP FUNCTION rtf_plan(text);
DROP TABLE rtf_fact, rtf_dim1, rtf_dim2, rtf_dim3, rtf_few, rtf_big;
