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
