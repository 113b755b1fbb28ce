-- cuckoo_equality_audit: the rule "a value SQL calls equal to a stored one
-- is found, or the call is refused", checked against the catalog (issue 33).
--
-- Every type that has an = (pg_operator) and edge values below, built-in,
-- contrib (citext, hstore, ltree, isn, cube), a domain, an enum, ranges,
-- multiranges, arrays and composites: for every pair of values for which
-- SQL's = (with implicit casts, as a user writes it) says true, a filter
-- built from one through each path (cf_add, cf_agg and its typed
-- overloads, ROW(), ARRAY[], cf_add_all) is probed with the other: the
-- answer must be true, or the build or the probe must raise.  Filters are
-- built under one set of session settings and probed under another, both
-- with a TimeZone that is not UTC.  The counts are printed; a miss is
-- listed by name.  cuckoo_equality_audit_1.out: without the contrib modules
-- (a PostgreSQL built from source).
SET client_min_messages = warning;
DO $$
DECLARE
	e text;
BEGIN
	FOREACH e IN ARRAY ARRAY['citext', 'hstore', 'ltree', 'isn', 'cube']
	LOOP
		BEGIN
			EXECUTE format('CREATE EXTENSION IF NOT EXISTS %I', e);
		EXCEPTION WHEN OTHERS THEN
			RAISE NOTICE 'extension % not available', e;
		END;
	END LOOP;
END
$$;
RESET client_min_messages;

CREATE TYPE audit_color AS ENUM ('red', 'green', 'blue');
CREATE DOMAIN audit_big AS bigint;
CREATE DOMAIN audit_txt AS text;
CREATE TYPE audit_pair AS (t timestamptz, n numeric);
CREATE TYPE audit_net AS (a inet, k bigint);

-- the edge values: typ is a type name as a user writes it, lit its literal
CREATE TABLE audit_val (id serial PRIMARY KEY, typ text NOT NULL, lit text NOT NULL);
INSERT INTO audit_val (typ, lit) VALUES
	('smallint', '0'), ('smallint', '-0'), ('smallint', '1'), ('smallint', '-32768'), ('smallint', '32767'),
	('integer', '0'), ('integer', '1'), ('integer', '16777217'), ('integer', '2147483647'), ('integer', '-2147483648'),
	('bigint', '0'), ('bigint', '1'), ('bigint', '16777217'), ('bigint', '9007199254740991'),
	('bigint', '9007199254740992'), ('bigint', '9007199254740993'), ('bigint', '9007199254740995'),
	('bigint', '-9007199254740993'), ('bigint', '4611686018427387903'), ('bigint', '9223372036854775807'),
	('bigint', '9223372036854775296'), ('bigint', '-9223372036854775808'),
	('real', '0'), ('real', '-0'), ('real', '1'), ('real', '1.5'), ('real', '0.1'), ('real', '16777216'),
	('real', '16777217'), ('real', 'NaN'), ('real', 'Infinity'), ('real', '-Infinity'),
	('real', '9007199254740992'), ('real', '9.223372e18'),
	('double precision', '0'), ('double precision', '-0'), ('double precision', '1'), ('double precision', '1.5'),
	('double precision', '0.1'), ('double precision', '16777217'), ('double precision', 'NaN'),
	('double precision', 'Infinity'), ('double precision', '-Infinity'),
	('double precision', '9007199254740991'), ('double precision', '9007199254740992'),
	('double precision', '9007199254740994'), ('double precision', '9007199254740996'),
	('double precision', '-9007199254740992'), ('double precision', '4611686018427387904'),
	('double precision', '9223372036854775807'), ('double precision', '-9223372036854775808'),
	('double precision', '1e300'), ('double precision', '0.10000000149011612'),
	('numeric', '0'), ('numeric', '-0'), ('numeric', '0.000'), ('numeric', '1'), ('numeric', '1.0'),
	('numeric', '1.00'), ('numeric', '1.5'), ('numeric', '1.50'), ('numeric', '0.1'), ('numeric', 'NaN'),
	('numeric', 'Infinity'), ('numeric', '-Infinity'), ('numeric', '16777217'),
	('numeric', '9007199254740992'), ('numeric', '9007199254740993'), ('numeric', '9007199254740993.5'),
	('numeric', '9223372036854775807'), ('numeric', '9223372036854775808'), ('numeric', '9223372036854775807.5'),
	('numeric', '1e300'), ('numeric', '0.1000000000000000055511151231257827'),
	('money', '1.00'), ('money', '1'), ('money', '-0'),
	('text', ''), ('text', 'abc'), ('text', 'abc '), ('text', 'abc  '), ('text', 'ABC'), ('text', ' abc'),
	('text', 'Alice'), ('text', 'alice'), ('text', 'é'), ('text', 'é'),
	('character varying', 'abc'), ('character varying', 'abc '), ('character varying', 'Alice'),
	('character varying(2)', 'ab'),
	('character(5)', 'abc'), ('character(5)', 'abc  '), ('character(1)', 'a'), ('character(5)', ''),
	('name', 'abc'), ('name', 'abc '), ('"char"', 'a'), ('"char"', ''), ('"char"', ' '), ('"char"', '\200'),
	('text', ' '), ('text', 'a'), ('text', '\200'), ('character(1)', ' '),
	('bytea', '\x'), ('bytea', '\x00'), ('bytea', '\x616263'),
	('uuid', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'), ('uuid', 'A0EEBC999C0B4EF8BB6D6BB9BD380A11'),
	('boolean', 'true'), ('boolean', 'false'),
	('date', '2024-01-01'), ('date', '2023-12-31'), ('date', 'infinity'), ('date', '-infinity'),
	('date', '4713-01-01 BC'), ('date', '5874897-12-31'),
	('timestamp', '2024-01-01 00:00'), ('timestamp', '2024-01-01 09:00'), ('timestamp', '2023-12-31 15:00'),
	('timestamp', '2023-12-31 20:30'), ('timestamp', 'infinity'), ('timestamp', '-infinity'),
	('timestamp', '2024-01-01 00:00:00.000001'),
	('timestamptz', '2024-01-01 00:00+00'), ('timestamptz', '2024-01-01 09:00+09'),
	('timestamptz', '2023-12-31 15:00+00'), ('timestamptz', '2024-01-01 00:00-03:30'),
	('timestamptz', 'infinity'), ('timestamptz', '-infinity'),
	('time', '12:00'), ('time', '12:00:00.000'), ('time', '24:00'), ('time', '00:00'),
	('timetz', '12:00+00'), ('timetz', '21:00+09'), ('timetz', '12:00:00+00'), ('timetz', '12:00+09'),
	('time', '12:00:00.000001'), ('interval', '12:00:00.000001'), ('interval', '0.5 days'),
	('interval', '1 day'), ('interval', '24 hours'), ('interval', '1 mon'), ('interval', '30 days'),
	('interval', '0'), ('interval', '-1 day'), ('interval', '-24 hours'), ('interval', '1 year'),
	('interval', '360 days'),
	('inet', '10.0.0.0/8'), ('inet', '10.0.0.0'), ('inet', '10.0.0.1'), ('inet', '10.0.0.1/32'),
	('inet', '10.1.2.3/8'), ('inet', '::ffff:10.0.0.1'), ('inet', '2001:db8::/32'), ('inet', '0.0.0.0/0'),
	('inet', '10.0.0.128/25'), ('cidr', '10.0.0.128/25'), ('cidr', '0.0.0.0/0'),
	('cidr', '10.0.0.0/8'), ('cidr', '10.0.0.1/32'), ('cidr', '10.0.0.0/32'), ('cidr', '2001:db8::/32'),
	('macaddr', '08:00:2b:01:02:03'), ('macaddr', '08-00-2B-01-02-03'),
	('macaddr8', '08:00:2b:01:02:03:04:05'), ('macaddr8', '08002B0102030405'),
	('bit(3)', '101'), ('bit varying', '101'), ('bit varying', '1010'),
	('jsonb', '{"a": 1}'), ('jsonb', '{"a": 1.0}'), ('jsonb', '{"a": 1.00, "b": null}'),
	('jsonb', '{"b": null, "a": 1}'), ('jsonb', '[1, "x"]'), ('jsonb', '"abc"'), ('jsonb', '1e2'),
	('jsonb', '100'),
	('tsvector', 'a b'), ('tsvector', 'b a a'), ('tsquery', 'a & b'),
	('oid', '1259'), ('regclass', 'pg_class'), ('regtype', 'integer'), ('oid', '23'),
	('oid', '4294967295'), ('xid', '4294967295'), ('integer', '1259'), ('bigint', '1259'),
	('smallint', '23'), ('integer', '42'), ('integer', '-1'), ('smallint', '-1'), ('bigint', '4294967295'),
	('pg_lsn', '0/16B3748'), ('pg_lsn', '0/016b3748'), ('xid8', '42'), ('xid', '42'), ('cid', '42'), ('tid', '(0,1)'),
	('int2vector', '1 2'), ('oidvector', '1 2'),
	('audit_color', 'red'), ('audit_color', 'green'),
	('audit_big', '9007199254740993'), ('audit_big', '1'),
	('audit_txt', 'abc'), ('audit_txt', 'abc '),
	('int4range', '[1,3)'), ('int4range', '[1,2]'), ('int4range', 'empty'), ('int4range', '[3,3)'),
	('int8range', '[1,3)'), ('int8range', '[9007199254740993,9007199254740995)'),
	('numrange', '[1.0,2)'), ('numrange', '[1.00,2.0)'), ('numrange', '(,)'),
	('daterange', '[2024-01-01,2024-01-02)'), ('daterange', '[2024-01-01,2024-01-01]'),
	('tsrange', '[2024-01-01 09:00,infinity)'),
	('tstzrange', '[2024-01-01 00:00+00,2024-01-02 00:00+00)'),
	('tstzrange', '[2024-01-01 09:00+09,2024-01-02 09:00+09)'),
	('int4multirange', '{[1,3)}'), ('int4multirange', '{[1,2],[3,3)}'),
	('nummultirange', '{[1.0,2)}'), ('nummultirange', '{[1.00,2.0)}'),
	('bigint[]', '{9007199254740993}'), ('bigint[]', '{1,2}'), ('integer[]', '{1,2}'),
	('double precision[]', '{9007199254740992}'), ('numeric[]', '{1.0,2.00}'), ('numeric[]', '{9007199254740993}'),
	('text[]', '{"abc "}'), ('text[]', '{abc}'), ('character(5)[]', '{abc}'), ('character varying[]', '{"abc "}'),
	('inet[]', '{10.0.0.0/8}'), ('cidr[]', '{10.0.0.0/8}'),
	('timestamptz[]', '{"2024-01-01 00:00+00"}'), ('timestamp[]', '{"2024-01-01 09:00"}'),
	('integer[]', '[0:1]={1,2}'), ('integer[]', '{}'), ('integer[]', '{{1,2}}'),
	('audit_pair', '("2024-01-01 00:00+00",1.0)'), ('audit_pair', '("2024-01-01 09:00+09",1.00)'),
	('audit_net', '(10.0.0.0/8,9007199254740993)'),
	('citext', 'Alice'), ('citext', 'alice'), ('citext', 'ALICE '),
	('hstore', 'a=>1, b=>2'), ('hstore', 'b=>2, a=>1'),
	('ltree', 'a.b'), ('ltree', 'a.b.c'),
	('ean13', '9780306406157'), ('isbn', '0-306-40615-2'), ('isbn13', '978-0-306-40615-7'),
	('cube', '(1,2)'), ('cube', '(1,2),(1,2)'),
	('box', '(1,1),(0,0)'), ('box', '(2,0.5),(0,0)'), ('circle', '<(0,0),1>'), ('circle', '<(5,5),1>'),
	('lseg', '[(0,0),(1,1)]'), ('lseg', '[(0,0),(1.0000000001,1)]'), ('line', '{1,-1,0}'),
	('line', '{2,-2,0}'), ('path', '[(0,0),(1,1)]'), ('path', '[(5,5),(6,6)]'),
	('cuckoofilter', 'zwIABA0BAgL0AQIA6AMAAHsUrkfheoQ/AAAAAAAAAAAAAAAAAAAAAAEAAAABAAAAQAQAAAAAAACvPq0u6b/xmQ=='),
	('cuckoofilter', 'zwIABA0BAgL0AQoA6AMAAHsUrkfheoQ/AAAAAAAAAAAAAAAAAAAAAAEAAAABAAAAQAQAAAAAAACuCoaBfl5s9w==');

-- values of types this server does not have (a contrib module missing) go
DELETE FROM audit_val WHERE to_regtype(typ) IS NULL;

-- Types that have an = and no edge values here: the audit does not reach
-- them (pseudo-types and internal types, shown so a new one shows up).
SELECT string_agg(t::regtype::text, ', ' ORDER BY t::regtype::text) AS types_without_values
FROM (SELECT DISTINCT oprleft AS t FROM pg_operator WHERE oprname = '=' AND oprleft <> 0
	  UNION SELECT DISTINCT oprright FROM pg_operator WHERE oprname = '=' AND oprright <> 0) o
WHERE NOT EXISTS (SELECT FROM audit_val v WHERE to_regtype(v.typ) = t)
  AND t::regtype::text NOT LIKE '%[]';

-- the paths: how a filter is built from value A, how it is probed with B,
-- and how SQL compares them (%1$s is A, %2$s is B)
CREATE TABLE audit_path (path text PRIMARY KEY, build text, probe text, eq text);
INSERT INTO audit_path VALUES
	('cf_add', 'SELECT cf_add(NULL, %1$s)', 'SELECT cf_contains($1, %2$s)', '%1$s = %2$s'),
	('cf_agg', 'SELECT cf_agg(x) FROM (VALUES (%1$s)) v(x)', 'SELECT $1 @> %2$s', '%1$s = %2$s'),
	('cf_agg_fpr', 'SELECT cf_agg(x, 0.001) FROM (SELECT %1$s UNION ALL SELECT %1$s) v(x)',
	 'SELECT cf_count($1, %2$s) > 0', '%1$s = %2$s'),
	('cf_add_all', 'SELECT cf_add_all(cf_create(100), ARRAY[%1$s])',
	 'SELECT cf_contains_any($1, ARRAY[%2$s])', '%1$s = %2$s'),
	('column', 'WITH v(x) AS MATERIALIZED (SELECT %1$s) SELECT cf_agg(x, 0.01, 10) FROM v',
	 'WITH v(x) AS MATERIALIZED (SELECT %2$s) SELECT cf_contains($1, x) FROM v', '%1$s = %2$s'),
	('row', 'SELECT cf_add(NULL, ROW(NULL::int, %1$s, 1))', 'SELECT cf_contains($1, ROW(NULL::int, %2$s, 1))',
	 'ROW(0, %1$s, 1) = ROW(0, %2$s, 1)'),
	('row_agg', 'SELECT cf_agg(ROW(%1$s))', 'SELECT cf_contains($1, ROW(%2$s))', 'ROW(%1$s) = ROW(%2$s)'),
	('array', 'SELECT cf_add(NULL, ARRAY[%1$s])', 'SELECT cf_contains($1, ARRAY[%2$s])',
	 'ARRAY[%1$s] = ARRAY[%2$s]');

-- settings while the filters are built, and (below) while they are probed
SET TimeZone = 'America/St_Johns';
SET DateStyle = 'SQL, DMY';
SET IntervalStyle = 'sql_standard';
SET extra_float_digits = 0;

-- every filter: one per value and path, or the error that refused it
CREATE TABLE audit_filter (id int, path text, f cuckoofilter, sqlstate text);
DO $$
DECLARE
	v record;
	p record;
	f cuckoofilter;
BEGIN
	FOR v IN SELECT * FROM audit_val LOOP
		FOR p IN SELECT * FROM audit_path LOOP
			BEGIN
				EXECUTE format(p.build, format('%L::%s', v.lit, v.typ)) INTO f;
				INSERT INTO audit_filter VALUES (v.id, p.path, f, NULL);
			EXCEPTION WHEN OTHERS THEN
				INSERT INTO audit_filter VALUES (v.id, p.path, NULL, SQLSTATE);
			END;
		END LOOP;
	END LOOP;
END
$$;

SET TimeZone = 'Asia/Tokyo';
SET DateStyle = 'ISO, MDY';
SET IntervalStyle = 'postgres_verbose';
SET extra_float_digits = 3;

-- the pairs SQL calls equal (under the probing settings), type pair by
-- type pair; a pair of types without an = between them has none.  Where
-- the = exists but raises for some values (bigint = oid casts the bigint
-- to oid: out of range past 2^32), the pairs are tried one by one.
CREATE TABLE audit_pairs (a int, b int);
DO $$
DECLARE
	t record;
	p record;
BEGIN
	FOR t IN SELECT DISTINCT a.typ AS ta, b.typ AS tb
			 FROM audit_val a, audit_val b LOOP
		BEGIN
			EXECUTE format('INSERT INTO audit_pairs SELECT a.id, b.id FROM audit_val a, audit_val b '
						   'WHERE a.typ = %L AND b.typ = %L AND (a.lit::%s = b.lit::%s) IS TRUE',
						   t.ta, t.tb, t.ta, t.tb);
		EXCEPTION
			WHEN undefined_function OR ambiguous_function OR datatype_mismatch THEN
				NULL;			-- no = between these types
			WHEN OTHERS THEN
				FOR p IN SELECT a.id AS a, a.lit AS la, b.id AS b, b.lit AS lb
						 FROM audit_val a, audit_val b WHERE a.typ = t.ta AND b.typ = t.tb LOOP
					BEGIN
						EXECUTE format('INSERT INTO audit_pairs SELECT %s, %s WHERE (%L::%s = %L::%s) IS TRUE',
									   p.a, p.b, p.la, t.ta, p.lb, t.tb);
					EXCEPTION WHEN OTHERS THEN
						NULL;	-- this pair's = raises
					END;
				END LOOP;
		END;
	END LOOP;
END
$$;

-- probe every filter of A with every B equal to A
CREATE TABLE audit_result (a int, b int, path text, outcome text, sqlstate text);
DO $$
DECLARE
	r record;
	eq boolean;
	found boolean;
	va text;
	vb text;
BEGIN
	FOR r IN SELECT pr.a, pr.b, p.path, p.probe, p.eq, f.f, f.sqlstate, a.typ AS ta, a.lit AS la,
					b.typ AS tb, b.lit AS lb
			 FROM audit_pairs pr JOIN audit_val a ON a.id = pr.a JOIN audit_val b ON b.id = pr.b
			 CROSS JOIN audit_path p JOIN audit_filter f ON f.id = pr.a AND f.path = p.path
			 ORDER BY pr.a, pr.b, p.path LOOP
		va := format('%L::%s', r.la, r.ta);
		vb := format('%L::%s', r.lb, r.tb);
		BEGIN
			EXECUTE 'SELECT ' || format(r.eq, va, vb) INTO eq;
		EXCEPTION WHEN OTHERS THEN
			eq := NULL;			-- SQL has no = for this form of the pair
		END;
		CONTINUE WHEN eq IS NOT TRUE;
		-- ARRAY[] of an array is that array: cf_add_all would add its elements
		CONTINUE WHEN r.path = 'cf_add_all' AND (r.ta LIKE '%[]' OR r.tb LIKE '%[]');
		IF r.sqlstate IS NOT NULL THEN
			INSERT INTO audit_result VALUES (r.a, r.b, r.path, 'refused', r.sqlstate);
			CONTINUE;
		END IF;
		BEGIN
			EXECUTE format(r.probe, va, vb) INTO found USING r.f;
			-- a citext constant reaches a function's text form as a text
			-- constant: PostgreSQL folds the implicit cast while parsing,
			-- so no function can tell it from text (docs/hashing.md)
			INSERT INTO audit_result VALUES (r.a, r.b, r.path,
				CASE WHEN found THEN 'found'
					 WHEN 'citext' IN (r.ta, r.tb) AND r.path IN ('cf_add', 'cf_agg') THEN 'citext constant'
					 ELSE 'missed' END, NULL);
		EXCEPTION WHEN OTHERS THEN
			INSERT INTO audit_result VALUES (r.a, r.b, r.path, 'refused', SQLSTATE);
		END;
	END LOOP;
END
$$;

-- the counts: value pairs SQL calls equal, pairs x paths checked, and how
-- they ended (missed must be 0)
SELECT (SELECT count(*) FROM audit_val) AS values,
	   (SELECT count(DISTINCT to_regtype(typ)) FROM audit_val) AS types,
	   (SELECT count(*) FROM audit_pairs) AS equal_pairs,
	   count(*) AS checked,
	   count(*) FILTER (WHERE outcome = 'found') AS found,
	   count(*) FILTER (WHERE outcome = 'refused') AS refused,
	   count(*) FILTER (WHERE outcome = 'missed') AS missed,
	   count(*) FILTER (WHERE outcome = 'citext constant') AS citext_constant
FROM audit_result;

-- per path
SELECT path, count(*) AS checked,
	   count(*) FILTER (WHERE outcome = 'found') AS found,
	   count(*) FILTER (WHERE outcome = 'refused') AS refused,
	   count(*) FILTER (WHERE outcome = 'missed') AS missed
FROM audit_result GROUP BY path ORDER BY path;

-- refusals by SQLSTATE (each is a clear error of that class)
SELECT sqlstate, count(*) FROM audit_result WHERE outcome = 'refused' GROUP BY 1 ORDER BY 1;
-- what is refused: type pairs (stored, probe), with the paths
SELECT r.sqlstate, to_regtype(a.typ) AS stored, to_regtype(b.typ) AS probe,
	   string_agg(DISTINCT r.path, ' ') AS paths
FROM audit_result r JOIN audit_val a ON a.id = r.a JOIN audit_val b ON b.id = r.b
WHERE r.outcome = 'refused' GROUP BY 1, 2, 3 ORDER BY 1, 2::text, 3::text;

-- the misses, by name (none), and the citext constants
SELECT r.outcome, r.path, format('%L::%s', a.lit, a.typ) AS stored, format('%L::%s', b.lit, b.typ) AS probe
FROM audit_result r JOIN audit_val a ON a.id = r.a JOIN audit_val b ON b.id = r.b
WHERE r.outcome IN ('missed', 'citext constant') ORDER BY 1, 2, 3, 4;

RESET TimeZone;
RESET DateStyle;
RESET IntervalStyle;
RESET extra_float_digits;
DROP TABLE audit_val, audit_path, audit_filter, audit_pairs, audit_result;
DROP TYPE audit_pair, audit_net, audit_color;
DROP DOMAIN audit_big, audit_txt;
