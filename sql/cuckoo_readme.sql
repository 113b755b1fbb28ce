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

-- README "Items this user has already seen"
CREATE TABLE seen (
  user_id  bigint PRIMARY KEY,
  items    cuckoofilter,
  -- items marked while the filter already reported them: nothing was stored
  -- for them, so an unsee must not delete them from the filter
  unstored bigint[] NOT NULL DEFAULT '{}'
);
CREATE TABLE candidates (item_id bigint PRIMARY KEY);
INSERT INTO candidates SELECT generate_series(40, 45);

-- mark an item as seen; the user's first item creates the row
PREPARE mark_seen(bigint, bigint) AS
INSERT INTO seen AS s (user_id, items) VALUES ($1, cf_add(NULL, $2::bigint))
ON CONFLICT (user_id) DO UPDATE
SET (items, unstored) = (
  SELECT a.result,
         CASE WHEN a.stored OR $2::bigint = ANY (s.unstored) THEN s.unstored
              ELSE s.unstored || $2::bigint END
    FROM cf_add_unique_status(s.items, $2::bigint) a);

-- recommend only what the user has certainly not seen; a user without a
-- row (or with a NULL filter) has seen nothing
PREPARE recommend(bigint) AS
SELECT c.item_id
  FROM candidates c
  LEFT JOIN seen s ON s.user_id = $1
 WHERE NOT coalesce(s.items @> c.item_id, false);

-- "unsee" an item that was marked: delete only what a mark stored, then
-- store again what was marked without being stored (it may have relied on
-- the entry just deleted)
PREPARE unsee(bigint, bigint) AS
UPDATE seen
   SET items = CASE WHEN $2::bigint = ANY (unstored) THEN items
                    ELSE cf_add_all_unique(cf_delete(items, $2::bigint), unstored) END,
       unstored = array_remove(unstored, $2::bigint)
 WHERE user_id = $1;

EXECUTE mark_seen(1, 42);
EXECUTE recommend(1);       -- 40, 41, 43, 44, 45: every candidate but 42
EXECUTE recommend(2);       -- a new user: every candidate

-- checks of the text: unsee brings an item back; the first item of a new
-- user creates its row; a row with a NULL filter has seen nothing
EXECUTE unsee(1, 42);
EXECUTE recommend(1);
EXECUTE mark_seen(1, 42);
EXECUTE mark_seen(2, 40);
EXECUTE recommend(2);
INSERT INTO seen VALUES (3, NULL);
EXECUTE recommend(3);
EXECUTE mark_seen(3, 45);
SELECT user_id, cf_contains_each(items, ARRAY[40, 42, 43, 45]::bigint[]), unstored FROM seen ORDER BY user_id;
-- what the text warns about: a plain UPDATE of a user without a row changes nothing,
-- an inner join gives such a user no candidates, and EXCLUDED.items is a filter
UPDATE seen SET items = cf_add_unique(items, 41::bigint) WHERE user_id = 4;
SELECT count(*) AS inner_join_candidates_for_user_4
  FROM candidates c, seen s WHERE s.user_id = 4 AND NOT (s.items @> c.item_id);
INSERT INTO seen AS s (user_id, items) VALUES (1, cf_add_unique(NULL, 41::bigint))
ON CONFLICT (user_id) DO UPDATE SET items = cf_add_unique(s.items, EXCLUDED.items);
SELECT cf_contains(items, 41::bigint) AS excluded_items_is_not_the_item FROM seen WHERE user_id = 1;
-- the default filter of cf_add(NULL, v): capacity 1,000, 68 bytes (a list of
-- one hash: 56 bytes of header and descriptor, one 8-byte slot; 1.1 took 1,370)
SELECT (cf_info(cf_add(NULL, 1))).capacity, (cf_info(cf_add(NULL, 1))).bytes;
-- the growth limit: 264 copies of one value with cf_add (8 in its two buckets of
-- 4, 256 in the stash), then an error that leaves the filter as it was;
-- cf_add_unique keeps one
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

-- README "Per-row adds rewrite the whole filter: batch them"
CREATE TABLE seen_queue (user_id bigint, item_id bigint);
INSERT INTO seen_queue VALUES (1, 45), (5, 41), (5, 43);

-- fold the queue into the filters: one new version of each filter per batch
WITH batch AS (DELETE FROM seen_queue RETURNING user_id, item_id),
     per_user AS (SELECT user_id, array_agg(item_id) AS items FROM batch GROUP BY user_id)
INSERT INTO seen AS s (user_id, items)
SELECT user_id, cf_add_all_unique(NULL, items) FROM per_user
ON CONFLICT (user_id) DO UPDATE
SET items = cf_add_all_unique(s.items, (SELECT p.items FROM per_user p WHERE p.user_id = s.user_id));
SELECT count(*) AS queue_left FROM seen_queue;
SELECT user_id, cf_contains_each(items, ARRAY[41, 43, 45]::bigint[]) FROM seen WHERE user_id IN (1, 5) ORDER BY user_id;

-- README "Many values at once"
-- which of these has user 1 seen? one answer per element, in the array's shape
SELECT cf_contains_each(items, ARRAY[42, 43, 44]::bigint[]) FROM seen WHERE user_id = 1;
--  {t,f,f}

-- has the user seen any of them / all of them?
SELECT cf_contains_any(items, ARRAY[42, 43]::bigint[]) AS seen_any,
       cf_contains_all(items, ARRAY[42, 43]::bigint[]) AS seen_all
  FROM seen WHERE user_id = 1;
--  t | f

-- mark a whole page as seen (each item stored once, repeats included), and
-- take some back
UPDATE seen SET items = cf_add_all_unique(items, ARRAY[43, 44, 44]::bigint[]) WHERE user_id = 1;
UPDATE seen SET items = cf_delete_all(items, ARRAY[44]::bigint[]) WHERE user_id = 1;
SELECT user_id, cf_contains_each(items, ARRAY[42, 43, 44]::bigint[]) AS after_page,
       (cf_info(items)).items
  FROM seen ORDER BY user_id;
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

-- README "Building a filter from a column"
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

-- README "Smaller filters: semi-sorted buckets"
SELECT pg_column_size(cf_create(1000000, 0.01, expansion => 0)) AS packed,
       pg_column_size(cf_create(1000000, 0.01, 'semisorted', expansion => 0)) AS semisorted;
SELECT cf_encoding(cf_agg(customer_id, 0.01, 0, 'semisorted')) FROM orders;

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

-- README "Pre-filtering a join or an expensive lookup"
-- example tables: the keys that can match, the big table, an expensive test
CREATE TABLE small_table (id bigint);
INSERT INTO small_table SELECT g * 10 FROM generate_series(1, 100) g;
CREATE TABLE big_table (key bigint, payload text);
INSERT INTO big_table SELECT g, 'row ' || g FROM generate_series(1, 1000) g;
CREATE FUNCTION expensive_check(b big_table) RETURNS boolean
	LANGUAGE sql AS $$ SELECT b.key % 100 = 0 $$;

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

-- README "Adding in a PL/pgSQL loop"
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

-- README "Typed probes"
SELECT cf_contains(cf_add(NULL, 42), '42');
-- ERROR:  cuckoo filter holds number values, not text
-- HINT:  Cast the value to the type the filter was built from, for example $1::bigint
--        or $1::numeric (an untyped literal or parameter is text), or mark a filter
--        that really holds several kinds with cf_set_kind(filter, 'any').

\c :regress_db
DROP DATABASE cuckoo_readme;
