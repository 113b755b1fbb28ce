-- generate.sql - the record of how the split-table golden files in this
-- directory were made (format version 2, geometry 3; cuckoo 1.2,
-- 2026-11-25).  NEVER re-run it to "refresh" them: they are the frozen
-- evidence that later builds still read what 1.2 wrote.  See README.md.
--
-- It was run once as:  psql -X -v ON_ERROR_STOP=1 -v i_know_the_golden_files_are_frozen=1 -f test/golden/v2-split/generate.sql
-- in a database with CREATE EXTENSION cuckoo (1.2), from the repository root.
\if :{?i_know_the_golden_files_are_frozen}
\else
\echo 'refusing to regenerate the frozen golden files (see test/golden/README.md)'
\quit
\endif

-- every filter: how it was created (capacity NULL: started by cf_add(NULL, v))
-- and what was done to it
CREATE TEMP TABLE g_spec (
	name text PRIMARY KEY, capacity bigint, fpr float8, encoding text, bucket_size int,
	max_kicks int, expansion int, note text);
CREATE TEMP TABLE g_ops (name text, seq int, op text, kind text, v text);

INSERT INTO g_spec VALUES
 ('x_null_start',   NULL, NULL,  NULL,        NULL, NULL, NULL, 'cf_add(NULL, v): capacity 1000, 1%, level 0, deletes'),
 ('x_grown',        500,  0.01,  'packed',     4, 500, 2,  'capacity 500 grown to 10,000 items: five doublings, then every 7th deleted'),
 ('x_cap10',        10,   0.01,  'packed',     4, 500, 2,  'capacity 10 grown to 5,000 items: nine doublings, deletes'),
 ('x_b2',           300,  0.01,  'packed',     2, 500, 2,  'bucket size 2, grown, deletes'),
 ('x_b8',           500,  0.001, 'packed',     8, 500, 2,  'bucket size 8, 0.1%, grown, deletes'),
 ('x_fpr0.001',     200,  0.001, 'packed',     4, 500, 2,  '0.1%: 16-bit slots, grown, deletes'),
 ('x_fpr0.1',       100,  0.1,   'packed',     4, 500, 2,  '10%: the narrowest slots, grown, deletes'),
 ('x_fpr1e-8',      100,  1e-8,  'packed',     4, 500, 2,  'a rate too low for the split schedule: chain tables'),
 ('x_semi',         200,  0.01,  'semisorted', 4, 500, 2,  'semi-sorted split table, grown, deletes'),
 ('x_semi_l0',      1000, 0.001, 'semisorted', 4, 500, 2,  'semi-sorted split table at level 0, 0.1%'),
 ('x_stash_grown',  100,  0.01,  'packed',     4, 500, 2,  '40 copies of one value (stash), then 2,000 values (doublings keep the stash), then copies and values deleted'),
 ('x_stash_copies', 50,   0.01,  'packed',     4, 500, 2,  '260 copies of one value: its bucket pair and 252 stash records, then 5 copies deleted'),
 ('x_k0_b2',        100,  0.01,  'packed',     2, 0,   2,  'max_kicks 0, bucket size 2: failed adds below 3/4 load go to the stash'),
 ('x_exp16',        100,  0.01,  'packed',     4, 500, 16, 'expansion 16 (a split table doubles whatever the factor)'),
 ('x_delall',       100,  0.01,  'packed',     4, 500, 2,  'grown to 800 items, then every value deleted'),
 ('x_empty',        100,  0.01,  'packed',     4, 500, 2,  'nothing added'),
 ('x_kinds',        20,   1e-6,  'packed',     4, 500, 2,  'kind any: values of every specially hashed type, then grown by text values'),
 ('x_uuid',         100,  0.01,  'packed',     4, 500, 2,  'uuid values, grown, deletes'),
 ('x_bytea',        64,   0.001, 'packed',     4, 500, 2,  'bytea values, grown, deletes'),
 ('x_list1',        NULL, NULL,  NULL,        NULL, NULL, NULL, 'cf_add(NULL, v) of one value: a list of one hash'),
 ('x_list_copies',  NULL, NULL,  NULL,        NULL, NULL, NULL, 'cf_add(NULL, v): a list of 150 hashes with copies, some deleted'),
 ('x_list_full',    NULL, NULL,  NULL,        NULL, NULL, NULL, 'cf_add(NULL, v): a list at its bound (213 hashes)'),
 ('x_list_semi',    5000, 0.001, 'semisorted', 4, 500, 2,  'a list of a semi-sorted split family, 0.1%'),
 ('x_list_b8',      2000, 0.01,  'packed',     8, 500, 2,  'a list of a bucket-size-8 family, deletes');

INSERT INTO g_ops SELECT 'x_null_start',   i, 'add', 'text', 'n' || i FROM generate_series(1, 400) i;
INSERT INTO g_ops SELECT 'x_null_start',   1000 + i, 'del', 'text', 'n' || i FROM generate_series(1, 400, 9) i;
INSERT INTO g_ops SELECT 'x_grown',        i, 'add', 'int8', (i::int8 * 104729)::text FROM generate_series(1, 10000) i;
INSERT INTO g_ops SELECT 'x_grown',        100000 + i, 'del', 'int8', (i::int8 * 104729)::text FROM generate_series(1, 10000, 7) i;
INSERT INTO g_ops SELECT 'x_cap10',        i, 'add', 'int4', (i * 31)::text FROM generate_series(1, 5000) i;
INSERT INTO g_ops SELECT 'x_cap10',        10000 + i, 'del', 'int4', (i * 31)::text FROM generate_series(1, 5000, 11) i;
INSERT INTO g_ops SELECT 'x_b2',           i, 'add', 'text', 'b' || i FROM generate_series(1, 1500) i;
INSERT INTO g_ops SELECT 'x_b2',           10000 + i, 'del', 'text', 'b' || i FROM generate_series(1, 1500, 5) i;
INSERT INTO g_ops SELECT 'x_b8',           i, 'add', 'int8', i::text FROM generate_series(1, 2000) i;
INSERT INTO g_ops SELECT 'x_b8',           10000 + i, 'del', 'int8', i::text FROM generate_series(10, 2000, 10) i;
INSERT INTO g_ops SELECT 'x_fpr0.001',     i, 'add', 'text', 'm' || i FROM generate_series(1, 2000) i;
INSERT INTO g_ops SELECT 'x_fpr0.001',     10000 + i, 'del', 'text', 'm' || i FROM generate_series(1, 2000, 20) i;
INSERT INTO g_ops SELECT 'x_fpr0.1',       i, 'add', 'int4', (i * 7)::text FROM generate_series(1, 800) i;
INSERT INTO g_ops SELECT 'x_fpr0.1',       1000 + i, 'del', 'int4', (i * 7)::text FROM generate_series(1, 800, 13) i;
INSERT INTO g_ops SELECT 'x_fpr1e-8',      i, 'add', 'int8', i::text FROM generate_series(1, 500) i;
INSERT INTO g_ops SELECT 'x_fpr1e-8',      1000 + i, 'del', 'int8', i::text FROM generate_series(1, 500, 4) i;
INSERT INTO g_ops SELECT 'x_semi',         i, 'add', 'int8', (i * 7919)::text FROM generate_series(1, 2000) i;
INSERT INTO g_ops SELECT 'x_semi',         10000 + i, 'del', 'int8', (i * 7919)::text FROM generate_series(1, 2000, 3) i;
INSERT INTO g_ops SELECT 'x_semi_l0',      i, 'add', 'text', 'w' || i FROM generate_series(1, 700) i;
INSERT INTO g_ops SELECT 'x_semi_l0',      1000 + i, 'del', 'text', 'w' || i FROM generate_series(1, 700, 13) i;
INSERT INTO g_ops SELECT 'x_stash_grown',  i, 'add', 'text', 'same' FROM generate_series(1, 40) i;
INSERT INTO g_ops SELECT 'x_stash_grown',  100 + i, 'add', 'text', 'v' || i FROM generate_series(1, 2000) i;
INSERT INTO g_ops SELECT 'x_stash_grown',  10000 + i, 'del', 'text', 'same' FROM generate_series(1, 10) i;
INSERT INTO g_ops SELECT 'x_stash_grown',  20000 + i, 'del', 'text', 'v' || i FROM generate_series(1, 2000, 6) i;
INSERT INTO g_ops SELECT 'x_stash_copies', i, 'add', 'text', 'o' || i FROM generate_series(1, 20) i;
INSERT INTO g_ops SELECT 'x_stash_copies', 100 + i, 'add', 'text', 'k' FROM generate_series(1, 260) i;
INSERT INTO g_ops SELECT 'x_stash_copies', 1000 + i, 'del', 'text', 'k' FROM generate_series(1, 5) i;
INSERT INTO g_ops SELECT 'x_k0_b2',        i, 'add', 'int8', (i::int8 * 15485863)::text FROM generate_series(1, 1000) i;
INSERT INTO g_ops SELECT 'x_k0_b2',        10000 + i, 'del', 'int8', (i::int8 * 15485863)::text FROM generate_series(1, 1000, 9) i;
INSERT INTO g_ops SELECT 'x_exp16',        i, 'add', 'int8', (i * 3)::text FROM generate_series(1, 1000) i;
INSERT INTO g_ops SELECT 'x_exp16',        10000 + i, 'del', 'int8', (i * 3)::text FROM generate_series(1, 1000, 10) i;
INSERT INTO g_ops SELECT 'x_delall',       i, 'add', 'text', 'z' || i FROM generate_series(1, 800) i;
INSERT INTO g_ops SELECT 'x_delall',       1000 + i, 'del', 'text', 'z' || i FROM generate_series(1, 800) i;
-- every specially hashed type, and one through its send function (inet)
INSERT INTO g_ops (name, seq, op, kind, v) VALUES
 ('x_kinds', 1,  'add', 'text',        'hello'),
 ('x_kinds', 2,  'add', 'text',        ''),
 ('x_kinds', 3,  'add', 'text',        'ünïcødé ✓'),
 ('x_kinds', 4,  'add', 'int2',        '-32768'),
 ('x_kinds', 5,  'add', 'int4',        '2147483647'),
 ('x_kinds', 6,  'add', 'int8',        '-9223372036854775808'),
 ('x_kinds', 7,  'add', 'float4',      '1.5'),
 ('x_kinds', 8,  'add', 'float8',      '3.141592653589793'),
 ('x_kinds', 9,  'add', 'float8',      'NaN'),
 ('x_kinds', 10, 'add', 'float8',      '-0'),
 ('x_kinds', 11, 'add', 'float8',      '-Infinity'),
 ('x_kinds', 12, 'add', 'numeric',     '12345678901234567890.12345'),
 ('x_kinds', 13, 'add', 'numeric',     '2.50'),
 ('x_kinds', 14, 'add', 'bpchar',      'padded  '),
 ('x_kinds', 15, 'add', 'varchar',     'var'),
 ('x_kinds', 16, 'add', 'bytea',       '\x00ff10'),
 ('x_kinds', 17, 'add', 'name',        'pg_class'),
 ('x_kinds', 19, 'add', 'uuid',        'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'),
 ('x_kinds', 20, 'add', 'date',        '2024-02-29'),
 ('x_kinds', 21, 'add', 'timestamp',   '2000-01-01 00:00:00'),
 ('x_kinds', 22, 'add', 'timestamptz', '2024-06-01 12:34:56.789+00'),
 ('x_kinds', 23, 'add', 'bool',        'true'),
 ('x_kinds', 24, 'add', 'inet',        '192.168.0.0/16'),
 ('x_kinds', 25, 'add', 'int4',        '42'),
 ('x_kinds', 26, 'del', 'int4',        '42'),
 ('x_kinds', 27, 'add', 'text',        'deleted later'),
 ('x_kinds', 28, 'del', 'text',        'deleted later');
INSERT INTO g_ops SELECT 'x_kinds',        100 + i, 'add', 'text', 'k' || i FROM generate_series(1, 300) i;
INSERT INTO g_ops SELECT 'x_kinds',        1000 + i, 'del', 'text', 'k' || i FROM generate_series(1, 300, 3) i;
INSERT INTO g_ops SELECT 'x_uuid',         i, 'add', 'uuid', md5('u' || i)::uuid::text FROM generate_series(1, 1000) i;
INSERT INTO g_ops SELECT 'x_uuid',         10000 + i, 'del', 'uuid', md5('u' || i)::uuid::text FROM generate_series(1, 1000, 14) i;
INSERT INTO g_ops SELECT 'x_bytea',        i, 'add', 'bytea', '\x' || md5(i::text) FROM generate_series(1, 600) i;
INSERT INTO g_ops SELECT 'x_bytea',        10000 + i, 'del', 'bytea', '\x' || md5(i::text) FROM generate_series(1, 600, 8) i;
INSERT INTO g_ops SELECT 'x_list1',        1, 'add', 'int8', '42';
INSERT INTO g_ops SELECT 'x_list_copies',  i, 'add', 'text', 'c' || (i % 100) FROM generate_series(1, 150) i;
INSERT INTO g_ops SELECT 'x_list_copies',  1000 + i, 'del', 'text', 'c' || i FROM generate_series(1, 100, 7) i;
INSERT INTO g_ops SELECT 'x_list_full',    i, 'add', 'int4', (i * 7)::text FROM generate_series(1, 213) i;
INSERT INTO g_ops SELECT 'x_list_semi',    i, 'add', 'uuid', md5('s' || i)::uuid::text FROM generate_series(1, 90) i;
INSERT INTO g_ops SELECT 'x_list_b8',      i, 'add', 'bytea', '\x' || md5('b8' || i) FROM generate_series(1, 120) i;
INSERT INTO g_ops SELECT 'x_list_b8',      1000 + i, 'del', 'bytea', '\x' || md5('b8' || i) FROM generate_series(1, 120, 5) i;

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
	IF s.capacity IS NOT NULL THEN
		f := cf_create(s.capacity, s.fpr, s.encoding, s.bucket_size, s.max_kicks, s.expansion);
	END IF;
	IF n = 'x_kinds' THEN f := cf_set_kind(f, 'any'); END IF;
	FOR o IN SELECT * FROM g_ops WHERE name = n ORDER BY seq LOOP
		f := pg_temp.g_apply(f, o.op, o.kind, o.v);
	END LOOP;
	RETURN f;
END $$;

CREATE TEMP TABLE g_filters AS SELECT name, pg_temp.g_build(name) AS f FROM g_spec;

-- the aggregate's outputs with a capacity, and unions: of one family (one
-- table), of two families, of a split table and cf_agg's chain table
INSERT INTO g_spec (name, note) VALUES
 ('x_agg_cap',       'cf_agg(i, 0.01, 1000) over int4 1..777: cf_agg writes a chain table, beside the split ones'),
 ('x_agg_cap_grown', 'cf_agg(i, 0.01, 100) over int8 1..3000: a capacity too small, grown into chain sub-filters'),
 ('x_agg_cap_semi',  'cf_agg(''v'' || i, 0.001, 1000, ''semisorted'') over 1..777'),
 ('x_union_family',  'cf_union(cf_create(200) + a1..a1500, cf_create(200) + b1..b300): one table, then a1..a1500 by 4 deleted'),
 ('x_union_agg',     'cf_union_agg of cf_create(500) + pK-1..pK-(300K), K = 1..4: one table'),
 ('x_union_2fam',    'cf_union(cf_create(200) + a1..a1500, cf_create(300) + b1..b300): two split tables, then a1..a1500 by 4 and b1..b300 by 5 deleted'),
 ('x_union_enc',     'cf_union(cf_create(200, 0.01, ''semisorted'') + a1..a1500, cf_create(200) + b1..b300): one semi-sorted table'),
 ('x_union_chain',   'cf_union(cf_create(200) + a1..a1500, cf_agg(''c'' || i) over 1..300): a split table and a chain table');
INSERT INTO g_ops SELECT 'x_agg_cap', i, 'add', 'int4', i::text FROM generate_series(1, 777) i;
INSERT INTO g_ops SELECT 'x_agg_cap_grown', i, 'add', 'int8', i::text FROM generate_series(1, 3000) i;
INSERT INTO g_ops SELECT 'x_agg_cap_semi', i, 'add', 'text', 'v' || i FROM generate_series(1, 777) i;
INSERT INTO g_ops SELECT n, i, 'add', 'text', 'a' || i
  FROM unnest(ARRAY['x_union_family', 'x_union_2fam', 'x_union_enc', 'x_union_chain']) n, generate_series(1, 1500) i;
INSERT INTO g_ops SELECT n, 10000 + i, 'add', 'text', 'b' || i
  FROM unnest(ARRAY['x_union_family', 'x_union_2fam', 'x_union_enc']) n, generate_series(1, 300) i;
INSERT INTO g_ops SELECT 'x_union_chain', 10000 + i, 'add', 'text', 'c' || i FROM generate_series(1, 300) i;
INSERT INTO g_ops SELECT n, 20000 + i, 'del', 'text', 'a' || i
  FROM unnest(ARRAY['x_union_family', 'x_union_2fam']) n, generate_series(1, 1500, 4) i;
INSERT INTO g_ops SELECT 'x_union_2fam', 30000 + i, 'del', 'text', 'b' || i FROM generate_series(1, 300, 5) i;
INSERT INTO g_ops SELECT 'x_union_agg', k * 10000 + i, 'add', 'text', 'p' || k || '-' || i
  FROM generate_series(1, 4) k, generate_series(1, 300 * k) i;

INSERT INTO g_filters SELECT 'x_agg_cap', cf_agg(i, 0.01, 1000) FROM generate_series(1, 777) i;
INSERT INTO g_filters SELECT 'x_agg_cap_grown', cf_agg(i::int8, 0.01, 100) FROM generate_series(1, 3000) i;
INSERT INTO g_filters SELECT 'x_agg_cap_semi', cf_agg('v' || i, 0.001, 1000, 'semisorted') FROM generate_series(1, 777) i;
INSERT INTO g_filters SELECT 'x_union_family',
	cf_delete_all(cf_union(cf_add_all(cf_create(200), ARRAY(SELECT 'a' || i FROM generate_series(1, 1500) i)),
	                       cf_add_all(cf_create(200), ARRAY(SELECT 'b' || i FROM generate_series(1, 300) i))),
	              ARRAY(SELECT 'a' || i FROM generate_series(1, 1500, 4) i));
INSERT INTO g_filters SELECT 'x_union_agg', cf_union_agg(f ORDER BY k)
  FROM (SELECT k, cf_add_all(cf_create(500), ARRAY(SELECT 'p' || k || '-' || i FROM generate_series(1, 300 * k) i)) AS f
          FROM generate_series(1, 4) k) s;
INSERT INTO g_filters SELECT 'x_union_2fam',
	cf_delete_all(cf_delete_all(
		cf_union(cf_add_all(cf_create(200), ARRAY(SELECT 'a' || i FROM generate_series(1, 1500) i)),
		         cf_add_all(cf_create(300), ARRAY(SELECT 'b' || i FROM generate_series(1, 300) i))),
		ARRAY(SELECT 'a' || i FROM generate_series(1, 1500, 4) i)),
		ARRAY(SELECT 'b' || i FROM generate_series(1, 300, 5) i));
INSERT INTO g_filters SELECT 'x_union_enc',
	cf_union(cf_add_all(cf_create(200, 0.01, 'semisorted'), ARRAY(SELECT 'a' || i FROM generate_series(1, 1500) i)),
	         cf_add_all(cf_create(200), ARRAY(SELECT 'b' || i FROM generate_series(1, 300) i)));
INSERT INTO g_filters SELECT 'x_union_chain',
	cf_union(cf_add_all(cf_create(200), ARRAY(SELECT 'a' || i FROM generate_series(1, 1500) i)),
	         (SELECT cf_agg('c' || i) FROM generate_series(1, 300) i));

-- the values: every distinct value a filter saw, its net copy count, and
-- the answers this build gave; plus 100 never-added probes per filter, of
-- the filter's own kind
CREATE FUNCTION pg_temp.g_ask(f cuckoofilter, kind text, v text, OUT c boolean, OUT n int)
LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE format('SELECT cf_contains($1, $2::%s), cf_count($1, $2::%s)', kind, kind) INTO c, n USING f, v;
END $$;

CREATE TEMP TABLE g_values AS
SELECT name, kind, v, sum(CASE op WHEN 'add' THEN 1 ELSE -1 END)::int AS net, min(seq) AS first_seq
  FROM g_ops GROUP BY name, kind, v;
INSERT INTO g_values SELECT s.name, k.kind,
       CASE k.kind WHEN 'text' THEN 'probe-' || i WHEN 'uuid' THEN md5('probe' || i)::uuid::text
            WHEN 'bytea' THEN '\x' || md5('probe' || i) ELSE (-7000000 - i)::text END,
       0, 1000000 + i
  FROM g_spec s, generate_series(1, 100) i,
       LATERAL (SELECT CASE WHEN s.name IN ('x_kinds', 'x_empty') THEN 'text'
                            WHEN o.kind IN ('int4', 'int8') THEN 'int8'
                            ELSE o.kind END AS kind
                  FROM (SELECT (SELECT kind FROM g_ops WHERE name = s.name ORDER BY seq LIMIT 1) AS kind) o) k;
CREATE TEMP TABLE g_answers AS
SELECT g.name, g.kind, g.v, g.net, (pg_temp.g_ask(x.f, g.kind, g.v)).*, g.first_seq
  FROM g_values g JOIN g_filters x USING (name);

-- every table's descriptor: geometry, level, base width, encoding, stash records
CREATE FUNCTION pg_temp.g_tables(f cuckoofilter) RETURNS text LANGUAGE sql AS $$
SELECT string_agg(format('g%s L%s w%s F%s e%s s%s', get_byte(b, d + 9), get_byte(b, d + 10),
                         get_byte(b, d + 8), get_byte(b, d + 11), get_byte(b, d + 12),
                         get_byte(b, d + 13) + 256 * get_byte(b, d + 14)), ', ' ORDER BY k)
  FROM (SELECT cuckoofilter_send(f) AS b) s, generate_series(0, get_byte(b, 5) - 1) k,
       LATERAL (SELECT 40 + 16 * k AS d) x $$;

-- sanity before freezing: no false negative, a split table or a list (a
-- small growing filter's start) in every filter but the one whose rate is too
-- low for the split schedule and cf_agg's chain tables; some lists
DO $$
BEGIN
	IF EXISTS (SELECT FROM g_answers WHERE net > 0 AND (NOT c OR n < net)) THEN
		RAISE EXCEPTION 'a false negative: refusing to write golden files';
	END IF;
	IF EXISTS (SELECT FROM g_filters
	            WHERE (pg_temp.g_tables(f) ~ 'g[34] ') <> (name <> 'x_fpr1e-8' AND name NOT LIKE 'x_agg_cap%')) THEN
		RAISE EXCEPTION 'a filter without a split table or list, or a chain filter with one';
	END IF;
	IF (SELECT count(*) FROM g_filters WHERE name LIKE 'x_list%' AND pg_temp.g_tables(f) LIKE 'g4 %') <> 5 THEN
		RAISE EXCEPTION 'the x_list shapes are not lists';
	END IF;
END $$;
SELECT name, pg_temp.g_tables(f), cf_encoding(f) FROM g_filters ORDER BY name;

\copy (SELECT name, coalesce(note, '') FROM g_spec ORDER BY name) TO 'test/golden/v2-split/filters_spec.txt'
\copy (SELECT name, f::text FROM g_filters ORDER BY name) TO 'test/golden/v2-split/filters.txt'
\copy (SELECT name, f FROM g_filters ORDER BY name) TO 'test/golden/v2-split/filters.bin' WITH (FORMAT binary)
\copy (SELECT name, kind, v, net, c, n FROM g_answers ORDER BY name, first_seq) TO 'test/golden/v2-split/values.txt'
\copy (SELECT name, i.capacity, i.items, i.buckets, i.bucket_size, i.fingerprint_bits, i.bytes, i.subfilters, i.load_factor, i.fpr, i.target_fpr, i.expansion, i.max_kicks, i.format_version, i.value_hashing, i.deletes, i.retained, i.families, coalesce(i.value_kind, ''), cf_encoding(f) FROM g_filters, cf_info_all(f) i ORDER BY name) TO 'test/golden/v2-split/info.txt'
