-- cuckoo_golden_semisort: filters with semi-sorted tables (format version
-- 2, table encoding 1) written by cuckoo 1.2 (test/golden/v2-semisort,
-- frozen, never regenerated) must read back in text and binary form,
-- re-serialize byte for byte, answer exactly as 1.2 did and report the same
-- cf_info_all and cf_encoding.
\getenv abs_srcdir PG_ABS_SRCDIR
\getenv abs_builddir PG_ABS_BUILDDIR

CREATE TABLE gs_spec (name text PRIMARY KEY, note text);
CREATE TABLE gs_text (name text PRIMARY KEY, t text);
CREATE TABLE gs_bin (name text PRIMARY KEY, f cuckoofilter);
CREATE TABLE gs_values (name text, kind text, v text, net int, c boolean, n int);
CREATE TABLE gs_info (name text PRIMARY KEY, capacity bigint, items bigint, buckets bigint,
	bucket_size int, fingerprint_bits int, bytes bigint, subfilters int,
	load_factor float8, fpr float8, target_fpr float8, expansion int, max_kicks int,
	format_version int, value_hashing int, deletes bigint, retained bigint, families int,
	value_kind text, encoding text);
\cd :abs_srcdir
\copy gs_spec FROM 'test/golden/v2-semisort/filters_spec.txt'
\copy gs_text FROM 'test/golden/v2-semisort/filters.txt'
\copy gs_bin FROM 'test/golden/v2-semisort/filters.bin' WITH (FORMAT binary)
\copy gs_values FROM 'test/golden/v2-semisort/values.txt'
\copy gs_info FROM 'test/golden/v2-semisort/info.txt'
\cd :abs_builddir

CREATE TABLE gs AS SELECT name, t::cuckoofilter AS f FROM gs_text;
SELECT (SELECT count(*) FROM gs) AS from_text, (SELECT count(*) FROM gs_bin) AS from_binary,
       (SELECT count(*) FROM gs_values) AS value_rows, (SELECT count(*) FROM gs_info) AS info_rows;

-- re-serialization: identical text, identical bytes through recv and send
SELECT name FROM gs JOIN gs_text USING (name) WHERE f::text <> t;
SELECT name FROM gs g JOIN gs_bin b USING (name)
 WHERE cuckoofilter_send(g.f) <> cuckoofilter_send(b.f)
    OR cuckoofilter_send(g.f) <> decode((SELECT t FROM gs_text WHERE name = g.name), 'base64');
\copy (SELECT name, f::text FROM gs ORDER BY name) TO 'results/cuckoo_golden_semisort_filters.txt'
\copy (SELECT name, f FROM gs_bin ORDER BY name) TO 'results/cuckoo_golden_semisort_filters.bin' WITH (FORMAT binary)
\! cmp "$PG_ABS_SRCDIR/test/golden/v2-semisort/filters.txt" results/cuckoo_golden_semisort_filters.txt && echo text file identical
\! cmp "$PG_ABS_SRCDIR/test/golden/v2-semisort/filters.bin" results/cuckoo_golden_semisort_filters.bin && echo binary file identical

-- the version-2 header fields straight from the bytes, and the encoding
-- byte of the first table's descriptor
SELECT name, get_byte(b, 1) AS version, get_byte(b, 3) AS b, get_byte(b, 4) AS fpbits,
       get_byte(b, 5) AS nstages, get_byte(b, 6) AS expansion, get_byte(b, 52) AS encoding0,
       cf_encoding(f) AS encoding, length(b) AS bytes, note
  FROM (SELECT name, f, cuckoofilter_send(f) AS b FROM gs) s JOIN gs_spec USING (name)
 ORDER BY name;

-- cf_info_all and cf_encoding as 1.2 reported them (floating point to 12 digits)
SELECT g.name FROM gs g, cf_info_all(g.f) i JOIN gs_info x ON true
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
CREATE FUNCTION gs_ask(f cuckoofilter, kind text, v text, OUT c boolean, OUT n int)
LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE format('SELECT cf_contains($1, $2::%s), cf_count($1, $2::%s)', kind, kind) INTO c, n USING f, v;
END $$;
CREATE TABLE gs_answers AS
SELECT x.name, x.kind, x.v, x.net, x.c AS c12, x.n AS n12, (gs_ask(g.f, x.kind, x.v)).*
  FROM gs_values x JOIN gs g USING (name);
SELECT name,
       count(*) FILTER (WHERE net > 0) AS added,
       count(*) FILTER (WHERE net > 0 AND c AND n >= net) AS added_present,
       count(*) FILTER (WHERE v LIKE 'probe-%' OR net = 0) AS not_held,
       count(*) FILTER (WHERE (v LIKE 'probe-%' OR net = 0) AND c) AS false_positives,
       count(*) FILTER (WHERE c IS DISTINCT FROM c12 OR n IS DISTINCT FROM n12) AS differ_from_1_2
  FROM gs_answers GROUP BY name ORDER BY name;

-- a stored semi-sorted chain filter keeps working when it grows further
-- (cuckoo 1.2 writes split tables for new filters, but a chain filter read
-- back grows as a chain: semi-sorted tables appended to its family).  Each
-- table as g<geometry> L<level> w<width> e<encoding>, from the bytes.
CREATE FUNCTION gs_tables(f cuckoofilter) RETURNS text LANGUAGE sql AS $$
SELECT string_agg(format('g%s L%s w%s e%s', get_byte(b, d + 9), get_byte(b, d + 10),
                         get_byte(b, d + 8), get_byte(b, d + 12)), ', ' ORDER BY k)
  FROM (SELECT cuckoofilter_send(f) AS b) s, generate_series(0, get_byte(b, 5) - 1) k,
       LATERAL (SELECT 40 + 16 * k AS d) x $$;
-- s_grown_x2 (5 tables, a third of its 1,500 values deleted) takes 3,000 new
-- values: more chain tables, every value it held and every new one present;
-- then half the new ones deleted: exact (none retained), the rest present
CREATE TABLE gs_more AS
SELECT cf_add_all(f, ARRAY(SELECT (i * 104729)::int8 FROM generate_series(1501, 4500) i)) AS f
  FROM gs WHERE name = 's_grown_x2';
SELECT gs_tables(f) AS tables, (cf_info(f)).subfilters, cf_encoding(f) AS encoding,
       (SELECT count(*) FROM gs_values x WHERE x.name = 's_grown_x2' AND x.net > 0
           AND NOT (gs_ask(m.f, x.kind, x.v)).c) AS old_missing,
       (SELECT count(*) FROM generate_series(1501, 4500) i WHERE NOT cf_contains(m.f, (i * 104729)::int8)) AS new_missing
  FROM gs_more m;
UPDATE gs_more SET f = cf_delete_all(f, ARRAY(SELECT (i * 104729)::int8 FROM generate_series(1501, 4500, 2) i));
SELECT i.items, i.deletes - 500 AS new_deletes, i.retained,
       (SELECT count(*) FROM generate_series(1502, 4500, 2) k WHERE NOT cf_contains(m.f, (k * 104729)::int8)) AS kept_missing,
       (SELECT count(*) FROM gs_values x WHERE x.name = 's_grown_x2' AND x.net > 0
           AND NOT (gs_ask(m.f, x.kind, x.v)).c) AS old_missing
  FROM gs_more m, cf_info(m.f) i;
-- cf_agg sized to its values still writes one chain table: the same bytes
-- 1.5 writes format version 3: version 2's bytes with check bytes in header
-- byte 11 and descriptor byte 15 (FORMAT.md "Version 3"); gs_as_v2 gives them
-- back as version 2, so that the writer is compared with the frozen bytes
CREATE FUNCTION gs_as_v2(b bytea) RETURNS bytea LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
	IF get_byte(b, 1) = 3 THEN
		b := set_byte(set_byte(b, 1, 2), 11, 0);
		FOR k IN 0 .. get_byte(b, 5) - 1 LOOP
			b := set_byte(b, 40 + 16 * k + 15, 0);
		END LOOP;
	END IF;
	RETURN b;
END $$;
SELECT gs_as_v2((SELECT cf_agg(i, 0.01, 0, 'semisorted') FROM generate_series(1, 2000) i)::bytea) =
       decode((SELECT t FROM gs_text WHERE name = 's_agg_int4'), 'base64') AS agg_rebuilt_identical;
DROP FUNCTION gs_as_v2(bytea);

DROP TABLE gs, gs_spec, gs_text, gs_bin, gs_values, gs_info, gs_answers, gs_more;
DROP FUNCTION gs_ask(cuckoofilter, text, text);
DROP FUNCTION gs_tables(cuckoofilter);
