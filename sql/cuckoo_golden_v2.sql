-- cuckoo_golden_v2: filters written by cuckoo 1.1 in format version 2
-- (test/golden/v2, frozen, never regenerated) must read back in text and
-- binary form, re-serialize byte for byte, answer exactly as 1.1 did and
-- report the same cf_info.
\getenv abs_srcdir PG_ABS_SRCDIR
\getenv abs_builddir PG_ABS_BUILDDIR

CREATE TABLE g2_spec (name text PRIMARY KEY, note text);
CREATE TABLE g2_text (name text PRIMARY KEY, t text);
CREATE TABLE g2_bin (name text PRIMARY KEY, f cuckoofilter);
CREATE TABLE g2_values (name text, kind text, v text, net int, c boolean, n int);
CREATE TABLE g2_info (name text PRIMARY KEY, capacity bigint, items bigint, buckets bigint,
	bucket_size int, fingerprint_bits int, bytes bigint, subfilters int,
	load_factor float8, fpr float8, target_fpr float8, expansion int, max_kicks int,
	format_version int, value_hashing int, deletes bigint, retained bigint, families int,
	value_kind text);
\cd :abs_srcdir
\copy g2_spec FROM 'test/golden/v2/filters_spec.txt'
\copy g2_text FROM 'test/golden/v2/filters.txt'
\copy g2_bin FROM 'test/golden/v2/filters.bin' WITH (FORMAT binary)
\copy g2_values FROM 'test/golden/v2/values.txt'
\copy g2_info FROM 'test/golden/v2/info.txt'
\cd :abs_builddir

CREATE TABLE g2 AS SELECT name, t::cuckoofilter AS f FROM g2_text;
SELECT (SELECT count(*) FROM g2) AS from_text, (SELECT count(*) FROM g2_bin) AS from_binary,
       (SELECT count(*) FROM g2_values) AS value_rows, (SELECT count(*) FROM g2_info) AS info_rows;

-- re-serialization: identical text, identical bytes through recv and send
SELECT name FROM g2 JOIN g2_text USING (name) WHERE f::text <> t;
SELECT name FROM g2 g JOIN g2_bin b USING (name)
 WHERE cuckoofilter_send(g.f) <> cuckoofilter_send(b.f)
    OR cuckoofilter_send(g.f) <> decode((SELECT t FROM g2_text WHERE name = g.name), 'base64');
\copy (SELECT name, f::text FROM g2 ORDER BY name) TO 'results/cuckoo_golden_v2_filters.txt'
\copy (SELECT name, f FROM g2_bin ORDER BY name) TO 'results/cuckoo_golden_v2_filters.bin' WITH (FORMAT binary)
\! cmp "$PG_ABS_SRCDIR/test/golden/v2/filters.txt" results/cuckoo_golden_v2_filters.txt && echo text file identical
\! cmp "$PG_ABS_SRCDIR/test/golden/v2/filters.bin" results/cuckoo_golden_v2_filters.bin && echo binary file identical

-- the version-2 header fields straight from the bytes
SELECT name, get_byte(b, 1) AS version, get_byte(b, 3) AS b, get_byte(b, 4) AS fpbits,
       get_byte(b, 5) AS nstages, get_byte(b, 6) AS expansion, get_byte(b, 7) AS hashing,
       get_byte(b, 10) AS kind, length(b) AS bytes, note
  FROM (SELECT name, cuckoofilter_send(f) AS b FROM g2) s JOIN g2_spec USING (name)
 ORDER BY name;

-- cf_info as 1.1 reported it (floating point to 12 digits)
SELECT g.name FROM g2 g, cf_info(g.f) i JOIN g2_info x ON true
 WHERE x.name = g.name
   AND ((i.capacity, i.items, i.buckets, i.bucket_size, i.fingerprint_bits, i.bytes, i.subfilters,
        i.target_fpr, i.expansion, i.max_kicks, i.format_version, i.value_hashing, i.deletes,
        i.retained, i.families, coalesce(i.value_kind, ''))
       IS DISTINCT FROM
       (x.capacity, x.items, x.buckets, x.bucket_size, x.fingerprint_bits, x.bytes, x.subfilters,
        x.target_fpr, x.expansion, x.max_kicks, x.format_version, x.value_hashing, x.deletes,
        x.retained, x.families, x.value_kind)
    OR abs(i.load_factor - x.load_factor) > 1e-12 * greatest(1, x.load_factor)
    OR abs(i.fpr - x.fpr) > 1e-12 * greatest(1e-300, x.fpr));

-- every answer as 1.1 gave it: contains and count of every value and probe
CREATE FUNCTION g2_ask(f cuckoofilter, kind text, v text, OUT c boolean, OUT n int)
LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE format('SELECT cf_contains($1, $2::%s), cf_count($1, $2::%s)', kind, kind) INTO c, n USING f, v;
END $$;
SET timezone = 'America/New_York';
CREATE TABLE g2_answers AS
SELECT x.name, x.kind, x.v, x.net, x.c AS c11, x.n AS n11, (g2_ask(g.f, x.kind, x.v)).*
  FROM g2_values x JOIN g2 g USING (name);
RESET timezone;
SELECT name,
       count(*) FILTER (WHERE net > 0) AS added,
       count(*) FILTER (WHERE net > 0 AND c AND n >= net) AS added_present,
       count(*) FILTER (WHERE v LIKE 'probe-%' OR net = 0) AS not_held,
       count(*) FILTER (WHERE (v LIKE 'probe-%' OR net = 0) AND c) AS false_positives,
       count(*) FILTER (WHERE c IS DISTINCT FROM c11 OR n IS DISTINCT FROM n11) AS differ_from_1_1
  FROM g2_answers GROUP BY name ORDER BY name;

-- a stored chain filter keeps working when it grows further (cuckoo 1.2
-- writes split tables for new filters, but a chain filter read back grows
-- as a chain: tables appended to its family).  Each table as g<geometry>
-- L<level> w<width> e<encoding>, from the bytes.
CREATE FUNCTION g2_tables(f cuckoofilter) RETURNS text LANGUAGE sql AS $$
SELECT string_agg(format('g%s L%s w%s e%s', get_byte(b, d + 9), get_byte(b, d + 10),
                         get_byte(b, d + 8), get_byte(b, d + 12)), ', ' ORDER BY k)
  FROM (SELECT cuckoofilter_send(f) AS b) s, generate_series(0, get_byte(b, 5) - 1) k,
       LATERAL (SELECT 40 + 16 * k AS d) x $$;
-- chain_x2 (4 tables, a third of its 1,500 values deleted) takes 2,500 new
-- values: more chain tables, every value it held and every new one present;
-- then half the new ones deleted: exact (none retained), the rest present
CREATE TABLE g2_more AS
SELECT cf_add_all(f, ARRAY(SELECT (i * 104729)::int8 FROM generate_series(1501, 4000) i)) AS f
  FROM g2 WHERE name = 'chain_x2';
SELECT g2_tables(f) AS tables, (cf_info(f)).subfilters,
       (SELECT count(*) FROM g2_values x WHERE x.name = 'chain_x2' AND x.net > 0
           AND NOT (g2_ask(m.f, x.kind, x.v)).c) AS old_missing,
       (SELECT count(*) FROM generate_series(1501, 4000) i WHERE NOT cf_contains(m.f, (i * 104729)::int8)) AS new_missing
  FROM g2_more m;
UPDATE g2_more SET f = cf_delete_all(f, ARRAY(SELECT (i * 104729)::int8 FROM generate_series(1501, 4000, 2) i));
SELECT i.items, i.deletes - 500 AS new_deletes, i.retained,
       (SELECT count(*) FROM generate_series(1502, 4000, 2) k WHERE NOT cf_contains(m.f, (k * 104729)::int8)) AS kept_missing,
       (SELECT count(*) FROM g2_values x WHERE x.name = 'chain_x2' AND x.net > 0
           AND NOT (g2_ask(m.f, x.kind, x.v)).c) AS old_missing
  FROM g2_more m, cf_info(m.f) i;

-- a chain filter cannot grow past 32 tables: chain_x1 (expansion 1, 4
-- same-size tables of 8-slot buckets) takes new values until the error;
-- every value it held and every value added is still present, and the
-- filter that refused the add still refuses it the same way
CREATE FUNCTION g2_grow_to_limit(INOUT f cuckoofilter, OUT added int, OUT state text,
	OUT msg text, OUT detail text) LANGUAGE plpgsql AS $$
BEGIN
	added := 0;
	LOOP
		f := cf_add(f, 'grow-' || (added + 1));
		added := added + 1;
		EXIT WHEN added >= 100000;
	END LOOP;
EXCEPTION WHEN program_limit_exceeded THEN
	GET STACKED DIAGNOSTICS state = RETURNED_SQLSTATE, msg = MESSAGE_TEXT, detail = PG_EXCEPTION_DETAIL;
END $$;
CREATE TABLE g2_limit AS SELECT (g2_grow_to_limit(f)).* FROM g2 WHERE name = 'chain_x1';
SELECT (cf_info(f)).subfilters, (cf_info(f)).expansion, added > 2000 AS added_over_2000,
       state, msg, detail,
       (SELECT count(*) FROM g2_values x WHERE x.name = 'chain_x1' AND x.net > 0
           AND NOT (g2_ask(l.f, x.kind, x.v)).c) AS old_missing,
       (SELECT count(*) FROM generate_series(1, added) i WHERE NOT cf_contains(l.f, 'grow-' || i)) AS added_missing
  FROM g2_limit l;
SELECT split_part(g2_tables(f), ', ', 1) AS first_table, split_part(g2_tables(f), ', ', 32) AS last_table
  FROM g2_limit;
SELECT cf_add(f, 'grow-' || (added + 1)) FROM g2_limit;

DROP TABLE g2, g2_spec, g2_text, g2_bin, g2_values, g2_info, g2_answers, g2_more, g2_limit;
DROP FUNCTION g2_ask(cuckoofilter, text, text);
DROP FUNCTION g2_tables(cuckoofilter);
DROP FUNCTION g2_grow_to_limit(cuckoofilter);
