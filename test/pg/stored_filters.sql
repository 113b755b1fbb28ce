-- stored_filters.sql - a database holding cuckoo filters of every kind, for
-- the tests that change what is underneath stored data and must keep every
-- answer: test/pg/update.sh (ALTER EXTENSION cuckoo UPDATE) and
-- test/pg/pg_upgrade.sh (a cluster upgraded to a newer PostgreSQL).
-- Expects the extension created and psql's current directory at the top of
-- the source tree (it reads test/golden).  stored_answers.sql prints every
-- answer these filters give.

-- the values each filter was given (copies > 0) or never given / deleted (0)
CREATE TABLE cf_values (fname text, kind text, v text, copies int);
-- the filters, and where they came from
CREATE TABLE filters (name text PRIMARY KEY, origin text, f cuckoofilter);

-- 1. the 19 golden filters written by cuckoo 1.0 (test/golden), as stored
--    text and as binary COPY, with their values
CREATE TEMP TABLE golden_text (name text, t text);
CREATE TEMP TABLE golden_bin (name text, f cuckoofilter);
CREATE TEMP TABLE golden_values (name text, kind text, v text, net int, c boolean, n int);
\copy golden_text FROM 'test/golden/filters.txt'
\copy golden_bin FROM 'test/golden/filters.bin' WITH (FORMAT binary)
\copy golden_values FROM 'test/golden/values.txt'
INSERT INTO filters SELECT 'golden ' || name, 'golden text', t::cuckoofilter FROM golden_text;
INSERT INTO filters SELECT 'golden bin ' || name, 'golden binary', f FROM golden_bin;
INSERT INTO cf_values SELECT 'golden ' || name, kind, v, net FROM golden_values;
INSERT INTO cf_values SELECT 'golden bin ' || name, kind, v, net FROM golden_values;

-- 2. filters built here, by the installed version: text and int values,
--    grown (sub-filters added), cf_agg, cf_union, deletes, empty, NULL
INSERT INTO cf_values SELECT 'text', 'text', 't' || i, 1 FROM generate_series(1, 2000) i;
INSERT INTO cf_values SELECT 'int8', 'int8', i::text, 1 FROM generate_series(1, 3000) i;
INSERT INTO cf_values SELECT 'grown', 'text', 'g' || i, 1 FROM generate_series(1, 3000) i;
INSERT INTO cf_values SELECT 'agg text', 'text', 'a' || i, 1 FROM generate_series(1, 5000) i;
INSERT INTO cf_values SELECT 'agg int4', 'int4', i::text, 1 FROM generate_series(1, 5000) i;
INSERT INTO cf_values SELECT 'dups', 'text', 'd' || i, 3 FROM generate_series(1, 10) i;
INSERT INTO cf_values SELECT 'deleted', 'int4', i::text, CASE WHEN i % 2 = 0 THEN 0 ELSE 1 END
	FROM generate_series(1, 400) i;
INSERT INTO cf_values SELECT 'union', 'text', 't' || i, 1 FROM generate_series(1, 2000) i;
INSERT INTO cf_values SELECT 'union', 'text', 'u' || i, 1 FROM generate_series(1, 700) i;
-- 'large' holds 1..200000; every 50th value is asked
INSERT INTO cf_values SELECT 'large', 'int8', i::text, 1 FROM generate_series(50, 200000, 50) i;
-- probes never added, for every filter built here
-- (of each filter's own kind: a filter written by 1.1 refuses other kinds)
INSERT INTO cf_values SELECT n, 'text', 'probe' || i, 0
	FROM unnest(ARRAY['text', 'grown', 'agg text', 'dups', 'union', 'empty']) n, generate_series(1, 300) i;
INSERT INTO cf_values SELECT n, 'int8', (-i)::text, 0
	FROM unnest(ARRAY['int8', 'agg int4', 'deleted', 'large']) n, generate_series(1, 300) i;

-- a value of the recorded type, asked of a filter
CREATE FUNCTION cf_ask(f cuckoofilter, kind text, v text) RETURNS text
LANGUAGE sql IMMUTABLE STRICT AS $$
	SELECT CASE kind
		WHEN 'text' THEN cf_contains(f, v) || '/' || cf_count(f, v) || '/' || (f @> v)
		WHEN 'varchar' THEN cf_contains(f, v::varchar) || '/' || cf_count(f, v::varchar)
		WHEN 'bpchar' THEN cf_contains(f, v::bpchar) || '/' || cf_count(f, v::bpchar)
		WHEN 'name' THEN cf_contains(f, v::name) || '/' || cf_count(f, v::name)
		WHEN 'bytea' THEN cf_contains(f, v::bytea) || '/' || cf_count(f, v::bytea)
		WHEN 'int2' THEN cf_contains(f, v::int2) || '/' || cf_count(f, v::int2)
		WHEN 'int4' THEN cf_contains(f, v::int4) || '/' || cf_count(f, v::int4) || '/' || (f @> v::int4)
		WHEN 'int8' THEN cf_contains(f, v::int8) || '/' || cf_count(f, v::int8) || '/' || (f @> v::int8)
		WHEN 'float4' THEN cf_contains(f, v::float4) || '/' || cf_count(f, v::float4)
		WHEN 'float8' THEN cf_contains(f, v::float8) || '/' || cf_count(f, v::float8)
		WHEN 'numeric' THEN cf_contains(f, v::numeric) || '/' || cf_count(f, v::numeric)
		WHEN 'uuid' THEN cf_contains(f, v::uuid) || '/' || cf_count(f, v::uuid)
		WHEN 'date' THEN cf_contains(f, v::date) || '/' || cf_count(f, v::date)
		WHEN 'timestamp' THEN cf_contains(f, v::timestamp) || '/' || cf_count(f, v::timestamp)
		WHEN 'timestamptz' THEN cf_contains(f, v::timestamptz) || '/' || cf_count(f, v::timestamptz)
		WHEN 'bool' THEN cf_contains(f, v::bool) || '/' || cf_count(f, v::bool)
		WHEN 'inet' THEN cf_contains(f, v::inet) || '/' || cf_count(f, v::inet)
	END
$$;

CREATE FUNCTION build(f cuckoofilter, name text) RETURNS cuckoofilter LANGUAGE plpgsql AS $$
DECLARE x record;
BEGIN
	FOR x IN SELECT kind, v, copies FROM cf_values WHERE fname = name AND copies > 0 ORDER BY kind, v LOOP
		FOR k IN 1 .. x.copies LOOP
			f := CASE x.kind WHEN 'text' THEN cf_add(f, x.v)
			                 WHEN 'int4' THEN cf_add(f, x.v::int4)
			                 ELSE cf_add(f, x.v::int8) END;
		END LOOP;
	END LOOP;
	RETURN f;
END $$;

SET timezone = 'UTC';
INSERT INTO filters VALUES
	('text', 'cf_add', build(cf_create(2500), 'text')),
	('int8', 'cf_add, bucket 8, fpr 0.001', build(cf_create(3500, 0.001, 8), 'int8')),
	('grown', 'cf_add past capacity', build(cf_create(100, 0.01, 4, 500, 2), 'grown')),
	('dups', 'three copies each', build(cf_create(50), 'dups')),
	('empty', 'cf_create', cf_create(1000)),
	('null', 'NULL', NULL);
INSERT INTO filters SELECT 'agg text', 'cf_agg', cf_agg(v) FROM cf_values WHERE fname = 'agg text' AND copies > 0;
INSERT INTO filters SELECT 'agg int4', 'cf_agg, fpr 0.01', cf_agg(v::int4, 0.01) FROM cf_values WHERE fname = 'agg int4' AND copies > 0;
-- added, then every second value deleted
INSERT INTO filters SELECT 'deleted', 'cf_add then cf_delete', f FROM (
	SELECT cf_add_all(cf_create(500), array_agg(i ORDER BY i)) f FROM generate_series(1, 400) i) s;
UPDATE filters SET f = (SELECT cf_delete(cf_delete(f, 2), 4)) WHERE name = 'deleted';
DO $$
BEGIN
	FOR i IN 6 .. 400 BY 2 LOOP
		UPDATE filters SET f = cf_delete(f, i) WHERE name = 'deleted';
	END LOOP;
END $$;
INSERT INTO filters SELECT 'union', 'cf_union', cf_union((SELECT f FROM filters WHERE name = 'text'),
	build(cf_create(1000), 'union')) ;
-- a few hundred kB that does not compress: stored out of line (TOAST)
INSERT INTO filters SELECT 'large', 'cf_agg, out of line', cf_agg(i, 0.001)
	FROM generate_series(1::int8, 200000) i;

-- objects over the filters that must keep working
CREATE INDEX filters_has_t1 ON filters ((f @> 't1'::text))
	WHERE name NOT IN ('int8', 'agg int4', 'deleted', 'large');
CREATE VIEW filter_sizes AS SELECT name, (cf_info(f)).items FROM filters;
CREATE MATERIALIZED VIEW agg_by_kind AS SELECT kind, cf_agg(v) AS f FROM cf_values GROUP BY kind;
