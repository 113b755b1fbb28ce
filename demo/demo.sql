-- demo.sql - a tour of cuckoo on a throwaway cluster (run by scripts/demo.sh)
\set ON_ERROR_STOP on
\pset footer off
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS cuckoo;

\echo
\echo '1. A filter answers "maybe present" / "certainly absent", and supports delete.'
SELECT cf_contains(f, 'apple')  AS has_apple,
       cf_contains(f, 'durian') AS has_durian,
       cf_contains(cf_delete(f, 'apple'), 'apple') AS apple_after_delete
FROM (SELECT cf_add(cf_add(cf_create(1000), 'apple'), 'banana') AS f) s;

\echo
\echo '2. Per-row filters: "items this user has already seen", updated in place.'
CREATE TEMP TABLE seen (user_id int PRIMARY KEY, items cuckoofilter);
INSERT INTO seen VALUES (1, NULL), (2, NULL);
UPDATE seen SET items = cf_add_unique(items, 101) WHERE user_id = 1;
UPDATE seen SET items = cf_add_unique(items, 102) WHERE user_id = 1;
UPDATE seen SET items = cf_add_unique(items, 101) WHERE user_id = 1;   -- seen again: not stored twice
UPDATE seen SET items = cf_add_unique(items, 205) WHERE user_id = 2;
SELECT user_id, items @> 101 AS seen_101, items @> 205 AS seen_205,
       cf_count(items, 101) AS copies_of_101 FROM seen ORDER BY user_id;

\echo
\echo '3. Build a filter from a column with cf_agg, sized to the distinct values seen.'
CREATE TEMP TABLE orders AS
  SELECT g AS order_id, (g % 50000) AS customer_id FROM generate_series(1, 500000) g;
CREATE TEMP TABLE vip AS SELECT cf_agg(customer_id, 0.001) AS f FROM orders WHERE customer_id % 10 = 0;
SELECT items, capacity, fingerprint_bits, round(load_factor::numeric, 3) AS load,
       bytes, round(bytes * 8.0 / items, 1) AS bits_per_item
FROM vip, cf_info(vip.f);

\echo
\echo '4. Pre-filter a join: rows that cannot match are skipped before the join.'
SELECT count(*) AS orders_of_vips_prefiltered
FROM orders o WHERE cf_contains((SELECT f FROM vip), o.customer_id);
SELECT count(*) AS orders_of_vips_exact
FROM orders o WHERE o.customer_id % 10 = 0;

\echo
\echo '5. Filters travel as text (pg_dump, COPY) and binary, unchanged.'
SELECT length(f::text) AS text_chars,
       (f::text::cuckoofilter)::text = f::text AS text_round_trip_identical,
       cuckoofilter_send(f) = decode(f::text, 'base64') AS binary_form_is_the_same_bytes
FROM vip;
