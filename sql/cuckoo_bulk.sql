-- cuckoo_bulk: no false negatives over 100,000 values, a third of them
-- deleted again, and a false-positive rate within bounds.

CREATE TABLE cf_bulk (f cuckoofilter);

-- 100,000 adds in one statement (a plpgsql loop), into a filter sized for them
DO $$
DECLARE
	f cuckoofilter := cf_create(100000);
BEGIN
	FOR i IN 1..100000 LOOP
		f := cf_add(f, i);
	END LOOP;
	INSERT INTO cf_bulk VALUES (f);
END $$;
SELECT items, subfilters FROM cf_bulk, cf_info(f);
SELECT count(*) AS false_negatives
  FROM cf_bulk, generate_series(1, 100000) i WHERE NOT cf_contains(f, i);

-- delete every third value
DO $$
DECLARE
	g cuckoofilter := (SELECT f FROM cf_bulk);
BEGIN
	FOR i IN 1..100000 LOOP
		IF i % 3 = 0 THEN
			g := cf_delete(g, i);
		END IF;
	END LOOP;
	UPDATE cf_bulk SET f = g;
END $$;
SELECT items FROM cf_bulk, cf_info(f);
SELECT count(*) AS false_negatives_after_delete
  FROM cf_bulk, generate_series(1, 100000) i WHERE i % 3 <> 0 AND NOT cf_contains(f, i);
-- the deleted third is mostly gone (false positives only)
SELECT count(*) < 33333 * 0.02 AS deleted_mostly_gone
  FROM cf_bulk, generate_series(1, 100000) i WHERE i % 3 = 0 AND cf_contains(f, i);

-- false positives on 100,000 values never added: the target rate is 0.01
SELECT count(*) < 100000 * 0.02 AS fpr_within_bounds
  FROM cf_bulk, generate_series(1000001, 1100000) i WHERE cf_contains(f, i);
SELECT fpr < 0.02 AS expected_fpr_within_bounds FROM cf_bulk, cf_info(f);

-- the same with text values through a growing filter, built by a recursive
-- query: every value is found
WITH RECURSIVE b(i, f) AS (
	SELECT 0, cf_create(1000, expansion => 2)
	UNION ALL
	SELECT i + 1, cf_add(f, 'value ' || (i + 1)) FROM b WHERE i < 5000
)
SELECT capacity > 1000 AS grew,
       (SELECT count(*) FROM generate_series(1, 5000) j WHERE NOT f @> ('value ' || j)) AS false_negatives
  FROM (SELECT f FROM b WHERE i = 5000) s, cf_info(f);

-- the filter as a scalar subquery, a CTE and a join partner, per row
SELECT count(*) AS found_subquery
  FROM generate_series(1, 100000) i WHERE cf_contains((SELECT f FROM cf_bulk), i) AND i % 3 <> 0;
WITH c AS MATERIALIZED (SELECT f FROM cf_bulk)
SELECT count(*) AS found_cte FROM c, generate_series(1, 100000) i WHERE c.f @> i AND i % 3 <> 0;


-- parallel workers probe the same filter: the plan is parallel and the
-- answer is the same
CREATE TABLE cf_vals AS SELECT i FROM generate_series(1, 100000) i;
ANALYZE cf_vals;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF)
SELECT count(*) FROM cf_vals WHERE cf_contains((SELECT f FROM cf_bulk), i);
SELECT count(*) AS found_parallel FROM cf_vals WHERE cf_contains((SELECT f FROM cf_bulk), i) AND i % 3 <> 0;
SELECT count(*) AS found_parallel_join FROM cf_vals v, cf_bulk b WHERE b.f @> v.i AND i % 3 <> 0;
-- values hashed through a send function (json: json_send converts its
-- text to the client encoding) hash alike whatever client_encoding says:
-- in another session, and in parallel workers, which always run with the
-- database encoding (the leader stays out of the scan here)
CREATE TABLE cf_arr AS
	SELECT json_build_object('k', convert_from('\xc3a9', 'UTF8') || i) AS a
	  FROM generate_series(1, 20000) i;
ANALYZE cf_arr;
CREATE TABLE cf_arrf (f cuckoofilter);
SET client_encoding = 'LATIN1';
DO $$
DECLARE
	g cuckoofilter;
	r record;
BEGIN
	FOR r IN SELECT a FROM cf_arr LOOP
		g := cf_add(g, r.a);
	END LOOP;
	INSERT INTO cf_arrf VALUES (g);
END $$;
SET parallel_leader_participation = off;
EXPLAIN (COSTS OFF)
SELECT count(*) FROM cf_arr WHERE NOT cf_contains((SELECT f FROM cf_arrf), a);
SELECT count(*) AS false_negatives FROM cf_arr WHERE NOT cf_contains((SELECT f FROM cf_arrf), a);
RESET parallel_leader_participation;
RESET client_encoding;
SELECT count(*) AS false_negatives_utf8 FROM cf_arr WHERE NOT cf_contains((SELECT f FROM cf_arrf), a);
DROP TABLE cf_arr, cf_arrf;

RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;

-- the per-call cache never mistakes one stored filter for another: each
-- row holds a different filter, stored inline compressed (fresh, mostly
-- zeros, STORAGE extended), out of line (the type's default, external) or
-- inline with a short header (tiny), and the probe switches filters on
-- every row
CREATE TABLE cf_inline (id integer, f cuckoofilter);
ALTER TABLE cf_inline ALTER COLUMN f SET STORAGE EXTENDED;
CREATE TABLE cf_ext (id integer, f cuckoofilter);
CREATE TABLE cf_tiny (id integer, f cuckoofilter);
INSERT INTO cf_inline SELECT id, cf_add(cf_create(20000, 0.0001, expansion => 0), id) FROM generate_series(1, 20) id;
INSERT INTO cf_ext SELECT id, cf_add(cf_create(20000, 0.0001, expansion => 0), id) FROM generate_series(1, 20) id;
INSERT INTO cf_tiny SELECT id, cf_add(cf_create(1, 0.0001), id) FROM generate_series(1, 20) id;
SELECT (SELECT bool_and(pg_column_size(f) < 2000) FROM cf_inline) AS inline_compressed,
       (SELECT bool_and(pg_column_size(f) > 20000) FROM cf_ext) AS out_of_line,
       (SELECT bool_and(pg_column_size(f) < 127) FROM cf_tiny) AS short_header;
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SELECT 'inline' AS storage, count(*) FILTER (WHERE f @> v AND id = v) AS hits,
       count(*) FILTER (WHERE NOT f @> v AND id = v) AS misses,
       count(*) FILTER (WHERE f @> v AND id <> v) < 3 AS few_others
  FROM generate_series(1, 20) v, cf_inline
UNION ALL
SELECT 'external', count(*) FILTER (WHERE f @> v AND id = v),
       count(*) FILTER (WHERE NOT f @> v AND id = v),
       count(*) FILTER (WHERE f @> v AND id <> v) < 3
  FROM generate_series(1, 20) v, cf_ext
UNION ALL
SELECT 'tiny', count(*) FILTER (WHERE f @> v AND id = v),
       count(*) FILTER (WHERE NOT f @> v AND id = v),
       count(*) FILTER (WHERE f @> v AND id <> v) < 3
  FROM generate_series(1, 20) v, cf_tiny;
-- every (filter, value) pair answered as by a fresh lookup of that filter
SELECT count(*) AS disagreements
  FROM generate_series(1, 20) v, cf_inline i JOIN cf_ext e USING (id)
 WHERE (i.f @> v) IS DISTINCT FROM (e.f::text::cuckoofilter @> v)
    OR (e.f @> v) IS DISTINCT FROM (i.f::text::cuckoofilter @> v);
RESET enable_hashjoin;
RESET enable_mergejoin;

DROP TABLE cf_bulk, cf_vals, cf_inline, cf_ext, cf_tiny;
