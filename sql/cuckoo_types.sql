-- cuckoo_types: how values of each type are hashed; cross-type lookups.

-- integers agree across int2, int4 and int8
SELECT cf_contains(f, 42::int2) AS i2, cf_contains(f, 42) AS i4, cf_contains(f, 42::int8) AS i8,
       cf_contains(f, 43) AS i4_absent
  FROM (SELECT cf_add(NULL, 42::bigint) AS f) s;
SELECT cf_contains(cf_add(NULL, 7::int2), 7::int8) AS int2_in_int8_probe,
       cf_contains(cf_add(NULL, -1), -1::int2) AS negative;
-- a bigint column's filter answers an integer literal
CREATE TABLE cf_ids (id bigint);
INSERT INTO cf_ids SELECT g * 1000000007::bigint FROM generate_series(1, 100) g;
INSERT INTO cf_ids VALUES (42);
CREATE TABLE cf_idf AS SELECT NULL::cuckoofilter AS f;
DO $$ DECLARE r record; BEGIN
	FOR r IN SELECT id FROM cf_ids LOOP
		UPDATE cf_idf SET f = cf_add(f, r.id);
	END LOOP;
END $$;
SELECT cf_contains(f, 42) AS int_literal, f @> 42 AS op_int_literal,
       f @> 3000000021 AS bigint_literal, f @> 3000000022 AS bigint_absent
  FROM cf_idf;

-- floats agree across float4 and float8; -0 is 0, all NaNs are one
SELECT cf_contains(cf_add(NULL, 1.5::float4), 1.5::float8) AS f4_in_f8,
       cf_contains(cf_add(NULL, 0.25::float8), 0.25::float4) AS f8_in_f4,
       cf_contains(cf_add(NULL, '-0'::float8), 0::float8) AS neg_zero,
       cf_contains(cf_add(NULL, 0::float4), '-0'::float4) AS neg_zero4,
       cf_contains(cf_add(NULL, 'NaN'::float8), 'NaN'::float4) AS nan,
       cf_contains(cf_add(NULL, 'Infinity'::float4), 'Infinity'::float8) AS inf,
       cf_contains(cf_add(NULL, 0.1::float4), 0.1::float8) AS f4_point_one_is_not_f8;
SELECT cf_hash('-0'::float8) = cf_hash(0::float8) AS h_zero,
       cf_hash('NaN'::float8) = cf_hash('NaN'::float4) AS h_nan,
       cf_hash(('NaN'::float8 * -1)) = cf_hash('NaN'::float8) AS h_negative_nan;

-- numeric by value; an integral numeric is the integer (value hashing 2)
SELECT cf_contains(cf_add(NULL, 1.0::numeric), 1.00::numeric) AS one,
       cf_contains(cf_add(NULL, 1.0), 1) AS one_literal_is_int_one,
       cf_contains(cf_add(NULL, 100::numeric), 1E+2::numeric) AS hundred,
       cf_contains(cf_add(NULL, -0.0::numeric), 0::numeric) AS zero,
       cf_contains(cf_add(NULL, 'NaN'::numeric), 'NaN'::numeric) AS nan,
       cf_contains(cf_add(NULL, 1.5::numeric), 2::numeric) AS not_two,
       -- a fraction hashes as its float8 value (as SQL compares numeric with
       -- float8), so numerics that differ beyond float8's precision collide:
       -- a false positive, never a false negative
       cf_contains(cf_add(NULL, 1.5::numeric), 1.50000000000000000000001::numeric) AS close_collides;
SELECT cf_hash(1.0::numeric) = cf_hash(1.000::numeric) AS h_scale,
       cf_hash(12345678901234567890.10::numeric) = cf_hash(12345678901234567890.1::numeric) AS h_big;

-- text, varchar, bpchar, name and untyped literals agree; from 1.3 text is
-- hashed without its trailing blanks (as char(n) is, which SQL calls equal to
-- 'abc '::varchar), so 'abc ' and 'abc' share a hash: a false positive,
-- never a false negative (issue 33)
SELECT cf_contains(cf_add(NULL, 'abc'::varchar), 'abc'::text) AS varchar_text,
       cf_contains(cf_add(NULL, 'abc'::text), 'abc'::varchar) AS text_varchar,
       cf_contains(cf_add(NULL, 'abc'::char(6)), 'abc') AS bpchar_literal,
       cf_contains(cf_add(NULL, 'abc'), 'abc  '::char(5)) AS literal_bpchar,
       cf_contains(cf_add(NULL, 'abc'::name), 'abc') AS name_literal,
       cf_contains(cf_add(NULL, 'abc'), 'ABC') AS case_matters,
       cf_contains(cf_add(NULL, 'abc '), 'abc') AS text_shares_hash_without_blanks;
SELECT cf_hash('abc'::varchar(10)) = cf_hash('abc') AS h_varchar,
       cf_hash('abc   '::char(8)) = cf_hash('abc') AS h_bpchar,
       cf_hash('abc'::name) = cf_hash('abc'::text) AS h_name,
       cf_hash(''::text) = cf_hash(''::char(3)) AS h_empty;
-- literals everywhere a value goes
SELECT cf_count(cf_add(cf_add(NULL, 'lit'), 'lit'), 'lit') AS count_lit,
       cf_contains(cf_delete(cf_add(NULL, 'lit'), 'lit'), 'lit') AS deleted_lit,
       cf_add(NULL, 'lit') @> 'lit' AS op_lit;
-- long and toasted text values hash like short ones
SELECT cf_hash(repeat('x', 100000)) = cf_hash(repeat('x', 100000)::varchar) AS long_text;
CREATE TABLE cf_texts (t text, v varchar, c char(20));
INSERT INTO cf_texts VALUES ('short', 'short', 'short'),
	(repeat('toasted', 100000), repeat('toasted', 100000), 'toasted');
SELECT cf_hash(t) = cf_hash(v) AS same, cf_contains(cf_add(NULL, t), v) AS found,
       cf_contains(cf_add(NULL, c), t) AS bpchar_equals_text
  FROM cf_texts ORDER BY length(t);

-- other types
SELECT cf_contains(cf_add(NULL, '\x00ff'::bytea), '\x00ff'::bytea) AS bytea,
       cf_contains(cf_add(NULL, 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid),
                   'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11'::uuid) AS uuid,
       cf_contains(cf_add(NULL, '2024-02-29'::date), '2024-02-29'::date) AS date,
       cf_contains(cf_add(NULL, '2024-02-29 12:00'::timestamp), '2024-02-29 12:00'::timestamp) AS ts,
       cf_contains(cf_add(NULL, '2024-02-29 12:00+00'::timestamptz), '2024-02-29 13:00+01'::timestamptz) AS tstz,
       cf_contains(cf_add(NULL, true), true) AS bool_true,
       cf_contains(cf_add(NULL, true), false) AS bool_false,
       cf_contains(cf_add(NULL, '10.0.0.1/8'::inet), '10.0.0.1/8'::inet) AS inet,
       cf_contains(cf_add(NULL, ROW(1, 'a')), ROW(1, 'a')) AS record;
-- domains hash as their base type
CREATE DOMAIN cf_posint AS integer CHECK (VALUE > 0);
SELECT cf_contains(cf_add(NULL, 5::cf_posint), 5) AS domain_value,
       cf_hash(5::cf_posint) = cf_hash(5::int8) AS domain_hash;
-- enums go through their send bytes (the label); arrays element by element
CREATE TYPE cf_mood AS ENUM ('sad', 'ok', 'happy');
SELECT cf_contains(cf_add(NULL, 'ok'::cf_mood), 'ok'::cf_mood) AS enum_ok,
       cf_contains(cf_add(NULL, 'ok'::cf_mood), 'sad'::cf_mood) AS enum_sad,
       cf_contains(cf_add(NULL, ARRAY[1, 2]), ARRAY[1, 2]) AS array_value;
-- arrays are hashed element by element, rows column by column: no type
-- OID is involved, so int4[] agrees with int8[], a named composite with
-- ROW(...), and a restored database (new OIDs for its types) with the old
SELECT cf_hash('{1,2}'::int4[]) = cf_hash('{1,2}'::int8[]) AS int_arrays,
       cf_hash('{1,2}'::int2[]) = cf_hash(ARRAY[1::int8, 2]) AS int2_arrays,
       cf_hash('{a,b}'::text[]) = cf_hash('{a,b}'::varchar[]) AS text_arrays,
       cf_hash(ARRAY['-0'::float8]) = cf_hash(ARRAY[0::float4]) AS float_arrays,
       cf_hash(ARRAY[1.0::numeric]) = cf_hash(ARRAY[1.00::numeric]) AS numeric_arrays,
       cf_hash('{}'::int[]) = cf_hash('{}'::text[]) AS empty_arrays,
       cf_hash(ARRAY(SELECT generate_series(1, 100000))) =
       cf_hash(ARRAY(SELECT generate_series(1, 100000)::int8)) AS big_arrays,
       cf_hash(ARRAY(SELECT generate_series(1, 100000))) =
       cf_hash(ARRAY(SELECT generate_series(1, 100001))) AS big_arrays_differ;
SELECT cf_hash('{1,2}'::int[]) = cf_hash('{2,1}'::int[]) AS order_matters,
       cf_hash('{1,2}'::int[]) = cf_hash('[0:1]={1,2}'::int[]) AS lower_bound_matters,
       cf_hash('{{1,2}}'::int[]) = cf_hash('{1,2}'::int[]) AS dimensions_matter,
       cf_hash('{1,NULL}'::int[]) = cf_hash('{1}'::int[]) AS nulls_matter;
CREATE TYPE cf_pair AS (a integer, b text);
CREATE TYPE cf_mood2 AS ENUM ('sad', 'ok', 'happy');
SELECT cf_hash(ROW(1, 'x')::cf_pair) = cf_hash(ROW(1, 'x')) AS named_vs_anonymous,
       cf_hash(ROW(1::int8, 'x'::varchar)) = cf_hash(ROW(1, 'x')) AS row_cross_types,
       cf_hash(ROW(1, NULL)) = cf_hash(ROW(1)) AS null_column_counts,
       cf_hash(ROW(NULL::int, 1)) = cf_hash(ROW(1, NULL::int)) AS column_order_matters,
       cf_hash(ARRAY['ok'::cf_mood]) = cf_hash(ARRAY['ok'::cf_mood2]) AS enum_arrays_of_two_types,
       cf_hash(ROW('ok'::cf_mood, 1)) = cf_hash(ROW('ok'::cf_mood2, 1)) AS rows_of_two_types;
CREATE TABLE cf_rows (a integer, dropme integer, b text);
INSERT INTO cf_rows VALUES (1, 5, 'x'), (2, 6, NULL);
ALTER TABLE cf_rows DROP COLUMN dropme;
SELECT a, cf_hash(r) = cf_hash(ROW(r.a, r.b)) AS dropped_column_ignored,
       cf_contains(cf_add(NULL, r), ROW(r.a, r.b)::cf_pair) AS found
  FROM cf_rows r ORDER BY a;
-- intervals by the span = compares, jsonb token by token with numbers by value
SELECT cf_hash('1 day'::interval) = cf_hash('24 hours'::interval) AS day_hours,
       cf_hash('1 mon'::interval) = cf_hash('30 days'::interval) AS month_days,
       cf_hash('1 day -1 microsecond'::interval) = cf_hash('23:59:59.999999'::interval) AS day_split,
       cf_hash('-1 day'::interval) = cf_hash('-24 hours'::interval) AS negative,
       cf_hash('1 day'::interval) = cf_hash('1 day 1 microsecond'::interval) AS one_microsecond;
SELECT cf_hash('{"a": 1.0, "b": [1, 2.50]}'::jsonb) = cf_hash('{"b": [1.00, 2.5], "a": 1}'::jsonb) AS jsonb_numbers,
       cf_hash('1'::jsonb) = cf_hash('[1]'::jsonb) AS raw_scalar_vs_array,
       cf_hash('{"a": 1}'::jsonb) = cf_hash('{"a": "1"}'::jsonb) AS number_vs_string,
       cf_hash('[1, 2]'::jsonb) = cf_hash('[2, 1]'::jsonb) AS element_order,
       cf_hash('{"a": null}'::jsonb) = cf_hash('{"a": false}'::jsonb) AS null_vs_false,
       cf_hash('{}'::jsonb) = cf_hash('[]'::jsonb) AS object_vs_array,
       cf_contains(cf_add(NULL, '{"x": [1, {"y": true}]}'::jsonb), '{"x": [1.0, {"y": true}]}'::jsonb) AS found;

-- ranges bound by bound: equal ranges with different send bytes agree
CREATE TYPE cf_floatrange AS RANGE (subtype = float8);
SELECT cf_hash(numrange(1.0, 2)) = cf_hash(numrange(1.00, 2.000)) AS numrange_scale,
       cf_hash(cf_floatrange('-0', 1)) = cf_hash(cf_floatrange(0, 1)) AS floatrange_zero,
       cf_hash(int4range(1, 3)) = cf_hash(int4range(1, 2, '[]')) AS int4range_canonical,
       cf_hash(int4range(1, 3)) = cf_hash(int8range(1, 3)) AS int4_int8,
       cf_hash('empty'::int4range) = cf_hash('empty'::numrange) AS empties,
       cf_hash(int4range(NULL, 3)) = cf_hash(int4range(1, 3)) AS infinite_differs,
       cf_hash(numrange(1, 2, '[]')) = cf_hash(numrange(1, 2, '[)')) AS inclusive_differs,
       cf_hash('{[1.0,2), [3,4)}'::nummultirange) = cf_hash('{[3.00,4), [1,2)}'::nummultirange) AS multirange,
       cf_contains(cf_add(NULL, '{[1,3)}'::int4multirange), '{[1,2]}'::int4multirange) AS multirange_found;
DROP TYPE cf_floatrange;

-- rows of different types through one call site
SELECT count(DISTINCT cf_hash(r)) AS distinct_hashes
  FROM (VALUES (ROW(1, 'a')), (ROW(2, 'b')), (ROW(1, 'a'))) v(r);
DO $$
DECLARE
	a integer[] := '{}';
	f cuckoofilter;
BEGIN
	FOR i IN 1..50 LOOP
		a := a || i;
		f := cf_add(f, a);
	END LOOP;
	RAISE NOTICE 'array of 50 found %, of 51 found %', cf_contains(f, ARRAY(SELECT generate_series(1, 50))),
		cf_contains(f, ARRAY(SELECT generate_series(1, 51)));
END $$;
DROP TABLE cf_rows;
DROP TYPE cf_pair;
DROP TYPE cf_mood2;

-- a type without a binary send function
SELECT cf_add(NULL, 'postgres=r/postgres'::aclitem);
SELECT cf_hash('postgres=r/postgres'::aclitem);
SELECT cf_contains(cf_create(1), 'postgres=r/postgres'::aclitem);
-- a NULL value of such a type is still a no-op for cf_add
SELECT cf_add(cf_create(1), NULL::aclitem)::text = cf_create(1)::text AS null_aclitem;

-- values hashed through their send bytes do not depend on client_encoding
-- (send functions convert text to it; the hash uses the database encoding)
CREATE TEMP TABLE cf_enc AS
SELECT cf_hash(ARRAY[convert_from('\xc3a9', 'UTF8')]) AS arr,
       cf_hash(ROW(convert_from('\xc3a9', 'UTF8'), 1)) AS rec,
       cf_hash(convert_from('\xc3a9', 'UTF8')) AS txt,
       cf_hash(jsonb_build_object('k', convert_from('\xc3a9', 'UTF8'))) AS jsb,
       cf_hash(json_build_object('k', convert_from('\xc3a9', 'UTF8'))) AS jsn;
SET client_encoding = 'LATIN1';
SELECT arr = cf_hash(ARRAY[convert_from('\xc3a9', 'UTF8')]) AS array_same,
       rec = cf_hash(ROW(convert_from('\xc3a9', 'UTF8'), 1)) AS record_same,
       txt = cf_hash(convert_from('\xc3a9', 'UTF8')) AS text_same,
       jsb = cf_hash(jsonb_build_object('k', convert_from('\xc3a9', 'UTF8'))) AS jsonb_same,
       jsn = cf_hash(json_build_object('k', convert_from('\xc3a9', 'UTF8'))) AS json_same
  FROM cf_enc;
-- a row with a column that cannot be hashed: a clear error, and the client
-- encoding is left as it was
SELECT cf_hash(ROW('x'::text, 'postgres=r/postgres'::aclitem));
SHOW client_encoding;
RESET client_encoding;
DROP TABLE cf_enc;

-- the hashes themselves: any change here breaks every stored filter
SELECT 'int2 0' AS value, cf_hash(0::int2) AS hash
UNION ALL SELECT 'int4 0', cf_hash(0::int4)
UNION ALL SELECT 'int8 0', cf_hash(0::int8)
UNION ALL SELECT 'int4 1', cf_hash(1)
UNION ALL SELECT 'int4 -1', cf_hash(-1)
UNION ALL SELECT 'int4 42', cf_hash(42)
UNION ALL SELECT 'int8 max', cf_hash(9223372036854775807)
UNION ALL SELECT 'int8 min', cf_hash(-9223372036854775808)
UNION ALL SELECT 'float8 0', cf_hash(0::float8)
UNION ALL SELECT 'float8 -0', cf_hash('-0'::float8)
UNION ALL SELECT 'float8 1.5', cf_hash(1.5::float8)
UNION ALL SELECT 'float4 1.5', cf_hash(1.5::float4)
UNION ALL SELECT 'float8 NaN', cf_hash('NaN'::float8)
UNION ALL SELECT 'float8 -Infinity', cf_hash('-Infinity'::float8)
UNION ALL SELECT 'float8 pi', cf_hash(pi())
UNION ALL SELECT 'numeric 1.0', cf_hash(1.0::numeric)
UNION ALL SELECT 'numeric -12.3400', cf_hash(-12.3400::numeric)
UNION ALL SELECT 'numeric NaN', cf_hash('NaN'::numeric)
UNION ALL SELECT 'text empty', cf_hash(''::text)
UNION ALL SELECT 'text abc', cf_hash('abc'::text)
UNION ALL SELECT 'text a b', cf_hash('a b'::text)
UNION ALL SELECT 'bpchar abc', cf_hash('abc'::char(10))
UNION ALL SELECT 'bytea 00ff', cf_hash('\x00ff'::bytea)
UNION ALL SELECT 'uuid', cf_hash('a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid)
UNION ALL SELECT 'date 2000-01-01', cf_hash('2000-01-01'::date)
UNION ALL SELECT 'date 2024-02-29', cf_hash('2024-02-29'::date)
UNION ALL SELECT 'timestamp', cf_hash('2024-02-29 12:34:56.789'::timestamp)
UNION ALL SELECT 'timestamptz', cf_hash('2024-02-29 12:34:56.789+00'::timestamptz)
UNION ALL SELECT 'bool false', cf_hash(false)
UNION ALL SELECT 'bool true', cf_hash(true)
UNION ALL SELECT 'inet 192.168.0.1', cf_hash('192.168.0.1'::inet)
UNION ALL SELECT 'record (1,a)', cf_hash(ROW(1, 'a'::text))
UNION ALL SELECT 'record (1,NULL)', cf_hash(ROW(1, NULL::text))
UNION ALL SELECT 'int4[] {1,2}', cf_hash('{1,2}'::int4[])
UNION ALL SELECT 'text[] {a,NULL}', cf_hash('{a,NULL}'::text[])
UNION ALL SELECT 'int4[] {{1,2},{3,4}}', cf_hash('{{1,2},{3,4}}'::int4[])
UNION ALL SELECT 'int4[] {}', cf_hash('{}'::int4[])
UNION ALL SELECT 'int4[] 1..100000', cf_hash(ARRAY(SELECT generate_series(1, 100000)))
UNION ALL SELECT 'numrange [1,2)', cf_hash(numrange(1, 2))
UNION ALL SELECT 'int4range empty', cf_hash('empty'::int4range)
UNION ALL SELECT 'int4multirange {[1,2)}', cf_hash('{[1,2)}'::int4multirange)
UNION ALL SELECT 'interval 1 day', cf_hash('1 day'::interval)
UNION ALL SELECT 'jsonb', cf_hash('{"a": [1, "x", null, true]}'::jsonb);

DROP TABLE cf_ids, cf_idf, cf_texts;
DROP DOMAIN cf_posint;
DROP TYPE cf_mood;
