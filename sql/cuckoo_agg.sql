-- cuckoo_agg.sql - the aggregates: cf_agg (sized by the data, duplicates
-- stored once, parallel = serial byte for byte) and cf_union_agg.

-- empty input, only NULLs, NULLs skipped
SELECT cf_agg(x) IS NULL AS empty FROM generate_series(1, 0) x;
SELECT cf_agg(x) IS NULL AS only_nulls FROM (SELECT NULL::int AS x FROM generate_series(1, 5)) s;
SELECT (cf_info(cf_agg(x))).items AS items_without_nulls
FROM (SELECT CASE WHEN g % 2 = 0 THEN g END AS x FROM generate_series(1, 10) g) s;
SELECT cf_agg(x, 0.01) IS NULL AS empty_fpr FROM generate_series(1, 0) x;

-- a value repeated 10,000 times is stored once
SELECT cf_count(f, 42) AS copies, (cf_info(f)).items, (cf_info(f)).capacity
FROM (SELECT cf_agg(42) AS f FROM generate_series(1, 10000)) s;

-- heavy duplication: capacity and items are the number of distinct values
SELECT (cf_info(f)).capacity, (cf_info(f)).items, (cf_info(f)).subfilters
FROM (SELECT cf_agg(g % 1000) AS f FROM generate_series(1, 100000) g) s;

-- sizing: one sub-filter of capacity n + n/16, so its load is 94% of the
-- design load (a faster build, and room for n/16 more cf_adds); 0.01 by default
SELECT capacity, items, buckets, bucket_size, fingerprint_bits, subfilters,
	   load_factor BETWEEN 0.89 AND 0.9 AS loaded
FROM cf_info((SELECT cf_agg(g) FROM generate_series(1, 100000) g));

-- a few values, and equal values of different integer types agree
SELECT f @> 1 AS has_1, f @> 2::int2 AS has_2, f @> 3::int8 AS has_3, f @> 4 AS has_4
FROM (SELECT cf_agg(x) AS f FROM (VALUES (1), (2), (3), (2), (1)) v(x)) s;

-- every supported input type: all values found, items = distinct count
CREATE TEMP TABLE agg_types AS
SELECT g::int2 AS i2, g::int4 AS i4, g::int8 AS i8, (g / 3.0)::numeric(20, 6) AS num,
	   (g * 0.5)::float4 AS f4, (g * 0.25)::float8 AS f8, 'text ' || g AS t,
	   ('vc' || g)::varchar(20) AS vc, decode(md5(g::text), 'hex') AS ba,
	   md5(g::text)::uuid AS u, date '2024-01-01' + g AS d,
	   timestamptz '2024-01-01 00:00:00+00' + g * interval '1 minute' AS ts
FROM generate_series(1, 2000) g;
INSERT INTO agg_types SELECT * FROM agg_types WHERE i4 <= 500;	-- duplicates

CREATE TEMP TABLE agg_type_filters AS
SELECT cf_agg(i2) AS i2, cf_agg(i4) AS i4, cf_agg(i8) AS i8, cf_agg(num) AS num,
	   cf_agg(f4) AS f4, cf_agg(f8) AS f8, cf_agg(t) AS t, cf_agg(vc) AS vc,
	   cf_agg(ba) AS ba, cf_agg(u) AS u, cf_agg(d) AS d, cf_agg(ts) AS ts
FROM agg_types;

SELECT count(*) FILTER (WHERE NOT cf_contains(f.i2, a.i2)) AS int2_misses,
	   count(*) FILTER (WHERE NOT cf_contains(f.i4, a.i4)) AS int4_misses,
	   count(*) FILTER (WHERE NOT cf_contains(f.i8, a.i8)) AS int8_misses,
	   count(*) FILTER (WHERE NOT cf_contains(f.num, a.num)) AS numeric_misses,
	   count(*) FILTER (WHERE NOT cf_contains(f.f4, a.f4)) AS float4_misses,
	   count(*) FILTER (WHERE NOT cf_contains(f.f8, a.f8)) AS float8_misses,
	   count(*) FILTER (WHERE NOT cf_contains(f.t, a.t)) AS text_misses,
	   count(*) FILTER (WHERE NOT cf_contains(f.vc, a.vc)) AS varchar_misses,
	   count(*) FILTER (WHERE NOT cf_contains(f.ba, a.ba)) AS bytea_misses,
	   count(*) FILTER (WHERE NOT cf_contains(f.u, a.u)) AS uuid_misses,
	   count(*) FILTER (WHERE NOT cf_contains(f.d, a.d)) AS date_misses,
	   count(*) FILTER (WHERE NOT cf_contains(f.ts, a.ts)) AS timestamptz_misses
FROM agg_types a, agg_type_filters f;

SELECT (cf_info(i2)).items AS int2, (cf_info(i4)).items AS int4, (cf_info(i8)).items AS int8,
	   (cf_info(num)).items AS numeric, (cf_info(f4)).items AS float4,
	   (cf_info(f8)).items AS float8, (cf_info(t)).items AS text,
	   (cf_info(vc)).items AS varchar, (cf_info(ba)).items AS bytea,
	   (cf_info(u)).items AS uuid, (cf_info(d)).items AS date,
	   (cf_info(ts)).items AS timestamptz
FROM agg_type_filters;

-- int2, int4 and int8 columns of the same values give the same filter
SELECT i2::text = i4::text AS int2_eq_int4, i4::text = i8::text AS int4_eq_int8
FROM agg_type_filters;

-- the fpr argument
SELECT fingerprint_bits, capacity, items, fpr <= 0.001 AS fpr_ok
FROM cf_info((SELECT cf_agg(g, 0.001) FROM generate_series(1, 10000) g));
SELECT fingerprint_bits FROM cf_info((SELECT cf_agg(g, 0.2) FROM generate_series(1, 100) g));
SELECT cf_agg(g, 0) FROM generate_series(1, 10) g;
SELECT cf_agg(g, 0.5) FROM generate_series(1, 10) g;
SELECT cf_agg(g, -0.1) FROM generate_series(1, 10) g;
SELECT cf_agg(g, 'NaN') FROM generate_series(1, 10) g;
SELECT cf_agg(g, 1e-12) FROM generate_series(1, 10) g;
SELECT cf_agg(g, NULL) FROM generate_series(1, 10) g;
SELECT cf_agg(g, CASE WHEN g < 5 THEN 0.01 ELSE 0.02 END) FROM generate_series(1, 10) g;
-- the fpr is checked even when every value is NULL
SELECT cf_agg(NULL::int, 0.7) FROM generate_series(1, 3);

-- GROUP BY with 10,000 small groups: every value is in its group's filter
CREATE TEMP TABLE agg_groups AS
SELECT g % 10000 AS grp, g AS v FROM generate_series(1, 30000) g;
CREATE TEMP TABLE agg_group_filters AS
SELECT grp, cf_agg(v) AS f FROM agg_groups GROUP BY grp;
SELECT count(*) AS groups, sum((cf_info(f)).items) AS items,
	   max((cf_info(f)).subfilters) AS max_subfilters
FROM agg_group_filters;
SELECT count(*) FILTER (WHERE NOT cf_contains(f.f, a.v)) AS misses
FROM agg_groups a JOIN agg_group_filters f USING (grp);
-- the same with a hash aggregate
SET enable_sort = off;
SET work_mem = '64MB';
EXPLAIN (COSTS OFF) SELECT grp, cf_agg(v) FROM agg_groups GROUP BY grp;
SELECT count(*) FILTER (WHERE h.f::text <> f.f::text) AS differ
FROM (SELECT grp, cf_agg(v) AS f FROM agg_groups GROUP BY grp) h
JOIN agg_group_filters f USING (grp);
RESET enable_sort;
RESET work_mem;

-- small filters of 5 to 40 values: a few do not fit at the first size and are
-- rebuilt once, slightly larger; all stay one sub-filter and lose nothing
CREATE TEMP TABLE agg_small AS
SELECT k, k * 100 + i AS v FROM generate_series(1, 3000) k, generate_series(1, 5 + k % 36) i;
CREATE TEMP TABLE agg_small_filters AS
SELECT k, cf_agg(v) AS f, count(*) AS n FROM agg_small GROUP BY k;
SELECT count(*) AS groups,
	   count(*) FILTER (WHERE (cf_info(f)).capacity = n + n / 16) > 2500 AS most_at_first_size,
	   count(*) FILTER (WHERE (cf_info(f)).capacity <> n + n / 16) > 0 AS some_rebuilt,
	   bool_and((cf_info(f)).capacity <= n + n / 16 + n / 25 + 8) AS rebuilt_slightly_larger,
	   max((cf_info(f)).subfilters) AS max_subfilters,
	   sum((cf_info(f)).items) = sum(n) AS all_items
FROM agg_small_filters;
SELECT count(*) FILTER (WHERE NOT cf_contains(f.f, a.v)) AS misses
FROM agg_small a JOIN agg_small_filters f USING (k);

-- as a window function: a running filter
SELECT v, (cf_info(cf_agg(v) OVER (ORDER BY v))).items
FROM (VALUES (1), (2), (2), (3)) t(v);

-- deleting a value after aggregation removes exactly that value
CREATE TEMP TABLE agg_del AS
SELECT cf_delete(cf_agg(g % 5000), 1234) AS f FROM generate_series(1, 50000) g;
SELECT cf_contains(f, 1234) AS deleted_found, (cf_info(f)).items,
	   (SELECT count(*) FROM generate_series(0, 4999) v
		WHERE v <> 1234 AND NOT cf_contains(f, v)) AS others_missing
FROM agg_del;

-- parallel plans: workers build partial states, the leader combines them,
-- and the filter is byte-identical to the serial one
CREATE TABLE agg_par AS
SELECT g % 50000 AS grp, (g::int8 * 7919) % 300007 AS v, md5(g::text) AS t
FROM generate_series(1, 300000) g;
ANALYZE agg_par;
CREATE TEMP TABLE agg_serial AS
SELECT cf_agg(v) AS f, cf_agg(t, 0.001) AS ft, cf_agg(v % 150000) AS fd FROM agg_par;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET parallel_leader_participation = off;
EXPLAIN (COSTS OFF) SELECT cf_agg(v), cf_agg(t, 0.001) FROM agg_par;
-- (fd: each value twice, so the workers' arrays overlap and the leader's
-- combine drops the repeats)
SELECT p.f::text = s.f::text AS same_int, p.ft::text = s.ft::text AS same_text,
	   p.fd::text = s.fd::text AS same_overlapping, (cf_info(p.f)).items AS items,
	   (cf_info(p.fd)).items AS items_overlapping
FROM (SELECT cf_agg(v) AS f, cf_agg(t, 0.001) AS ft, cf_agg(v % 150000) AS fd FROM agg_par) p,
	 agg_serial s;
SET parallel_leader_participation = on;
SELECT p.f::text = s.f::text AS same_with_leader
FROM (SELECT cf_agg(v) AS f FROM agg_par) p, agg_serial s;
-- grouped, in parallel
EXPLAIN (COSTS OFF) SELECT grp % 100 AS g, cf_agg(v) FROM agg_par GROUP BY 1;
CREATE TEMP TABLE agg_par_groups AS
SELECT grp % 100 AS g, cf_agg(v) AS f FROM agg_par GROUP BY 1;
-- many tiny groups (6 values each, split between workers): the combine
-- merges states that still hold their hashes inline
CREATE TEMP TABLE agg_par_tiny AS
SELECT grp, cf_agg(v) AS f FROM agg_par GROUP BY grp;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
RESET parallel_leader_participation;
SELECT count(*) AS groups,
	   count(*) FILTER (WHERE p.f::text <> s.f::text) AS differ_from_serial
FROM agg_par_groups p
JOIN (SELECT grp % 100 AS g, cf_agg(v) AS f FROM agg_par GROUP BY 1) s USING (g);
SELECT count(*) AS groups,
	   count(*) FILTER (WHERE p.f::text <> s.f::text) AS differ_from_serial
FROM agg_par_tiny p
JOIN (SELECT grp, cf_agg(v) AS f FROM agg_par GROUP BY grp) s USING (grp);

-- partitionwise aggregation: partial states per partition, combined by the
-- finalize step, give the same filters as one plain aggregate
CREATE TABLE agg_pt (k int, v int) PARTITION BY LIST (k);
CREATE TABLE agg_pt0 PARTITION OF agg_pt FOR VALUES IN (0);
CREATE TABLE agg_pt1 PARTITION OF agg_pt FOR VALUES IN (1);
INSERT INTO agg_pt SELECT g % 2, g % 300 FROM generate_series(1, 20000) g;
ANALYZE agg_pt;
SET enable_partitionwise_aggregate = on;
EXPLAIN (COSTS OFF) SELECT v % 7, cf_agg(v) FROM agg_pt GROUP BY 1;
SELECT count(*) AS groups, count(*) FILTER (WHERE a.f::text <> b.f::text) AS differ
FROM (SELECT v % 7 AS g, cf_agg(v) AS f FROM agg_pt GROUP BY 1) a
JOIN (SELECT v % 7 AS g, cf_agg(v) AS f FROM (SELECT * FROM agg_pt OFFSET 0) s GROUP BY 1) b USING (g);
RESET enable_partitionwise_aggregate;
DROP TABLE agg_pt;

-- cf_union_agg: the union of per-group filters answers for every value
CREATE TEMP TABLE agg_parts AS
SELECT g % 10 AS part, cf_agg(g) AS f FROM generate_series(1, 20000) g GROUP BY 1;
CREATE TEMP TABLE agg_union AS SELECT cf_union_agg(f) AS f FROM agg_parts;
SELECT (cf_info(f)).items,
	   (SELECT count(*) FROM generate_series(1, 20000) v WHERE NOT cf_contains(f, v)) AS misses
FROM agg_union;
-- the parts cannot fold into one table (their tables are full), so the
-- union stacks them as sub-filters whose false-positive rates add up;
-- building each part at fpr / parts keeps the union within the target
SELECT (cf_info(f)).subfilters, (cf_info(f)).fpr > 0.01 AS naive_fpr_above_target
FROM agg_union;
SELECT (cf_info(u)).subfilters, (cf_info(u)).fpr <= 0.01 AS fpr_within_target,
	   (SELECT count(*) FROM generate_series(1, 20000) v WHERE NOT cf_contains(u, v)) AS misses
FROM (SELECT cf_union_agg(f) AS u
	  FROM (SELECT cf_agg(g, 0.01 / 10) AS f FROM generate_series(1, 20000) g GROUP BY g % 10) p) s;
-- NULL filters are skipped; no filters gives NULL; one filter is itself
SELECT cf_union_agg(f) IS NULL AS empty FROM agg_parts WHERE false;
SELECT cf_union_agg(NULL::cuckoofilter) IS NULL AS only_nulls;
SELECT cf_union_agg(f)::text = (SELECT f::text FROM agg_parts WHERE part = 3) AS single
FROM (SELECT f FROM agg_parts WHERE part = 3 UNION ALL SELECT NULL) s;
-- incompatible filters
SELECT cf_union_agg(f)
FROM (VALUES (cf_create(100, 0.01)), (cf_create(100, 0.0001))) v(f);
-- in parallel
CREATE TABLE agg_union_src AS
SELECT g % 8 AS part, cf_add(NULL, g) AS f FROM generate_series(1, 16) g;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF) SELECT cf_union_agg(f) FROM agg_union_src;
SELECT (cf_info(u)).items,
	   (SELECT count(*) FROM generate_series(1, 16) v WHERE NOT cf_contains(u, v)) AS misses
FROM (SELECT cf_union_agg(f) AS u FROM agg_union_src) s;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;

-- the state's three forms (hashes inline, a hash set, an array of parts) give
-- the same filter: cuckoo.agg_probe_limit = 0 sends every value through the
-- array.  600k rows: 200k distinct values three times (the set
-- overflows into the array, which then drops duplicates), all distinct
-- (the array grows without sorting), and 1,000 distinct (a set)
CREATE TEMP TABLE agg_forms AS
SELECT cf_agg(g % 200000) AS dup, cf_agg(g) AS uniq, cf_agg(g % 1000) AS small
FROM generate_series(1, 600000) g;
SELECT (cf_info(dup)).items AS dup_items, (cf_info(uniq)).items AS uniq_items,
	   (cf_info(small)).items AS small_items
FROM agg_forms;
SELECT count(*) FILTER (WHERE NOT cf_contains(dup, g % 200000) OR NOT cf_contains(uniq, g)
						OR NOT cf_contains(small, g % 1000)) AS misses
FROM agg_forms, generate_series(1, 600000) g;
SET cuckoo.agg_probe_limit = 0;
SELECT f.dup::text = a.dup::text AS same_dup, f.uniq::text = a.uniq::text AS same_uniq,
	   f.small::text = a.small::text AS same_small
FROM agg_forms f,
	 (SELECT cf_agg(g % 200000) AS dup, cf_agg(g) AS uniq, cf_agg(g % 1000) AS small
	  FROM generate_series(1, 600000) g) a;
-- as a window aggregate the array is sorted for each row's filter, then
-- takes more rows: every filter holds the distinct values so far
SELECT count(*) AS rows_checked,
	   count(*) FILTER (WHERE (cf_info(f)).items <> least(g, 1000) OR NOT cf_contains(f, g % 1000)) AS wrong
FROM (SELECT g, cf_agg(g % 1000) OVER (ORDER BY g) AS f
	  FROM generate_series(1, 3000) g) w;
RESET cuckoo.agg_probe_limit;
-- nor does the order of the rows
SELECT f.dup::text = a.dup::text AS same_reversed
FROM agg_forms f,
	 (SELECT cf_agg(g % 200000 ORDER BY g DESC) AS dup FROM generate_series(1, 600000) g) a;
SET cuckoo.agg_probe_limit = 2000;
SET cuckoo.agg_probe_limit = -1;

-- larger: 1M rows of 100k distinct values; no value missed, and the
-- measured false-positive rate on 1M absent values is within the target
CREATE TEMP TABLE agg_big AS
SELECT cf_agg(g % 100000) AS f FROM generate_series(1, 1000000) g;
SELECT (cf_info(f)).capacity, (cf_info(f)).items, (cf_info(f)).subfilters,
	   (cf_info(f)).load_factor >= 0.8 * 0.94 AS load_ok
FROM agg_big;
SELECT count(*) FILTER (WHERE NOT cf_contains(f, g % 100000)) AS misses
FROM agg_big, generate_series(1, 1000000) g;
SELECT count(*) FILTER (WHERE cf_contains(f, g)) <= 0.01 * 1000000 AS fpr_within_target
FROM agg_big, generate_series(100000, 1099999) g;

DROP TABLE agg_par;
DROP TABLE agg_union_src;

-- issue 32: partitionwise aggregation, without parallel workers: the
-- partial states of each partition are serialized, then the finalize step
-- combines them.  cf_union_agg of single-value filters: the combine adds
-- each part's hashes into the group's state (cfpg_agg_add_state); every group
-- is the filter one plain aggregate builds and misses no value
CREATE TABLE agg_upt (k int, grp int, f cuckoofilter) PARTITION BY LIST (k);
CREATE TABLE agg_upt_0 PARTITION OF agg_upt FOR VALUES IN (0);
CREATE TABLE agg_upt_1 PARTITION OF agg_upt FOR VALUES IN (1);
INSERT INTO agg_upt SELECT g % 2, g % 999, cf_add(NULL, g) FROM generate_series(1, 10000) g;
ANALYZE agg_upt;
SET enable_partitionwise_aggregate = on;
EXPLAIN (COSTS OFF) SELECT grp, cf_union_agg(f) FROM agg_upt GROUP BY 1;
SELECT count(*) AS groups, sum((cf_info(a.u)).items) AS items,
	   count(*) FILTER (WHERE a.u::text <> b.u::text) AS differ_from_plain
FROM (SELECT grp, cf_union_agg(f) AS u FROM agg_upt GROUP BY 1) a
JOIN (SELECT grp, cf_union_agg(f) AS u FROM (SELECT * FROM agg_upt OFFSET 0) s GROUP BY 1) b USING (grp);
SELECT count(*) AS misses
FROM (SELECT grp, cf_union_agg(f) AS u FROM agg_upt GROUP BY 1) a
JOIN generate_series(1, 10000) v ON v % 999 = a.grp
WHERE NOT cf_contains(a.u, v);
-- cf_agg(anyelement) (int4range has no typed overload) combined the same way
CREATE TABLE agg_pt32 (k int, grp int, v int4range) PARTITION BY LIST (k);
CREATE TABLE agg_pt32_0 PARTITION OF agg_pt32 FOR VALUES IN (0);
CREATE TABLE agg_pt32_1 PARTITION OF agg_pt32 FOR VALUES IN (1);
INSERT INTO agg_pt32
SELECT g % 2, g % 3, int4range(g % 60, g % 60 + 1) FROM generate_series(1, 20000) g;
ANALYZE agg_pt32;
EXPLAIN (COSTS OFF) SELECT grp, cf_agg(v) FROM agg_pt32 GROUP BY 1;
SELECT a.grp, (cf_info(a.f)).items, a.f::text = b.f::text AS same_as_plain,
	   (SELECT count(*) FROM generate_series(0, 59) i
		WHERE i % 3 = a.grp AND NOT cf_contains(a.f, int4range(i, i + 1))) AS misses
FROM (SELECT grp, cf_agg(v) AS f FROM agg_pt32 GROUP BY 1) a
JOIN (SELECT grp, cf_agg(v) AS f FROM (SELECT * FROM agg_pt32 OFFSET 0) s GROUP BY 1) b USING (grp)
ORDER BY 1;
-- each partition gives its own capacity (k is constant in a partition): the
-- combine refuses the mix, for cf_agg(anyelement) and for the typed cf_agg
SELECT grp, cf_agg(v, 0.01, 100 + k) FROM agg_pt32 GROUP BY 1;
SELECT grp, cf_agg(lower(v), 0.01, 100 + k) FROM agg_pt32 GROUP BY 1;
RESET enable_partitionwise_aggregate;
-- rows of one plain aggregate that give different capacities: refused
SELECT cf_agg(v, 0.01, 100 + k) FROM (SELECT * FROM agg_pt32 OFFSET 0) s;
SELECT cf_agg(g, 0.01, CASE WHEN g < 3 THEN 100 ELSE 200 END) FROM generate_series(1, 5) g;
DROP TABLE agg_pt32;
DROP TABLE agg_upt;
