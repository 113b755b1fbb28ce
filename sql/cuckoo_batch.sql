-- cuckoo_batch: the array functions of 1.1 (cf_contains_each / _any / _all,
-- cf_add_all_unique, cf_delete_all): NULLs, empty and multi-dimensional
-- arrays, mixed integer types, agreement with the one-value functions, bad
-- input, and the update from 1.0.

CREATE TEMP TABLE b_f AS
SELECT cf_add_all(cf_create(100), ARRAY[1, 2, 3]::bigint[]) AS f;

-- cf_contains_each: one answer per element, the input's shape and bounds
SELECT cf_contains_each(f, ARRAY[1, 2, 4]) AS int4_elems,
       cf_contains_each(f, ARRAY[1, NULL, 4]) AS null_elem,
       cf_contains_each(f, '{{1,5},{3,NULL}}'::int8[]) AS two_dims,
       cf_contains_each(f, '[2:3]={1,9}'::int2[]) AS lower_bound_2,
       cf_contains_each(f, '{}'::int4[]) AS empty,
       cf_contains_each(f, ARRAY[NULL, NULL]::int4[]) AS all_null
  FROM b_f;
SELECT array_dims(cf_contains_each(f, '[0:1][5:7]={{1,2,3},{4,5,6}}'::int4[])) AS dims,
       cf_contains_each(f, '[0:1][5:7]={{1,2,3},{4,5,6}}'::int4[]) AS answers
  FROM b_f;
-- strict: a NULL filter or a NULL array gives NULL
SELECT cf_contains_each(NULL, ARRAY[1]) IS NULL AS null_filter,
       cf_contains_each(f, NULL::int[]) IS NULL AS null_array
  FROM b_f;

-- int2, int4 and int8 hash alike; so do text and varchar
SELECT cf_contains_each(cf_add_all(NULL, ARRAY[10, 20]::int2[]), ARRAY[10, 20, 30]::bigint[]) AS int8_in_int2,
       cf_contains_each(cf_add_all(NULL, ARRAY['a', 'b']), ARRAY['a', 'c']::varchar[]) AS varchar_in_text,
       cf_contains_each(cf_add_all(NULL, ARRAY[1.5]::float4[]), ARRAY[1.5, 2.5]::float8[]) AS float8_in_float4;

-- arrays of rows and of a domain's values
CREATE DOMAIN b_posint AS int CHECK (VALUE > 0);
SELECT cf_contains_each(cf_add(NULL, ROW(1, 'a'::text)), ARRAY[ROW(1, 'a'::text), ROW(2, 'b'::text)]) AS rows,
       cf_contains_each(cf_add_all(NULL, ARRAY[1, 2]::b_posint[]), ARRAY[2, 3]::bigint[]) AS domain_elems,
       cf_contains_each(cf_add_all(NULL, ARRAY[2, 3]::bigint[]), ARRAY[2, 5]::b_posint[]) AS domain_probe;
DROP DOMAIN b_posint;

-- cf_contains_any / cf_contains_all: the answers of @> ANY / @> ALL, NULLs
-- included (any: true if one is present, else NULL if one is NULL, else
-- false; all: false if one is absent, else NULL if one is NULL, else true)
SELECT a::text AS vals,
       cf_contains_any(f, a) AS "any", f @> ANY (a) AS "@> ANY",
       cf_contains_all(f, a) AS "all", f @> ALL (a) AS "@> ALL"
  FROM b_f,
       (VALUES ('{}'::int8[]), ('{1}'), ('{9}'), ('{1,2,3}'), ('{1,9}'), ('{9,8}'),
               ('{NULL}'), ('{1,NULL}'), ('{9,NULL}'), ('{NULL,1}'), ('{NULL,9}'),
               ('{1,NULL,9}'), ('{{1,2},{3,NULL}}')) v(a);
SELECT cf_contains_any(NULL, ARRAY[1]) IS NULL AS any_null_filter,
       cf_contains_all(NULL, ARRAY[1]) IS NULL AS all_null_filter,
       cf_contains_any(f, NULL::int[]) IS NULL AS any_null_array,
       cf_contains_all(f, NULL::int[]) IS NULL AS all_null_array
  FROM b_f;

-- no false negatives, and the same answers as one cf_contains per element
CREATE TEMP TABLE b_vals AS SELECT array_agg(g * 7919) AS a FROM generate_series(1, 5000) g;
CREATE TEMP TABLE b_big AS
SELECT cf_add_all(cf_create(2000), (SELECT array_agg(g * 7919) FROM generate_series(1, 2500) g)) AS f;
SELECT (cf_info(f)).capacity > 2000 AS grown,
       cardinality(cf_contains_each(f, a[1:2500])) AS probed,
       true = ALL (cf_contains_each(f, a[1:2500])) AS all_added_found,
       cf_contains_all(f, a[1:2500]) AS contains_all,
       cf_contains_each(f, a) = ARRAY(SELECT cf_contains(f, x) FROM unnest(a) x) AS each_agrees,
       cf_contains_any(f, a[2501:5000]) = (f @> ANY (a[2501:5000])) AS any_agrees
  FROM b_big, b_vals;

-- a PL/pgSQL array variable (an expanded array) is read as it is
DO $$
DECLARE
	a int[] := ARRAY[1, 2];
	f cuckoofilter := cf_add_all(NULL, ARRAY[1, 5]);
BEGIN
	a := a || 3;
	a[5] := 5;		-- a[4] is NULL
	RAISE NOTICE 'each %, any %, all %', cf_contains_each(f, a), cf_contains_any(f, a), cf_contains_all(f, a);
	RAISE NOTICE 'unique adds %, deletes leave %', (cf_info(cf_add_all_unique(f, a))).items,
		(cf_info(cf_delete_all(f, a))).items;
	-- f as an expanded object (cf_add returns one), changed and unchanged
	f := cf_add(f, 7);
	f := cf_add_all_unique(f, ARRAY[1, 5, 7]);
	RAISE NOTICE 'expanded, nothing new: items %', (cf_info(f)).items;
	f := cf_add(f, 8);
	f := cf_delete_all(f, ARRAY[9]);
	f := cf_add(f, 9);
	f := cf_add_all_unique(f, ARRAY[1, 10]);
	f := cf_delete_all(f, ARRAY[5, 5]);
	RAISE NOTICE 'expanded, changed: items %, each %', (cf_info(f)).items,
		cf_contains_each(f, ARRAY[1, 5, 7, 8, 9, 10]);
END $$;

-- cf_add_all_unique: set semantics across the filter and within the array
SELECT cf_count(f, 1) AS copies_of_1, cf_count(f, 2) AS copies_of_2, (cf_info(f)).items AS items
  FROM (SELECT cf_add_all_unique(cf_add(cf_create(100), 1), ARRAY[1, 2, 2, NULL, 2, 1]) AS f) s;
SELECT (cf_info(cf_add_all_unique(NULL, ARRAY['a', 'b', 'a']))).items AS from_null,
       cf_add_all_unique(NULL, ARRAY['a', 'b', 'a']) @> 'b' AS from_null_found,
       cf_add_all_unique(NULL, NULL::int[]) IS NULL AS null_null,
       cf_count(cf_add_all_unique(cf_add(NULL, 5), NULL::int[]), 5) AS null_array,
       (cf_info(cf_add_all_unique(cf_create(10), '{}'::int[]))).items AS empty_array;
-- nothing new: the filter comes back as it was
SELECT cf_add_all_unique(f, ARRAY[3, 1, 2])::text = f::text AS unchanged FROM b_f;

-- byte for byte the filters of one cf_add_unique / cf_delete per element
CREATE FUNCTION b_fold(f cuckoofilter, a bigint[], op text) RETURNS cuckoofilter
LANGUAGE plpgsql AS $$
DECLARE x bigint;
BEGIN
	FOREACH x IN ARRAY a LOOP
		IF op = 'add_unique' THEN f := cf_add_unique(f, x); ELSE f := cf_delete(f, x); END IF;
	END LOOP;
	RETURN f;
END $$;
CREATE TEMP TABLE b_seq AS
SELECT array_agg((g * 37) % 1500) AS a FROM generate_series(1, 3000) g;
SELECT cf_add_all_unique(cf_create(200), a)::text = b_fold(cf_create(200), a, 'add_unique')::text AS unique_same_bytes,
       (cf_info(cf_add_all_unique(cf_create(200), a))).subfilters AS subfilters,
       (cf_info(cf_add_all_unique(cf_create(200), a))).items <= 1500 AS at_most_distinct,
       cf_contains_all(cf_add_all_unique(cf_create(200), a), a) AS all_found
  FROM b_seq;

-- cf_delete_all: one copy removed per element
SELECT cf_count(f, 1) AS copies_of_1, cf_count(f, 2) AS copies_of_2, cf_count(f, 3) AS copies_of_3,
       (cf_info(f)).items AS items
  FROM (SELECT cf_delete_all(cf_add_all(cf_create(100), ARRAY[1, 1, 1, 2, 3]), ARRAY[1, 1, 2, NULL, 4]) AS f) s;
SELECT cf_delete_all(NULL, ARRAY[1]) IS NULL AS null_filter,
       cf_delete_all(NULL, NULL::int[]) IS NULL AS null_null,
       cf_delete_all(f, NULL::int[])::text = f::text AS null_array_unchanged,
       cf_delete_all(f, '{}'::int[])::text = f::text AS empty_unchanged,
       cf_delete_all(f, ARRAY[7, 8, 9])::text = f::text AS absent_unchanged,
       (cf_info(cf_delete_all(f, '{{1,2},{3,4}}'::int[]))).items AS two_dims_left
  FROM b_f;
SELECT cf_delete_all(f, a[1:1000])::text = b_fold(f, a[1:1000], 'delete')::text AS delete_same_bytes,
       (cf_info(cf_delete_all(f, a[1:1000]))).items AS items_left,
       cf_contains_all(cf_delete_all(f, a[1:1000]), a[1001:2500]) AS rest_found
  FROM b_big, b_vals;
-- adding then deleting a batch gives the filter back, but for its count of
-- deletes (header bytes 24-31): a table gives back every other byte; b_f is
-- a list (a growing filter's start), which gives back its header and its
-- hashes (FORMAT.md, "List sub-filters") but keeps the slots it grew to
-- (4 -> 8), the freed ones zero
SELECT substring(cuckoofilter_send(g) FROM 33) = substring(cuckoofilter_send(f) FROM 33)
       AND substring(cuckoofilter_send(g) FOR 24) = substring(cuckoofilter_send(f) FOR 24) AS table_round_trip,
       (cf_info(g)).deletes AS deletes
  FROM (SELECT f, cf_delete_all(cf_add_all(f, ARRAY[50, 60, 50]), ARRAY[50, 60, 50]) AS g
          FROM (SELECT cf_add_all(cf_create(100, expansion => 0), ARRAY[1, 2, 3]::bigint[]) AS f) s) s;
SELECT substring(b FOR 24) = substring(a FOR 24) AND substring(b FROM 33 FOR 8) = substring(a FROM 33 FOR 8)
         AS list_header_back,
       get_byte(a, 40) AS slots_before, get_byte(b, 40) AS slots_after,
       substring(b FROM 45 FOR 11) = substring(a FROM 45 FOR 11) AS list_descriptor_back,
       substring(b FROM 57 FOR 24) = substring(a FROM 57 FOR 24) AS list_hashes_back,
       substring(b FROM 81) = '\x00000000000000000000000000000000000000000000000000000000000000000000000000000000'::bytea
         AS list_free_slots_zero
  FROM (SELECT cuckoofilter_send(f) AS a,
               cuckoofilter_send(cf_delete_all(cf_add_all(f, ARRAY[50, 60, 50]), ARRAY[50, 60, 50])) AS b
          FROM b_f) s;

-- bad input: clear errors
SELECT cf_contains_each(cf_create(10), ARRAY['postgres=r/postgres'::aclitem]);
SELECT cf_contains_any(cf_create(10), '{}'::aclitem[]);
SELECT cf_add_all_unique(NULL, ARRAY['postgres=r/postgres'::aclitem]);
SELECT cf_delete_all(cf_create(10), ARRAY['postgres=r/postgres'::aclitem]);
-- an untyped array literal has no element type to hash by
SELECT cf_contains_each(cf_create(10), '{1,2}');
-- a fixed-size filter that fills: the error of cf_add_all
SELECT cf_add_all_unique(cf_create(4, expansion => 0), (SELECT array_agg(g) FROM generate_series(1, 100) g));
-- a nondeterministic collation is refused, as for one value
CREATE COLLATION b_ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
SELECT cf_contains_each(cf_add(NULL, 'abc'), ARRAY['ABC' COLLATE b_ci]);
SELECT cf_contains_all(cf_add(NULL, 'abc'), ARRAY['abc'] COLLATE b_ci);
DROP COLLATION b_ci;
-- rows of per-row filters, one probe batch each
CREATE TEMP TABLE b_rows AS
SELECT u AS user_id, cf_add_all_unique(NULL, ARRAY[u, u + 1, u + 2]) AS items
  FROM generate_series(1, 3) u;
SELECT user_id, cf_contains_each(items, ARRAY[1, 2, 3, 4, 5]) AS seen
  FROM b_rows ORDER BY user_id;

DROP FUNCTION b_fold(cuckoofilter, bigint[], text);
DROP TABLE b_f, b_vals, b_big, b_seq, b_rows;

-- the update from 1.0: the batch functions appear with ALTER EXTENSION
\set regress_db :DBNAME
CREATE DATABASE cuckoo_batch_update;
\c cuckoo_batch_update
CREATE EXTENSION cuckoo VERSION '1.0';
SELECT count(*) AS batch_functions_at_1_0 FROM pg_proc
 WHERE proname IN ('cf_contains_each', 'cf_contains_any', 'cf_contains_all', 'cf_add_all_unique', 'cf_delete_all');
CREATE TABLE b_kept AS SELECT cf_add_all(NULL, ARRAY[1, 2]) AS f;
ALTER EXTENSION cuckoo UPDATE TO '1.1';
SELECT extversion FROM pg_extension WHERE extname = 'cuckoo';
SELECT cf_contains_each(f, ARRAY[1, 2, 3]) AS kept_filter_answers FROM b_kept;
\c :regress_db
DROP DATABASE cuckoo_batch_update;
