-- cuckoo_unions: cf_union_agg's state (1.3, issue 34) and unions of lists
-- (issue 33).  Lists (a growing filter's start: the exact hashes of its
-- values) unite into one filter of their distinct values; deletes from it
-- are exact.
SET client_min_messages = notice;

-- two lists of one family but for their capacities: one list, deletes exact
WITH a AS (SELECT cf_union(cf_add_all(cf_create(5000), ARRAY[1,2,3]),
                           cf_add_all(cf_create(3000), ARRAY[2,3])) f)
SELECT cf_count(cf_delete(cf_delete(f, 2), 2), 2) AS after_two_deletes,
       (cf_delete_status(f, 2)).removed, cf_items(f), cf_count(f, 2),
       (cf_info(f)).subfilters, (cf_info(f)).capacity FROM a;
-- the same in the other order
WITH a AS (SELECT cf_union(cf_add_all(cf_create(3000), ARRAY[2,3]),
                           cf_add_all(cf_create(5000), ARRAY[1,2,3])) f)
SELECT cf_count(cf_delete(cf_delete(f, 2), 2), 2) AS after_two_deletes,
       (cf_delete_status(f, 2)).removed, cf_items(f), (cf_info(f)).capacity FROM a;
-- beyond the list's bound: one table of the larger capacity's family
WITH a AS (SELECT cf_union(cf_add_all(cf_create(5000), array(SELECT generate_series(1, 200)::int8)),
                           cf_add_all(cf_create(3000), array(SELECT generate_series(101, 300)::int8))) f)
SELECT (cf_info(f)).subfilters, cf_items(f), cf_count(f, 150),
       cf_count(cf_delete(cf_delete(f, 150), 150), 150) AS after_two_deletes,
       (cf_info(cf_delete(f, 150))).retained,
       (SELECT bool_and(cf_contains(f, g)) FROM generate_series(1, 300) g) AS no_false_negative
  FROM a;
-- different rates still refuse
SELECT cf_union(cf_add(cf_create(5000), 1), cf_add(cf_create(3000, 0.001), 2));

-- cf_union_agg: per-user lists (cf_add_all(NULL, ...): capacity 1000)
CREATE TABLE un_items AS
SELECT u, (u * 7919 + g * 104729) % 1000003 AS v
  FROM generate_series(1, 400) u, generate_series(1, 40 + u % 121) g;
CREATE TABLE un_users AS
SELECT u, cf_add_all(NULL::cuckoofilter, array_agg(v ORDER BY v)) AS f FROM un_items GROUP BY u;
SELECT count(*) AS users, bool_and((cf_info(f)).subfilters = 1 AND (cf_info(f)).buckets <= 256) AS all_lists
  FROM un_users;
-- the union is cf_agg's filter of the same values, byte for byte
SELECT cf_union_agg(f ORDER BY u)::bytea = (SELECT cf_agg(v)::bytea FROM un_items) AS same_as_cf_agg,
       cf_union_agg(f ORDER BY u)::bytea = cf_union_agg(f ORDER BY u DESC)::bytea AS order_free
  FROM un_users;
WITH a AS (SELECT cf_union_agg(f) f FROM un_users)
SELECT (cf_info(f)).subfilters, cf_items(f) = (SELECT count(DISTINCT v) FROM un_items) AS items_distinct,
       (cf_info(f)).fpr < 0.02 AS fpr_within_2x,
       (SELECT count(*) FROM un_items WHERE NOT cf_contains(a.f, v)) AS false_negatives,
       cf_count(cf_delete(f, (SELECT min(v) FROM un_items)), (SELECT min(v) FROM un_items)) AS after_delete,
       (cf_delete_status(f, (SELECT min(v) FROM un_items))).removed
  FROM a;

-- small unions stay one list (of the largest capacity): deletes exact
WITH a AS (SELECT cf_union_agg(f) f FROM (VALUES (cf_add_all(cf_create(100), ARRAY[1,2,3])),
                                                 (cf_add_all(cf_create(300), ARRAY[3,4])),
                                                 (NULL), (cf_add(cf_create(200), 5))) v(f))
SELECT cf_items(f), (cf_info(f)).capacity, (cf_info(f)).buckets <= 256 AS list, cf_count(f, 3),
       cf_count(cf_delete(f, 3), 3) AS after_delete, (cf_delete_status(f, 3)).removed FROM a;
-- lists of other growth settings (expansion, max_kicks) join too: the
-- union takes the largest, whatever the order
SELECT (cf_info(f)).expansion, (cf_info(f)).max_kicks, cf_items(f)
  FROM (SELECT cf_union_agg(f ORDER BY k) f
          FROM (VALUES (1, cf_add(cf_create(100, 0.01, 4, 500, 4), 1)),
                       (2, cf_add(cf_create(100, 0.01, 4, 100, 2), 2)),
                       (3, cf_add(cf_create(100), 3))) v(k, f)) s;
SELECT (cf_info(f)).expansion, (cf_info(f)).max_kicks, cf_items(f)
  FROM (SELECT cf_union_agg(f ORDER BY k DESC) f
          FROM (VALUES (1, cf_add(cf_create(100, 0.01, 4, 500, 4), 1)),
                       (2, cf_add(cf_create(100, 0.01, 4, 100, 2), 2)),
                       (3, cf_add(cf_create(100), 3))) v(k, f)) s;
-- a part holding copies of a value keeps them (it is united as before)
SELECT cf_count(cf_union_agg(f), 7) FROM (VALUES (cf_add(cf_add(NULL, 7), 7)), (cf_add(NULL, 7))) v(f);
-- kind and delete counters of the parts are kept
SELECT (cf_info(f)).value_kind, (cf_info(f)).deletes
  FROM (SELECT cf_union_agg(f) f FROM (VALUES (cf_delete(cf_add_all(NULL::cuckoofilter, ARRAY[1,2]), 1)),
                                             (cf_add(NULL, 3))) v(f)) s;
-- nothing, or only NULLs: NULL
SELECT cf_union_agg(f) IS NULL FROM un_users WHERE false;
SELECT cf_union_agg(NULL::cuckoofilter) IS NULL FROM generate_series(1, 3);
-- incompatible parts still refuse, lists or not
SELECT cf_union_agg(f) FROM (VALUES (cf_add(cf_create(100), 1)), (cf_add(cf_create(100, 0.001), 2))) v(f);
SELECT cf_union_agg(f) FROM (VALUES (cf_add(cf_create(100), 1)), (cf_add(cf_create(100), 'a'::text))) v(f);

-- lists of semisorted tables (issue 35): the union keeps their encoding, and
-- lists of two encodings are two families (two parts side by side)
WITH p AS (SELECT cf_add_all(cf_create(1000, 0.01, 'semisorted'), ARRAY[g, g + 1000]) f
           FROM generate_series(1, 3) g)
SELECT cf_encoding(cf_union_agg(f)), cf_count(cf_union_agg(f), 1002) AS count_1002 FROM p;
SELECT cf_encoding(cf_union_agg(f)), (cf_info(cf_union_agg(f))).subfilters
FROM (VALUES (cf_add(cf_create(1000, 0.01, 'semisorted'), 1)), (cf_add(cf_create(1000, 0.01), 2))) v(f);

-- tables among the parts (cf_agg's, each sized to its user: tables of
-- different sizes stand side by side): no false negatives, and the NOTICE
-- says what works, with the rule in numbers
CREATE TABLE un_tables AS
SELECT u, cf_agg(v) AS f FROM un_items WHERE u <= 12 GROUP BY u;
WITH a AS (SELECT cf_union_agg(f) f FROM (SELECT f FROM un_tables UNION ALL SELECT f FROM un_users) s)
SELECT (cf_info(f)).subfilters,
       (SELECT count(*) FROM un_items WHERE NOT cf_contains(a.f, v)) AS false_negatives FROM a;
-- more than 32 tables side by side: the error says what works
SELECT cf_union_agg(f) FROM (SELECT cf_agg(v) f FROM un_items WHERE u <= 40 GROUP BY u) s;

-- in parallel: the same filter
CREATE TABLE un_many AS SELECT u, f FROM un_users, generate_series(1, 4) r;
ALTER TABLE un_many SET (parallel_workers = 2);
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF) SELECT cf_union_agg(f) FROM un_many;
SELECT cf_union_agg(f)::bytea = (SELECT cf_agg(v)::bytea FROM un_items) AS parallel_same FROM un_many;
WITH a AS (SELECT cf_union_agg(f) f FROM (SELECT f FROM un_tables UNION ALL SELECT f FROM un_many) s)
SELECT (SELECT count(*) FROM un_items WHERE NOT cf_contains(a.f, v)) AS false_negatives FROM a;
RESET max_parallel_workers_per_gather;
DROP TABLE un_items, un_users, un_tables, un_many;
