-- cuckoo_status: adds and deletes that report what they did (issue 24 item 2,
-- issue 27 item 4): cf_try_add and cf_items, cf_add_unique_status,
-- cf_delete_status, and the safe mark / unsee recipe of the README.

-- cf_items
SELECT cf_items(cf_create(100)), cf_items(cf_add(cf_add(NULL, 1), 1)), cf_items(NULL);

-- cf_try_add: a full fixed-size filter comes back unchanged, no error
SELECT cf_items(cf_try_add(cf_create(10, expansion => 0), 1));
SELECT cf_try_add(NULL, 5) @> 5 AS starts_default, cf_try_add(cf_add(NULL, 5), NULL::int) @> 5 AS null_value;
SELECT cf_try_add(NULL::cuckoofilter, NULL::int) IS NULL AS both_null;
SELECT cf_try_add(cf_add(NULL, 1), 'x');      -- a value of another kind is still an error

-- fill a fixed-size filter without an EXCEPTION block, twice in one
-- transaction: every add stays in place (the counters move by the adds only)
CREATE FUNCTION fill_fixed(cap int) RETURNS TABLE (stored bigint, all_found boolean, copies bigint, flattens bigint) LANGUAGE plpgsql AS $$
DECLARE
	f cuckoofilter := cf_create(cap, expansion => 0);
	n bigint := 0;
	c0 bigint := (cuckoo_debug_state(cf_create(1))).store_copies;
	f0 bigint := (cuckoo_debug_state(cf_create(1))).flattens;
BEGIN
	LOOP
		f := cf_try_add(f, n + 1);
		EXIT WHEN cf_items(f) = n;		-- no room for n + 1
		n := n + 1;
	END LOOP;
	stored := n;
	all_found := cf_contains_all(f, ARRAY(SELECT generate_series(1, n)));
	copies := (cuckoo_debug_state(f)).store_copies - c0;
	flattens := (cuckoo_debug_state(f)).flattens - f0;
	RETURN NEXT;
END $$;
SELECT * FROM fill_fixed(1000);
SELECT * FROM fill_fixed(1000);
-- a flat filter: each try either stores the value (one more item) or
-- returns the filter byte for byte; a 100-item fixed filter takes some
SELECT count(*) FILTER (WHERE cf_try_add(f, g) = f) AS unchanged,
       count(*) FILTER (WHERE cf_items(cf_try_add(f, g)) = cf_items(f) + 1) AS stored
  FROM (SELECT cf_create(100, expansion => 0) AS f) s, generate_series(1, 2) g;
CREATE FUNCTION fill_flat(cap int) RETURNS cuckoofilter LANGUAGE plpgsql AS $$
DECLARE f cuckoofilter := cf_create(cap, expansion => 0);
BEGIN
	FOR i IN 1..10 * cap LOOP
		f := cf_try_add(f, i);
	END LOOP;
	RETURN f;
END $$;
SELECT cf_items(f) BETWEEN 100 AND 130 AS nearly_full,
       count(*) FILTER (WHERE cf_try_add(f, g) = f) > 0 AS some_unchanged,
       bool_and(cf_try_add(f, g) = f OR cf_items(cf_try_add(f, g)) = cf_items(f) + 1) AS each_one_or_the_other
  FROM (SELECT fill_flat(100) AS f) s, generate_series(100001, 100200) g GROUP BY f;
-- a growing filter grows as cf_add does
SELECT cf_items(f), (cf_info(f)).capacity > 10 AS grew
  FROM (SELECT cf_add_all(cf_create(10), ARRAY(SELECT generate_series(1, 100))) AS f0) s,
       LATERAL (SELECT cf_try_add(f0, 101) AS f) t;
-- at the limit for copies of one value (a split table: its bucket pair of 8
-- slots and a stash of 256) it returns the filter as it
-- is, flat or in a PL/pgSQL loop
WITH RECURSIVE r(i, f) AS (
	SELECT 0, cf_add_all(cf_create(1000), array_fill(7, ARRAY[250]))
	UNION ALL SELECT i + 1, cf_try_add(f, 7) FROM r WHERE i < 30)
SELECT max(cf_count(f, 7)) AS copies, max((cf_info(f)).subfilters) AS subfilters FROM r;
DO $$
DECLARE f cuckoofilter := cf_create(1000);
BEGIN
	FOR i IN 1..300 LOOP f := cf_try_add(f, 7); END LOOP;
	RAISE NOTICE 'copies %, items %, sub-filters %', cf_count(f, 7), cf_items(f), (cf_info(f)).subfilters;
END $$;

-- cf_add_unique_status: (result, stored)
SELECT stored, cf_items(result) FROM cf_add_unique_status(cf_add(NULL, 1), 1);
SELECT stored, cf_items(result) FROM cf_add_unique_status(cf_add(NULL, 1), 2);
SELECT stored, cf_items(result), result @> 7 FROM cf_add_unique_status(NULL, 7);
SELECT stored, cf_items(result) FROM cf_add_unique_status(cf_add(NULL, 1), NULL::int);
SELECT stored, result IS NULL AS null_result FROM cf_add_unique_status(NULL, NULL::int);
SELECT stored FROM cf_add_unique_status(cf_add(NULL, 1), 'x');
SELECT (cf_add_unique_status(cf_create(10), 'abc')).stored;

-- cf_delete_status: (result, removed)
SELECT removed, cf_items(result) FROM cf_delete_status(cf_add(NULL, 1), 1);
SELECT removed, cf_items(result) FROM cf_delete_status(cf_add(NULL, 1), 2);
SELECT removed, result IS NULL AS null_result FROM cf_delete_status(NULL, 1);
SELECT removed, cf_items(result) FROM cf_delete_status(cf_add(NULL, 1), NULL::int);
-- a retained delete (a union of parts of different capacities both match):
-- nothing removed, the value still reported, the delete counted
SELECT removed, result @> 3000 AS still_reported, (cf_info(result)).retained
  FROM cf_delete_status(
	(SELECT cf_union(cf_add_all(cf_create(5000), ARRAY(SELECT generate_series(1, 5000))),
	                 cf_add_all(cf_create(3000), ARRAY(SELECT generate_series(2001, 5000))))),
	3000);

-- retained deletes, as the README states them: a union of parts of
-- different capacities holds a value of both parts in two unrelated tables,
-- and every delete of such a value is retained (here all 3,000); cf_info and
-- cf_describe show it
CREATE TABLE ret AS
SELECT cf_delete_all(cf_union(cf_add_all(cf_create(5000), ARRAY(SELECT generate_series(1, 5000))),
                              cf_add_all(cf_create(3000), ARRAY(SELECT generate_series(2001, 5000)))),
                     ARRAY(SELECT generate_series(2001, 5000))) AS f;
SELECT (cf_info(f)).deletes, (cf_info(f)).retained, (cf_info(f)).families, cf_items(f) FROM ret;
SELECT cf_describe(f) FROM ret;
-- parts of one capacity: none retained
SELECT (cf_info(f)).retained, cf_describe(f) NOT LIKE '%retained%' AS describe_quiet
  FROM (SELECT cf_delete_all(cf_union(cf_add_all(cf_create(5000), ARRAY(SELECT generate_series(1, 5000))),
                                      cf_add_all(cf_create(5000), ARRAY(SELECT generate_series(2001, 5000)))),
                             ARRAY(SELECT generate_series(2001, 5000))) AS f) s;
DROP TABLE ret;

-- cf_agg with a capacity too small for its values grows, and says so
SELECT (cf_info(cf_agg(g, 0.01, 10))).subfilters FROM generate_series(1, 1000) g;
SELECT (cf_info(cf_agg(g, 0.01, 1000))).subfilters FROM generate_series(1, 1000) g;

-- cf_union_agg's NOTICE describes the result: 30 parts each sized to its
-- own day stay 30 sub-filters, and the NOTICE says 30, not the first 3
CREATE TABLE days AS
SELECT d, cf_agg(g) AS f FROM generate_series(1, 30) d, generate_series(d * 1000, d * 1000 + 1500) g GROUP BY d;
SELECT (cf_info(f)).subfilters, cf_items(f) FROM (SELECT cf_union_agg(f) AS f FROM days) s;
-- parts of one capacity fold: no NOTICE
SELECT (cf_info(cf_union_agg(f))).subfilters
  FROM (SELECT d, cf_agg(g, 0.01, 50000) AS f FROM generate_series(1, 30) d,
               generate_series(d * 1000, d * 1000 + 1500) g GROUP BY d) s;
DROP TABLE days;

-- the unsafe recipe of 1.1, reproduced: 500 items marked with cf_add_unique,
-- then mark + unsee of an item the filter already reports (a false positive)
-- deletes another item's entry
CREATE TABLE fp_find AS
SELECT cf_add_all_unique(cf_create(1000), ARRAY(SELECT generate_series(1, 500)::bigint)) AS f;
CREATE TABLE fp_item AS
SELECT min(g)::bigint AS item FROM fp_find, generate_series(501, 1000000) g WHERE f @> g::bigint;
SELECT item IS NOT NULL AS found_a_false_positive FROM fp_item;
SELECT count(*) FILTER (WHERE NOT cf_contains(cf_delete(cf_add_unique(f, i.item), i.item), g::bigint))
	AS lost_by_the_old_recipe
  FROM fp_find, fp_item i, generate_series(1, 500) g;

-- the safe recipe (README "Items this user has already seen")
CREATE TABLE seen (
  user_id  bigint PRIMARY KEY,
  items    cuckoofilter,
  unstored bigint[] NOT NULL DEFAULT '{}'
);
PREPARE mark_seen(bigint, bigint) AS
INSERT INTO seen AS s (user_id, items) VALUES ($1, cf_add(NULL, $2::bigint))
ON CONFLICT (user_id) DO UPDATE
SET (items, unstored) = (
  SELECT a.result,
         CASE WHEN a.stored OR $2::bigint = ANY (s.unstored) THEN s.unstored
              ELSE s.unstored || $2::bigint END
    FROM cf_add_unique_status(s.items, $2::bigint) a);
PREPARE unsee(bigint, bigint) AS
UPDATE seen
   SET items = CASE WHEN $2::bigint = ANY (unstored) THEN items
                    ELSE cf_add_all_unique(cf_delete(items, $2::bigint), unstored) END,
       unstored = array_remove(unstored, $2::bigint)
 WHERE user_id = $1;
-- user 1: the 500 items, in the filter the false positive was found in
INSERT INTO seen (user_id, items) SELECT 1, cf_create(1000);
DO $$ BEGIN FOR i IN 1..500 LOOP EXECUTE format('EXECUTE mark_seen(1, %s)', i); END LOOP; END $$;
SELECT s.items = f.f AS same_filter_as_above FROM seen s, fp_find f WHERE s.user_id = 1;
-- mark + unsee of the false positive: it was recorded as stored nowhere ...
SELECT format('EXECUTE mark_seen(1, %s)', item) FROM fp_item \gexec
SELECT (SELECT item FROM fp_item) = ANY (unstored) AS recorded FROM seen WHERE user_id = 1;
SELECT format('EXECUTE unsee(1, %s)', item) FROM fp_item \gexec
-- ... so none of the 500 is lost
SELECT count(*) FILTER (WHERE NOT items @> g::bigint) AS lost, cardinality(unstored) AS unstored
  FROM seen, generate_series(1, 500) g WHERE user_id = 1 GROUP BY unstored;
-- unsee of a stored item that a recorded one relied on: the recorded one is
-- stored again, so it stays seen
SELECT format('EXECUTE mark_seen(1, %s)', item) FROM fp_item \gexec
DO $$ BEGIN FOR i IN 1..500 LOOP EXECUTE format('EXECUTE unsee(1, %s)', i); END LOOP; END $$;
SELECT items @> (SELECT item FROM fp_item) AS fp_item_still_seen, cf_items(items),
       (SELECT count(*) FROM generate_series(1, 500) g WHERE NOT items @> g::bigint) AS unseen_of_500
  FROM seen WHERE user_id = 1;
-- a new user, a repeated mark, and a NULL filter
EXECUTE mark_seen(2, 40);
EXECUTE mark_seen(2, 40);
SELECT user_id, cf_items(items), unstored FROM seen WHERE user_id = 2;
-- the first unsee forgets the repeated mark: still seen (a false positive, never a false negative)
EXECUTE unsee(2, 40);
SELECT user_id, items @> 40::bigint AS seen_40, cf_items(items), unstored FROM seen WHERE user_id = 2;
EXECUTE unsee(2, 40);
SELECT user_id, items @> 40::bigint AS seen_40, cf_items(items), unstored FROM seen WHERE user_id = 2;
INSERT INTO seen (user_id, items) VALUES (3, NULL);
EXECUTE mark_seen(3, 45);
SELECT user_id, items @> 45::bigint, unstored FROM seen WHERE user_id = 3;
DEALLOCATE ALL;
DROP TABLE seen, fp_find, fp_item;
DROP FUNCTION fill_fixed(int);
DROP FUNCTION fill_flat(int);

-- the update: from 1.0 with views on cf_info and on cf_union_agg, both are
-- kept and a WARNING says so (ALTER EXTENSION shows no NOTICE); without such
-- views cf_union_agg gets its final function; support functions renamed
\set regress_db :DBNAME
CREATE DATABASE cuckoo_status_update;
\c cuckoo_status_update
CREATE EXTENSION cuckoo VERSION '1.0';
CREATE TABLE parts (f cuckoofilter);
CREATE VIEW info_view AS SELECT (cf_info(cf_create(10))).*;
CREATE VIEW union_view AS SELECT cf_union_agg(f) FROM parts;
ALTER EXTENSION cuckoo UPDATE;
SELECT extversion FROM pg_extension WHERE extname = 'cuckoo';
SELECT a.aggfinalfn::regproc AS kept_union_agg_final FROM pg_aggregate a WHERE a.aggfnoid = 'cf_union_agg'::regproc;
SELECT count(*) AS info_columns FROM pg_attribute WHERE attrelid = 'info_view'::regclass;
DROP VIEW info_view, union_view;
DROP EXTENSION cuckoo CASCADE;
CREATE EXTENSION cuckoo VERSION '1.1';
ALTER EXTENSION cuckoo UPDATE;
SELECT a.aggfinalfn::regproc AS union_agg_final FROM pg_aggregate a WHERE a.aggfnoid = 'cf_union_agg'::regproc;
-- what \df cf_* lists: only what users call
SELECT count(*) AS cf_functions, count(*) FILTER (WHERE p.proname LIKE 'cf\_agg\_%' OR p.proname LIKE '%\_trans'
                                                  OR p.proname LIKE '%\_sel' OR p.proname LIKE 'cf\_aggstate\_%') AS support
  FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
 WHERE n.nspname = 'public' AND p.proname LIKE 'cf\_%';
SELECT DISTINCT p.proname FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
 WHERE n.nspname = 'public' AND p.proname LIKE 'cuckoo\_%' ORDER BY 1;
\c :regress_db
DROP DATABASE cuckoo_status_update;
