-- cuckoo_readme: every ```sql block of README.md, verbatim and in order, as a
-- new user would run them in a fresh database (the README creates every
-- table it uses), with checks of what the text around them claims after
-- them.  test/readme_sql.sh checks that each block is here, so change the
-- README and this file together.  Output that is a filter's base64 goes to
-- /dev/null (it changes with the format, and says nothing to a reader).
-- It runs in a database of its own: the README starts with CREATE EXTENSION.
\set regress_db :DBNAME
CREATE DATABASE cuckoo_readme;
\c cuckoo_readme

-- README "Getting started"
CREATE EXTENSION cuckoo;

SELECT cf_contains(f, 'apple'), cf_contains(f, 'durian')
FROM (SELECT cf_add(cf_add(cf_create(1000), 'apple'), 'banana') AS f) s;
--  t | f

SELECT * FROM cf_info(cf_create(1000000, fpr => 0.001));

-- README "Pre-filter a join or an expensive lookup"
-- example tables: the keys that can match, the big table, an expensive test
CREATE TABLE small_table (id bigint);
INSERT INTO small_table SELECT g * 10 FROM generate_series(1, 100) g;
CREATE TABLE big_table (key bigint, payload text);
INSERT INTO big_table SELECT g, 'row ' || g FROM generate_series(1, 400000) g;
CREATE FUNCTION expensive_check(b big_table) RETURNS boolean
	LANGUAGE plpgsql IMMUTABLE AS $$ BEGIN RETURN b.key % 100 = 0; END $$;
ANALYZE small_table, big_table;

LOAD 'cuckoo';                       -- or shared_preload_libraries = 'cuckoo'
SET cuckoo.join_prefilter = on;
SET cuckoo.join_prefilter_query = always;    -- local tables too (the default: see below)
SET cuckoo.join_prefilter_messages = notice; -- say what it did
SELECT b.* FROM big_table b JOIN small_table s ON b.key = s.id WHERE expensive_check(b);
-- NOTICE:  cuckoo.join_prefilter: filter on b.key from s.id (inner join)
-- the default, remote, leaves these local tables to the run-time filters
-- (the message says why); the rows are the same
RESET cuckoo.join_prefilter_query;
SELECT b.* FROM big_table b JOIN small_table s ON b.key = s.id WHERE expensive_check(b);
RESET cuckoo.join_prefilter_messages;
RESET cuckoo.join_prefilter;

-- build once: a filter of the keys that can match
CREATE TABLE wanted AS SELECT cf_agg(id) AS f FROM small_table;

-- skip rows that certainly have no partner before the expensive part: the
-- filter as a scalar subquery, read once, the scan in parallel
SELECT b.* FROM big_table b
WHERE cf_contains((SELECT f FROM wanted), b.key)     -- or: (SELECT f FROM wanted) @> b.key
  AND expensive_check(b);
-- the slow form gives the same rows
SELECT b.* FROM big_table b, wanted w
WHERE w.f @> b.key AND expensive_check(b);

-- README "Build filters from a column: cf_agg"
-- (the filters' base64 to /dev/null)
\o /dev/null
-- example tables: 500 orders of 50 customers, 3 days of events of 200 users
CREATE TABLE orders (order_id int, customer_id bigint);
INSERT INTO orders SELECT g, g % 50 FROM generate_series(1, 500) g;
CREATE TABLE events (day date, user_id bigint);
INSERT INTO events
SELECT DATE '2026-11-01' + d, (d * 37 + u) % 200
  FROM generate_series(0, 2) d, generate_series(1, 100) u;

SELECT cf_agg(customer_id) FROM orders;                 -- 1% false positives
SELECT cf_agg(customer_id, 0.001) FROM orders;          -- 0.1%
SELECT day, cf_agg(user_id) FROM events GROUP BY day;   -- one per group
\o
SELECT (cf_info(cf_agg(customer_id))).items AS distinct_customers,
       (cf_info(cf_agg(customer_id, 0.001))).fingerprint_bits AS bits_at_0_1pct
  FROM orders;
SELECT day, (cf_info(cf_agg(user_id))).items FROM events GROUP BY day ORDER BY day;
-- a capacity too small: the filter grows, and a NOTICE says so
SELECT (cf_info(cf_agg(v, 0.01, 10))).subfilters FROM generate_series(1, 1000) v;

-- README "Items this user has already seen"
CREATE TABLE seen (
  user_id bigint PRIMARY KEY,
  base    cuckoofilter,  -- the marks until the last fold: large, TOASTed, untouched by a mark
  delta   bigint[]       -- the newest marks, folded into base when it outgrows it
);
-- mark an item seen; the user's first mark creates the row
PREPARE mark_seen(bigint, bigint) AS
INSERT INTO seen AS s VALUES ($1, NULL, ARRAY[$2])
ON CONFLICT (user_id) DO UPDATE
SET base = cf_mark_base(s.base, s.delta, $2), delta = cf_mark_delta(s.base, s.delta, $2);
-- of these candidates, the ones the user has certainly not seen (a new user: all)
PREPARE unseen(bigint, bigint[]) AS
SELECT cf_unseen(s.base, s.delta, $2) FROM (SELECT $1 AS user_id) u LEFT JOIN seen s USING (user_id);
-- take back one mark of an item that was marked
PREPARE unsee(bigint, bigint) AS
UPDATE seen SET base = cf_unsee_base(base, delta, $2), delta = cf_unsee_delta(base, delta, $2)
 WHERE user_id = $1;
EXECUTE mark_seen(1, 42);
EXECUTE mark_seen(1, 43);
EXECUTE unseen(1, ARRAY[40, 41, 42, 43]);   -- {40,41}
EXECUTE unseen(2, ARRAY[40, 41, 42]);       -- {40,41,42}
EXECUTE unsee(1, 43);
EXECUTE unseen(1, ARRAY[42, 43]);           -- {43}

PREPARE mark_page(bigint, bigint[]) AS
INSERT INTO seen AS s
VALUES ($1, cf_mark_all_base(NULL, NULL, $2), cf_mark_all_delta(NULL, NULL, $2))
ON CONFLICT (user_id) DO UPDATE
SET base = cf_mark_all_base(s.base, s.delta, $2), delta = cf_mark_all_delta(s.base, s.delta, $2);
EXECUTE mark_page(1, ARRAY[44, 45]);
EXECUTE unseen(1, ARRAY[43, 44, 45, 46]);   -- {43,46}

-- checks of the text: the rows (no fold yet: base NULL, delta newest first);
-- a page of a new user creates its row; marking twice takes two unsees;
-- cf_seen is the one-item check; a NULL item changes nothing
SELECT user_id, base IS NULL AS base_null, delta FROM seen ORDER BY user_id;
EXECUTE mark_page(2, ARRAY[40, 41]);
EXECUTE unseen(2, ARRAY[40, 41, 42]);
EXECUTE mark_seen(1, 46);
EXECUTE mark_seen(1, 46);
EXECUTE unsee(1, 46);
SELECT cf_seen(base, delta, 46::bigint) AS seen_after_one_unsee FROM seen WHERE user_id = 1;
EXECUTE unsee(1, 46);
SELECT cf_seen(base, delta, 46::bigint) AS seen_after_two_unsees FROM seen WHERE user_id = 1;
EXECUTE mark_seen(1, NULL);
SELECT user_id, delta FROM seen WHERE user_id = 1;
-- the fold: 300 marks of user 3 fold delta into base (at most 256 bytes of delta
-- while base is small); every mark is still seen, and of 300 other items only
-- false positives (about 1%) are reported seen
DO $$
BEGIN
	FOR i IN 1 .. 300 LOOP
		EXECUTE format('EXECUTE mark_seen(3, %s)', 1000 + i);
	END LOOP;
END $$;
SELECT base IS NOT NULL AS folded, cf_items(base) + coalesce(cardinality(delta), 0) AS marks,
       cardinality(cf_unseen(base, delta, ARRAY(SELECT 1000 + g FROM generate_series(1, 300) g)::bigint[])) AS marked_but_unseen,
       cardinality(cf_unseen(base, delta, ARRAY(SELECT 2000 + g FROM generate_series(1, 300) g)::bigint[])) AS unmarked_unseen
  FROM seen WHERE user_id = 3;
-- the default filter of cf_add(NULL, v): capacity 1,000; one item takes 68 bytes (a list)
SELECT (cf_info(cf_add(NULL, 1))).capacity, (cf_info(cf_add(NULL, 1))).bytes;
-- the growth limit: 264 copies of one value with cf_add, then an error that
-- leaves the filter as it was; cf_add_unique keeps one
DO $$
DECLARE
	f cuckoofilter := cf_create(1000);
	n int := 0;
BEGIN
	LOOP
		BEGIN
			f := cf_add(f, 7);
		EXCEPTION WHEN program_limit_exceeded THEN
			RAISE NOTICE '% copies, then: %; count still %, sub-filters %', n, SQLERRM,
				cf_count(f, 7), (cf_info(f)).subfilters;
			EXIT;
		END;
		n := n + 1;
	END LOOP;
	f := cf_create(1000);
	FOR i IN 1 .. 1000 LOOP
		f := cf_add_unique(f, 7);
	END LOOP;
	RAISE NOTICE 'cf_add_unique 1000 times: count %', cf_count(f, 7);
END $$;

-- README "Add in batches"
CREATE TABLE user_items (user_id bigint PRIMARY KEY, items cuckoofilter);
CREATE TABLE item_queue (user_id bigint, item_id bigint);
INSERT INTO item_queue VALUES (1, 42), (1, 45), (5, 41), (5, 43);

-- fold the queue into the filters: one new version of each filter per batch
WITH batch AS (DELETE FROM item_queue RETURNING user_id, item_id),
     per_user AS (SELECT user_id, array_agg(item_id) AS items FROM batch GROUP BY user_id)
INSERT INTO user_items AS s (user_id, items)
SELECT user_id, cf_add_all_unique(NULL, items) FROM per_user
ON CONFLICT (user_id) DO UPDATE
SET items = cf_add_all_unique(s.items, (SELECT p.items FROM per_user p WHERE p.user_id = s.user_id));
SELECT count(*) AS queue_left FROM item_queue;
SELECT user_id, cf_contains_each(items, ARRAY[41, 42, 43, 45]::bigint[]) FROM user_items ORDER BY user_id;
-- a second batch updates the existing filters and creates new ones
INSERT INTO item_queue VALUES (1, 43), (6, 44);
WITH batch AS (DELETE FROM item_queue RETURNING user_id, item_id),
     per_user AS (SELECT user_id, array_agg(item_id) AS items FROM batch GROUP BY user_id)
INSERT INTO user_items AS s (user_id, items)
SELECT user_id, cf_add_all_unique(NULL, items) FROM per_user
ON CONFLICT (user_id) DO UPDATE
SET items = cf_add_all_unique(s.items, (SELECT p.items FROM per_user p WHERE p.user_id = s.user_id));
SELECT user_id, cf_contains_each(items, ARRAY[41, 42, 43, 44, 45]::bigint[]), cf_items(items) FROM user_items ORDER BY user_id;
DELETE FROM user_items WHERE user_id = 1;
INSERT INTO user_items VALUES (1, cf_add_all(NULL, ARRAY[42, 45]::bigint[]));

-- README "Many values at once"
-- which of these does user 1's filter hold? one answer per element, in the array's shape
SELECT cf_contains_each(items, ARRAY[42, 43, 44]::bigint[]) FROM user_items WHERE user_id = 1;
--  {t,f,f}

-- any of them / all of them?
SELECT cf_contains_any(items, ARRAY[42, 43]::bigint[]) AS holds_any,
       cf_contains_all(items, ARRAY[42, 43]::bigint[]) AS holds_all
  FROM user_items WHERE user_id = 1;
--  t | f

-- add a page of items (each stored once, repeats included), and take some back
UPDATE user_items SET items = cf_add_all_unique(items, ARRAY[43, 44, 44]::bigint[]) WHERE user_id = 1;
UPDATE user_items SET items = cf_delete_all(items, ARRAY[44]::bigint[]) WHERE user_id = 1;

-- the same, saying per element what was stored / removed
SELECT a.stored, d.removed
  FROM user_items,
       cf_add_all_unique_status(items, ARRAY[46, 42, 46]::bigint[]) a,
       cf_delete_all_status(a.result, ARRAY[46, 47]::bigint[]) d
 WHERE user_id = 1;
--  {t,f,f} | {t,f}
SELECT user_id, cf_contains_each(items, ARRAY[42, 43, 44]::bigint[]) AS after_page,
       (cf_info(items)).items
  FROM user_items ORDER BY user_id;
-- docs/reference.md "Array functions: NULLs and copies"
SELECT cf_add(NULL, 42) @> ANY ('{42}');            -- error: '{42}' is taken as text[]
SELECT cf_add(NULL, 42) @> ANY ('{42}'::bigint[]);  -- t
SELECT cf_contains_any(cf_add(NULL, 42), '{42}');   -- error: could not determine polymorphic type

-- README "Give every value a type"
SELECT cf_contains(cf_add(NULL, 42), '42');            -- error: the text '42'
SELECT cf_contains(cf_add(NULL, 42), '42'::bigint);    -- t

-- in prepared statements and driver queries, type every parameter
PREPARE probe(cuckoofilter, bigint) AS SELECT cf_contains($1, $2);
PREPARE probe_cast AS SELECT cf_contains($1::cuckoofilter, $2::bigint);
EXECUTE probe(cf_add(NULL, 42), 42);                   -- t
EXECUTE probe_cast(cf_add(NULL, 42), '42');           -- t: '42' becomes a bigint
-- an untyped parameter is text: an error (1.0 answered false), which the typed form avoids
PREPARE untyped AS SELECT cf_contains(cf_add(NULL, 42), $1);
EXECUTE untyped('42');
DEALLOCATE ALL;

-- README "Filters per day, merged later"
CREATE TABLE daily_filters (day date PRIMARY KEY, f cuckoofilter);
-- parts sized for the whole month are sparse: let them be compressed
ALTER TABLE daily_filters ALTER COLUMN f SET STORAGE EXTENDED,
                          ALTER COLUMN f SET COMPRESSION lz4;

-- every part with one capacity: the sum of the parts' distinct counts
INSERT INTO daily_filters
SELECT day, cf_agg(user_id, 0.01, 340000) FROM events GROUP BY day;

-- the month, at the target rate (see the measurements below)
SELECT items, fpr, bytes, subfilters FROM cf_info((SELECT cf_union_agg(f) FROM daily_filters));
-- every value found, the parts compressed (they are mostly empty)
SELECT bool_and(cf_contains((SELECT cf_union_agg(f) FROM daily_filters), user_id)) AS all_found
  FROM events;
SELECT count(*) AS parts, sum(pg_column_size(f)) < sum((cf_info(f)).bytes) / 10 AS compressed
  FROM daily_filters;

-- README "Smaller filters: semi-sorted buckets"
SELECT pg_column_size(cf_create(1000000, 0.01, expansion => 0)) AS packed,
       pg_column_size(cf_create(1000000, 0.01, 'semisorted', expansion => 0)) AS semisorted;
SELECT cf_encoding(cf_agg(customer_id, 0.01, 0, 'semisorted')) FROM orders;

-- README "Fill a filter in PL/pgSQL"
DO $$
DECLARE f cuckoofilter := cf_create(1000000);
BEGIN
  FOR i IN 1..100000 LOOP
    f := cf_add(f, i);       -- costs the add, not a copy of the filter
  END LOOP;
END $$;

DO $$
DECLARE
  f cuckoofilter := cf_create(10000, expansion => 0);
  n bigint := 0;
BEGIN
  LOOP
    f := cf_try_add(f, n + 1);
    EXIT WHEN cf_items(f) = n;      -- no room for n + 1: f is as it was
    n := n + 1;
  END LOOP;
  RAISE NOTICE '% items in a filter created for 10000', n;
END $$;

-- docs/reference.md "Typed probes"
SELECT cf_contains(cf_add(NULL, 42), '42');
-- ERROR:  cuckoo filter holds number values, not text
-- HINT:  Cast the value to the type the filter was built from, for example $1::bigint
--        or $1::numeric (an untyped literal or parameter is text), or mark a filter
--        that really holds several kinds with cf_set_kind(filter, 'any').

\c :regress_db
DROP DATABASE cuckoo_readme;
