-- cuckoo_typed: typed probes and value hashing 2.  A version-2 filter
-- records the kind of value it holds and refuses a value of another kind
-- with an error (never a silent "absent"); values SQL calls equal across
-- types hash equally.

-- an untyped literal is text: probing a filter of numbers with it is an error
SELECT cf_contains(cf_add(NULL, 42), '42');
SELECT cf_add(cf_add(NULL, 42), 'x');
SELECT cf_delete(cf_add(NULL, 42), '42');
SELECT cf_count(cf_add(NULL, 42), '42');
SELECT cf_add_all(cf_add(NULL, 42), ARRAY['42']);
SELECT cf_add(NULL, 42) @> '42'::text;
-- typed, it works
SELECT cf_contains(cf_add(NULL, 42), '42'::bigint) AS typed_literal;

-- the README's "already seen" update with an untyped parameter: an error,
-- not a mark that later probes with a bigint never find
CREATE TABLE ty_seen (user_id bigint PRIMARY KEY, items cuckoofilter);
INSERT INTO ty_seen VALUES (1, cf_add(NULL, 7::bigint));
PREPARE ty_mark_untyped AS UPDATE ty_seen SET items = cf_add_unique(items, $2) WHERE user_id = $1;
EXECUTE ty_mark_untyped(1, '42');
PREPARE ty_mark AS UPDATE ty_seen SET items = cf_add_unique(items, $2::bigint) WHERE user_id = $1;
EXECUTE ty_mark(1, '42');
SELECT items @> 42::bigint AS seen_42, items @> 7 AS seen_7, items @> 8 AS seen_8 FROM ty_seen;
DEALLOCATE ty_mark_untyped;
DEALLOCATE ty_mark;
DROP TABLE ty_seen;

-- values SQL calls equal hash equal across the number types
SELECT cf_contains(cf_add(NULL, 1::int8), 1::numeric) AS int8_numeric,
       cf_contains(cf_add(NULL, 1::int8), 1.0::float8) AS int8_float8,
       cf_contains(cf_add(NULL, 1::numeric), 1::int2) AS numeric_int2,
       cf_contains(cf_add(NULL, 1.0::float4), 1.000::numeric) AS float4_numeric,
       cf_contains(cf_add(NULL, 1.5::numeric), 1.5::float8) AS fraction,
       cf_contains(cf_add(NULL, 0.1::numeric), 0.1::float8) AS point_one,
       cf_contains(cf_add(NULL, 'NaN'::numeric), 'NaN'::float8) AS nan,
       cf_contains(cf_add(NULL, 'Infinity'::numeric), 'Infinity'::float8) AS inf,
       cf_contains(cf_add(NULL, 1e30::numeric), 1e30::float8) AS beyond_int64,
       cf_contains(cf_add(NULL, (-9223372036854775808)::int8), (-9223372036854775808)::numeric) AS int64_min;
SELECT 1::int8 = 1::numeric AS sql_int8_numeric, 1::int8 = 1.0::float8 AS sql_int8_float8,
       1.5::numeric = 1.5::float8 AS sql_fraction;
-- extract() gives numeric: a filter of bigint years finds it
SELECT cf_contains(cf_agg(y::bigint), extract(year FROM date '2024-06-01')) AS year_found
  FROM generate_series(2020, 2025) y;
-- ... and different numbers stay different
SELECT cf_contains(cf_add(NULL, 1::int8), 2::numeric) AS one_two,
       cf_contains(cf_add(NULL, 1.5::float8), 1::int8) AS frac_int;

-- a date is the timestamp of its midnight
SELECT cf_contains(cf_add(NULL, date '2024-01-01'), timestamp '2024-01-01 00:00') AS date_ts,
       cf_contains(cf_add(NULL, timestamp '2024-01-01 00:00'), date '2024-01-01') AS ts_date,
       cf_contains(cf_add(NULL, date '2024-01-01'), timestamp '2024-01-01 00:00:01') AS not_midnight,
       cf_contains(cf_add(NULL, 'infinity'::date), 'infinity'::timestamp) AS infinity,
       cf_contains(cf_add(NULL, '-infinity'::date), '-infinity'::timestamp) AS minus_infinity;
SELECT date '2024-01-01' = timestamp '2024-01-01 00:00' AS sql_date_ts;
-- timestamptz hashes its UTC instant, timestamp its wall-clock value: they
-- agree where SQL calls them equal under TimeZone UTC (documented)
SET timezone = 'UTC';
SELECT cf_contains(cf_add(NULL, timestamptz '2024-01-01 12:00+00'), timestamp '2024-01-01 12:00') AS tz_utc;
RESET timezone;

-- the kinds, as cf_info reports them
SELECT k, (cf_info(f)).value_kind, (cf_info(f)).value_hashing
  FROM (VALUES ('empty', cf_create(10)),
               ('int', cf_add(NULL, 1)), ('numeric', cf_add(NULL, 1.5)),
               ('text', cf_add(NULL, 'a'::text)), ('varchar', cf_add(NULL, 'a'::varchar)),
               ('bytea', cf_add(NULL, '\x00'::bytea)), ('uuid', cf_add(NULL, gen_random_uuid())),
               ('bool', cf_add(NULL, true)), ('date', cf_add(NULL, current_date)),
               ('timestamptz', cf_add(NULL, now())), ('interval', cf_add(NULL, interval '1 day')),
               ('jsonb', cf_add(NULL, '{}'::jsonb)), ('array', cf_add(NULL, ARRAY[1])),
               ('record', cf_add(NULL, ROW(1, 'a'))), ('range', cf_add(NULL, int4range(1, 2))),
               ('multirange', cf_add(NULL, int4multirange(int4range(1, 2)))),
               ('inet', cf_add(NULL, '10.0.0.1'::inet)),
               ('agg', (SELECT cf_agg(x) FROM generate_series(1, 10) x)),
               ('add_all', cf_add_all(NULL, ARRAY['a', 'b']))) v(k, f)
 ORDER BY k;
-- the kind of the first value added is kept; kinds of one family mix
SELECT (cf_info(cf_add(cf_add(cf_add(NULL, 1::int2), 2.5::numeric), 3::float8))).value_kind AS numbers,
       (cf_info(cf_add(cf_add(NULL, 'a'::text), 'b'::bpchar))).value_kind AS texts,
       (cf_info(cf_add(cf_add(NULL, current_date), localtimestamp))).value_kind AS datetimes;
-- other kinds are refused, each with the same error
SELECT cf_add(cf_add(NULL, 1), current_date);
SELECT cf_add(cf_add(NULL, ARRAY[1]), 1);
SELECT cf_contains(cf_agg(x), x::text) FROM generate_series(1, 3) x GROUP BY x;

-- cf_set_kind: 'any' turns the checks off; a kind can be given to an empty filter
SELECT cf_contains(cf_add(cf_add(cf_set_kind(cf_create(10), 'any'), 1), 'a'::text), 'a'::text) AS mixed,
       (cf_info(cf_set_kind(cf_add(NULL, 1), 'any'))).value_kind AS any_kind,
       (cf_info(cf_set_kind(cf_create(10), 'TEXT'))).value_kind AS preset;
SELECT cf_add(cf_set_kind(cf_create(10), 'text'), 1);
SELECT cf_set_kind(cf_add(NULL, 1), 'text');
SELECT (cf_info(cf_set_kind(cf_add(NULL, 1), 'number'))).value_kind AS same_kind;
SELECT cf_set_kind(cf_create(10), 'numbers');
SELECT cf_set_kind(NULL, 'any') IS NULL AS strict_filter, cf_set_kind(cf_create(10), NULL) IS NULL AS strict_kind;

-- unions: kinds must agree; an empty filter takes the other's; 'any' wins
SELECT (cf_info(cf_union(cf_create(1000), cf_add(cf_create(1000), 1)))).value_kind AS empty_and_number,
       (cf_info(cf_union(cf_add(cf_create(1000), 1), cf_set_kind(cf_create(1000), 'any')))).value_kind AS number_and_any;
SELECT cf_union(cf_add(cf_create(1000), 1), cf_add(cf_create(1000), 'a'::text));

-- a filter written by cuckoo 1.0 (format version 1, value hashing 1)
-- keeps its hashing and accepts any kind: its answers never change
SELECT (cf_info(f)).format_version, (cf_info(f)).value_hashing, (cf_info(f)).value_kind,
       f @> 'x' AS has_x, f @> 42 AS has_42,
       (cf_info(cf_add(f, 42))).format_version AS after_add,
       (cf_info(cf_add(f, 42))).value_hashing AS hashing_after_add,
       cf_add(f, 42) @> 42 AS added_42, cf_add(f, 42) @> 'x' AS still_x
  FROM (SELECT '\xcf0100040a010200f40100000100000001000000010000000a000000a601000000'::bytea::text AS t) s,
       LATERAL (SELECT encode(decode(substring(t FROM 3), 'hex'), 'base64')::cuckoofilter AS f) g;
SELECT cf_set_kind('zwEABAoBAgD0AQAAAQAAAAEAAAAAAAAACgAAAAAAAAAA'::cuckoofilter, 'any')::text = 'zwEABAoBAgD0AQAAAQAAAAEAAAAAAAAACgAAAAAAAAAA' AS v1_any_unchanged;
SELECT cf_set_kind('zwEABAoBAgD0AQAAAQAAAAEAAAAAAAAACgAAAAAAAAAA'::cuckoofilter, 'number');
