-- generate.sql - the record of how the semi-sorted golden files in this
-- directory were made (format version 2, table encoding 1; cuckoo 1.2,
-- 2026-11-25).  NEVER re-run it to "refresh" them: they are the frozen
-- evidence that later builds still read what 1.2 wrote.  See README.md.
--
-- It was run once as:  psql -X -v ON_ERROR_STOP=1 -v i_know_the_golden_files_are_frozen=1 -f test/golden/v2-semisort/generate.sql
-- in a database with CREATE EXTENSION cuckoo (1.2), from the repository root.
\if :{?i_know_the_golden_files_are_frozen}
\else
\echo 'refusing to regenerate the frozen golden files (see test/golden/README.md)'
\quit
\endif

-- every filter: how it was created and what was done to it
CREATE TEMP TABLE g_spec (
	name text PRIMARY KEY, capacity bigint, fpr float8, max_kicks int, expansion int, note text);
CREATE TEMP TABLE g_ops (name text, seq int, op text, kind text, v text);

INSERT INTO g_spec VALUES
 ('s_fpr0.04',   300,  0.04,   500, 2, '8-bit fingerprints: 28-bit buckets'),
 ('s_fpr0.01',   500,  0.01,   500, 2, 'the default rate: 36-bit buckets'),
 ('s_fpr0.0002', 200,  0.0002, 500, 2, '16-bit fingerprints: 60-bit buckets, the widest one-word lookup'),
 ('s_fpr1e-6',   300,  1e-6,   500, 2, '23-bit fingerprints: 88-bit buckets over two words'),
 ('s_w32',       100,  2.0 * 4 / 4294967296.0 * 1.01, 500, 2, '32-bit fingerprints: 124-bit buckets'),
 ('s_grown_x2',  50,   0.01,   500, 2, 'grown to several chain tables, expansion 2, deletes'),
 ('s_full_x0',   64,   0.01,   500, 0, 'expansion 0, filled to capacity'),
 ('s_dups',      100,  0.01,   500, 2, 'values added several times, some copies deleted'),
 ('s_empty',     10,   0.01,   500, 2, 'nothing added');

INSERT INTO g_ops SELECT 's_fpr0.04',   i, 'add', 'int4', (i * 7)::text FROM generate_series(1, 290) i;
INSERT INTO g_ops SELECT 's_fpr0.04',   1000 + i, 'del', 'int4', (i * 7)::text FROM generate_series(1, 290, 13) i;
INSERT INTO g_ops SELECT 's_fpr0.01',   i, 'add', 'text', 'user-' || i || '@example.com' FROM generate_series(1, 480) i;
INSERT INTO g_ops SELECT 's_fpr0.01',   1000 + i, 'del', 'text', 'user-' || i || '@example.com' FROM generate_series(3, 480, 11) i;
INSERT INTO g_ops SELECT 's_fpr0.0002', i, 'add', 'text', md5(i::text) FROM generate_series(1, 200) i;
INSERT INTO g_ops SELECT 's_fpr0.0002', 1000 + i, 'del', 'text', md5(i::text) FROM generate_series(1, 200, 20) i;
INSERT INTO g_ops SELECT 's_fpr1e-6',   i, 'add', 'int8', (i * 1000003)::text FROM generate_series(1, 290) i;
INSERT INTO g_ops SELECT 's_fpr1e-6',   1000 + i, 'del', 'int8', (i * 1000003)::text FROM generate_series(2, 290, 10) i;
INSERT INTO g_ops SELECT 's_w32',       i, 'add', 'text', 'w' || i FROM generate_series(1, 95) i;
INSERT INTO g_ops SELECT 's_w32',       1000 + i, 'del', 'text', 'w' || i FROM generate_series(1, 95, 9) i;
INSERT INTO g_ops SELECT 's_grown_x2',  i, 'add', 'int8', (i * 104729)::text FROM generate_series(1, 1500) i;
INSERT INTO g_ops SELECT 's_grown_x2',  10000 + i, 'del', 'int8', (i * 104729)::text FROM generate_series(1, 1500, 3) i;
INSERT INTO g_ops SELECT 's_full_x0',   i, 'add', 'text', 'f' || i FROM generate_series(1, 64) i;
INSERT INTO g_ops SELECT 's_dups', i, 'add', 'text', 'd' || (i % 10) FROM generate_series(1, 30) i;
INSERT INTO g_ops SELECT 's_dups', 100 + i, 'del', 'text', 'd' || i FROM generate_series(0, 4) i;
INSERT INTO g_ops SELECT 's_dups', 200 + i, 'del', 'text', 'd' || i FROM generate_series(0, 1) i;

-- one op on f, the value cast to its kind
CREATE FUNCTION pg_temp.g_apply(f cuckoofilter, op text, kind text, v text)
RETURNS cuckoofilter LANGUAGE plpgsql AS $$
DECLARE r cuckoofilter;
BEGIN
	EXECUTE format('SELECT %s($1, $2::%s)', CASE op WHEN 'add' THEN 'cf_add' ELSE 'cf_delete' END, kind)
	  INTO r USING f, v;
	RETURN r;
END $$;

CREATE FUNCTION pg_temp.g_build(n text) RETURNS cuckoofilter LANGUAGE plpgsql AS $$
DECLARE f cuckoofilter; s record; o record;
BEGIN
	SELECT * INTO s FROM g_spec WHERE name = n;
	f := cf_create(s.capacity, s.fpr, 'semisorted', 4, s.max_kicks, s.expansion);
	FOR o IN SELECT * FROM g_ops WHERE name = n ORDER BY seq LOOP
		f := pg_temp.g_apply(f, o.op, o.kind, o.v);
	END LOOP;
	RETURN f;
END $$;

CREATE TEMP TABLE g_filters AS SELECT name, pg_temp.g_build(name) AS f FROM g_spec;

-- the aggregate's outputs and unions with bit-packed filters
INSERT INTO g_spec VALUES
 ('s_agg_int4',     NULL, NULL, NULL, NULL, 'cf_agg(i, 0.01, 0, ''semisorted'') over int4 1..2000'),
 ('s_agg_text_cap', NULL, NULL, NULL, NULL, 'cf_agg(''v'' || i, 0.001, 1000, ''semisorted'') over 1..777'),
 ('s_union_mixed',  NULL, NULL, NULL, NULL, 'cf_union(s_fpr0.01, cf_create(2000) + u1..u300): a bit-packed table appended (mixed)'),
 ('s_union_folded', NULL, NULL, NULL, NULL, 'cf_union(s_fpr0.01, cf_create(500) + p1..p50): the bit-packed part folded into the semi-sorted table');
INSERT INTO g_ops SELECT 's_agg_int4', i, 'add', 'int4', i::text FROM generate_series(1, 2000) i;
INSERT INTO g_ops SELECT 's_agg_text_cap', i, 'add', 'text', 'v' || i FROM generate_series(1, 777) i;
INSERT INTO g_ops SELECT 's_union_mixed', seq, op, kind, v FROM g_ops WHERE name = 's_fpr0.01';
INSERT INTO g_ops SELECT 's_union_mixed', 100000 + i, 'add', 'text', 'u' || i FROM generate_series(1, 300) i;
INSERT INTO g_ops SELECT 's_union_folded', seq, op, kind, v FROM g_ops WHERE name = 's_fpr0.01';
INSERT INTO g_ops SELECT 's_union_folded', 100000 + i, 'add', 'text', 'p' || i FROM generate_series(1, 50) i;
INSERT INTO g_filters SELECT 's_agg_int4', cf_agg(i, 0.01, 0, 'semisorted') FROM generate_series(1, 2000) i;
INSERT INTO g_filters SELECT 's_agg_text_cap', cf_agg('v' || i, 0.001, 1000, 'semisorted') FROM generate_series(1, 777) i;
INSERT INTO g_filters SELECT 's_union_mixed',
	cf_union((SELECT f FROM g_filters WHERE name = 's_fpr0.01'),
	         cf_add_all(cf_create(2000), ARRAY(SELECT 'u' || i FROM generate_series(1, 300) i)));
INSERT INTO g_filters SELECT 's_union_folded',
	cf_union((SELECT f FROM g_filters WHERE name = 's_fpr0.01'),
	         cf_add_all(cf_create(500), ARRAY(SELECT 'p' || i FROM generate_series(1, 50) i)));

-- the values: every distinct value a filter saw, its net copy count, and
-- the answers this build gave; plus 100 never-added probes per filter
CREATE FUNCTION pg_temp.g_ask(f cuckoofilter, kind text, v text, OUT c boolean, OUT n int)
LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE format('SELECT cf_contains($1, $2::%s), cf_count($1, $2::%s)', kind, kind) INTO c, n USING f, v;
END $$;

CREATE TEMP TABLE g_values AS
SELECT name, kind, v, sum(CASE op WHEN 'add' THEN 1 ELSE -1 END)::int AS net, min(seq) AS first_seq
  FROM g_ops GROUP BY name, kind, v;
INSERT INTO g_values SELECT s.name, k.kind,
       CASE k.kind WHEN 'text' THEN 'probe-' || i ELSE (-7000000 - i)::text END, 0, 1000000 + i
  FROM g_spec s, generate_series(1, 100) i,
       LATERAL (SELECT CASE WHEN o.kind IN ('int4', 'int8') THEN 'int8' ELSE 'text' END AS kind
                  FROM (SELECT (SELECT kind FROM g_ops WHERE name = s.name ORDER BY seq LIMIT 1) AS kind) o) k;
CREATE TEMP TABLE g_answers AS
SELECT g.name, g.kind, g.v, g.net, (pg_temp.g_ask(x.f, g.kind, g.v)).*, g.first_seq
  FROM g_values g JOIN g_filters x USING (name);

-- sanity before freezing: no false negative, every filter semi-sorted (in part)
DO $$
BEGIN
	IF EXISTS (SELECT FROM g_answers WHERE net > 0 AND (NOT c OR n < net)) THEN
		RAISE EXCEPTION 'a false negative: refusing to write golden files';
	END IF;
	IF EXISTS (SELECT FROM g_filters WHERE cf_encoding(f) = 'packed') THEN
		RAISE EXCEPTION 'a filter without semi-sorted tables';
	END IF;
END $$;

\copy (SELECT name, coalesce(note, '') FROM g_spec ORDER BY name) TO 'test/golden/v2-semisort/filters_spec.txt'
\copy (SELECT name, f::text FROM g_filters ORDER BY name) TO 'test/golden/v2-semisort/filters.txt'
\copy (SELECT name, f FROM g_filters ORDER BY name) TO 'test/golden/v2-semisort/filters.bin' WITH (FORMAT binary)
\copy (SELECT name, kind, v, net, c, n FROM g_answers ORDER BY name, first_seq) TO 'test/golden/v2-semisort/values.txt'
\copy (SELECT name, i.capacity, i.items, i.buckets, i.bucket_size, i.fingerprint_bits, i.bytes, i.subfilters, i.load_factor, i.fpr, i.target_fpr, i.expansion, i.max_kicks, i.format_version, i.value_hashing, i.deletes, i.retained, i.families, coalesce(i.value_kind, ''), cf_encoding(f) FROM g_filters, cf_info_all(f) i ORDER BY name) TO 'test/golden/v2-semisort/info.txt'
