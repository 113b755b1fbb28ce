-- Semi-sorted buckets (table encoding 1, issue 26): asked for by name at
-- cf_create and in cf_agg; every operation reads and writes them; sizes,
-- errors, and the text and binary forms.

-- cf_create: the encoding by name; the older forms resolve as before
SELECT cf_encoding(cf_create(1000)) AS default_encoding,
       cf_encoding(cf_create(1000, 0.01, 'packed')) AS packed,
       cf_encoding(cf_create(1000, 0.01, 'semisorted')) AS semisorted,
       cf_encoding(cf_create(1000, 0.01, 4)) AS positional_int;
SELECT cf_create(1000, 0.01, 'packed') = cf_create(1000, 0.01) AS packed_is_default;
-- sizes: 36 bits a bucket of 10-bit fingerprints instead of 40
SELECT pg_column_size(cf_create(1000000, 0.01, expansion => 0)) AS packed_bytes,
       pg_column_size(cf_create(1000000, 0.01, 'semisorted', expansion => 0)) AS semisorted_bytes;
SELECT pg_column_size(cf_create(1000000, 0.001, expansion => 0)) AS packed_bytes,
       pg_column_size(cf_create(1000000, 0.001, 'semisorted', expansion => 0)) AS semisorted_bytes;
SELECT cf_describe(cf_create(1000, 0.01, 'semisorted'));
SELECT cf_create(1000, 0.01, 'semisorted', expansion => 0, max_kicks => 100) IS NOT NULL AS named_args;

-- errors
SELECT cf_create(1000, 0.01, 'sorted');
SELECT cf_create(1000, 0.01, 'semisorted', 2);
SELECT cf_create(1000, 0.01, 'semisorted', 8);
SELECT cf_create(1000, 0.01, NULL::text);

-- every operation on a semi-sorted filter: adds, probes, counts, deletes
CREATE TABLE ss (f cuckoofilter, p cuckoofilter);
INSERT INTO ss VALUES (cf_create(2000, 0.01, 'semisorted'), cf_create(2000, 0.01));
DO $$
DECLARE
	a cuckoofilter := cf_create(2000, 0.01, 'semisorted');
	b cuckoofilter := cf_create(2000, 0.01);
BEGIN
	FOR i IN 1..1500 LOOP
		a := cf_add(a, i);
		b := cf_add(b, i);
	END LOOP;
	FOR i IN 1..500 LOOP
		a := cf_add_unique(a, i);
	END LOOP;
	FOR i IN 1..300 LOOP
		a := cf_delete(a, i);
		b := cf_delete(b, i);
	END LOOP;
	UPDATE ss SET f = a, p = b;
END $$;
SELECT cf_encoding(f), (cf_info(f)).items,
       (SELECT count(*) FROM generate_series(301, 1500) g WHERE NOT cf_contains(f, g)) AS false_negatives,
       (SELECT count(*) FROM generate_series(1, 300) g WHERE cf_contains(f, g)) <= 10 AS deleted_mostly_gone,
       cf_count(f, 1000) AS count_1000,
       cf_contains_each(f, ARRAY[301, 1500, 2000000]) AS each
FROM ss;
-- the same answers as a bit-packed filter of the same adds and deletes
SELECT count(*) AS disagreements
FROM ss, generate_series(1, 100000) g
WHERE cf_contains(f, g) <> cf_contains(p, g);
-- text and binary forms round-trip and validate
SELECT f::text::cuckoofilter = f AS text_roundtrip,
       f::bytea::cuckoofilter = f AS binary_roundtrip
FROM ss;
-- hostile bytes: a multiset index of 4095 in bucket 0 (the table starts at
-- byte 56), a bucket out of order, an item count one off
SELECT set_byte(set_byte(cf_create(10, 0.01, 'semisorted', 4, 500, 0)::bytea, 56, 255), 57, 15)::cuckoofilter;
SELECT encode(set_byte(set_byte(cf_create(10, 0.01, 'semisorted', 4, 500, 0)::bytea, 56, 255), 57, 15), 'base64')::cuckoofilter;
SELECT set_byte(set_byte(set_byte(cf_create(10, 0.01, 'semisorted', 4, 500, 0)::bytea, 44, 2), 57, 32), 58, 4)::cuckoofilter;
SELECT set_byte(cf_add(cf_create(10, 0.01, 'semisorted', 4, 500, 0), 1)::bytea, 44, 2)::cuckoofilter;
SELECT set_byte(cf_create(10, 0.01, 'semisorted')::bytea, 3, 8)::cuckoofilter;
-- growth keeps the encoding
SELECT cf_encoding(f) AS grown_encoding, (cf_info(f)).capacity > 100 AS grew,
       (SELECT count(*) FROM generate_series(1, 3000) g WHERE NOT cf_contains(f, g)) AS false_negatives
FROM (SELECT cf_add_all(cf_create(100, 0.01, 'semisorted'), array_agg(g)) AS f FROM generate_series(1, 3000) g) x;

-- unions: the parts of one capacity fold into the first one's table (its
-- encoding); parts that do not fold keep their own tables
SELECT cf_encoding(a || b) AS semi_semi, cf_encoding(a || c) AS semi_packed,
       cf_encoding(c || a) AS packed_semi, cf_encoding(a || d) AS unfolded,
       cf_contains(a || c, 5) AND cf_contains(a || c, 50005) AND cf_contains(a || d, 90005) AS all_kept
FROM (SELECT cf_agg(g, 0.01, 1000, 'semisorted') AS a FROM generate_series(1, 500) g) x,
     (SELECT cf_agg(g, 0.01, 1000, 'semisorted') AS b FROM generate_series(501, 900) g) y,
     (SELECT cf_agg(g, 0.01, 1000) AS c FROM generate_series(50001, 50500) g) z,
     (SELECT cf_agg(g, 0.01, 5000) AS d FROM generate_series(90001, 90500) g) w;
SELECT cf_describe(a || d)
FROM (SELECT cf_agg(g, 0.01, 1000, 'semisorted') AS a FROM generate_series(1, 500) g) x,
     (SELECT cf_agg(g, 0.01, 5000) AS d FROM generate_series(90001, 90500) g) w;

-- cf_agg: capacity 0 sizes by the data; the set alone decides the bytes
SELECT cf_encoding(f), (cf_info(f)).items,
       (SELECT count(*) FROM generate_series(1, 100000) g WHERE NOT cf_contains(f, g)) AS false_negatives
FROM (SELECT cf_agg(g, 0.01, 0, 'semisorted') AS f FROM generate_series(1, 100000) g) x;
SELECT (SELECT cf_agg(g, 0.01, 0, 'semisorted') FROM generate_series(1, 20000) g) =
       (SELECT cf_agg(g, 0.01, 0, 'semisorted') FROM (SELECT g FROM generate_series(1, 20000) g ORDER BY g DESC) s)
       AS order_independent;
SELECT pg_column_size(cf_agg(g, 0.01, 0, 'semisorted')) < pg_column_size(cf_agg(g, 0.01)) AS smaller
FROM generate_series(1, 100000) g;
SELECT cf_agg(g, 0.01, 0, 'bogus') FROM generate_series(1, 3) g;
SELECT cf_agg(g, 0.01, -1, 'semisorted') FROM generate_series(1, 3) g;
SELECT cf_agg(g, 0.01, 0, CASE WHEN g < 2 THEN 'packed' ELSE 'semisorted' END) FROM generate_series(1, 3) g;
SELECT cf_agg(g, 0.01, 0, NULL) FROM generate_series(1, 3) g;

-- parallel cf_agg keeps the encoding through its serialized states
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
CREATE TABLE ss_par AS SELECT g FROM generate_series(1, 50000) g;
ANALYZE ss_par;
EXPLAIN (COSTS OFF) SELECT cf_agg(g, 0.01, 0, 'semisorted') FROM ss_par;
SELECT cf_encoding(f), (cf_info(f)).items,
       f = (SELECT cf_agg(g, 0.01, 0, 'semisorted') FROM generate_series(1, 50000) g) AS same_as_serial
FROM (SELECT cf_agg(g, 0.01, 0, 'semisorted') AS f FROM ss_par) x;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
DROP TABLE ss, ss_par;
