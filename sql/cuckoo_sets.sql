-- cuckoo_sets: set semantics with cf_add_unique; many copies of one value

-- cf_add_unique stores a value once, cf_add once per call
SELECT cf_count(cf_add_unique(cf_add_unique(cf_create(100), 'x'), 'x'), 'x') AS unique_twice,
       cf_count(cf_add(cf_add(cf_create(100), 'x'), 'x'), 'x') AS add_twice,
       cf_count(cf_add_unique(NULL, 7), 7) AS from_null,
       cf_add_unique(NULL, NULL::int) IS NULL AS null_null,
       cf_count(cf_add_unique(cf_add(NULL, 1), NULL::int), 1) AS null_value;
-- per-row "already seen": re-adding seen items leaves the filter unchanged
CREATE TABLE st_seen (user_id int, items cuckoofilter);
INSERT INTO st_seen VALUES (1, NULL);
UPDATE st_seen SET items = cf_add_unique(items, g % 10) FROM generate_series(1, 1) g;
DO $$ BEGIN
	FOR i IN 1..200 LOOP
		UPDATE st_seen SET items = cf_add_unique(items, i % 10);
	END LOOP;
END $$;
SELECT (cf_info(items)).items, (cf_info(items)).subfilters,
       (SELECT bool_and(items @> g) FROM generate_series(0, 9) g) AS all_seen
  FROM st_seen;
-- the same in a PL/pgSQL variable (expanded object path)
DO $$
DECLARE f cuckoofilter := cf_create(1000);
BEGIN
	FOR i IN 1..5000 LOOP
		f := cf_add_unique(f, i % 100);
	END LOOP;
	RAISE NOTICE 'items %, all present %', (cf_info(f)).items,
		(SELECT bool_and(f @> g) FROM generate_series(0, 99) g);
END $$;

-- one value added many times: each sub-filter holds 2 x bucket_size copies,
-- and the filter grows by sub-filters of its own size, not by doubling
WITH RECURSIVE r(n, f) AS (
	SELECT 1, cf_add(cf_create(1000), 42)
	UNION ALL SELECT n + 1, cf_add(f, 42) FROM r WHERE n < 145)
SELECT (cf_info(f)).subfilters, (cf_info(f)).bytes < 64 * 1024 AS stays_small,
       cf_count(f, 42) AS copies, cf_contains(f, 43) AS other_absent
  FROM r WHERE n = 145;
-- and deleting them all leaves nothing
WITH RECURSIVE r(n, f) AS (
	SELECT 1, cf_add(cf_create(1000), 42)
	UNION ALL SELECT n + 1, cf_add(f, 42) FROM r WHERE n < 60),
d(n, f) AS (
	SELECT 0, f FROM r WHERE n = 60
	UNION ALL SELECT n + 1, cf_delete(f, 42) FROM d WHERE n < 60)
SELECT cf_count(f, 42) AS copies_left, (cf_info(f)).items FROM d WHERE n = 60;
DROP TABLE st_seen;

-- cf_agg with a capacity: parts built apart share one geometry, so their
-- union folds into one table (33 parts: more than a union could stack)
SELECT (cf_info(u)).subfilters AS union_subfilters, (cf_info(u)).items,
       (cf_info(u)).capacity,
       (SELECT count(*) FROM generate_series(1, 30000) g WHERE NOT u @> g) AS misses,
       (SELECT count(*) FROM generate_series(30001, 130000) g WHERE u @> g) < 1000 AS fpr_within_1pct
  FROM (SELECT cf_union_agg(f) AS u
          FROM (SELECT cf_agg(g, 0.01, 30000) AS f
                  FROM generate_series(1, 30000) g GROUP BY g % 33) s) t;
-- a capacity below the values seen grows the filter and loses nothing
SELECT (cf_info(f)).capacity > 100 AS grew,
       (SELECT count(*) FROM generate_series(1, 5000) g WHERE NOT f @> g) AS misses
  FROM (SELECT cf_agg(g, 0.01, 100) AS f FROM generate_series(1, 5000) g) s;
-- parallel and serial plans agree byte for byte
SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0; SET max_parallel_workers_per_gather = 2;
CREATE TABLE st_vals AS SELECT g AS v FROM generate_series(1, 50000) g;
SELECT cf_agg(v, 0.001, 60000) AS par FROM st_vals \gset
SET max_parallel_workers_per_gather = 0;
SELECT cf_agg(v, 0.001, 60000)::text = :'par' AS parallel_equals_serial FROM st_vals;
RESET ALL;
DROP TABLE st_vals;
-- bad capacities
SELECT cf_agg(g, 0.01, 0) FROM generate_series(1, 3) g;
SELECT cf_agg(g, 0.01, NULL) FROM generate_series(1, 3) g;
SELECT cf_agg(g, 0.01, 10000000000000) FROM generate_series(1, 3) g;

-- cf_add_all: a whole array in one call (one copy of the filter)
SELECT cf_count(f, 1) AS ones, cf_contains(f, 3) AS three, cf_contains(f, 9) AS nine,
       (cf_info(f)).items
  FROM (SELECT cf_add_all(cf_create(100), ARRAY[1, 1, 2, 3, NULL]) AS f) s;
SELECT cf_add_all(NULL, ARRAY['a', 'b']) @> 'b' AS from_null,
       cf_add_all(NULL, NULL::int[]) IS NULL AS null_null,
       cf_count(cf_add_all(cf_add(NULL, 5), NULL::int[]), 5) AS null_array,
       (cf_info(cf_add_all(cf_create(10), '{}'::int[]))).items AS empty_array;
-- it agrees with one cf_add per value, grows, and loses nothing
SELECT cf_add_all(cf_create(50), (SELECT array_agg(g) FROM generate_series(1, 1000) g))::text =
       (WITH RECURSIVE r(n, f) AS (SELECT 0, cf_create(50)
            UNION ALL SELECT n + 1, cf_add(f, n + 1) FROM r WHERE n < 1000)
        SELECT f::text FROM r WHERE n = 1000) AS same_as_one_by_one,
       (WITH a AS MATERIALIZED (
            SELECT cf_add_all(cf_create(50), (SELECT array_agg(v) FROM generate_series(1, 3000) v)) AS f)
        SELECT count(*) FROM generate_series(1, 3000) g, a WHERE NOT a.f @> g) AS misses;
-- a full fixed-size filter refuses and names the problem
SELECT cf_add_all(cf_create(4, expansion => 0), (SELECT array_agg(g) FROM generate_series(1, 100) g));
