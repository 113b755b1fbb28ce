-- cuckoo_basic: creation, add / contains / delete / count / union / info,
-- NULL handling, growth, full filters and round trips.

-- creation with defaults, named and positional arguments; the bucket count
-- is the core's sizing policy, so only its consequences are shown
CREATE FUNCTION cf_shape(f cuckoofilter,
	OUT capacity bigint, OUT items bigint, OUT bucket_size integer,
	OUT fingerprint_bits integer, OUT subfilters integer,
	OUT enough_slots boolean, OUT load_matches boolean, OUT bytes_match boolean)
LANGUAGE sql AS $$
	-- a table, or (a growing filter's start) a list of 8-byte hashes, as
	-- many slots as cf_info's buckets (FORMAT.md, "List sub-filters")
	SELECT capacity, items, bucket_size, fingerprint_bits, subfilters,
	       buckets * bucket_size >= capacity OR bytes = 4 + 40 + 16 + 8 * buckets,
	       abs(load_factor - items::float8 / (buckets * bucket_size)) < 1e-12 OR
	       abs(load_factor - items::float8 / buckets) < 1e-12,
	       bytes = 4 + 40 + 16 + (buckets * bucket_size * fingerprint_bits + 7) / 8 OR
	       bytes = 4 + 40 + 16 + 8 * buckets
	  FROM cf_info(f)
$$;
SELECT * FROM cf_info(cf_create(1));
SELECT * FROM cf_shape(cf_create(100));
SELECT * FROM cf_shape(cf_create(1000, 0.001, 8, 100, 0));
SELECT * FROM cf_shape(cf_create(capacity => 50, bucket_size => 2, expansion => 4));
SELECT * FROM cf_shape(cf_create(500, fpr => 0.2));
SELECT * FROM cf_shape(cf_create(1000000));
SELECT * FROM cf_shape(cf_add(cf_add(cf_add(cf_create(1000), 'a'), 'b'), 'a'));
SELECT cf_create(1)::text;

-- creation errors
SELECT cf_create(0);
SELECT cf_create(-5);
SELECT cf_create(10, 0);
SELECT cf_create(10, 0.5);
SELECT cf_create(10, 'NaN');
SELECT cf_create(10, 1e-12);
SELECT cf_create(10, bucket_size => 3);
SELECT cf_create(10, bucket_size => 16);
SELECT cf_create(10, max_kicks => -1);
SELECT cf_create(10, max_kicks => 65536);
SELECT cf_create(10, expansion => -1);
SELECT cf_create(10, expansion => 17);
SELECT cf_create(5000000000);
SELECT cf_create(1000000000, 0.0000001);
-- strict: any NULL argument gives NULL
SELECT cf_create(NULL) IS NULL AS null_capacity, cf_create(10, NULL) IS NULL AS null_fpr;

-- cf_add: NULL filter starts a default one, NULL value changes nothing
SELECT capacity, items, bucket_size, fingerprint_bits, subfilters
  FROM cf_info(cf_add(NULL, 'abc'));
SELECT cf_add(NULL::cuckoofilter, NULL::integer) IS NULL AS both_null;
SELECT cf_add(NULL, NULL) IS NULL AS both_untyped_null;
SELECT cf_add(cf_create(1), NULL::integer)::text = cf_create(1)::text AS null_value_unchanged;
SELECT cf_add(cf_create(1), NULL)::text = cf_create(1)::text AS null_untyped_unchanged;
SELECT items FROM cf_info(cf_add(cf_add(cf_create(10), 1), 2));

-- contains, the operator, and strictness
SELECT cf_contains(cf_add(NULL, 'abc'), 'abc') AS has_abc,
       cf_contains(cf_add(NULL, 'abc'), 'abd') AS has_abd,
       cf_add(NULL, 'abc') @> 'abc' AS op_abc,
       cf_add(NULL, 'abc') @> 'xyz' AS op_xyz,
       cf_add(NULL, 42) @> 42 AS op_int;
SELECT cf_contains(NULL, 1) IS NULL AS null_filter,
       cf_contains(cf_create(10), NULL::int) IS NULL AS null_value,
       (NULL::cuckoofilter @> 'a') IS NULL AS op_null_filter,
       (cf_create(10) @> NULL::text) IS NULL AS op_null_value;
SELECT cf_contains(cf_create(10), 'anything') AS empty_has_nothing;

-- count and delete
SELECT cf_count(f, 'x') AS x3, cf_count(f, 'y') AS y1, cf_count(f, 'z') AS z0
  FROM (SELECT cf_add(cf_add(cf_add(cf_add(cf_create(10), 'x'), 'x'), 'x'), 'y') AS f) s;
SELECT cf_count(cf_delete(f, 'x'), 'x') AS x2_after_delete,
       cf_contains(cf_delete(cf_delete(cf_delete(f, 'x'), 'x'), 'x'), 'x') AS x_after_3_deletes,
       cf_contains(cf_delete(cf_delete(cf_delete(f, 'x'), 'x'), 'x'), 'y') AS y_kept,
       (SELECT items FROM cf_info(cf_delete(f, 'absent'))) AS items_after_absent_delete
  FROM (SELECT cf_add(cf_add(cf_add(cf_add(cf_create(10), 'x'), 'x'), 'x'), 'y') AS f) s;
SELECT cf_delete(cf_create(1), 'absent')::text = cf_create(1)::text AS delete_absent_unchanged;
SELECT cf_delete(NULL, 1) IS NULL AS del_null_filter,
       cf_delete(cf_create(1), NULL::int) IS NULL AS del_null_value,
       cf_count(NULL, 1) IS NULL AS count_null_filter,
       cf_count(cf_create(1), NULL::text) IS NULL AS count_null_value;

-- union
SELECT cf_contains(u, 'a') AS a, cf_contains(u, 'b') AS b, cf_contains(u, 'c') AS c, items
  FROM (SELECT cf_union(cf_add(cf_create(10), 'a'), cf_add(cf_create(20), 'b')) AS u) s,
       cf_info(u);
SELECT cf_union(cf_create(10), cf_create(10, 0.0001));
SELECT cf_union(cf_create(10), cf_create(10, bucket_size => 8));
SELECT cf_union(NULL, cf_create(1)) IS NULL AS union_null;

-- cf_info and NULL
SELECT cf_info(NULL) IS NULL AS info_null;
SELECT bytes = octet_length(cuckoofilter_send(f)) + 4 AS bytes_is_datum_size
  FROM (SELECT cf_create(1000) AS f) s, cf_info(f);

-- a helper that adds the integers 1..n to a filter
CREATE FUNCTION cf_fill(f cuckoofilter, n integer) RETURNS cuckoofilter
LANGUAGE plpgsql AS $$
BEGIN
	FOR i IN 1..n LOOP
		f := cf_add(f, i);
	END LOOP;
	RETURN f;
END $$;

-- growth: a filter for 10 items takes 1000 and still has every one
SELECT capacity > 10 AS grew, items,
       (SELECT count(*) FROM generate_series(1, 1000) i WHERE NOT cf_contains(f, i)) AS missing
  FROM (SELECT cf_fill(cf_create(10), 1000) AS f) s, cf_info(f);

-- a fixed-size filter that fills up
SELECT cf_fill(cf_create(4, expansion => 0), 100);
-- a growing filter is one split table that doubles in place: from one
-- bucket to 1000 items, no sub-filter limit
SELECT capacity >= 1000 AS grew, subfilters, items
  FROM (SELECT cf_fill(cf_create(1, expansion => 1), 1000) AS f) s, cf_info(f);
-- a filter that cannot grow any more: a rate too low for a split table
-- keeps a chain of tables (one bucket, expansion 1), at most 32 of them
SELECT cf_fill(cf_create(1, 1e-8, expansion => 1), 1000);

-- text round trip, exact
SELECT f::text::cuckoofilter::text = f::text AS text_round_trip
  FROM (SELECT cf_fill(cf_create(100), 500) AS f) s;
SELECT cf_add(cf_add(cf_create(1), 'a'), 'b')::text;

-- a filter in a table column, updated row by row, starting from NULL
CREATE TABLE cf_tab (id integer PRIMARY KEY, f cuckoofilter);
INSERT INTO cf_tab VALUES (1, NULL), (2, NULL);
DO $$
BEGIN
	FOR i IN 1..300 LOOP
		UPDATE cf_tab SET f = cf_add(f, id * 1000 + i);
	END LOOP;
END $$;
SELECT id, items, subfilters,
       (SELECT count(*) FROM generate_series(1, 300) i WHERE NOT cf_contains(f, id * 1000 + i)) AS missing
  FROM cf_tab, cf_info(f) ORDER BY id;
UPDATE cf_tab SET f = cf_delete(f, 1001) WHERE id = 1;
SELECT id, items FROM cf_tab, cf_info(f) ORDER BY id;

-- binary round trip through COPY
\copy cf_tab TO 'results/cuckoo_basic.bin' WITH (FORMAT binary)
CREATE TABLE cf_tab2 (id integer PRIMARY KEY, f cuckoofilter);
\copy cf_tab2 FROM 'results/cuckoo_basic.bin' WITH (FORMAT binary)
SELECT count(*) AS rows, bool_and(a.f::text = b.f::text) AS identical
  FROM cf_tab a JOIN cf_tab2 b USING (id);
-- text round trip through COPY
\copy cf_tab TO 'results/cuckoo_basic.txt'
TRUNCATE cf_tab2;
\copy cf_tab2 FROM 'results/cuckoo_basic.txt'
SELECT count(*) AS rows, bool_and(a.f::text = b.f::text) AS identical
  FROM cf_tab a JOIN cf_tab2 b USING (id);

-- a stored filter used as the probe side, per row
SELECT count(*) FILTER (WHERE t.f @> (t.id * 1000 + i)) AS hits
  FROM cf_tab t, generate_series(1, 300) i;

DROP TABLE cf_tab, cf_tab2;

-- the SQLSTATE of each kind of error
CREATE FUNCTION cf_sqlstate(query text) RETURNS text
LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE query;
	RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
	RETURN SQLSTATE;
END $$;
SELECT q, cf_sqlstate(q) FROM (VALUES
	('SELECT cf_create(0)'),
	('SELECT cf_create(10, 0.9)'),
	('SELECT cf_create(5000000000)'),
	('SELECT cf_union(cf_create(10), cf_create(10, 0.0001))'),
	('SELECT cf_fill(cf_create(4, expansion => 0), 100)'),
	('SELECT cf_fill(cf_create(1, 1e-8, expansion => 1), 1000)'),
	('SELECT ''AAA''::cuckoofilter'),
	('SELECT ''AAAA''::cuckoofilter'),
	('SELECT cf_hash(''=r/postgres''::aclitem)')) s(q);
DROP FUNCTION cf_sqlstate(text);
DROP FUNCTION cf_fill(cuckoofilter, integer);
DROP FUNCTION cf_shape(cuckoofilter);
