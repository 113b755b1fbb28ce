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
\echo '2. A "seen" filter per user (docs/seen.md): a mark leaves the large base as it is.'
CREATE TEMP TABLE seen (user_id bigint PRIMARY KEY, base cuckoofilter, delta bigint[]);
PREPARE mark_page(bigint, bigint[]) AS
INSERT INTO seen AS s
VALUES ($1, cf_mark_all_base(NULL, NULL, $2), cf_mark_all_delta(NULL, NULL, $2))
ON CONFLICT (user_id) DO UPDATE
SET base  = cf_mark_all_base(s.base, s.delta, $2),
    delta = cf_mark_all_delta(s.base, s.delta, $2);
PREPARE unseen(bigint, bigint[]) AS
SELECT cf_unseen(s.base, s.delta, $2) AS not_seen_yet
  FROM (SELECT $1 AS user_id) u LEFT JOIN seen s USING (user_id);
EXECUTE mark_page(1, ARRAY[101, 102]);
EXECUTE mark_page(1, ARRAY[103]);
EXECUTE mark_page(2, ARRAY[205]);
EXECUTE unseen(1, ARRAY[100, 101, 102, 103, 104]);   -- user 1 has seen 101..103
EXECUTE unseen(3, ARRAY[100, 101]);                  -- user 3 has no row: nothing seen
SELECT user_id, cf_seen(base, delta, 101::bigint) AS seen_101,
       cf_seen(base, delta, 205::bigint) AS seen_205,
       cardinality(delta) AS marks_in_delta FROM seen ORDER BY user_id;

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
