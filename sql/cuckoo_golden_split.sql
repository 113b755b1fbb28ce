-- cuckoo_golden_split: filters with split tables (format version 2,
-- geometry 3) written by cuckoo 1.2 (test/golden/v2-split, frozen, never
-- regenerated) must read back in text and binary form, re-serialize byte
-- for byte, answer exactly as 1.2 did and report the same cf_info_all and
-- cf_encoding; and the writer must still be deterministic: the same SQL
-- steps give the same bytes.
\getenv abs_srcdir PG_ABS_SRCDIR
\getenv abs_builddir PG_ABS_BUILDDIR

CREATE TABLE gx_spec (name text PRIMARY KEY, note text);
CREATE TABLE gx_text (name text PRIMARY KEY, t text);
CREATE TABLE gx_bin (name text PRIMARY KEY, f cuckoofilter);
CREATE TABLE gx_values (name text, kind text, v text, net int, c boolean, n int);
CREATE TABLE gx_info (name text PRIMARY KEY, capacity bigint, items bigint, buckets bigint,
	bucket_size int, fingerprint_bits int, bytes bigint, subfilters int,
	load_factor float8, fpr float8, target_fpr float8, expansion int, max_kicks int,
	format_version int, value_hashing int, deletes bigint, retained bigint, families int,
	value_kind text, encoding text);
\cd :abs_srcdir
\copy gx_spec FROM 'test/golden/v2-split/filters_spec.txt'
\copy gx_text FROM 'test/golden/v2-split/filters.txt'
\copy gx_bin FROM 'test/golden/v2-split/filters.bin' WITH (FORMAT binary)
\copy gx_values FROM 'test/golden/v2-split/values.txt'
\copy gx_info FROM 'test/golden/v2-split/info.txt'
\cd :abs_builddir

CREATE TABLE gx AS SELECT name, t::cuckoofilter AS f FROM gx_text;
SELECT (SELECT count(*) FROM gx) AS from_text, (SELECT count(*) FROM gx_bin) AS from_binary,
       (SELECT count(*) FROM gx_values) AS value_rows, (SELECT count(*) FROM gx_info) AS info_rows;

-- re-serialization: identical text, identical bytes through recv and send
SELECT name FROM gx JOIN gx_text USING (name) WHERE f::text <> t;
SELECT name FROM gx g JOIN gx_bin b USING (name)
 WHERE cuckoofilter_send(g.f) <> cuckoofilter_send(b.f)
    OR cuckoofilter_send(g.f) <> decode((SELECT t FROM gx_text WHERE name = g.name), 'base64');
\copy (SELECT name, f::text FROM gx ORDER BY name) TO 'results/cuckoo_golden_split_filters.txt'
\copy (SELECT name, f FROM gx_bin ORDER BY name) TO 'results/cuckoo_golden_split_filters.bin' WITH (FORMAT binary)
\! cmp "$PG_ABS_SRCDIR/test/golden/v2-split/filters.txt" results/cuckoo_golden_split_filters.txt && echo text file identical
\! cmp "$PG_ABS_SRCDIR/test/golden/v2-split/filters.bin" results/cuckoo_golden_split_filters.bin && echo binary file identical

-- the bytes read by hand (FORMAT.md, "Header", "Table descriptor", "Split
-- tables"): each table as g<geometry> L<level> w<width> F<base width>
-- e<encoding> s<stash records>; the stash records in use (entry non-zero)
-- and their highest level; and the length the descriptors add up to (a
-- table: its slots, then 12 bytes per stash record; a list: 8 bytes per
-- hash slot, "List sub-filters")
CREATE FUNCTION gx_le(b bytea, o int, n int) RETURNS bigint LANGUAGE sql IMMUTABLE AS $$
SELECT sum(get_byte(b, o + k)::bigint << (8 * k))::bigint FROM generate_series(0, n - 1) k $$;
CREATE FUNCTION gx_layout(b bytea, OUT tables text, OUT stash_used int, OUT stash_level int,
	OUT length_ok boolean) LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
	bs int := get_byte(b, 3);
	n int := get_byte(b, 5);
	off bigint := 40 + 16 * n;
	d int; nb bigint; w int; ns int;
BEGIN
	stash_used := 0;
	FOR k IN 0 .. n - 1 LOOP
		d := 40 + 16 * k;
		nb := gx_le(b, d, 4);
		w := get_byte(b, d + 8);
		ns := gx_le(b, d + 13, 2);
		tables := concat_ws(', ', tables, format('g%s L%s w%s F%s e%s s%s', get_byte(b, d + 9),
			get_byte(b, d + 10), w, get_byte(b, d + 11), get_byte(b, d + 12), ns));
		off := off + CASE WHEN get_byte(b, d + 9) = 4 THEN 8 * nb  -- a list: nbuckets hashes
		                  WHEN get_byte(b, d + 12) = 0 THEN (nb * bs * w + 7) / 8
		                  ELSE (nb * (4 * w - 4) + 7) / 8 END;
		IF off + 12 * ns > length(b) THEN
			length_ok := false;  -- the stash records would run past the end
			RETURN;
		END IF;
		FOR j IN 0 .. ns - 1 LOOP
			IF gx_le(b, (off + 12 * j + 4)::int, 4) <> 0 THEN
				stash_used := stash_used + 1;
				stash_level := greatest(stash_level, get_byte(b, (off + 12 * j + 8)::int));
			END IF;
		END LOOP;
		off := off + 12 * ns;
	END LOOP;
	length_ok := off = length(b);
END $$;
SELECT name, get_byte(b, 1) AS version, get_byte(b, 3) AS b, get_byte(b, 5) AS nstages,
       get_byte(b, 6) AS expansion, (gx_layout(b)).*, cf_encoding(f) AS encoding, length(b) AS bytes
  FROM (SELECT name, f, cuckoofilter_send(f) AS b FROM gx) s
 ORDER BY name;
-- the walker can say f: a list or a table with 8 bytes more, or 8 fewer,
-- than its descriptors give
SELECT name, (gx_layout(b || '\x0000000000000000'::bytea)).length_ok AS longer_ok,
       (gx_layout(substr(b, 1, length(b) - 8))).length_ok AS shorter_ok
  FROM (SELECT name, cuckoofilter_send(f) AS b FROM gx) s
 WHERE name IN ('x_list1', 'x_list_full', 'x_list_semi', 'x_cap10', 'x_agg_cap_grown')
 ORDER BY name;
SELECT name, note FROM gx_spec ORDER BY name;

-- cf_info_all and cf_encoding as 1.2 reported them (floating point to 12 digits)
SELECT g.name FROM gx g, cf_info_all(g.f) i JOIN gx_info x ON true
 WHERE x.name = g.name
   AND ((i.capacity, i.items, i.buckets, i.bucket_size, i.fingerprint_bits, i.bytes, i.subfilters,
        i.target_fpr, i.expansion, i.max_kicks, i.format_version, i.value_hashing, i.deletes,
        i.retained, i.families, coalesce(i.value_kind, ''), cf_encoding(g.f))
       IS DISTINCT FROM
       (x.capacity, x.items, x.buckets, x.bucket_size, x.fingerprint_bits, x.bytes, x.subfilters,
        x.target_fpr, x.expansion, x.max_kicks, x.format_version, x.value_hashing, x.deletes,
        x.retained, x.families, x.value_kind, x.encoding)
    OR abs(i.load_factor - x.load_factor) > 1e-12 * greatest(1, x.load_factor)
    OR abs(i.fpr - x.fpr) > 1e-12 * greatest(1e-300, x.fpr));

-- every answer as 1.2 gave it: contains and count of every value and probe
CREATE FUNCTION gx_ask(f cuckoofilter, kind text, v text, OUT c boolean, OUT n int)
LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE format('SELECT cf_contains($1, $2::%s), cf_count($1, $2::%s)', kind, kind) INTO c, n USING f, v;
END $$;
CREATE TABLE gx_answers AS
SELECT x.name, x.kind, x.v, x.net, x.c AS c12, x.n AS n12, (gx_ask(g.f, x.kind, x.v)).*
  FROM gx_values x JOIN gx g USING (name);
SELECT name,
       count(*) FILTER (WHERE net > 0) AS added,
       count(*) FILTER (WHERE net > 0 AND c AND n >= net) AS added_present,
       count(*) FILTER (WHERE v LIKE 'probe-%' OR net = 0) AS not_held,
       count(*) FILTER (WHERE (v LIKE 'probe-%' OR net = 0) AND c) AS false_positives,
       count(*) FILTER (WHERE c IS DISTINCT FROM c12 OR n IS DISTINCT FROM n12) AS differ_from_1_2
  FROM gx_answers GROUP BY name ORDER BY name;

-- the writer: the steps of generate.sql, replayed for six filters, give
-- the same bytes (may change on purpose with the insertion algorithm; the
-- golden files themselves never do)
CREATE FUNCTION gx_rebuild(n text) RETURNS cuckoofilter LANGUAGE plpgsql AS $$
DECLARE f cuckoofilter;
BEGIN
	IF n = 'x_null_start' THEN
		FOR i IN 1 .. 400 LOOP f := cf_add(f, 'n' || i); END LOOP;
		FOR i IN 1 .. 400 BY 9 LOOP f := cf_delete(f, 'n' || i); END LOOP;
	ELSIF n = 'x_stash_grown' THEN
		f := cf_create(100, 0.01, 'packed', 4, 500, 2);
		FOR i IN 1 .. 40 LOOP f := cf_add(f, 'same'::text); END LOOP;
		FOR i IN 1 .. 2000 LOOP f := cf_add(f, 'v' || i); END LOOP;
		FOR i IN 1 .. 10 LOOP f := cf_delete(f, 'same'::text); END LOOP;
		FOR i IN 1 .. 2000 BY 6 LOOP f := cf_delete(f, 'v' || i); END LOOP;
	ELSIF n = 'x_semi' THEN
		f := cf_create(200, 0.01, 'semisorted', 4, 500, 2);
		FOR i IN 1 .. 2000 LOOP f := cf_add(f, (i * 7919)::int8); END LOOP;
		FOR i IN 1 .. 2000 BY 3 LOOP f := cf_delete(f, (i * 7919)::int8); END LOOP;
	ELSIF n = 'x_union_family' THEN
		f := cf_delete_all(cf_union(cf_add_all(cf_create(200), ARRAY(SELECT 'a' || i FROM generate_series(1, 1500) i)),
		                            cf_add_all(cf_create(200), ARRAY(SELECT 'b' || i FROM generate_series(1, 300) i))),
		                   ARRAY(SELECT 'a' || i FROM generate_series(1, 1500, 4) i));
	ELSIF n = 'x_list_copies' THEN
		FOR i IN 1 .. 150 LOOP f := cf_add(f, 'c' || (i % 100)); END LOOP;
		FOR i IN 1 .. 100 BY 7 LOOP f := cf_delete(f, 'c' || i); END LOOP;
	ELSIF n = 'x_agg_cap' THEN
		f := (SELECT cf_agg(i, 0.01, 1000) FROM generate_series(1, 777) i);
	END IF;
	RETURN f;
END $$;
-- 1.5 writes format version 3: version 2's bytes with check bytes in header
-- byte 11 and descriptor byte 15 (FORMAT.md "Version 3"); gx_as_v2 gives them
-- back as version 2, so that the writer is compared with the frozen bytes
CREATE FUNCTION gx_as_v2(b bytea) RETURNS bytea LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
	IF get_byte(b, 1) = 3 THEN
		b := set_byte(set_byte(b, 1, 2), 11, 0);
		FOR k IN 0 .. get_byte(b, 5) - 1 LOOP
			b := set_byte(b, 40 + 16 * k + 15, 0);
		END LOOP;
	END IF;
	RETURN b;
END $$;
SELECT n AS name, gx_as_v2(gx_rebuild(n)::bytea) = decode((SELECT t FROM gx_text WHERE name = n), 'base64')
         AND get_byte(gx_rebuild(n)::bytea, 1) = 3 AS rebuilt_identical
  FROM unnest(ARRAY['x_null_start', 'x_stash_grown', 'x_semi', 'x_union_family', 'x_list_copies', 'x_agg_cap']) n
 ORDER BY n;

-- a stored split filter keeps working when it grows further: x_cap10 (level
-- 9, number kind) and x_stash_grown (a stash, text kind) take 5,000 more
-- values each; every value they held and every new one is present; half the
-- new ones deleted: deletes stay exact (none retained), the rest present
CREATE TABLE gx_new AS
SELECT 'x_cap10' AS name, 'int4' AS kind, (i * 31)::text AS v, i FROM generate_series(5001, 10000) i
UNION ALL
SELECT 'x_stash_grown', 'text', 'more' || i, i FROM generate_series(1, 5000) i;
CREATE TABLE gx_more AS
SELECT name, CASE name
         WHEN 'x_cap10' THEN cf_add_all(f, ARRAY(SELECT v::int4 FROM gx_new n WHERE n.name = g.name ORDER BY i))
         ELSE cf_add_all(f, ARRAY(SELECT v FROM gx_new n WHERE n.name = g.name ORDER BY i)) END AS f
  FROM gx g WHERE name IN ('x_cap10', 'x_stash_grown');
SELECT name, (gx_layout(cuckoofilter_send(f))).tables,
       (SELECT count(*) FROM gx_values x WHERE x.name = m.name AND x.net > 0
           AND NOT (gx_ask(m.f, x.kind, x.v)).c) AS old_missing,
       (SELECT count(*) FROM gx_new n WHERE n.name = m.name AND NOT (gx_ask(m.f, n.kind, n.v)).c) AS new_missing
  FROM gx_more m ORDER BY name;
UPDATE gx_more m SET f = CASE name
         WHEN 'x_cap10' THEN cf_delete_all(f, ARRAY(SELECT v::int4 FROM gx_new n WHERE n.name = m.name AND n.i % 2 = 1 ORDER BY n.i))
         ELSE cf_delete_all(f, ARRAY(SELECT v FROM gx_new n WHERE n.name = m.name AND n.i % 2 = 1 ORDER BY n.i)) END;
SELECT m.name, ci.items, ci.deletes - x.deletes AS new_deletes, ci.retained,
       (SELECT count(*) FROM gx_new n WHERE n.name = m.name AND n.i % 2 = 0
           AND NOT (gx_ask(m.f, n.kind, n.v)).c) AS kept_missing,
       (SELECT count(*) FROM gx_values v WHERE v.name = m.name AND v.net > 0
           AND NOT (gx_ask(m.f, v.kind, v.v)).c) AS old_missing
  FROM gx_more m, cf_info_all(m.f) ci, gx_info x WHERE x.name = m.name ORDER BY m.name;

DROP TABLE gx, gx_spec, gx_text, gx_bin, gx_values, gx_info, gx_answers, gx_new, gx_more;
DROP FUNCTION gx_ask(cuckoofilter, text, text);
DROP FUNCTION gx_rebuild(text);
DROP FUNCTION gx_layout(bytea);
DROP FUNCTION gx_le(bytea, int, int);
DROP FUNCTION gx_as_v2(bytea);
