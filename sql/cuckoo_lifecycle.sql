-- cuckoo_lifecycle: the extension's life in a database (drop / create
-- cycles, dependent objects, relocation, update), cancellation of long
-- work, limits, absurd parameters, and the inventory of hostile inputs with
-- the exact SQLSTATE and message each one gets (docs/hardening.md).
-- It runs in a database of its own, so that dropping the extension cannot
-- meet objects the other tests left behind.
\set regress_db :DBNAME
CREATE DATABASE cuckoo_lifecycle;
\c cuckoo_lifecycle
CREATE EXTENSION cuckoo;

-- what the default version is: the version, the control file's answers
-- (1.0, 1.1, 1.2, 1.3, 1.4 and 1.5), and every member object (an update script must account
-- for each of them; test/pg/update.sh updates a 1.0 full of filters)
SELECT extname, extversion, extrelocatable FROM pg_extension WHERE extname = 'cuckoo';
SELECT name, version, superuser, trusted, relocatable, schema, requires
  FROM pg_available_extension_versions WHERE name = 'cuckoo';
SELECT pg_describe_object(classid, objid, 0) AS member
  FROM pg_depend
 WHERE refclassid = 'pg_extension'::regclass AND deptype = 'e'
   AND refobjid = (SELECT oid FROM pg_extension WHERE extname = 'cuckoo')
 ORDER BY 1;

-- ALTER EXTENSION UPDATE is a no-op at the newest version, 1.5; there is
-- no path back to 1.0, 1.1, 1.2, 1.3 or 1.4
ALTER EXTENSION cuckoo UPDATE;
ALTER EXTENSION cuckoo UPDATE TO '1.0';
ALTER EXTENSION cuckoo UPDATE TO '1.1';
ALTER EXTENSION cuckoo UPDATE TO '1.2';
ALTER EXTENSION cuckoo UPDATE TO '1.3';
ALTER EXTENSION cuckoo UPDATE TO '1.4';
ALTER EXTENSION cuckoo UPDATE TO '1.5';
SELECT extversion FROM pg_extension WHERE extname = 'cuckoo';
CREATE EXTENSION cuckoo;
CREATE EXTENSION IF NOT EXISTS cuckoo;
CREATE EXTENSION cuckoo VERSION '0.9';

-- drop and create again, several times, without dependent objects
DROP EXTENSION cuckoo;
SELECT count(*) AS leftover_functions FROM pg_proc WHERE proname LIKE 'cf\_%' OR proname LIKE 'cuckoo%';
SELECT cf_create(10);
CREATE EXTENSION cuckoo;
SELECT cf_add(cf_create(10), 'x') @> 'x' AS works;
DROP EXTENSION cuckoo;
CREATE EXTENSION cuckoo;
DROP EXTENSION cuckoo;
CREATE EXTENSION cuckoo;
SELECT (cf_info(cf_agg(g))).items AS works_after_cycles FROM generate_series(1, 100) g;

-- dependent objects: a column, a view, a function, a domain; DROP refuses
-- without CASCADE and names each of them
CREATE TABLE lc_tab (id int, f cuckoofilter);
INSERT INTO lc_tab VALUES (1, cf_add(cf_create(10), 'a')), (2, NULL);
CREATE VIEW lc_view AS SELECT id, f @> 'a' AS has_a FROM lc_tab;
CREATE FUNCTION lc_fn(x cuckoofilter) RETURNS bigint LANGUAGE sql AS $$ SELECT (cf_info(x)).items $$;
CREATE DOMAIN lc_dom AS cuckoofilter CHECK ((cf_info(VALUE)).bucket_size = 4);
DROP EXTENSION cuckoo;
DROP EXTENSION cuckoo RESTRICT;
SELECT id, has_a FROM lc_view ORDER BY id;
-- a dependent table only (the most common case)
DROP VIEW lc_view;
DROP FUNCTION lc_fn(cuckoofilter);
DROP DOMAIN lc_dom;
DROP EXTENSION cuckoo;
-- CASCADE drops the column and keeps the table
DROP EXTENSION cuckoo CASCADE;
SELECT * FROM lc_tab ORDER BY id;
DROP TABLE lc_tab;
CREATE EXTENSION cuckoo;

-- the members cannot be dropped or altered on their own
DROP FUNCTION cf_create(bigint, double precision, integer, integer, integer);
DROP TYPE cuckoofilter;

-- relocatable: another schema, then moved back; the operator and the
-- aggregates follow, and the functions do not need the schema on the path
CREATE SCHEMA lc_schema;
ALTER EXTENSION cuckoo SET SCHEMA lc_schema;
SELECT cf_create(10);
SELECT lc_schema.cf_contains(lc_schema.cf_add(lc_schema.cf_create(10), 'x'), 'x') AS qualified;
SET search_path = lc_schema, public;
SELECT cf_add(cf_create(10), 'x') @> 'x' AS on_path, (cf_info(cf_agg(g))).items FROM generate_series(1, 10) g;
RESET search_path;
SELECT (lc_schema.cf_info(lc_schema.cf_add(NULL::lc_schema.cuckoofilter, 1))).capacity AS default_capacity;
ALTER EXTENSION cuckoo SET SCHEMA public;
DROP SCHEMA lc_schema;
DROP EXTENSION cuckoo;
CREATE SCHEMA lc_schema;
CREATE EXTENSION cuckoo SCHEMA lc_schema;
SELECT lc_schema.cf_create(10) IS NOT NULL AS created_in_schema;
DROP SCHEMA lc_schema CASCADE;
CREATE EXTENSION cuckoo;

-- cancellation: long aggregates stop cleanly at statement_timeout, and the
-- session goes on
SET statement_timeout = '200ms';
SELECT cf_agg(g) FROM (SELECT generate_series(1, 50000000) AS g) s;
SELECT cf_agg(g, 0.001) FROM (SELECT generate_series(1, 50000000) AS g) s;
SELECT cf_union_agg(cf_create(100 + g % 2)) FROM (SELECT generate_series(1, 50000000) AS g) s;
SET statement_timeout = '1s';
-- 20 million distinct values: about 1.2 s of transitions, then 3 s of final
-- function (sort, then build) on the 2026 development machine, so the
-- cancel lands late in the transitions or, on a faster machine, in the
-- final function; a machine would have to be 4 times faster to finish
SELECT (cf_info(cf_agg(g))).items FROM (SELECT generate_series(1, 20000000) AS g) s;
RESET statement_timeout;
SELECT (cf_info(cf_agg(g))).items AS after_cancel FROM generate_series(1, 1000) g;

-- size limits: a value holds at most 1 GB, checked before any allocation
SELECT cf_create(4294967296);
SELECT cf_create(9223372036854775807);
SELECT cf_create(4294967295, 0.3, 2);
SELECT cf_create(1000000000);
SELECT cf_create(300000000, 1e-9, 2);
SELECT bytes FROM cf_info(cf_create(100000000, 0.01, 8, 500, 0));

-- growth: a split table (what cf_create writes) doubles in place, with no
-- limit short of 2^32 buckets; a chain of tables (kept where the rate is too
-- low for the split width schedule, as 1e-9 here) with expansion 1 adds a
-- sub-filter of the same size each time, until the 32-sub-filter limit;
-- then a clean error, and the filter is intact
CREATE FUNCTION lc_fill(f cuckoofilter, n int) RETURNS cuckoofilter LANGUAGE plpgsql AS $$
BEGIN
	FOR i IN 1 .. n LOOP f := cf_add(f, i); END LOOP;
	RETURN f;
END $$;
CREATE FUNCTION lc_fill_until_error(f cuckoofilter, n int) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	added int := 0;
	st text; msg text; det text;
BEGIN
	FOR i IN 1 .. n LOOP
		BEGIN
			f := cf_add(f, i);
			added := added + 1;
		EXCEPTION WHEN OTHERS THEN
			GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT, det = PG_EXCEPTION_DETAIL;
			RETURN format('after %s adds: %s %s (%s); items %s, sub-filters %s, all present %s',
						  added, st, msg, det, (cf_info(f)).items, (cf_info(f)).subfilters,
						  (SELECT bool_and(f @> g) FROM generate_series(1, added) g));
		END;
	END LOOP;
	RETURN format('no error after %s adds', added);
END $$;
SELECT lc_fill_until_error(cf_create(1, 0.01, 2, 0, 1), 1000);
SELECT lc_fill_until_error(cf_create(1, 0.01, 2, 500, 1), 1000);
SELECT lc_fill_until_error(cf_create(1, 1e-9, 2, 500, 1), 1000);
SELECT lc_fill_until_error(cf_create(10, 0.01, 4, 500, 0), 1000);
-- a split table keeps one slot width per level (byte 8 of each 16-byte
-- descriptor after the 40-byte header); chained sub-filters widen their
-- fingerprints by one bit each, up to 32
CREATE FUNCTION lc_widths(f cuckoofilter) RETURNS text LANGUAGE sql AS $$
	SELECT string_agg(get_byte(cuckoofilter_send(f), 40 + 16 * k + 8)::text, ' ' ORDER BY k)
	  FROM generate_series(0, (cf_info(f)).subfilters - 1) k
$$;
SELECT subfilters, bytes, lc_widths(f) FROM (SELECT lc_fill(cf_create(1, 0.01, 2, 0, 1), 64) AS f) s, cf_info(f);
SELECT subfilters, bytes, lc_widths(f) FROM (SELECT lc_fill(cf_create(1, 1e-9, 2, 0, 1), 60) AS f) s, cf_info(f);
-- unions of chains stop at 32 sub-filters too; split tables of one family
-- fold into one table, of two families stand side by side
SELECT (cf_info(cf_union(a, a))).subfilters FROM (SELECT lc_fill(cf_create(1, 1e-9, 2, 0, 1), 40) AS a) s;
SELECT (cf_info(cf_union(a, a))).subfilters FROM (SELECT lc_fill(cf_create(1, 0.01, 2, 0, 1), 40) AS a) s;
SELECT (cf_info(cf_union(a, b))).subfilters
  FROM (SELECT lc_fill(cf_create(1, 0.01, 2, 0, 1), 40) AS a, lc_fill(cf_create(2, 0.01, 2, 0, 1), 20) AS b) s;

-- absurd parameters
CREATE FUNCTION lc_try(q text) RETURNS TABLE (state text, message text, detail text)
LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE q;
	state := '00000'; message := 'accepted';
	RETURN NEXT;
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS state = RETURNED_SQLSTATE, message = MESSAGE_TEXT, detail = PG_EXCEPTION_DETAIL;
	RETURN NEXT;
END $$;
SELECT q, r.* FROM (VALUES
	('SELECT cf_create(0)'),
	('SELECT cf_create(-1)'),
	('SELECT cf_create(-9223372036854775808)'),
	('SELECT cf_create(4294967295)'),
	('SELECT cf_create(10, 0)'),
	('SELECT cf_create(10, -0.0)'),
	('SELECT cf_create(10, 0.5)'),
	('SELECT cf_create(10, 0.4999999)'),
	('SELECT cf_create(10, 1)'),
	('SELECT cf_create(10, ''NaN'')'),
	('SELECT cf_create(10, ''Infinity'')'),
	('SELECT cf_create(10, ''-Infinity'')'),
	('SELECT cf_create(10, -0.1)'),
	('SELECT cf_create(10, 1e-12)'),
	('SELECT cf_create(10, 1e-300)'),
	('SELECT cf_create(10, 5e-324)'),
	('SELECT cf_create(10, bucket_size => 3)'),
	('SELECT cf_create(10, bucket_size => 0)'),
	('SELECT cf_create(10, bucket_size => -4)'),
	('SELECT cf_create(10, bucket_size => 2147483647)'),
	('SELECT cf_create(10, max_kicks => -1)'),
	('SELECT cf_create(10, max_kicks => 65535)'),
	('SELECT cf_create(10, max_kicks => 65536)'),
	('SELECT cf_create(10, max_kicks => -2147483648)'),
	('SELECT cf_create(10, expansion => -1)'),
	('SELECT cf_create(10, expansion => 16)'),
	('SELECT cf_create(10, expansion => 17)'),
	('SELECT cf_create(10, expansion => 2147483647)'),
	('SELECT cf_union(cf_create(10, bucket_size => 2), cf_create(10, bucket_size => 4))'),
	('SELECT cf_union(cf_create(10, 0.01), cf_create(10, 0.001))'),
	('SELECT cf_union_agg(f) FROM (VALUES (cf_create(10)), (cf_create(10, 0.1))) v(f)'),
	('SELECT cf_agg(g, 0) FROM generate_series(1, 3) g'),
	('SELECT cf_agg(g, 0.5) FROM generate_series(1, 3) g'),
	('SELECT cf_agg(g, ''NaN'') FROM generate_series(1, 3) g'),
	('SELECT cf_agg(g, 1e-12) FROM generate_series(1, 3) g'),
	('SELECT cf_agg(g, NULL) FROM generate_series(1, 3) g'),
	('SELECT cf_agg(g, g * 0.01) FROM generate_series(1, 3) g'),
	('SELECT cf_agg_trans(NULL, 1)'),
	('SELECT cf_create(100, NULL)'),
	('SELECT cf_set_kind(cf_create(10), NULL)'),
	('SELECT cf_contains(cf_add(NULL, now()), current_date)'),
	('SELECT cf_try_add(cf_create(1), ''(1,2)''::point)'),
	('SELECT cf_agg(v) FROM (VALUES (point(1, 2))) s(v)'),
	('SELECT cf_add(cf_create(1), ''x''::"char")'),
	('SELECT cf_contains(cf_create(1), ''x''::"char")'),
	('SELECT cf_hash(''{1,2}''::int[])'),
	('SELECT cf_hash(ROW(1, ''a''))'),
	('SELECT cf_add(cf_create(1), ''(1,2)''::point)')
) v(q), lc_try(q) r;

-- hostile inputs: text through cuckoofilter_in, and the same bytes through
-- cuckoofilter_recv (COPY BINARY from a file in the server's data
-- directory).  The base of every case is cf_create(1) as cuckoo 1.0 wrote it
-- (format version 1, read forever): 16-byte header, one 12-byte sub-filter
-- descriptor, a 5-byte table (1 bucket x 4 slots x 10 bits).
CREATE FUNCTION lc_put32(b bytea, off integer, v bigint) RETURNS bytea
LANGUAGE sql IMMUTABLE AS $$
	SELECT set_byte(set_byte(set_byte(set_byte(b,
		off, (v & 255)::int), off + 1, ((v >> 8) & 255)::int),
		off + 2, ((v >> 16) & 255)::int), off + 3, ((v >> 24) & 255)::int)
$$;
CREATE TABLE lc_cases (n serial, name text, b bytea, t text);
INSERT INTO lc_cases (name, b)
SELECT name, b FROM (SELECT '\xcf0100040a010200f40100000100000001000000000000000a0000000000000000'::bytea AS g,
                            '\xcf0100040a010200f40100000100000001000000010000000a000000a601000000'::bytea AS x,
                            '\xcf01000209010200f401000001000000010000000000000009000000000000'::bytea AS g2) s,
LATERAL (VALUES
	('valid (control)',                 g),
	('valid, one item (control)',       x),
	('empty',                           ''::bytea),
	('1 byte',                          '\xcf'::bytea),
	('15 bytes (short header)',         substring(g FROM 1 FOR 15)),
	('header only, no descriptor',      substring(g FROM 1 FOR 16)),
	('truncated descriptor',            substring(g FROM 1 FOR 27)),
	('no table',                        substring(g FROM 1 FOR 28)),
	('truncated table',                 substring(g FROM 1 FOR 32)),
	('trailing garbage byte',           g || '\x00'::bytea),
	('trailing garbage 1 KB',           g || decode(repeat('ff', 1024), 'hex')),
	('wrong magic',                     set_byte(g, 0, 0)),
	('version 0',                       set_byte(g, 1, 0)),
	('version 2 (a version-1 header)',  set_byte(g, 1, 2)),
	('version 3',                       set_byte(g, 1, 3)),
	('version 255',                     set_byte(g, 1, 255)),
	('flags 1',                         set_byte(g, 2, 1)),
	('flags 128',                       set_byte(g, 2, 128)),
	('reserved byte 7',                 set_byte(g, 7, 1)),
	('reserved bytes 10-11',            set_byte(g, 11, 128)),
	('bucket size 0',                   set_byte(g, 3, 0)),
	('bucket size 3',                   set_byte(g, 3, 3)),
	('bucket size 16',                  set_byte(g, 3, 16)),
	('fpbits 3',                        set_byte(g, 4, 3)),
	('fpbits 33',                       set_byte(g, 4, 33)),
	('nstages 0',                       set_byte(g, 5, 0)),
	('nstages 2, one descriptor',       set_byte(g, 5, 2)),
	('nstages 33',                      set_byte(g, 5, 33)),
	('nstages 255',                     set_byte(g, 5, 255)),
	('expansion 17',                    set_byte(g, 6, 17)),
	('expansion 255',                   set_byte(g, 6, 255)),
	('capacity 0',                      lc_put32(g, 12, 0)),
	('capacity 2^32-1',                 lc_put32(g, 12, 4294967295)),
	('nbuckets 0',                      lc_put32(g, 16, 0)),
	('nbuckets 2',                      lc_put32(g, 16, 2)),
	('nbuckets 2^32-1 (huge)',          lc_put32(g, 16, 4294967295)),
	('nbuckets 2^31',                   lc_put32(g, 16, 2147483648)),
	('nitems 1, table empty',           lc_put32(g, 20, 1)),
	('nitems 5 > 4 slots',              lc_put32(g, 20, 5)),
	('nitems 2^32-1',                   lc_put32(g, 20, 4294967295)),
	('nitems 0, one item in table',     lc_put32(x, 20, 0)),
	('nitems 2, one item in table',     lc_put32(x, 20, 2)),
	('stage fpbits 3',                  set_byte(g, 24, 3)),
	('stage fpbits 33',                 set_byte(g, 24, 33)),
	('stage fpbits 11 (table too short)', set_byte(g, 24, 11)),
	('stage fpbits 9 (same table size)', set_byte(g, 24, 9)),
	('stage reserved byte',             set_byte(g, 25, 1)),
	('slot set, nitems 0',              set_byte(g, 28, 1)),
	('trailing bits set (bucket 2)',    set_byte(g2, 30, 240)),
	('trailing bit set (bucket 2)',     set_byte(g2, 30, 16)),
	('every byte 0xff',                 decode(repeat('ff', 33), 'hex')),
	('every byte 0x00',                 decode(repeat('00', 33), 'hex'))
) c(name, b);
-- text-only cases
INSERT INTO lc_cases (name, t) VALUES
	('text: empty string',                 ''),
	('text: one space',                    ' '),
	('text: 3 characters',                 'zwE'),
	('text: 5 characters',                 'zwEAB'),
	('text: bad character $',              'zwEA$AoBAgD0AQAAAQAAAAEAAAAAAAAACgAAAAAAAAAA'),
	('text: base64url character -',       'zwEA-AoBAgD0AQAAAQAAAAEAAAAAAAAACgAAAAAAAAAA'),
	('text: leading space',                ' ' || translate(encode(cuckoofilter_send(cf_create(1)), 'base64'), E'\n', '')),
	('text: trailing space',               translate(encode(cuckoofilter_send(cf_create(1)), 'base64'), E'\n', '') || ' '),
	('text: trailing newline',             translate(encode(cuckoofilter_send(cf_create(1)), 'base64'), E'\n', '') || E'\n'),
	('text: embedded newline (MIME style)', overlay(translate(encode(cuckoofilter_send(cf_create(1)), 'base64'), E'\n', '') PLACING E'\n' FROM 9 FOR 0)),
	('text: embedded space',               overlay(translate(encode(cuckoofilter_send(cf_create(1)), 'base64'), E'\n', '') PLACING ' ' FROM 9 FOR 1)),
	('text: valid, 31 bytes (control)',    translate(encode('\xcf01000209010200f401000001000000010000000000000009000000000000'::bytea, 'base64'), E'\n', '')),
	('text: missing padding',              rtrim(translate(encode('\xcf01000209010200f401000001000000010000000000000009000000000000'::bytea, 'base64'), E'\n', ''), '=')),
	('text: half the padding',             rtrim(translate(encode('\xcf01000209010200f401000001000000010000000000000009000000000000'::bytea, 'base64'), E'\n', ''), '=') || '='),
	('text: extra padding',                translate(encode(cuckoofilter_send(cf_create(1)), 'base64'), E'\n', '') || '===='),
	('text: padding in the middle',        'zw==BAoBAgD0AQAAAQAAAAEAAAAAAAAACgAAAAAAAAAA'),
	('text: non-zero bits in padding',     'AB=='),
	('text: non-zero bits in padding 2',   'ABC='),
	('text: three padding characters',     'A==='),
	('text: only padding',                 '===='),
	('text: valid base64, 3 bytes',        'AAAA'),
	('text: hex instead of base64',        '\x' || encode(cuckoofilter_send(cf_create(1)), 'hex')),
	('text: non-ASCII',                    'zwEAé' || repeat('A', 39));
UPDATE lc_cases SET t = translate(encode(b, 'base64'), E'\n', '') WHERE t IS NULL;

CREATE TABLE lc_sink (f cuckoofilter);
CREATE TABLE lc_one (b bytea);
CREATE FUNCTION lc_text_input(t text) RETURNS TABLE (state text, message text, detail text)
LANGUAGE plpgsql AS $$
DECLARE f cuckoofilter;
BEGIN
	f := t::cuckoofilter;
	state := '00000'; message := 'accepted'; detail := format('%s bytes', (cf_info(f)).bytes - 4);
	RETURN NEXT;
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS state = RETURNED_SQLSTATE, message = MESSAGE_TEXT, detail = PG_EXCEPTION_DETAIL;
	RETURN NEXT;
END $$;
-- b's binary form is written by COPY of a bytea (whose binary form is its
-- bytes) and read back as a cuckoofilter: exactly what a client sending b
-- as a binary parameter or COPY BINARY row would give cuckoofilter_recv.
-- The file is in the server's data directory (server-side COPY needs
-- superuser or pg_write_server_files, as pg_regress runs have).
CREATE FUNCTION lc_binary_input(b bytea) RETURNS TABLE (state text, message text, detail text)
LANGUAGE plpgsql AS $$
DECLARE path text := current_setting('data_directory') || '/cuckoo_lifecycle_case.bin';
BEGIN
	TRUNCATE lc_one, lc_sink;
	INSERT INTO lc_one VALUES (b);
	EXECUTE format('COPY lc_one TO %L WITH (FORMAT binary)', path);
	EXECUTE format('COPY lc_sink FROM %L WITH (FORMAT binary)', path);
	state := '00000'; message := 'accepted';
	detail := format('%s bytes', (SELECT (cf_info(f)).bytes - 4 FROM lc_sink));
	RETURN NEXT;
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS state = RETURNED_SQLSTATE, message = MESSAGE_TEXT, detail = PG_EXCEPTION_DETAIL;
	RETURN NEXT;
END $$;
SELECT c.n, c.name, r.state, r.message, r.detail
  FROM lc_cases c, lc_text_input(c.t) r ORDER BY c.n;
SELECT c.n, c.name, r.state, r.message, r.detail
  FROM lc_cases c, lc_binary_input(c.b) r WHERE c.b IS NOT NULL ORDER BY c.n;
-- text and binary input agree on every byte string
SELECT c.n, c.name FROM lc_cases c, lc_text_input(c.t) t, lc_binary_input(c.b) b
 WHERE c.b IS NOT NULL AND (t.state = '00000') <> (b.state = '00000');

DROP TABLE lc_cases, lc_sink, lc_one;
DROP FUNCTION lc_put32(bytea, integer, bigint);
DROP FUNCTION lc_text_input(text);
DROP FUNCTION lc_binary_input(bytea);
DROP FUNCTION lc_try(text);
DROP FUNCTION lc_fill(cuckoofilter, int);
DROP FUNCTION lc_widths(cuckoofilter);
DROP FUNCTION lc_fill_until_error(cuckoofilter, int);

\c :regress_db
DROP DATABASE cuckoo_lifecycle;
