-- Run-time join filters against the executor's corners (issue 47, red
-- team): rescans, cursors, prepared statements, parallel plans, DML,
-- multi-batch joins, key types with unusual equality, odd plan shapes,
-- errors.  Every query's rows are compared with the run-time form off and
-- on (count and a hash of the rows), and whether a check was placed is
-- printed so that a case which stops getting a filter shows up here.
LOAD 'cuckoo';
SET jit = off;
SET max_parallel_workers_per_gather = 0;
SET cuckoo.join_prefilter = on;
SET cuckoo.join_prefilter_min_big_rows = 1e15;
SET cuckoo.join_prefilter_runtime_min_rows = -1;
SET cuckoo.join_prefilter_runtime_sample = 0;
SET client_min_messages = warning;
CREATE SCHEMA rtfe;
SET search_path = rtfe, public;

CREATE TABLE big AS SELECT g AS id, g % 1000 AS k, g % 7 AS m FROM generate_series(1, 20000) g;
CREATE TABLE mid2 AS SELECT g AS m, g % 1000 AS k FROM generate_series(0, 1999) g;
CREATE TABLE small AS SELECT g AS k, g % 10 AS grp FROM generate_series(0, 999) g;
CREATE TABLE drv AS SELECT g AS grp FROM generate_series(0, 9) g;
ANALYZE big, mid2, small, drv;

-- off and on: rows (count, a hash of their text), and whether a check ran
CREATE FUNCTION same(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	a text;
	b text;
	n bigint;
	chk bool := false;
	line text;
BEGIN
	PERFORM set_config('cuckoo.join_prefilter_runtime', 'off', true);
	EXECUTE 'SELECT count(*), count(*) || '':'' || coalesce(sum(hashtext(x::text)::numeric), 0) FROM (' || q || ') x'
		INTO n, a;
	PERFORM set_config('cuckoo.join_prefilter_runtime', 'on', true);
	EXECUTE 'SELECT count(*) || '':'' || coalesce(sum(hashtext(x::text)::numeric), 0) FROM (' || q || ') x' INTO b;
	FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
		chk := chk OR line LIKE '%Checks Run-time Filter%';
	END LOOP;
	RETURN CASE WHEN a IS NOT DISTINCT FROM b THEN 'same, ' || n || ' rows' ELSE 'DIFFERENT: ' || a || ' vs ' || b END
		|| CASE WHEN chk THEN ', checked' ELSE ', no check' END;
END $$;

-- rescans: the filter rebuilt per outer row; rows kept below a hash
-- join's reused hash table, a Material or a Sort must not be replayed
SET enable_mergejoin = off;
SET enable_nestloop = off;
SET join_collapse_limit = 1;
SELECT same($q$SELECT d.grp, (SELECT count(*) FROM (big JOIN mid2 ON big.id = mid2.m) JOIN small s ON s.k = mid2.k WHERE s.grp = d.grp) FROM drv d$q$) AS subplan_reused_hash;
RESET enable_nestloop;
SET enable_hashjoin = on;
SELECT same($q$SELECT d.grp, (SELECT count(*) FROM (SELECT * FROM mid2 ORDER BY k OFFSET 0) m JOIN small s ON s.k = m.k WHERE s.grp = d.grp) FROM drv d$q$) AS subplan_sort;
SELECT same($q$SELECT d.grp, x.c FROM drv d, LATERAL (SELECT count(*) AS c FROM (big JOIN mid2 ON big.id = mid2.m) JOIN small s ON s.k = mid2.k WHERE s.grp = d.grp) x$q$) AS lateral_reused_hash;
SELECT same($q$SELECT d.grp, x.k FROM drv d, LATERAL (SELECT mid2.k FROM (big JOIN mid2 ON big.id = mid2.m) JOIN small s ON s.k = mid2.k WHERE s.grp = d.grp) x$q$) AS lateral_rows;
-- the build side the same on every rescan: the check of mid2.k may go
-- under the Hash of mid2; a volatile build side: above that join
SET enable_nestloop = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM (big JOIN mid2 ON big.id = mid2.m) JOIN (SELECT * FROM small WHERE k >= 0) s ON s.k = mid2.k;
EXPLAIN (COSTS OFF) SELECT count(*) FROM (big JOIN mid2 ON big.id = mid2.m) JOIN (SELECT * FROM small WHERE random() >= 0) s ON s.k = mid2.k;
RESET enable_nestloop;
RESET join_collapse_limit;
-- a hash join on a nested loop's inner side, no parameter: its table reused
SET enable_material = off;
SELECT same($q$SELECT count(*), sum(b.id) FROM drv d JOIN (big b JOIN small s ON s.k = b.k AND s.grp < 3) ON d.grp = b.m$q$) AS nestloop_inner;
RESET enable_material;
-- a CTE holding a hash join, scanned twice
SELECT same($q$WITH c AS MATERIALIZED (SELECT b.id, b.k FROM big b JOIN small s ON s.k = b.k WHERE s.grp = 3)
  SELECT * FROM c c1 JOIN c c2 ON c1.id = c2.id + 10$q$) AS cte_twice;
-- a recursive CTE whose recursive term hash-joins the work table
SELECT same($q$WITH RECURSIVE r(k, depth) AS (SELECT k, 0 FROM small WHERE k < 5
  UNION ALL SELECT mid2.m % 1000, r.depth + 1 FROM r JOIN mid2 ON mid2.k = r.k WHERE r.depth < 3)
  SELECT k, depth, count(*) FROM r GROUP BY k, depth$q$) AS recursive_cte;
SELECT same($q$WITH RECURSIVE r(k, depth) AS (SELECT k, 0 FROM small WHERE k < 5
  UNION ALL SELECT big.id % 1000, r.depth + 1 FROM big JOIN r ON big.k = r.k WHERE r.depth < 2)
  SELECT k, depth, count(*) FROM r GROUP BY k, depth$q$) AS recursive_cte_build;
-- Memoize over a parameterized subquery holding a hash join
SELECT same($q$SELECT d.grp, x.c FROM (SELECT g % 4 AS grp FROM generate_series(1, 20) g) d,
  LATERAL (SELECT count(*) AS c FROM big JOIN small s ON s.k = big.k WHERE s.grp = d.grp) x$q$) AS memoize;
-- scroll cursors read forward, backward and absolute through a plan with checks
CREATE FUNCTION walk(q text, rt text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	c refcursor := 'rtfe_walk';
	r record;
	s text := '';
BEGIN
	PERFORM set_config('cuckoo.join_prefilter_runtime', rt, true);
	OPEN c SCROLL FOR EXECUTE q;
	FOR i IN 1..5 LOOP FETCH c INTO r; s := s || coalesce(r::text, '-') || ' '; END LOOP;
	MOVE BACKWARD 2 FROM c; FETCH c INTO r; s := s || coalesce(r::text, '-') || ' ';
	FETCH ABSOLUTE 40 FROM c INTO r; s := s || coalesce(r::text, '-') || ' ';
	FETCH LAST FROM c INTO r; s := s || coalesce(r::text, '-') || ' ';
	FETCH PRIOR FROM c INTO r; s := s || coalesce(r::text, '-') || ' ';
	FETCH ABSOLUTE 3 FROM c INTO r; s := s || coalesce(r::text, '-') || ' ';
	FETCH RELATIVE -1 FROM c INTO r; s := s || coalesce(r::text, '-') || ' ';
	CLOSE c;
	RETURN md5(s);
END $$;
SELECT walk(q, 'off') = walk(q, 'on') AS scroll_same
  FROM (VALUES ($q$SELECT b.id, s.grp FROM big b JOIN small s ON s.k = b.k WHERE s.grp = 4$q$),
               ($q$SELECT b.id, s.grp FROM big b JOIN small s ON s.k = b.k WHERE s.grp = 4 ORDER BY b.id$q$),
               ($q$SELECT b.id, s.grp FROM (big b JOIN mid2 ON b.id = mid2.m) JOIN small s ON s.k = mid2.k WHERE s.grp = 4$q$)) v(q);
-- SQL-level cursors: SCROLL, partly fetched then closed, WITH HOLD
SET cuckoo.join_prefilter_runtime = on;
BEGIN;
DECLARE c1 SCROLL CURSOR FOR SELECT b.id FROM big b JOIN small s ON s.k = b.k WHERE s.grp = 4 ORDER BY b.id;
FETCH 3 FROM c1;
FETCH BACKWARD 2 FROM c1;
FETCH ABSOLUTE 200 FROM c1;
FETCH ABSOLUTE 2001 FROM c1;
MOVE BACKWARD ALL IN c1;
FETCH NEXT FROM c1;
DECLARE c2 CURSOR FOR SELECT b.id FROM big b JOIN small s ON s.k = b.k WHERE s.grp = 5;
FETCH 2 FROM c2;
CLOSE c2;
COMMIT;
BEGIN;
DECLARE c3 CURSOR WITH HOLD FOR SELECT count(*), sum(b.id) FROM big b JOIN small s ON s.k = b.k WHERE s.grp = 6;
COMMIT;
FETCH ALL FROM c3;
CLOSE c3;
SET cuckoo.join_prefilter_runtime = off;
SELECT count(*), sum(b.id) FROM big b JOIN small s ON s.k = b.k WHERE s.grp = 6;
SET cuckoo.join_prefilter_runtime = on;

-- prepared statements: custom plans, then the generic one, executed with
-- the settings on and off in turn
PREPARE p(int) AS SELECT count(*), sum(b.id) FROM big b JOIN small s ON s.k = b.k WHERE s.grp = $1;
EXECUTE p(1); EXECUTE p(2); EXECUTE p(3); EXECUTE p(4); EXECUTE p(5); EXECUTE p(6); EXECUTE p(7);
SET cuckoo.join_prefilter_runtime = off;
EXECUTE p(7);
SET cuckoo.join_prefilter_runtime = on;
SET plan_cache_mode = force_generic_plan;
PREPARE p2(int) AS SELECT count(*), sum(b.id) FROM (big b JOIN mid2 ON b.id = mid2.m) JOIN small s ON s.k = mid2.k WHERE s.grp = $1;
EXECUTE p2(1); EXECUTE p2(2); EXECUTE p2(9);
SET cuckoo.join_prefilter_runtime = off;
EXECUTE p2(9);
SET cuckoo.join_prefilter_runtime = on;
RESET plan_cache_mode;
DEALLOCATE p; DEALLOCATE p2;

-- PL/pgSQL: the join in a loop (SPI, a cached plan per statement)
CREATE FUNCTION loop_sum(rt text) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
	t bigint := 0;
	x bigint;
	r record;
BEGIN
	PERFORM set_config('cuckoo.join_prefilter_runtime', rt, true);
	FOR g IN 0..4 LOOP
		SELECT sum(b.id * (g + 1)) INTO x FROM big b JOIN small s ON s.k = b.k WHERE s.grp = g;
		t := t + x;
		FOR r IN SELECT b.id FROM big b JOIN small s ON s.k = b.k WHERE s.grp = g AND b.id < 500 LOOP
			t := t + r.id;
		END LOOP;
	END LOOP;
	RETURN t;
END $$;
SELECT loop_sum('off') = loop_sum('on') AS plpgsql_loop_same;
-- parallel plans: a hash join under Gather (each process builds the whole
-- table and its filter), Parallel Hash (no filter), Gather Merge,
-- Parallel Append, partition-wise joins, parallel mode forced
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET enable_parallel_hash = off;
SELECT same($q$SELECT b.id, s.grp FROM big b JOIN small s ON s.k = b.k WHERE s.grp = 2$q$) AS gather_hash;
SELECT same($q$SELECT b.id, s.grp FROM (big b JOIN mid2 ON b.id = mid2.m) JOIN small s ON s.k = mid2.k WHERE s.grp = 2$q$) AS gather_two;
SELECT same($q$SELECT b.id FROM big b JOIN small s ON s.k = b.k WHERE s.grp = 2 ORDER BY b.id$q$) AS gather_merge;
SET enable_parallel_hash = on;
SELECT same($q$SELECT b.id, s.grp FROM big b JOIN small s ON s.k = b.k WHERE s.grp = 2$q$) AS parallel_hash;
SET enable_parallel_hash = off;
CREATE TABLE pbig (id int, k int) PARTITION BY HASH (k);
CREATE TABLE pbig0 PARTITION OF pbig FOR VALUES WITH (MODULUS 3, REMAINDER 0);
CREATE TABLE pbig1 PARTITION OF pbig FOR VALUES WITH (MODULUS 3, REMAINDER 1);
CREATE TABLE pbig2 PARTITION OF pbig FOR VALUES WITH (MODULUS 3, REMAINDER 2);
INSERT INTO pbig SELECT id, k FROM big;
CREATE TABLE psmall (k int, grp int) PARTITION BY HASH (k);
CREATE TABLE psmall0 PARTITION OF psmall FOR VALUES WITH (MODULUS 3, REMAINDER 0);
CREATE TABLE psmall1 PARTITION OF psmall FOR VALUES WITH (MODULUS 3, REMAINDER 1);
CREATE TABLE psmall2 PARTITION OF psmall FOR VALUES WITH (MODULUS 3, REMAINDER 2);
INSERT INTO psmall SELECT k, grp FROM small;
ANALYZE pbig, psmall;
SELECT same($q$SELECT p.id, s.grp FROM pbig p JOIN small s ON s.k = p.k WHERE s.grp = 1$q$) AS parallel_append;
SET enable_partitionwise_join = on;
SELECT same($q$SELECT p.id, s.grp FROM pbig p JOIN psmall s ON s.k = p.k WHERE s.grp = 1$q$) AS partitionwise;
SET max_parallel_workers_per_gather = 0;
SELECT same($q$SELECT p.id, s.grp FROM pbig p JOIN psmall s ON s.k = p.k WHERE s.grp = 1$q$) AS partitionwise_serial;
SELECT same($q$SELECT p.id FROM (SELECT * FROM pbig ORDER BY k) p JOIN small s ON s.k = p.k WHERE s.grp = 1$q$) AS merge_append_probe;
RESET enable_partitionwise_join;
SELECT set_config(CASE WHEN current_setting('server_version_num')::int >= 160000
                       THEN 'debug_parallel_query' ELSE 'force_parallel_mode' END, 'regress', false) IS NOT NULL AS forced;
SELECT same($q$SELECT b.id, s.grp FROM big b JOIN small s ON s.k = b.k WHERE s.grp = 8$q$) AS forced_parallel;
SELECT same($q$SELECT d.grp, (SELECT count(*) FROM (big JOIN mid2 ON big.id = mid2.m) JOIN small s ON s.k = mid2.k WHERE s.grp = d.grp) FROM drv d$q$) AS forced_parallel_subplan;
SELECT set_config(CASE WHEN current_setting('server_version_num')::int >= 160000
                       THEN 'debug_parallel_query' ELSE 'force_parallel_mode' END, 'off', false) IS NOT NULL AS unforced;
RESET parallel_setup_cost; RESET parallel_tuple_cost; RESET min_parallel_table_scan_size;
RESET enable_parallel_hash;

-- DML: UPDATE ... FROM, DELETE ... USING, INSERT ... SELECT, MERGE,
-- RETURNING, FOR UPDATE; each run off then on from the same data
CREATE TABLE tgt AS SELECT id, k, 0 AS v FROM big WHERE id <= 4000;
CREATE FUNCTION dml(stmt text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	a text;
	b text;
	ra text;
	rb text;
BEGIN
	CREATE TEMP TABLE saved AS SELECT * FROM rtfe.tgt;
	PERFORM set_config('cuckoo.join_prefilter_runtime', 'off', true);
	EXECUTE 'WITH w AS (' || stmt || ') SELECT count(*) || '':'' || coalesce(sum(hashtext(w::text)::numeric), 0) FROM w' INTO ra;
	SELECT count(*) || ':' || sum(hashtext(t::text)::numeric) INTO a FROM rtfe.tgt t;
	DELETE FROM rtfe.tgt; INSERT INTO rtfe.tgt SELECT * FROM saved;
	PERFORM set_config('cuckoo.join_prefilter_runtime', 'on', true);
	EXECUTE 'WITH w AS (' || stmt || ') SELECT count(*) || '':'' || coalesce(sum(hashtext(w::text)::numeric), 0) FROM w' INTO rb;
	SELECT count(*) || ':' || sum(hashtext(t::text)::numeric) INTO b FROM rtfe.tgt t;
	DELETE FROM rtfe.tgt; INSERT INTO rtfe.tgt SELECT * FROM saved;
	DROP TABLE saved;
	RETURN CASE WHEN a = b AND ra = rb THEN 'same' ELSE 'DIFFERENT' END;
END $$;
SELECT dml($q$UPDATE tgt SET v = s.grp FROM small s WHERE s.k = tgt.k AND s.grp = 3 RETURNING tgt.*$q$) AS update_from;
SELECT dml($q$DELETE FROM tgt USING small s WHERE s.k = tgt.k AND s.grp < 5 RETURNING tgt.id$q$) AS delete_using;
SELECT dml($q$INSERT INTO tgt SELECT b.id, b.k, -1 FROM big b JOIN small s ON s.k = b.k WHERE s.grp = 7 RETURNING *$q$) AS insert_select;
SELECT dml($q$UPDATE tgt SET v = x.grp FROM (big b JOIN mid2 ON b.id = mid2.m) JOIN small x ON x.k = mid2.k WHERE tgt.id = b.id AND x.grp = 2 RETURNING tgt.id, x.grp$q$) AS update_three;
SELECT dml($q$SELECT t.id FROM tgt t JOIN small s ON s.k = t.k WHERE s.grp = 1 FOR UPDATE OF t$q$) AS for_update;
-- MERGE (15+); fresh transactions so the rows lock
SELECT (SELECT count(*) FROM tgt) AS tgt_rows;
BEGIN;
SET LOCAL cuckoo.join_prefilter_runtime = off;
MERGE INTO tgt USING (SELECT b.id, s.grp FROM big b JOIN small s ON s.k = b.k WHERE s.grp = 4) src ON tgt.id = src.id
  WHEN MATCHED THEN UPDATE SET v = src.grp + 100;
SELECT count(*), sum(v) FROM tgt;
ROLLBACK;
BEGIN;
SET LOCAL cuckoo.join_prefilter_runtime = on;
MERGE INTO tgt USING (SELECT b.id, s.grp FROM big b JOIN small s ON s.k = b.k WHERE s.grp = 4) src ON tgt.id = src.id
  WHEN MATCHED THEN UPDATE SET v = src.grp + 100;
SELECT count(*), sum(v) FROM tgt;
ROLLBACK;
-- multi-batch hash joins (every batch's keys in the filter) and the skew
-- optimisation (most common outer keys)
SET work_mem = '64kB';
SELECT same($q$SELECT b.id, x.id FROM big b JOIN big x ON x.id = b.id * 3$q$) AS multi_batch;
SELECT same($q$SELECT b.id, x.k FROM big b JOIN mid2 x ON x.k = b.k WHERE x.m % 5 = 0$q$) AS multi_batch_dup;
CREATE TABLE skew AS SELECT g AS id, CASE WHEN g % 3 = 0 THEN 7 WHEN g % 5 = 0 THEN 11 ELSE g % 5000 END AS k FROM generate_series(1, 30000) g;
ANALYZE skew;
SELECT same($q$SELECT s.id, x.id FROM skew s JOIN big x ON x.id = s.k WHERE x.m <> 3$q$) AS skew;
SELECT same($q$SELECT d.grp, (SELECT count(*) FROM skew s JOIN big x ON x.id = s.k WHERE x.m = d.grp % 7) FROM drv d WHERE d.grp < 3$q$) AS skew_rescan_batches;
RESET work_mem;

-- keys whose equality is not byte equality, several keys, NULL keys
CREATE TABLE kp AS SELECT g AS id, (g % 50)::int2 AS i2, (g % 50)::int8 AS i8, (g % 50)::int4 AS i4,
  ((g % 20) / 2.0)::numeric(10,1) AS n1, CASE WHEN g % 7 = 0 THEN NULL ELSE g % 9 END AS nk,
  CASE g % 4 WHEN 0 THEN '-0'::float8 WHEN 1 THEN '0'::float8 WHEN 2 THEN 'NaN'::float8 ELSE g % 3 END AS f,
  CASE g % 3 WHEN 0 THEN 'abc' WHEN 1 THEN 'ABC' ELSE 'Abc' END || (g % 5) AS t,
  (g % 6)::char(3) AS bp, ARRAY[g % 4, g % 3] AS arr, ROW(g % 4, 'x' || g % 2)::record::text AS rt,
  int4range(g % 5, g % 5 + 2) AS rng, jsonb_build_object('a', g % 6, 'b', 1) AS js,
  md5((g % 40)::text)::uuid AS u
  FROM generate_series(1, 5000) g;
CREATE TABLE kb AS SELECT g AS id, (g % 30)::int2 AS i2, (g % 30)::int8 AS i8, (g % 30)::int4 AS i4,
  ((g % 10) / 2.0)::numeric(10,2) AS n2, CASE WHEN g % 4 = 0 THEN NULL ELSE g % 5 END AS nk,
  CASE g % 3 WHEN 0 THEN '0'::float8 WHEN 1 THEN 'NaN'::float8 ELSE '-0'::float8 END AS f,
  CASE g % 2 WHEN 0 THEN 'aBc' ELSE 'abc' END || (g % 3) AS t,
  ((g % 4)::text || '  ')::char(3) AS bp, ARRAY[g % 2, g % 3] AS arr, ROW(g % 2, 'x1')::record::text AS rt,
  int4range(g % 3, g % 3 + 2) AS rng, jsonb_build_object('b', 1, 'a', g % 3) AS js,
  md5((g % 20)::text)::uuid AS u
  FROM generate_series(1, 40) g;
ANALYZE kp, kb;
SELECT same($q$SELECT kp.id, kb.id FROM kp JOIN kb ON kp.i2 = kb.i8$q$) AS int2_int8;
SELECT same($q$SELECT kp.id, kb.id FROM kp JOIN kb ON kp.i8 = kb.i4$q$) AS int8_int4;
SELECT same($q$SELECT kp.id, kb.id FROM kp JOIN kb ON kp.i4 = kb.i2$q$) AS int4_int2;
SELECT same($q$SELECT kp.id, kb.id FROM kp JOIN kb ON kp.n1 = kb.n2$q$) AS numeric_scales;
SELECT same($q$SELECT kp.id, kb.id FROM kp JOIN kb ON kp.f = kb.f$q$) AS float_zero_nan;
SELECT same($q$SELECT kp.id, kb.id FROM kp JOIN kb ON kp.n1 = kb.f$q$) AS numeric_float;
SELECT same($q$SELECT kp.id, kb.id FROM kp JOIN kb ON kp.t = kb.t COLLATE "C"$q$) AS text_c;
CREATE COLLATION ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
SELECT same($q$SELECT kp.id, kb.id FROM kp JOIN kb ON kp.t = kb.t COLLATE ci$q$) AS text_nondeterministic;
SELECT same($q$SELECT kp.id, kb.id FROM kp JOIN kb ON kp.t COLLATE ci = kb.t AND kp.i4 = kb.i4$q$) AS two_keys_nondeterministic;
SELECT same($q$SELECT kp.id, kb.id FROM kp JOIN kb ON kp.bp = kb.bp$q$) AS bpchar_blanks;
SELECT same($q$SELECT kp.id, kb.id FROM kp JOIN kb ON kp.bp::text = kb.bp::text$q$) AS bpchar_text;
SELECT same($q$SELECT kp.id, kb.id FROM kp JOIN kb ON kp.arr = kb.arr$q$) AS arrays;
SELECT same($q$SELECT kp.id, kb.id FROM kp JOIN kb ON ROW(kp.i4, kp.nk) = ROW(kb.i4, kb.nk)$q$) AS row_keys;
SELECT same($q$SELECT kp.id, kb.id FROM kp JOIN kb ON kp.rng = kb.rng$q$) AS ranges;
SELECT same($q$SELECT kp.id, kb.id FROM kp JOIN kb ON kp.js = kb.js$q$) AS jsonb;
SELECT same($q$SELECT kp.id, kb.id FROM kp JOIN kb ON kp.u = kb.u$q$) AS uuid;
CREATE TYPE pair AS (a int, b int);
CREATE TABLE ka AS SELECT g AS id, (g % 30)::float4 / 4 AS f4, (g % 30)::text::name AS nm, make_interval(hours => g % 50) AS iv,
  ROW(g % 5, g % 3)::pair AS pr, (g % 6)::float8 / 4 AS f8 FROM generate_series(1, 3000) g;
CREATE TABLE kc AS SELECT g AS id, (g % 10)::float8 / 4 AS f8, (g % 12)::text AS tx, make_interval(days => g % 3) AS iv,
  ROW(g % 2, g % 3)::pair AS pr FROM generate_series(1, 20) g;
ANALYZE ka, kc;
SELECT same($q$SELECT ka.id, kc.id FROM ka JOIN kc ON ka.f4 = kc.f8$q$) AS float4_float8;
SELECT same($q$SELECT ka.id, kc.id FROM ka JOIN kc ON ka.nm = kc.tx$q$) AS name_text;
SELECT same($q$SELECT ka.id, kc.id FROM ka JOIN kc ON ka.iv = kc.iv$q$) AS interval_days_hours;
SELECT same($q$SELECT ka.id, kc.id FROM ka JOIN kc ON ka.pr = kc.pr$q$) AS composite;
SELECT same($q$SELECT ka.id, kc.id FROM ka JOIN kc ON ka.pr::record = kc.pr::record$q$) AS record;
CREATE DOMAIN dint AS int CHECK (VALUE >= 0);
SELECT same($q$SELECT kp.id, kb.id FROM kp JOIN kb ON kp.i4::dint = kb.i4::dint$q$) AS domain;
SELECT same($q$SELECT kp.id, kb.id FROM kp JOIN kb ON kp.nk = kb.nk$q$) AS null_keys;
SELECT same($q$SELECT kp.id, kb.id FROM kp JOIN kb ON kp.nk = kb.nk AND kp.i4 = kb.i4 AND kp.f = kb.f$q$) AS three_keys_nulls;
SELECT same($q$SELECT kp.id, kb.id FROM kp JOIN kb ON kp.i4 + 1 = kb.i4 AND kp.nk = kb.nk$q$) AS expression_key;
SELECT same($q$SELECT kp.id, kb.id FROM kp RIGHT JOIN kb ON kp.nk = kb.nk$q$) AS right_join_nulls;
SELECT same($q$SELECT kp.id, kb.id FROM kb LEFT JOIN kp ON kp.nk = kb.nk$q$) AS left_join_nulls;
SELECT same($q$SELECT kp.id FROM kp WHERE kp.nk IN (SELECT nk FROM kb)$q$) AS semi_nulls;
SELECT same($q$SELECT kp.id FROM kp WHERE kp.nk NOT IN (SELECT nk FROM kb WHERE nk IS NOT NULL)$q$) AS not_in;
SELECT same($q$SELECT kp.id FROM kp WHERE NOT EXISTS (SELECT FROM kb WHERE kb.nk = kp.nk)$q$) AS anti;
SELECT same($q$SELECT kp.id, kb.id FROM kp FULL JOIN kb ON kp.nk = kb.nk$q$) AS full_join;
SELECT same($q$SELECT kp.id, kb.id FROM kp JOIN kb ON kp.nk IS NOT DISTINCT FROM kb.nk$q$) AS not_distinct;
SELECT same($q$SELECT kp.id FROM kp JOIN (SELECT * FROM kb WHERE false) kb ON kp.i4 = kb.i4$q$) AS empty_build;
SELECT same($q$SELECT kp.id FROM kp JOIN (SELECT * FROM kb WHERE kb.id < 0 OR kb.id IS NULL) kb ON kp.i4 = kb.i4$q$) AS empty_build_rows;
SELECT same($q$SELECT kp.id FROM (SELECT * FROM kp WHERE id < 0) kp JOIN kb ON kp.i4 = kb.i4$q$) AS empty_probe;
SELECT same($q$SELECT kp.id FROM kp JOIN (SELECT * FROM kb WHERE nk IS NULL) kb ON kp.nk = kb.nk$q$) AS build_only_nulls;
SET cuckoo.join_prefilter_runtime_max_keys = 5;
SELECT same($q$SELECT kp.id, kb.id FROM kp JOIN kb ON kp.i4 = kb.i4$q$) AS max_keys;
SET cuckoo.join_prefilter_runtime_max_keys = 0;
SELECT same($q$SELECT kp.id, kb.id FROM kp JOIN kb ON kp.i4 = kb.i4$q$) AS max_keys_zero;
RESET cuckoo.join_prefilter_runtime_max_keys;
SET cuckoo.join_prefilter_runtime_sample = 7;
SET cuckoo.join_prefilter_runtime_min_removed = 0.99;
SELECT same($q$SELECT b.id, s.grp FROM big b JOIN small s ON s.k = b.k WHERE s.grp < 9$q$) AS switched_off;
SELECT same($q$SELECT d.grp, (SELECT count(*) FROM (big JOIN mid2 ON big.id = mid2.m) JOIN small s ON s.k = mid2.k WHERE s.grp = d.grp) FROM drv d$q$) AS switched_off_rescan;
RESET cuckoo.join_prefilter_runtime_min_removed;
SET cuckoo.join_prefilter_runtime_sample = 0;
-- odd plans: nothing that depends on the set of its input rows (a LIMIT,
-- a window, an aggregate, DISTINCT ON, a set operation) may have a check
-- below it; volatile functions are evaluated as often as without filters
SELECT same($q$SELECT b.id FROM (SELECT * FROM big ORDER BY id LIMIT 300) b JOIN small s ON s.k = b.k WHERE s.grp = 1$q$) AS limit_below;
SELECT same($q$SELECT b.id FROM (SELECT * FROM big ORDER BY id LIMIT 300 OFFSET 10) b JOIN (big b2 JOIN small s ON s.k = b2.k) ON b2.id = b.id WHERE s.grp = 1$q$) AS limit_below_join;
SELECT same($q$SELECT b.id, b.rn FROM (SELECT *, row_number() OVER (ORDER BY id) AS rn FROM big) b JOIN small s ON s.k = b.k WHERE s.grp = 2$q$) AS window_below;
SELECT same($q$SELECT b.k, b.c FROM (SELECT k, count(*) AS c FROM big GROUP BY k) b JOIN small s ON s.k = b.k WHERE s.grp = 2$q$) AS agg_below;
SELECT same($q$SELECT b.id, b.k FROM (SELECT DISTINCT ON (m) id, k FROM big ORDER BY m, id) b JOIN small s ON s.k = b.k$q$) AS distinct_on_below;
SELECT same($q$SELECT b.k FROM (SELECT k FROM big WHERE id < 5000 INTERSECT SELECT k FROM mid2) b JOIN small s ON s.k = b.k WHERE s.grp = 2$q$) AS setop_below;
SELECT same($q$SELECT s.grp, count(*), percentile_disc(0.5) WITHIN GROUP (ORDER BY b.id) FROM big b JOIN small s ON s.k = b.k WHERE s.grp < 4 GROUP BY s.grp$q$) AS ordered_set_above;
SELECT same($q$SELECT s.grp, b.m, count(*) FROM big b JOIN small s ON s.k = b.k WHERE s.grp < 4 GROUP BY GROUPING SETS ((s.grp), (b.m), ())$q$) AS grouping_sets_above;
SELECT same($q$SELECT b.id, rank() OVER (PARTITION BY s.grp ORDER BY b.id) FROM big b JOIN small s ON s.k = b.k WHERE s.grp = 5$q$) AS window_above;
SELECT same($q$SELECT b.id FROM big b JOIN small s ON s.k = b.k WHERE s.grp = 5 ORDER BY b.id LIMIT 7$q$) AS limit_above;
SELECT same($q$SELECT b.id FROM (VALUES (1), (5), (12), (NULL)) v(x) JOIN big b ON b.id = v.x$q$) AS values_probe;
SELECT same($q$SELECT g, s.grp FROM generate_series(1, 3000) g JOIN small s ON s.k = g WHERE s.grp = 5$q$) AS function_probe;
SELECT same($q$SELECT u.x, s.grp FROM unnest(ARRAY[1, 2, 3, 5, 1005, NULL]) u(x) JOIN small s ON s.k = u.x$q$) AS unnest_probe;
SELECT same($q$SELECT b.id FROM (SELECT * FROM big WHERE 1 = (SELECT 1)) b JOIN small s ON s.k = b.k WHERE s.grp = 5$q$) AS one_time_filter;
SELECT same($q$SELECT b.id, x FROM (SELECT id, k, generate_series(1, 2) AS x FROM big) b JOIN small s ON s.k = b.k WHERE s.grp = 5$q$) AS srf_tlist;
-- a probe key through a placeholder (non-strict, the nullable side of an outer join)
SELECT same($q$SELECT a.m, x.kk FROM mid2 a LEFT JOIN (SELECT m, coalesce(k, 0) AS kk FROM mid2) x ON x.m = a.m + 1500
  JOIN small s ON s.k = x.kk WHERE s.grp = 0$q$) AS placeholder;
SELECT same($q$SELECT a.id, x.kk FROM big a LEFT JOIN (SELECT m, coalesce(k, 0) AS kk FROM mid2) x ON x.m = a.id
  JOIN small s ON s.k = x.kk WHERE s.grp = 0$q$) AS placeholder_big;
SELECT same($q$SELECT a.id, x.kk FROM big a LEFT JOIN (SELECT m, coalesce(k, 0) AS kk FROM mid2) x ON x.m = a.id
  JOIN small s ON coalesce(x.kk, 0) = s.k WHERE s.grp = 0$q$) AS placeholder_outer;
-- indexes: merge joins and nested loops with index scans below the checks
CREATE INDEX ON mid2 (k);
CREATE INDEX ON big (k);
ANALYZE big, mid2;
SET enable_nestloop = off;
SELECT same($q$SELECT b.id, mid2.m FROM (big b JOIN mid2 ON b.k = mid2.k) JOIN small s ON s.k = mid2.k AND s.grp = 4$q$) AS index_joins;
RESET enable_nestloop;
-- volatile functions: evaluated as often with the filters (a sequence
-- counts), a subplan's included (a key that is one is not checked)
CREATE SEQUENCE sq;
CREATE FUNCTION vol(int) RETURNS int LANGUAGE sql VOLATILE AS 'SELECT $1 + 0 * nextval(''rtfe.sq'')::int';
CREATE FUNCTION calls(q text, rt text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	n bigint;
	before bigint;
BEGIN
	PERFORM setval('rtfe.sq', 1, false);
	PERFORM set_config('cuckoo.join_prefilter_runtime', rt, true);
	EXECUTE 'SELECT count(*) FROM (' || q || ') x' INTO n;
	RETURN n || ' rows, ' || currval('rtfe.sq') || ' calls';
END $$;
SET join_collapse_limit = 1;
SELECT calls(q, 'off') = calls(q, 'on') AS same_calls
  FROM (VALUES ($q$SELECT b.m FROM mid2 b JOIN small s ON s.k = vol(b.k) WHERE s.grp = 3$q$),
               ($q$SELECT b.m FROM (mid2 b JOIN drv ON vol(b.k) % 10 >= drv.grp) JOIN small s ON s.k = b.k WHERE s.grp = 3$q$),
               ($q$SELECT b.m FROM (SELECT m, k, vol(m) AS v FROM mid2) b JOIN small s ON s.k = b.k WHERE s.grp = 3$q$),
               ($q$SELECT b.m FROM (SELECT m, k FROM mid2 WHERE vol(m) >= 0 OFFSET 0) b JOIN small s ON s.k = b.k WHERE s.grp = 3$q$),
               ($q$SELECT b.m FROM mid2 b JOIN small s ON s.k = b.k AND vol(s.grp) = 3$q$),
               ($q$SELECT b.m FROM mid2 b JOIN small s ON s.k = (SELECT b.k + 0 * nextval('rtfe.sq')::int) WHERE s.grp = 3$q$),
               ($q$SELECT b.m FROM mid2 b JOIN small s ON s.k = b.k AND s.grp = 3 JOIN drv d ON d.grp = (SELECT b.m % 10 + 0 * nextval('rtfe.sq')::int)$q$)) v(q);
RESET join_collapse_limit;
-- EXPLAIN in every format, VERBOSE and ANALYZE, of a prepared statement,
-- through auto_explain (its ExecutorStart hook chained with ours)
SET enable_nestloop = off;
CREATE FUNCTION explained(opts text, q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	line text;
	s text := '';
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (' || opts || ') ' || q LOOP
		s := s || line || E'\n';
	END LOOP;
	RETURN (s LIKE '%Checks Run-time Filter%' OR s LIKE '%Checks-Run-time-Filter%') || ' '
		|| (s LIKE '%Builds Run-time Filter%' OR s LIKE '%Builds-Run-time-Filter%') || ' '
		|| (s LIKE '%removed 95,%');
END $$;
SELECT o, explained(o, $q$SELECT b.id FROM (SELECT * FROM big WHERE id <= 100) b JOIN small s ON s.k = b.k WHERE s.k % 20 = 1$q$)
  FROM unnest(ARRAY['COSTS OFF', 'VERBOSE, COSTS OFF', 'ANALYZE, TIMING OFF, COSTS OFF',
                    'ANALYZE, VERBOSE, TIMING OFF, FORMAT JSON', 'ANALYZE, TIMING OFF, FORMAT XML',
                    'ANALYZE, TIMING OFF, FORMAT YAML', 'FORMAT JSON']) o;
PREPARE pe(int) AS SELECT b.id FROM (SELECT * FROM big WHERE id <= 100) b JOIN small s ON s.k = b.k WHERE s.k % 20 = $1;
SELECT explained('ANALYZE, TIMING OFF, COSTS OFF', 'EXECUTE pe(1)') AS explain_execute;
DEALLOCATE pe;
RESET enable_nestloop;
LOAD 'auto_explain';
SET auto_explain.log_min_duration = 0;
SET auto_explain.log_analyze = on;
SET auto_explain.log_verbose = on;
SET auto_explain.log_format = json;
SET auto_explain.log_nested_statements = on;
SELECT same($q$SELECT b.id FROM big b JOIN small s ON s.k = b.k WHERE s.grp = 2$q$) AS auto_explain;
RESET auto_explain.log_min_duration;

-- errors: a statement canceled while the filter is being built, an error
-- in the probe side, a rolled back transaction; the next runs are unaffected
SET statement_timeout = '200ms';
SELECT count(*) FROM big b JOIN (SELECT k FROM small WHERE pg_sleep(0.01) IS NOT NULL) s ON s.k = b.k;
RESET statement_timeout;
SELECT same($q$SELECT b.id FROM big b JOIN (SELECT k FROM small WHERE grp = 3 AND k::text <> '') s ON s.k = b.k$q$) AS after_cancel;
SELECT count(*) FROM big b JOIN small s ON s.k = b.k WHERE s.grp = 3 AND 1 / (b.id - 15003) > 0;
BEGIN;
SELECT count(*) FROM big b JOIN small s ON s.k = b.k WHERE s.grp = 3;
SAVEPOINT a;
SELECT count(*) FROM big b JOIN small s ON s.k = b.k WHERE s.grp = 3 AND 1 / (b.id - 15003) > 0;
ROLLBACK TO a;
SELECT count(*) FROM big b JOIN small s ON s.k = b.k WHERE s.grp = 3;
ROLLBACK;
SELECT same($q$SELECT b.id FROM big b JOIN small s ON s.k = b.k WHERE s.grp = 3$q$) AS after_errors;

RESET search_path;
DROP SCHEMA rtfe CASCADE;
RESET client_min_messages;
