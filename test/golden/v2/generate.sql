-- generate.sql - the record of how the format-version-2 golden files in
-- this directory were made (cuckoo 1.1, 2026-11-24).  NEVER re-run it to
-- "refresh" them: they are the frozen evidence that later builds still read
-- what 1.1 wrote.  See ../README.md.
--
-- It was run once as:  psql -X -v ON_ERROR_STOP=1 -v i_know_the_golden_files_are_frozen=1 -f test/golden/v2/generate.sql
-- in a database with CREATE EXTENSION cuckoo (1.1), from the repository root.
\if :{?i_know_the_golden_files_are_frozen}
\else
\echo 'refusing to regenerate the frozen golden files (see test/golden/README.md)'
\quit
\endif

-- every filter: how it was created and what was done to it
CREATE TEMP TABLE g_spec (
	name text PRIMARY KEY, capacity bigint, fpr float8, bucket_size int,
	max_kicks int, expansion int, note text);
-- ops: seq orders them within a filter; op is add or del; kind is the SQL
-- type the value was passed as
CREATE TEMP TABLE g_ops (name text, seq int, op text, kind text, v text);

INSERT INTO g_spec VALUES
 ('b2_fpr0.3',     100,  0.3,     2, 500, 2,  'fpr 0.3 with bucket 2: the 6-bit minimum'),
 ('b2_fpr0.1',     200,  0.1,     2, 500, 2,  'bucket 2, fpr 0.1'),
 ('b2_fpr1e-9',    100,  1e-9,    2, 500, 2,  '32-bit fingerprints'),
 ('b4_fpr0.04',    300,  0.04,    4, 500, 2,  '8-bit fingerprints'),
 ('b4_fpr0.01',    500,  0.01,    4, 500, 2,  'the defaults'),
 ('b4_fpr0.0002',  200,  0.0002,  4, 500, 2,  '16-bit fingerprints'),
 ('b4_fpr1e-6',    300,  1e-6,    4, 500, 2,  'fpr 1e-6, values of every hashed type (kind any)'),
 ('b8_fpr0.001',   1000, 0.001,   8, 500, 2,  'bucket 8, fpr 0.001'),
 ('b8_fpr1e-6',    150,  1e-6,    8, 100, 0,  'bucket 8, fpr 1e-6, fixed size, max_kicks 100'),
 ('grown_x2',      50,   0.01,    4, 500, 2,  'grown through several sub-filters, expansion 2'),
 ('grown_x4_k0',   20,   0.001,   2, 0,   4,  'max_kicks 0, expansion 4: grows as soon as two buckets are full'),
 ('full_x0',       64,   0.01,    4, 500, 0,  'expansion 0, filled close to capacity'),
 ('dups',          100,  0.01,    4, 500, 2,  'values added several times, some copies deleted'),
 ('empty',         10,   0.01,    4, 500, 2,  'nothing added'),
 ('empty_big',     20000, 0.001,  8, 500, 2,  'nothing added, larger table (mostly zeros)'),
 ('chain_x2',      100,  0.01,    4, 500, 2,  'grown to 4 chain tables (levels 0-3), then a third of the values deleted'),
 ('chain_x1',      100,  0.001,   8, 500, 1,  'expansion 1: same-size tables one bit wider'),
 ('chain_x16',     30,   0.01,    2, 200, 16, 'expansion 16: four levels a step'),
 ('numbers',       200,  0.01,    4, 500, 2,  'numbers of every type, equal values across types'),
 ('datetimes',     100,  0.01,    4, 500, 2,  'dates and timestamps, a date equal to a midnight timestamp');

-- text values t<name>_<i>
INSERT INTO g_ops SELECT 'b2_fpr0.3',   i, 'add', 'text', 'a' || i FROM generate_series(1, 90) i;
INSERT INTO g_ops SELECT 'b2_fpr0.3',   100 + i, 'del', 'text', 'a' || i FROM generate_series(1, 90, 9) i;
INSERT INTO g_ops SELECT 'b2_fpr0.1',   i, 'add', 'text', 'b' || i FROM generate_series(1, 180) i;
INSERT INTO g_ops SELECT 'b2_fpr0.1',   1000 + i, 'del', 'text', 'b' || i FROM generate_series(5, 180, 7) i;
INSERT INTO g_ops SELECT 'b2_fpr1e-9',  i, 'add', 'int8', (i * 1000003)::text FROM generate_series(1, 100) i;
INSERT INTO g_ops SELECT 'b2_fpr1e-9',  1000 + i, 'del', 'int8', (i * 1000003)::text FROM generate_series(2, 100, 10) i;
INSERT INTO g_ops SELECT 'b4_fpr0.04',  i, 'add', 'int4', (i * 7)::text FROM generate_series(1, 290) i;
INSERT INTO g_ops SELECT 'b4_fpr0.04',  1000 + i, 'del', 'int4', (i * 7)::text FROM generate_series(1, 290, 13) i;
INSERT INTO g_ops SELECT 'b4_fpr0.01',  i, 'add', 'text', 'user-' || i || '@example.com' FROM generate_series(1, 480) i;
INSERT INTO g_ops SELECT 'b4_fpr0.01',  1000 + i, 'del', 'text', 'user-' || i || '@example.com' FROM generate_series(3, 480, 11) i;
INSERT INTO g_ops SELECT 'b4_fpr0.0002', i, 'add', 'text', md5(i::text) FROM generate_series(1, 200) i;
INSERT INTO g_ops SELECT 'b4_fpr0.0002', 1000 + i, 'del', 'text', md5(i::text) FROM generate_series(1, 200, 20) i;
-- every specially hashed type, and one through its send function (inet)
INSERT INTO g_ops (name, seq, op, kind, v) VALUES
 ('b4_fpr1e-6', 1,  'add', 'text',        'hello'),
 ('b4_fpr1e-6', 2,  'add', 'text',        ''),
 ('b4_fpr1e-6', 3,  'add', 'text',        'ünïcødé ✓'),
 ('b4_fpr1e-6', 4,  'add', 'int2',        '-32768'),
 ('b4_fpr1e-6', 5,  'add', 'int4',        '2147483647'),
 ('b4_fpr1e-6', 6,  'add', 'int8',        '-9223372036854775808'),
 ('b4_fpr1e-6', 7,  'add', 'float4',      '1.5'),
 ('b4_fpr1e-6', 8,  'add', 'float8',      '3.141592653589793'),
 ('b4_fpr1e-6', 9,  'add', 'float8',      'NaN'),
 ('b4_fpr1e-6', 10, 'add', 'float8',      '-0'),
 ('b4_fpr1e-6', 11, 'add', 'float8',      '-Infinity'),
 ('b4_fpr1e-6', 12, 'add', 'numeric',     '12345678901234567890.12345'),
 ('b4_fpr1e-6', 13, 'add', 'numeric',     '2.50'),
 ('b4_fpr1e-6', 14, 'add', 'bpchar',      'padded  '),
 ('b4_fpr1e-6', 15, 'add', 'varchar',     'var'),
 ('b4_fpr1e-6', 16, 'add', 'bytea',       '\x00ff10'),
 ('b4_fpr1e-6', 17, 'add', 'name',        'pg_class'),
 ('b4_fpr1e-6', 19, 'add', 'uuid',        'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'),
 ('b4_fpr1e-6', 20, 'add', 'date',        '2024-02-29'),
 ('b4_fpr1e-6', 21, 'add', 'timestamp',   '2000-01-01 00:00:00'),
 ('b4_fpr1e-6', 22, 'add', 'timestamptz', '2024-06-01 12:34:56.789+00'),
 ('b4_fpr1e-6', 23, 'add', 'bool',        'true'),
 ('b4_fpr1e-6', 24, 'add', 'inet',        '192.168.0.0/16'),
 ('b4_fpr1e-6', 25, 'add', 'int4',        '42'),
 ('b4_fpr1e-6', 26, 'del', 'int4',        '42'),
 ('b4_fpr1e-6', 27, 'add', 'text',        'deleted later'),
 ('b4_fpr1e-6', 28, 'del', 'text',        'deleted later');
INSERT INTO g_ops SELECT 'b8_fpr0.001', i, 'add', 'int8', i::text FROM generate_series(1, 950) i;
INSERT INTO g_ops SELECT 'b8_fpr0.001', 10000 + i, 'del', 'int8', i::text FROM generate_series(10, 950, 10) i;
INSERT INTO g_ops SELECT 'b8_fpr1e-6',  i, 'add', 'uuid', md5('u' || i)::uuid::text FROM generate_series(1, 140) i;
INSERT INTO g_ops SELECT 'b8_fpr1e-6',  1000 + i, 'del', 'uuid', md5('u' || i)::uuid::text FROM generate_series(1, 140, 14) i;
INSERT INTO g_ops SELECT 'grown_x2',    i, 'add', 'text', 'g' || i FROM generate_series(1, 1200) i;
INSERT INTO g_ops SELECT 'grown_x2',    10000 + i, 'del', 'text', 'g' || i FROM generate_series(1, 1200, 37) i;
INSERT INTO g_ops SELECT 'grown_x4_k0', i, 'add', 'int4', i::text FROM generate_series(1, 500) i;
INSERT INTO g_ops SELECT 'grown_x4_k0', 1000 + i, 'del', 'int4', i::text FROM generate_series(1, 500, 25) i;
INSERT INTO g_ops SELECT 'full_x0',     i, 'add', 'text', 'f' || i FROM generate_series(1, 64) i;
INSERT INTO g_ops SELECT 'chain_x2',    i, 'add', 'int8', (i * 104729)::text FROM generate_series(1, 1500) i;
INSERT INTO g_ops SELECT 'chain_x2',    10000 + i, 'del', 'int8', (i * 104729)::text FROM generate_series(1, 1500, 3) i;
INSERT INTO g_ops SELECT 'chain_x1',    i, 'add', 'text', 'x1-' || i FROM generate_series(1, 400) i;
INSERT INTO g_ops SELECT 'chain_x1',    1000 + i, 'del', 'text', 'x1-' || i FROM generate_series(1, 400, 5) i;
INSERT INTO g_ops SELECT 'chain_x16',   i, 'add', 'int4', (i * 31)::text FROM generate_series(1, 700) i;
INSERT INTO g_ops SELECT 'chain_x16',   1000 + i, 'del', 'int4', (i * 31)::text FROM generate_series(1, 700, 7) i;
INSERT INTO g_ops (name, seq, op, kind, v) VALUES
 ('numbers', 1, 'add', 'int2', '7'), ('numbers', 2, 'add', 'int4', '-100000'),
 ('numbers', 3, 'add', 'int8', '9007199254740993'), ('numbers', 4, 'add', 'numeric', '12.50'),
 ('numbers', 5, 'add', 'numeric', '1e30'), ('numbers', 6, 'add', 'float4', '0.25'),
 ('numbers', 7, 'add', 'float8', '-0'), ('numbers', 8, 'add', 'float8', 'NaN'),
 ('numbers', 9, 'add', 'numeric', 'Infinity'), ('numbers', 10, 'add', 'numeric', '3.000'),
 ('numbers', 11, 'add', 'float8', '0.1'), ('numbers', 12, 'del', 'int4', '7');
INSERT INTO g_ops SELECT 'numbers', 100 + i, 'add', 'numeric', (i / 8.0)::text FROM generate_series(1, 150) i;
INSERT INTO g_ops (name, seq, op, kind, v) VALUES
 ('datetimes', 1, 'add', 'date', '2024-02-29'), ('datetimes', 2, 'add', 'timestamp', '2024-03-01 00:00:00'),
 ('datetimes', 3, 'add', 'timestamptz', '2024-06-01 12:34:56.789+00'), ('datetimes', 4, 'add', 'date', 'infinity'),
 ('datetimes', 5, 'add', 'timestamp', '-infinity'), ('datetimes', 6, 'del', 'date', '2024-02-29');
INSERT INTO g_ops SELECT 'datetimes', 100 + i, 'add', 'date', ('2000-01-01'::date + i * 17)::text FROM generate_series(1, 80) i;
INSERT INTO g_ops SELECT 'dups', i, 'add', 'text', 'd' || (i % 10) FROM generate_series(1, 30) i;
INSERT INTO g_ops SELECT 'dups', 100 + i, 'del', 'text', 'd' || i FROM generate_series(0, 4) i;
INSERT INTO g_ops SELECT 'dups', 200 + i, 'del', 'text', 'd' || i FROM generate_series(0, 1) i;
INSERT INTO g_ops SELECT 'dups', 300 + i, 'del', 'text', 'd0' FROM generate_series(0, 0) i;

-- one op on f, the value cast to its kind
CREATE FUNCTION pg_temp.g_apply(f cuckoofilter, op text, kind text, v text)
RETURNS cuckoofilter LANGUAGE plpgsql AS $$
DECLARE r cuckoofilter;
BEGIN
	EXECUTE format('SELECT %s($1, $2::%s)', CASE op WHEN 'add' THEN 'cf_add' ELSE 'cf_delete' END,
	               CASE kind WHEN 'char' THEN '"char"' ELSE kind END)
	  INTO r USING f, v;
	RETURN r;
END $$;

CREATE FUNCTION pg_temp.g_build(n text) RETURNS cuckoofilter LANGUAGE plpgsql AS $$
DECLARE f cuckoofilter; s record; o record;
BEGIN
	SELECT * INTO s FROM g_spec WHERE name = n;
	f := cf_create(s.capacity, s.fpr, s.bucket_size, s.max_kicks, s.expansion);
	IF n = 'b4_fpr1e-6' THEN f := cf_set_kind(f, 'any'); END IF;
	FOR o IN SELECT * FROM g_ops WHERE name = n ORDER BY seq LOOP
		f := pg_temp.g_apply(f, o.op, o.kind, o.v);
	END LOOP;
	RETURN f;
END $$;

CREATE TEMP TABLE g_filters AS SELECT name, pg_temp.g_build(name) AS f FROM g_spec;

-- derived filters: a union whose second input cannot be folded (different
-- bucket count), so it is appended as a sub-filter; a union of two grown
-- ones of the same geometry; the aggregate's outputs
CREATE FUNCTION pg_temp.g_addall(f cuckoofilter, vals text[]) RETURNS cuckoofilter
LANGUAGE plpgsql AS $$
DECLARE v text;
BEGIN
	FOREACH v IN ARRAY vals LOOP f := cf_add(f, v); END LOOP;
	RETURN f;
END $$;

INSERT INTO g_spec VALUES
 ('union_appended', NULL, NULL, NULL, NULL, NULL, 'cf_union(b4_fpr0.01, cf_create(2000) + u1..u300): appended sub-filter'),
 ('union_grown',    NULL, NULL, NULL, NULL, NULL, 'cf_union(grown_x2, cf_create(50) + h1..h700): folded and appended sub-filters'),
 ('agg_int4',       NULL, NULL, NULL, NULL, NULL, 'cf_agg(i) over int4 1..2000'),
 ('agg_text_fpr',   NULL, NULL, NULL, NULL, NULL, 'cf_agg(''v'' || i, 0.001) over 1..777'),
 ('union_families', NULL, NULL, NULL, NULL, NULL, 'cf_union(cf_create(300) + w1..w900, cf_create(200) + z1..z600), then w1..w900 by 2 deleted: two families, retained deletes'),
 ('agg_grown',      NULL, NULL, NULL, NULL, NULL, 'cf_agg(i) over int8 1..500, then 501..3000 added: grown chain on an aggregate');
INSERT INTO g_ops SELECT 'union_appended', seq, op, kind, v FROM g_ops WHERE name = 'b4_fpr0.01';
INSERT INTO g_ops SELECT 'union_appended', 100000 + i, 'add', 'text', 'u' || i FROM generate_series(1, 300) i;
INSERT INTO g_ops SELECT 'union_grown', seq, op, kind, v FROM g_ops WHERE name = 'grown_x2';
INSERT INTO g_ops SELECT 'union_grown', 100000 + i, 'add', 'text', 'h' || i FROM generate_series(1, 700) i;
INSERT INTO g_ops SELECT 'agg_int4', i, 'add', 'int4', i::text FROM generate_series(1, 2000) i;
INSERT INTO g_ops SELECT 'agg_text_fpr', i, 'add', 'text', 'v' || i FROM generate_series(1, 777) i;

INSERT INTO g_filters SELECT 'union_appended',
	cf_union((SELECT f FROM g_filters WHERE name = 'b4_fpr0.01'),
	         pg_temp.g_addall(cf_create(2000), ARRAY(SELECT 'u' || i FROM generate_series(1, 300) i)));
INSERT INTO g_filters SELECT 'union_grown',
	cf_union((SELECT f FROM g_filters WHERE name = 'grown_x2'),
	         pg_temp.g_addall(cf_create(50), ARRAY(SELECT 'h' || i FROM generate_series(1, 700) i)));
INSERT INTO g_filters SELECT 'agg_int4', cf_agg(i) FROM generate_series(1, 2000) i;
INSERT INTO g_filters SELECT 'agg_text_fpr', cf_agg('v' || i, 0.001) FROM generate_series(1, 777) i;
INSERT INTO g_ops SELECT 'union_families', i, 'add', 'text', 'w' || i FROM generate_series(1, 900) i;
INSERT INTO g_ops SELECT 'union_families', 1000 + i, 'add', 'text', 'z' || i FROM generate_series(1, 600) i;
INSERT INTO g_ops SELECT 'union_families', 10000 + i, 'del', 'text', 'w' || i FROM generate_series(1, 900, 2) i;
CREATE FUNCTION pg_temp.g_delall(f cuckoofilter, vals text[]) RETURNS cuckoofilter
LANGUAGE plpgsql AS $$
DECLARE v text;
BEGIN
	FOREACH v IN ARRAY vals LOOP f := cf_delete(f, v); END LOOP;
	RETURN f;
END $$;
INSERT INTO g_filters SELECT 'union_families',
	pg_temp.g_delall(cf_union(pg_temp.g_addall(cf_create(300), ARRAY(SELECT 'w' || i FROM generate_series(1, 900) i)),
	                          pg_temp.g_addall(cf_create(200), ARRAY(SELECT 'z' || i FROM generate_series(1, 600) i))),
	                 ARRAY(SELECT 'w' || i FROM generate_series(1, 900, 2) i));
INSERT INTO g_ops SELECT 'agg_grown', i, 'add', 'int8', i::text FROM generate_series(1, 3000) i;
INSERT INTO g_filters SELECT 'agg_grown', cf_add_all(cf_agg(i::int8), ARRAY(SELECT j::int8 FROM generate_series(501, 3000) j))
  FROM generate_series(1, 500) i;

-- the values: every distinct value a filter saw, its net copy count (adds
-- minus deletes), and the answers this build gave; plus 100 never-added
-- probes per filter, whose answers (mostly false) are recorded too
CREATE FUNCTION pg_temp.g_ask(f cuckoofilter, kind text, v text, OUT c boolean, OUT n int)
LANGUAGE plpgsql AS $$
DECLARE t text := CASE kind WHEN 'char' THEN '"char"' ELSE kind END;
BEGIN
	EXECUTE format('SELECT cf_contains($1, $2::%s), cf_count($1, $2::%s)', t, t) INTO c, n USING f, v;
END $$;

CREATE TEMP TABLE g_values AS
SELECT name, kind, v, sum(CASE op WHEN 'add' THEN 1 ELSE -1 END)::int AS net, min(seq) AS first_seq
  FROM g_ops GROUP BY name, kind, v;
-- probes of the filter's own kind (a version-2 filter refuses other kinds)
INSERT INTO g_values SELECT s.name, k.kind,
       CASE k.kind WHEN 'text' THEN 'probe-' || i WHEN 'uuid' THEN md5('probe' || i)::uuid::text
            WHEN 'date' THEN ('1900-01-01'::date + i)::text ELSE (-7000000 - i)::text END,
       0, 1000000 + i
  FROM g_spec s, generate_series(1, 100) i,
       LATERAL (SELECT CASE WHEN s.name IN ('b4_fpr1e-6', 'empty', 'empty_big') THEN 'text'
                            WHEN o.kind IN ('int2', 'int4', 'int8', 'numeric', 'float4', 'float8') THEN 'int8'
                            WHEN o.kind IN ('date', 'timestamp', 'timestamptz') THEN 'date'
                            ELSE coalesce(o.kind, 'text') END AS kind
                  FROM (SELECT (SELECT kind FROM g_ops WHERE name = s.name ORDER BY seq LIMIT 1) AS kind) o) k;
CREATE TEMP TABLE g_answers AS
SELECT g.name, g.kind, g.v, g.net, (pg_temp.g_ask(x.f, g.kind, g.v)).*, g.first_seq
  FROM g_values g JOIN g_filters x USING (name);

-- sanity before freezing: no false negative, deletes took effect
DO $$
BEGIN
	IF EXISTS (SELECT FROM g_answers WHERE net > 0 AND (NOT c OR n < net)) THEN
		RAISE EXCEPTION 'a false negative: refusing to write golden files';
	END IF;
END $$;

\copy (SELECT name, coalesce(note, '') FROM g_spec ORDER BY name) TO 'test/golden/v2/filters_spec.txt'
\copy (SELECT name, f::text FROM g_filters ORDER BY name) TO 'test/golden/v2/filters.txt'
\copy (SELECT name, f FROM g_filters ORDER BY name) TO 'test/golden/v2/filters.bin' WITH (FORMAT binary)
\copy (SELECT name, kind, v, net, c, n FROM g_answers ORDER BY name, first_seq) TO 'test/golden/v2/values.txt'
\copy (SELECT name, i.capacity, i.items, i.buckets, i.bucket_size, i.fingerprint_bits, i.bytes, i.subfilters, i.load_factor, i.fpr, i.target_fpr, i.expansion, i.max_kicks, i.format_version, i.value_hashing, i.deletes, i.retained, i.families, coalesce(i.value_kind, '') FROM g_filters, cf_info(f) i ORDER BY name) TO 'test/golden/v2/info.txt'
