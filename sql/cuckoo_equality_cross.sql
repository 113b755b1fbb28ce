-- cuckoo_equality_cross: values SQL calls equal across types are found
-- (issue 33, items 1-6; cuckoo_equality_audit checks the rule against the
-- catalog).  SQL's = is not transitive across types, so a probe also tries
-- the few hashes an equal value of another type may be stored under
-- (docs/hashing.md, "Alternates").  cuckoo_equality_cross_1.out: where
-- citext is not installed.

-- 1. integers above 2^53 against float8, numeric, in ROW() and cf_agg:
--    int8 = float8 compares as float8, so 2^53 + 1 equals 2^53
SELECT 9007199254740993::int8 = 9007199254740993::float8 AS sql_equal,
       cf_contains(cf_add(NULL, 9007199254740993::int8), 9007199254740993::float8) AS found;
SELECT cf_contains(cf_add(NULL, 9007199254740992::float8), 9007199254740993::int8) AS float_stored,
       cf_contains(cf_add(NULL, 9007199254740993::numeric), 9007199254740992::float8) AS numeric_stored,
       cf_contains(cf_add(NULL, 9223372036854775807::int8), 9223372036854775807::float8) AS int8_max,
       cf_contains(cf_add(NULL, 9223372036854775807::float8), 9223372036854775807::int8) AS two_63,
       cf_contains(cf_add(NULL, 9223372036854775807::float8), 9223372036854775296::int8) AS two_63_low,
       cf_contains(cf_add(NULL, 9007199254740993::int8), 9007199254740992::real) AS real_probe,
       cf_contains(cf_add(NULL, ROW(9007199254740993::int8, 'x')), ROW(9007199254740992::float8, 'x')) AS in_row,
       cf_contains(cf_add(NULL, ARRAY[9007199254740993::int8]), ARRAY[9007199254740992::float8]) AS in_array,
       cf_contains(cf_add(NULL, int8range(9007199254740993, NULL)), int8range(9007199254740993, NULL)) AS in_range;
-- a bigint column probed with 10 float8 values: the filter finds every row SQL matches
CREATE TABLE x33_big AS SELECT (9007199254740992 + g * 7)::bigint AS v FROM generate_series(0, 9) g;
CREATE TABLE x33_probe AS SELECT v::float8 AS p FROM x33_big;
SELECT (SELECT count(*) FROM x33_big b JOIN x33_probe q ON b.v = q.p) AS sql_matches,
       (SELECT count(*) FROM x33_probe WHERE (SELECT cf_agg(v) FROM x33_big) @> p) AS cf_agg_found,
       (SELECT count(*) FROM x33_probe WHERE (SELECT cf_agg(v, 0.001) FROM x33_big) @> p) AS cf_agg_fpr_found,
       (SELECT count(*) FROM x33_probe WHERE (SELECT cf_agg(v::numeric) FROM x33_big) @> p) AS numeric_found,
       (SELECT cf_contains_all((SELECT cf_agg(v) FROM x33_big), array_agg(p)) FROM x33_probe) AS contains_all;
-- the alternates act like the value itself: count, add_unique, delete
SELECT cf_count(cf_add(cf_add(NULL, 9007199254740993::int8), 9007199254740992::int8), 9007199254740992::float8) AS count_both,
       cf_items(cf_add_unique(cf_add(NULL, 9007199254740993::int8), 9007199254740992::float8)) AS add_unique_items,
       cf_items(cf_delete(cf_add(NULL, 9007199254740993::int8), 9007199254740992::float8)) AS delete_items,
       (cf_delete_status(cf_add(NULL, 9007199254740993::int8), 9007199254740992::float8)).removed AS removed,
       cf_items(cf_delete_all(cf_add(NULL, 9007199254740993::int8), ARRAY[9007199254740992::float8])) AS delete_all_items;
-- below 2^53 nothing changes: one probe, as before
SELECT cf_contains(cf_add(NULL, 9007199254740991::int8), 9007199254740990::float8) AS below_2_53;
-- a value equal to too many differently hashed ones is refused
SELECT cf_contains(cf_add(NULL, ROW(1::int8, 1::int8)), ROW(4611686018427387904::float8, 4611686018427387904::float8));
-- and so are cross-kind scalars, as before (a float8 filter is a number filter)
SELECT cf_contains(cf_add(NULL, 9007199254740993::int8), '9007199254740993');

-- 2. inet against cidr: SQL's = ignores the cidr flag (and only a network
--    without host bits can be a cidr)
SELECT '10.0.0.0/8'::inet = '10.0.0.0/8'::cidr AS sql_equal,
       cf_contains(cf_add(NULL, '10.0.0.0/8'::cidr), '10.0.0.0/8'::inet) AS cidr_stored,
       cf_contains(cf_add(NULL, '10.0.0.0/8'::inet), '10.0.0.0/8'::cidr) AS inet_stored,
       cf_contains(cf_add(NULL, '10.0.0.1'::inet), '10.0.0.1/32'::cidr) AS host,
       cf_contains((SELECT cf_agg(c) FROM (VALUES ('10.0.0.0/8'::cidr)) v(c)), '10.0.0.0/8'::inet) AS cf_agg_cidr,
       cf_contains(cf_add(NULL, ROW('2001:db8::/32'::cidr)), ROW('2001:db8::/32'::inet)) AS in_row,
       cf_contains(cf_add(NULL, '10.0.0.0/8'::cidr), '10.1.2.3/8'::inet) AS host_bits_differ;

-- 3. char(n) against varchar and text with trailing blanks, both ways
SELECT 'abc'::char(5) = 'abc '::varchar AS sql_equal,
       cf_contains(cf_add(NULL, 'abc'::char(5)), 'abc '::varchar) AS bpchar_stored,
       cf_contains(cf_add(NULL, 'abc '::varchar), 'abc'::char(5)) AS varchar_stored,
       cf_contains(cf_add(NULL, 'abc  '::text), 'abc'::char(3)) AS text_stored,
       cf_contains(cf_add(NULL, ROW('abc '::text)), ROW('abc'::char(5))) AS in_row,
       cf_contains((SELECT cf_agg(x) FROM (VALUES ('abc '::varchar)) v(x)), 'abc'::char(5)) AS cf_agg_varchar;
-- filters written by 1.2 hold text with its trailing blanks: still found
-- by the same value (the form with the blanks is an alternate); a char(n)
-- probe does not find them (docs/hashing.md: rebuild such filters)
SELECT cf_contains('zwIABA0BAgL0AQIA6AMAAHsUrkfheoQ/AAAAAAAAAAAAAAAAAAAAAAEAAAABAAAAQAQAAAAAAACvPq0u6b/xmQ=='::cuckoofilter,
                   'abc '::text) AS old_text,
       cf_contains('zwIABA0BAgL0AQoA6AMAAHsUrkfheoQ/AAAAAAAAAAAAAAAAAAAAAAEAAAABAAAAQAQAAAAAAACuCoaBfl5s9w=='::cuckoofilter,
                   ROW('abc '::varchar, 1)) AS old_row,
       cf_items(cf_delete('zwIABA0BAgL0AQIA6AMAAHsUrkfheoQ/AAAAAAAAAAAAAAAAAAAAAAEAAAABAAAAQAQAAAAAAACvPq0u6b/xmQ=='::cuckoofilter,
                          'abc '::text)) AS old_text_deleted,
       cf_contains('zwIABA0BAgL0AQEA6AMAAHsUrkfheoQ/AAAAAAAAAAAAAAAAAAAAAAEAAAABAAAAQAQAAAAAAAD0xGbNETZlHQ=='::cuckoofilter,
                   9007199254740992::float8) AS old_big,
       cf_contains('zwIABA0BAgL0AQ4A6AMAAHsUrkfheoQ/AAAAAAAAAAAAAAAAAAAAAAEAAAABAAAAQAQAAAAAAADMGBdRQxUWfQ=='::cuckoofilter,
                   '10.0.0.0/8'::inet) AS old_cidr,
       cf_seen('zwIABA0BAgL0AQIA6AMAAHsUrkfheoQ/AAAAAAAAAAAAAAAAAAAAAAEAAAABAAAAQAQAAAAAAACvPq0u6b/xmQ=='::cuckoofilter,
               NULL::text[], 'abc '::text) AS old_text_seen,
       cf_unseen('zwIABA0BAgL0AQIA6AMAAHsUrkfheoQ/AAAAAAAAAAAAAAAAAAAAAAEAAAABAAAAQAQAAAAAAACvPq0u6b/xmQ=='::cuckoofilter,
                 NULL::text[], ARRAY['abc ', 'x']) AS old_text_unseen;

-- 4. citext: refused wherever PostgreSQL hands it over as citext: a column,
--    a PL/pgSQL variable, an expression, cf_agg of a column, a generic-plan
--    parameter (cuckoo_equality has the column cases)
SELECT count(*) = 1 AS have_citext FROM pg_available_extensions WHERE name = 'citext' \gset
\if :have_citext
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS citext;
RESET client_min_messages;
CREATE TABLE x33_ci (e citext);
INSERT INTO x33_ci VALUES ('Alice');
SELECT cf_contains(cf_add(NULL, e), 'alice'::citext) FROM x33_ci;
SELECT cf_agg(e) FROM x33_ci;
SELECT cf_agg(e, 0.01, 100) FROM x33_ci;
SET plan_cache_mode = force_generic_plan;
PREPARE x33_q(citext, citext) AS SELECT cf_contains(cf_add(NULL, $1), $2);
EXECUTE x33_q('Alice', 'alice');
DEALLOCATE x33_q;
RESET plan_cache_mode;
-- a citext constant is folded into a text constant by PostgreSQL's parser
-- before any function sees it: it is text equality (docs/hashing.md)
SELECT cf_contains(cf_add(NULL, 'Alice'::citext), 'Alice'::citext) AS constant_is_text;
DROP TABLE x33_ci;
\endif

-- 5. composites whose column equality crosses kinds: timestamp against
--    timestamptz (and date) under the session's TimeZone, as the ROW's =
--    is; time against interval.  As values on their own they are refused.
SET TimeZone = 'Asia/Tokyo';
SELECT ROW('2024-01-01 09:00'::timestamp) = ROW('2024-01-01 00:00+00'::timestamptz) AS sql_equal,
       cf_contains(cf_add(NULL, ROW('2024-01-01 09:00'::timestamp)), ROW('2024-01-01 00:00+00'::timestamptz)) AS ts_stored,
       cf_contains(cf_add(NULL, ROW('2024-01-01 00:00+00'::timestamptz)), ROW('2024-01-01 09:00'::timestamp)) AS tstz_stored,
       cf_contains(cf_add(NULL, ROW('2024-01-01'::date)), ROW('2023-12-31 15:00+00'::timestamptz)) AS date_stored,
       cf_contains(cf_add(NULL, ROW('24:00'::time)), ROW('1 day'::interval)) AS time_interval,
       cf_contains(cf_add(NULL, ROW('12:00'::interval)), ROW('12:00'::time)) AS interval_time;
SELECT cf_contains(cf_add(NULL, '2024-01-01 09:00'::timestamp), '2024-01-01 00:00+00'::timestamptz);
RESET TimeZone;

-- 5b. oid (and reg*, xid) against integers in a ROW(): ROW(o) = ROW(v)
--     casts the integer to oid, reinterpreting an int2 or int4's bits
--     (-1 equals 4294967295); an oid hashes as its send form, an integer
--     by value, so a probe tries the other form of each such column.  As
--     values on their own they are refused (other kinds); deeper than a
--     column of the ROW() probed SQL refuses to compare them.
SELECT ROW(4294967295::oid) = ROW(-1) AS sql_equal,
       cf_contains(cf_add(NULL, ROW(23::oid, 'x')), ROW(23, 'x')) AS oid_stored,
       cf_contains(cf_add(NULL, ROW(23, 'x')), ROW(23::oid, 'x')) AS int4_stored,
       cf_contains(cf_add(NULL, ROW(23::int2)), ROW(23::oid)) AS int2_stored,
       cf_contains(cf_add(NULL, ROW(4294967295::int8)), ROW(4294967295::oid)) AS int8_stored,
       cf_contains(cf_add(NULL, ROW(4294967295::oid)), ROW(4294967295::int8)) AS int8_probe,
       cf_contains(cf_add(NULL, ROW(4294967295::oid)), ROW(-1)) AS minus_one,
       cf_contains(cf_add(NULL, ROW(-1::int2)), ROW(4294967295::oid)) AS int2_minus_one,
       cf_contains(cf_add(NULL, ROW('pg_class'::regclass)), ROW(1259)) AS regclass_stored,
       cf_contains(cf_add(NULL, ROW(1259::int8)), ROW('pg_class'::regclass)) AS regclass_probe,
       cf_contains(cf_add(NULL, ROW('4294967295'::xid)), ROW(-1)) AS xid_stored,
       cf_contains(cf_add(NULL, ROW(-1)), ROW('4294967295'::xid)) AS xid_probe;
SELECT (SELECT count(*) FROM generate_series(-3, 3) g WHERE (SELECT cf_agg(ROW(o)) FROM
            (SELECT g2::oid AS o FROM generate_series(0, 3) g2 UNION ALL SELECT (4294967293 + g2)::oid FROM generate_series(0, 2) g2) v)
            @> ROW(g)) AS int4_found;
SELECT cf_contains(cf_add(NULL, 23::oid), 23);

-- 6. enums are hashed by label: stable across dump/restore, pg_upgrade and
--    ADD VALUE (BEFORE or AFTER); RENAME VALUE changes the label a stored
--    filter holds (docs/hashing.md)
CREATE TYPE x33_color AS ENUM ('red', 'green');
CREATE TABLE x33_f AS SELECT cf_add(cf_add(NULL, 'red'::x33_color), 'green'::x33_color) AS f;
ALTER TYPE x33_color ADD VALUE 'blue' BEFORE 'red';
SELECT f @> 'red'::x33_color AS red, f @> 'green'::x33_color AS green, f @> 'blue'::x33_color AS blue FROM x33_f;
ALTER TYPE x33_color RENAME VALUE 'red' TO 'crimson';
SELECT f @> 'crimson'::x33_color AS crimson_after_rename FROM x33_f;
DROP TABLE x33_f;
DROP TYPE x33_color;

-- found by the audit: the geometric types whose = is not equality (boxes
-- and circles of equal area, paths of as many points, lines and segments
-- within a tolerance) are refused
SELECT '(1,1),(0,0)'::box = '(2,0.5),(0,0)'::box AS sql_equal;
SELECT cf_add(NULL, '(1,1),(0,0)'::box);
SELECT cf_agg(p) FROM (VALUES ('[(0,0),(1,1)]'::path)) v(p);
SELECT cf_add(NULL, ROW('<(0,0),1>'::circle));
SELECT cf_contains(cf_add(NULL, 'x'::text), '(1,1),(0,0)'::box::text) AS text_form_accepted;

DROP TABLE x33_big, x33_probe;
