-- cuckoo_equality: values SQL calls equal must never be reported absent
-- (issue 24 item 1).  Types whose = is not equality of the bytes hashed are
-- refused; timestamp and timestamptz, whose equality depends on the
-- session's TimeZone, are kept apart in new filters; answers never depend on
-- a session setting.

-- a type of an extension whose btree class does not declare byte equality
-- ("equalimage") is refused, for adds, probes and cf_agg; an explicit cast
-- to text is the caller's choice of text equality.  citext is contrib: the
-- checks run where it is installed (cuckoo_equality_1.out: where it is not).
SELECT count(*) = 1 AS have_citext FROM pg_available_extensions WHERE name = 'citext' \gset
\if :have_citext
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS citext;
RESET client_min_messages;
CREATE TABLE eq_ci (e citext);
INSERT INTO eq_ci VALUES ('User5@Example.com'), ('other@example.com');
-- the issue's query: cf_agg(citext) went through cf_agg(text) and missed
SELECT cf_contains((SELECT cf_agg(e) FROM eq_ci), 'user5@example.com'::citext);
SELECT cf_agg(e, 0.01) FROM eq_ci;
SELECT cf_add(NULL, e) FROM eq_ci;
SELECT cf_add(NULL, 'a'::text) @> e FROM eq_ci;
SELECT cf_contains_each(cf_add(NULL, 'a'::text), ARRAY['a'::citext]);
SELECT cf_hash(e) FROM eq_ci;
-- what the hint says: normalize, then it is found whatever the case
SELECT cf_contains((SELECT cf_agg(lower(e::text)) FROM eq_ci), lower('USER5@example.COM')) AS normalized;
-- an explicit cast is text equality, as the caller asked
SELECT cf_contains((SELECT cf_agg(e::text) FROM eq_ci), 'User5@Example.com'::citext::text) AS explicit_text;
DROP TABLE eq_ci;
\endif

-- types of extensions that declare byte equality are hashed as before: an
-- enum, and a filter of filters (1.2 declares cuckoofilter's = byte equality)
CREATE TYPE eq_mood AS ENUM ('sad', 'ok', 'happy');
SELECT cf_add(NULL, 'ok'::eq_mood) @> 'ok'::eq_mood AS enum_found;
SELECT cf_add(NULL, cf_create(10)) @> cf_create(10) AS filter_found;
DROP TYPE eq_mood;

-- timestamp and timestamptz: new filters record kind timestamp (date and
-- timestamp, wall-clock values) or timestamptz (instants) and refuse the
-- other, whose equality with them depends on TimeZone
SELECT (cf_info(cf_add(NULL, '2024-01-01 00:00+00'::timestamptz))).value_kind AS tz_kind,
       (cf_info(cf_add(NULL, '2024-01-01 00:00'::timestamp))).value_kind AS ts_kind,
       (cf_info(cf_add(NULL, '2024-01-01'::date))).value_kind AS date_kind;
SET timezone = 'Asia/Tokyo';
-- SQL calls these equal in Tokyo, not in UTC: the filter refuses to guess
SELECT '2024-01-01 00:00+00'::timestamptz = '2024-01-01 09:00'::timestamp AS sql_equal_in_tokyo;
SELECT cf_contains(cf_add(NULL, '2024-01-01 00:00+00'::timestamptz), '2024-01-01 09:00'::timestamp);
SELECT cf_contains(cf_add(NULL, '2024-01-01'::date), '2024-01-01 00:00+00'::timestamptz);
SELECT cf_agg(d) @> now() FROM (VALUES ('2024-01-01'::date)) v(d);
-- the explicit forms the hint gives
SELECT cf_contains(cf_add(NULL, '2024-01-01 00:00+00'::timestamptz), '2024-01-01 09:00'::timestamp::timestamptz) AS session_zone,
       cf_contains(cf_add(NULL, '2024-01-01 00:00+00'::timestamptz), '2024-01-01 00:00'::timestamp AT TIME ZONE 'UTC') AS utc;
-- date and timestamp agree whatever the zone; answers do not depend on it
SELECT cf_contains(cf_add(NULL, '2024-01-01'::date), '2024-01-01 00:00'::timestamp) AS date_is_midnight;
CREATE TABLE eq_tz AS SELECT cf_agg(t) AS f FROM generate_series('2024-01-01 00:00+00'::timestamptz, '2024-01-02 00:00+00', '1 hour') t;
SELECT count(*) FILTER (WHERE f @> t) AS found_in_tokyo FROM eq_tz, generate_series('2024-01-01 00:00+00'::timestamptz, '2024-01-02 00:00+00', '1 hour') t;
SET timezone = 'America/New_York';
SELECT count(*) FILTER (WHERE f @> t) AS found_in_new_york FROM eq_tz, generate_series('2024-01-01 00:00+00'::timestamptz, '2024-01-02 00:00+00', '1 hour') t;
RESET timezone;
-- a filter of 1.1's kind datetime still takes all three, as it did
SELECT cf_contains(f, '2024-01-01 00:00+00'::timestamptz) AS tz, cf_contains(f, '2024-01-01'::date) AS d,
       (cf_info(f)).value_kind
  FROM (SELECT cf_add(cf_add(cf_set_kind(cf_create(100), 'datetime'), '2024-01-01 00:00+00'::timestamptz),
                      '2024-01-01'::date) AS f) s;
-- and a union with it is of kind datetime; timestamp with timestamptz is refused
SELECT (cf_info(cf_union(cf_set_kind(cf_create(100), 'datetime'), cf_add(cf_create(100), now())))).value_kind;
SELECT cf_union(cf_add(cf_create(100), now()), cf_add(cf_create(100), current_date));
DROP TABLE eq_tz;
