-- cuckoo_deletes: deletes from grown and merged filters never lose another
-- value (FORMAT.md, "Deletes").  Each case deletes every copy it added, in
-- a scrambled order (md5 of the value and copy), and at checkpoints counts
-- the values still live that the filter reports absent: always 0.  Which
-- values are live is kept by an exact model, an array of each value's
-- copies added minus deleted, never asked of the filter or its hash.  Each
-- case adds a second copy of every tenth value, so a value stays live after
-- its first delete.
--
-- The shapes: split tables grow in place, so every filter grown by cf_add
-- & co. is one table (subfilters 1); several tables come from cf_agg given
-- too small a capacity (chain tables, one family), cf_agg output that later
-- grew, unions of different capacities (tables of two families side by
-- side), and the stored filters of cuckoo 1.0 and 1.1 (test/golden: grown,
-- appended and folded version 1 and version 2 tables).
\getenv abs_srcdir PG_ABS_SRCDIR
\getenv abs_builddir PG_ABS_BUILDDIR

-- the values of a case: 1..n, and a second copy of every tenth
CREATE FUNCTION dl_values(n int) RETURNS int[] LANGUAGE sql IMMUTABLE AS $$
SELECT array_agg(x ORDER BY x, c) FROM generate_series(1, n) x, generate_series(1, 2) c
 WHERE c = 1 OR x % 10 = 0 $$;

-- f holds the values vals (a multiset of 1..n); every copy is deleted in a
-- scrambled order; returns the live values reported absent at 5
-- checkpoints, the live values whose cf_count fell below their live copies,
-- the live copies at the first checkpoint (what was checked there), and the
-- counters.  The model: live[v], the copies of v added minus deleted
CREATE FUNCTION dl_drain(f0 cuckoofilter, vals int[], OUT false_negatives bigint,
	OUT count_short bigint, OUT live_checked bigint, OUT subfilters int, OUT families int,
	OUT items_left bigint, OUT deletes bigint, OUT retained bigint)
LANGUAGE plpgsql AS $$
DECLARE
	f cuckoofilter := f0;  -- a variable: deletes into a parameter are ten times slower
	ord int[] := ARRAY(SELECT u.y FROM unnest(vals) WITH ORDINALITY u(y, o) ORDER BY md5(u.y || '/' || u.o));
	live int[] := array_fill(0, ARRAY[(SELECT max(y) FROM unnest(vals) y)]);
	total int := cardinality(vals);
	x int;
BEGIN
	FOREACH x IN ARRAY vals LOOP live[x] := live[x] + 1; END LOOP;
	false_negatives := 0;
	count_short := 0;
	subfilters := (cf_info(f)).subfilters;
	families := (cf_info(f)).families;
	FOR k IN 1 .. total LOOP
		f := cf_delete(f, ord[k]);
		live[ord[k]] := live[ord[k]] - 1;
		IF k % (total / 5) = 0 THEN
			SELECT false_negatives + count(*) FILTER (WHERE NOT f @> u.v::int),
			       count_short + count(*) FILTER (WHERE cf_count(f, u.v::int) < u.n),
			       coalesce(live_checked, sum(u.n))
			  INTO false_negatives, count_short, live_checked
			  FROM unnest(live) WITH ORDINALITY u(n, v) WHERE u.n > 0;
		END IF;
	END LOOP;
	items_left := (cf_info(f)).items;
	deletes := (cf_info(f)).deletes;
	retained := (cf_info(f)).retained;
END $$;

-- f with vals added one cf_add at a time
CREATE FUNCTION dl_add(f cuckoofilter, vals int[]) RETURNS cuckoofilter LANGUAGE plpgsql AS $$
DECLARE v int;
BEGIN
	FOREACH v IN ARRAY vals LOOP f := cf_add(f, v); END LOOP;
	RETURN f;
END $$;

-- grown by cf_add one value at a time, from 1,000 to 6,600 items, of
-- several shapes: one split table each
SELECT shape, d.* FROM (VALUES
	('b4 fpr 0.01 x2',   cf_create(1000)),
	('b2 fpr 0.01 x2',   cf_create(1000, 0.01, 2)),
	('b8 fpr 0.01 x2',   cf_create(1000, 0.01, 8)),
	('b4 fpr 0.001 x1',  cf_create(1000, 0.001, 4, 500, 1)),
	('b4 fpr 0.1 x4',    cf_create(1000, 0.1, 4, 500, 4)),
	('b4 small fp x2',   cf_create(300, 0.3, 4, 500, 2)),
	('from NULL',        NULL)) s(shape, f0),
	LATERAL (SELECT dl_values(6000) AS vals) a,
	LATERAL dl_drain(dl_add(f0, a.vals), a.vals) d
 ORDER BY shape;

-- several tables: cf_agg with too small a capacity writes a chain of tables
-- (one family); cf_agg output that later grew by cf_add_all.  cf_agg keeps
-- each distinct value once (docs/aggregates.md), so dl_agg gives it the
-- distinct values and adds the second copies after, one cf_add_all
CREATE FUNCTION dl_agg(vals int[], cap int) RETURNS cuckoofilter LANGUAGE sql AS $$
SELECT cf_add_all(CASE WHEN cap IS NULL THEN (SELECT cf_agg(DISTINCT y) FROM unnest(vals) y)
                       ELSE (SELECT cf_agg(DISTINCT y, 0.01, cap) FROM unnest(vals) y) END,
                  ARRAY(SELECT y FROM (SELECT y, o, row_number() OVER (PARTITION BY y ORDER BY o) r
                                         FROM unnest(vals) WITH ORDINALITY u(y, o)) s
                         WHERE r > 1 ORDER BY o)) $$;
SELECT shape, d.* FROM (VALUES
	('cf_agg cap 400, 4400 values',    4000,  400, 0),
	('cf_agg cap 500, 3300 values',    3000,  500, 0),
	('cf_agg 2200 then 4400 added',    2000, NULL, 4000)) s(shape, n, cap, more),
	LATERAL (SELECT dl_values(n + more) AS vals) a,
	LATERAL dl_drain(cf_add_all(dl_agg(a.vals[1:n + n / 10], cap), a.vals[n + n / 10 + 1:]), a.vals) d
 ORDER BY shape;

-- unions: parts of one capacity are one family (one table); parts of
-- different capacities keep tables of two families side by side, and a
-- chain beside split tables; a delete whose value matches in two families
-- is left in place and counted (retained), never wrong
CREATE TABLE dl_parts AS
SELECT p, (dl_values(8000))[p * 2200 + 1:p * 2200 + 2200] AS vals FROM generate_series(0, 3) p;
SELECT shape, d.* FROM (VALUES
	('union_agg of 4 parts, capacity 500',
	 (SELECT cf_union_agg(cf_add_all(cf_create(500), vals)) FROM dl_parts),
	 (SELECT array_agg(x) FROM dl_parts, unnest(vals) x)),
	('union of capacities 1000 and 700',
	 (SELECT cf_union(cf_add_all(cf_create(1000), a.vals), cf_add_all(cf_create(700), b.vals))
	    FROM dl_parts a, dl_parts b WHERE a.p = 0 AND b.p = 1),
	 (SELECT array_agg(x) FROM dl_parts, unnest(vals) x WHERE p IN (0, 1))),
	('union of a chain and split tables',
	 (SELECT cf_union(dl_agg(a.vals, 300), cf_add_all(cf_create(1000), b.vals))
	    FROM dl_parts a, dl_parts b WHERE a.p = 2 AND b.p = 3),
	 (SELECT array_agg(x) FROM dl_parts, unnest(vals) x WHERE p IN (2, 3)))) s(shape, f, vals),
	LATERAL dl_drain(s.f, s.vals) d
 ORDER BY shape;

-- the stored filters of cuckoo 1.0 (version 1) and 1.1 (version 2) with
-- several tables: every live copy their values.txt lists is deleted
CREATE TABLE dl_stored_values (name text, kind text, v text, net int, c boolean, n int);
CREATE TABLE dl_stored (src text, name text, t text);
CREATE TEMP TABLE dl_load (name text, t text);
\cd :abs_srcdir
\copy dl_load FROM 'test/golden/filters.txt'
INSERT INTO dl_stored SELECT '1.0', name, t FROM dl_load;
TRUNCATE dl_load;
\copy dl_load FROM 'test/golden/v2/filters.txt'
INSERT INTO dl_stored SELECT '1.1', name, t FROM dl_load;
CREATE TEMP TABLE dl_vload (name text, kind text, v text, net int, c boolean, n int);
\copy dl_vload FROM 'test/golden/values.txt'
INSERT INTO dl_stored_values SELECT '1.0/' || name, kind, v, net, c, n FROM dl_vload;
TRUNCATE dl_vload;
\copy dl_vload FROM 'test/golden/v2/values.txt'
INSERT INTO dl_stored_values SELECT '1.1/' || name, kind, v, net, c, n FROM dl_vload;
\cd :abs_builddir
-- value i of filter key: (kind, v), net live copies
CREATE TABLE dl_sv AS
SELECT name AS key, row_number() OVER (PARTITION BY name ORDER BY kind, v)::int AS i, kind, v, net
  FROM dl_stored_values WHERE net > 0;
ALTER TABLE dl_sv ADD PRIMARY KEY (key, i);
ANALYZE dl_sv;
CREATE FUNCTION dl_has(f cuckoofilter, kind text, v text) RETURNS boolean LANGUAGE sql IMMUTABLE AS $$
SELECT CASE kind WHEN 'text' THEN f @> v WHEN 'int4' THEN f @> v::int4 WHEN 'int8' THEN f @> v::int8 END $$;
CREATE FUNCTION dl_stored_drain(key text, OUT false_negatives bigint, OUT live_checked bigint,
	OUT subfilters int, OUT families int, OUT items_left bigint, OUT deletes bigint, OUT retained bigint)
LANGUAGE plpgsql AS $$
DECLARE
	f cuckoofilter := (SELECT t::cuckoofilter FROM dl_stored WHERE src || '/' || name = key);
	-- value i is (kinds[i], vs[i]); the model: live[i], its copies added
	-- minus deleted; ord: every copy once, in the order deleted
	kinds text[] := ARRAY(SELECT s.kind FROM dl_sv s WHERE s.key = dl_stored_drain.key ORDER BY i);
	vs text[] := ARRAY(SELECT s.v FROM dl_sv s WHERE s.key = dl_stored_drain.key ORDER BY i);
	live int[] := ARRAY(SELECT s.net FROM dl_sv s WHERE s.key = dl_stored_drain.key ORDER BY i);
	ord int[] := ARRAY(SELECT s.i FROM dl_sv s, generate_series(1, s.net) c
	                    WHERE s.key = dl_stored_drain.key ORDER BY md5(s.kind || s.v || '/' || c));
	total int := cardinality(ord);
	deletes0 bigint := (cf_info(f)).deletes;
	retained0 bigint := (cf_info(f)).retained;
	x int;
BEGIN
	false_negatives := (SELECT count(*) FROM dl_sv s WHERE s.key = dl_stored_drain.key AND NOT dl_has(f, s.kind, s.v));
	subfilters := (cf_info(f)).subfilters;
	families := (cf_info(f)).families;
	FOR k IN 1 .. total LOOP
		x := ord[k];
		IF kinds[x] = 'text' THEN f := cf_delete(f, vs[x]);
		ELSIF kinds[x] = 'int4' THEN f := cf_delete(f, vs[x]::int4);
		ELSE f := cf_delete(f, vs[x]::int8);
		END IF;
		live[x] := live[x] - 1;
		IF k % (total / 5) = 0 THEN
			SELECT false_negatives + count(*) FILTER (WHERE NOT dl_has(f, s.kind, s.v)),
			       coalesce(live_checked, sum(u.n))
			  INTO false_negatives, live_checked
			  FROM unnest(live) WITH ORDINALITY u(n, i) JOIN dl_sv s ON s.key = dl_stored_drain.key AND s.i = u.i
			 WHERE u.n > 0;
		END IF;
	END LOOP;
	items_left := (cf_info(f)).items;
	deletes := (cf_info(f)).deletes - deletes0;
	retained := (cf_info(f)).retained - retained0;
END $$;
SELECT key AS stored, d.*
  FROM (SELECT src || '/' || name AS key FROM dl_stored WHERE (cf_info(t::cuckoofilter)).subfilters > 1) s,
       LATERAL dl_stored_drain(key) d
 ORDER BY key;

-- a sliding window: each day adds 300 ids and deletes the day that left the
-- 5-day window, on a filter that had to grow; after 30 days no live id is
-- absent, no delete failed, the rate stays within twice the target and the
-- size stopped growing once the live set was flat
CREATE FUNCTION dl_window(OUT false_negatives bigint, OUT retained bigint, OUT fpr_within_2x boolean,
	OUT bytes_day10 bigint, OUT bytes_day30 bigint, OUT subfilters int)
LANGUAGE plpgsql AS $$
DECLARE
	f cuckoofilter := cf_create(200);
	fp bigint;
BEGIN
	false_negatives := 0;
	FOR d IN 1 .. 30 LOOP
		f := cf_add_all(f, (SELECT array_agg(d * 1000 + i) FROM generate_series(1, 300) i));
		IF d > 5 THEN
			FOR i IN 1 .. 300 LOOP f := cf_delete(f, (d - 5) * 1000 + i); END LOOP;
		END IF;
		false_negatives := false_negatives + (SELECT count(*) FROM generate_series(greatest(1, d - 4), d) w,
			generate_series(1, 300) i WHERE NOT f @> (w * 1000 + i));
		IF d = 10 THEN bytes_day10 := (cf_info(f)).bytes; END IF;
	END LOOP;
	SELECT count(*) INTO fp FROM generate_series(1000001, 1020000) x WHERE f @> x;
	fpr_within_2x := fp <= 2 * 0.01 * 20000;
	bytes_day30 := (cf_info(f)).bytes;
	retained := (cf_info(f)).retained;
	subfilters := (cf_info(f)).subfilters;
END $$;
SELECT * FROM dl_window();

DROP TABLE dl_parts, dl_stored, dl_stored_values, dl_sv;
DROP FUNCTION dl_values(int);
DROP FUNCTION dl_add(cuckoofilter, int[]);
DROP FUNCTION dl_agg(int[], int);
DROP FUNCTION dl_drain(cuckoofilter, int[]);
DROP FUNCTION dl_has(cuckoofilter, text, text);
DROP FUNCTION dl_stored_drain(text);
DROP FUNCTION dl_window();
