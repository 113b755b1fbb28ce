-- cuckoo_golden: filters written by cuckoo 1.0 (test/golden, frozen, never
-- regenerated) must read back in text and binary form, answer exactly as 1.0
-- did, report the same cf_info and re-serialize byte for byte.
-- pg_regress gives the source and output directories in the environment
-- (they differ in a VPATH build); the golden files are read from the source.
\getenv abs_srcdir PG_ABS_SRCDIR
\getenv abs_builddir PG_ABS_BUILDDIR

CREATE TABLE golden_spec (name text PRIMARY KEY, note text);
CREATE TABLE golden_text (name text PRIMARY KEY, t text);
CREATE TABLE golden_bin (name text PRIMARY KEY, f cuckoofilter);
CREATE TABLE golden_values (name text, kind text, v text, net int, c boolean, n int);
CREATE TABLE golden_info (name text PRIMARY KEY, capacity bigint, items bigint, buckets bigint,
	bucket_size int, fingerprint_bits int, bytes bigint, subfilters int,
	load_factor float8, fpr float8);
\cd :abs_srcdir
\copy golden_spec FROM 'test/golden/filters_spec.txt'
\copy golden_text FROM 'test/golden/filters.txt'
\copy golden_bin FROM 'test/golden/filters.bin' WITH (FORMAT binary)
\copy golden_values FROM 'test/golden/values.txt'
\copy golden_info FROM 'test/golden/info.txt'
\cd :abs_builddir

-- the text form parses (cuckoofilter_in) ...
CREATE TABLE golden AS SELECT name, t::cuckoofilter AS f FROM golden_text;
SELECT (SELECT count(*) FROM golden) AS from_text, (SELECT count(*) FROM golden_bin) AS from_binary,
       (SELECT count(*) FROM golden_values) AS value_rows, (SELECT count(*) FROM golden_info) AS info_rows;

-- ... and re-serializes to the identical text; the binary file (through
-- cuckoofilter_recv) holds the identical bytes
SELECT name FROM golden JOIN golden_text USING (name) WHERE f::text <> t;
SELECT name FROM golden g JOIN golden_bin b USING (name)
 WHERE cuckoofilter_send(g.f) <> cuckoofilter_send(b.f) OR b.f::text <> g.f::text
    OR cuckoofilter_send(g.f) <> decode((SELECT t FROM golden_text WHERE name = g.name), 'base64');

-- writing both files again gives byte-identical files
\copy (SELECT name, f::text FROM golden ORDER BY name) TO 'results/cuckoo_golden_filters.txt'
\copy (SELECT name, f FROM golden_bin ORDER BY name) TO 'results/cuckoo_golden_filters.bin' WITH (FORMAT binary)
\! cmp "$PG_ABS_SRCDIR/test/golden/filters.txt" results/cuckoo_golden_filters.txt && echo text file identical
\! cmp "$PG_ABS_SRCDIR/test/golden/filters.bin" results/cuckoo_golden_filters.bin && echo binary file identical

-- what each filter is: version-1 header fields straight from the bytes
SELECT name, get_byte(b, 0) AS magic, get_byte(b, 1) AS version, get_byte(b, 3) AS bucket_size,
       get_byte(b, 4) AS fpbits, get_byte(b, 5) AS nstages, get_byte(b, 6) AS expansion,
       get_byte(b, 8) + 256 * get_byte(b, 9) AS max_kicks, length(b) AS bytes, note
  FROM (SELECT name, cuckoofilter_send(f) AS b FROM golden) s JOIN golden_spec USING (name)
 ORDER BY name;

-- cf_info as 1.0 reported it (the floating-point fields to 12 digits)
SELECT name, i.capacity, i.items, i.buckets, i.bucket_size, i.fingerprint_bits, i.bytes, i.subfilters,
       round(i.load_factor::numeric, 6) AS load_factor, round(i.fpr::numeric, 9) AS fpr
  FROM golden, cf_info(f) i ORDER BY name;
SELECT g.name FROM golden g CROSS JOIN cf_info(g.f) i JOIN golden_info x USING (name)
 WHERE (i.capacity, i.items, i.buckets, i.bucket_size, i.fingerprint_bits, i.bytes, i.subfilters)
       IS DISTINCT FROM (x.capacity, x.items, x.buckets, x.bucket_size, x.fingerprint_bits, x.bytes, x.subfilters)
    OR abs(i.load_factor - x.load_factor) > 1e-12 * greatest(1, x.load_factor)
    OR abs(i.fpr - x.fpr) > 1e-12 * greatest(1e-300, x.fpr);

-- a value of the recorded type, asked of a filter
CREATE FUNCTION golden_contains(f cuckoofilter, kind text, v text) RETURNS boolean
LANGUAGE sql IMMUTABLE STRICT AS $$
	SELECT CASE kind
		WHEN 'text' THEN cf_contains(f, v)
		WHEN 'varchar' THEN cf_contains(f, v::varchar)
		WHEN 'bpchar' THEN cf_contains(f, v::bpchar)
		WHEN 'name' THEN cf_contains(f, v::name)
		WHEN 'bytea' THEN cf_contains(f, v::bytea)
		WHEN 'int2' THEN cf_contains(f, v::int2)
		WHEN 'int4' THEN cf_contains(f, v::int4)
		WHEN 'int8' THEN cf_contains(f, v::int8)
		WHEN 'float4' THEN cf_contains(f, v::float4)
		WHEN 'float8' THEN cf_contains(f, v::float8)
		WHEN 'numeric' THEN cf_contains(f, v::numeric)
		WHEN 'uuid' THEN cf_contains(f, v::uuid)
		WHEN 'date' THEN cf_contains(f, v::date)
		WHEN 'timestamp' THEN cf_contains(f, v::timestamp)
		WHEN 'timestamptz' THEN cf_contains(f, v::timestamptz)
		WHEN 'bool' THEN cf_contains(f, v::bool)
		WHEN 'inet' THEN cf_contains(f, v::inet)
	END
$$;
CREATE FUNCTION golden_count(f cuckoofilter, kind text, v text) RETURNS integer
LANGUAGE sql IMMUTABLE STRICT AS $$
	SELECT CASE kind
		WHEN 'text' THEN cf_count(f, v)
		WHEN 'varchar' THEN cf_count(f, v::varchar)
		WHEN 'bpchar' THEN cf_count(f, v::bpchar)
		WHEN 'name' THEN cf_count(f, v::name)
		WHEN 'bytea' THEN cf_count(f, v::bytea)
		WHEN 'int2' THEN cf_count(f, v::int2)
		WHEN 'int4' THEN cf_count(f, v::int4)
		WHEN 'int8' THEN cf_count(f, v::int8)
		WHEN 'float4' THEN cf_count(f, v::float4)
		WHEN 'float8' THEN cf_count(f, v::float8)
		WHEN 'numeric' THEN cf_count(f, v::numeric)
		WHEN 'uuid' THEN cf_count(f, v::uuid)
		WHEN 'date' THEN cf_count(f, v::date)
		WHEN 'timestamp' THEN cf_count(f, v::timestamp)
		WHEN 'timestamptz' THEN cf_count(f, v::timestamptz)
		WHEN 'bool' THEN cf_count(f, v::bool)
		WHEN 'inet' THEN cf_count(f, v::inet)
	END
$$;
-- the session time zone must not matter (timestamptz hashes its instant)
SET timezone = 'America/New_York';
CREATE TABLE golden_answers AS
SELECT x.name, x.kind, x.v, x.net, x.c AS c10, x.n AS n10,
       golden_contains(g.f, x.kind, x.v) AS c, golden_count(g.f, x.kind, x.v) AS n
  FROM golden_values x JOIN golden g USING (name);
RESET timezone;

-- per filter: values still added (all present, counts at least the copies),
-- values deleted (absent unless a false positive, which 1.0 recorded too),
-- never-added probes (false positives), and disagreements with 1.0 (none)
SELECT name,
       count(*) FILTER (WHERE net > 0) AS added,
       count(*) FILTER (WHERE net > 0 AND c AND n >= net) AS added_present,
       count(*) FILTER (WHERE net = 0 AND v NOT LIKE 'probe-%') AS deleted,
       count(*) FILTER (WHERE net = 0 AND v NOT LIKE 'probe-%' AND NOT c) AS deleted_absent,
       count(*) FILTER (WHERE v LIKE 'probe-%') AS probes,
       count(*) FILTER (WHERE v LIKE 'probe-%' AND c) AS probe_fp,
       count(*) FILTER (WHERE c IS DISTINCT FROM c10 OR n IS DISTINCT FROM n10) AS differ_from_1_0
  FROM golden_answers GROUP BY name ORDER BY name;
-- every value of every type, listed for the typed filter
SELECT kind, v, net, c, n FROM golden_answers
 WHERE name = 'b4_fpr1e-6' AND v NOT LIKE 'probe-%' ORDER BY kind, v;

-- a golden filter accepts further operations: adds (growing where it
-- must), deletes, unions with other golden filters and with new filters
CREATE FUNCTION golden_add_new(f cuckoofilter, n int) RETURNS cuckoofilter
LANGUAGE plpgsql AS $$
BEGIN
	FOR i IN 1 .. n LOOP f := cf_add(f, 'new-' || i); END LOOP;
	RETURN f;
END $$;
CREATE FUNCTION golden_delete(f cuckoofilter, kind text, v text) RETURNS cuckoofilter
LANGUAGE sql IMMUTABLE STRICT AS $$
	SELECT CASE kind
		WHEN 'text' THEN cf_delete(f, v)
		WHEN 'int4' THEN cf_delete(f, v::int4)
		WHEN 'int8' THEN cf_delete(f, v::int8)
		WHEN 'uuid' THEN cf_delete(f, v::uuid)
	END
$$;
-- deletes every copy of every value the golden filter fname still holds
CREATE FUNCTION golden_delete_all(f cuckoofilter, fname text) RETURNS cuckoofilter
LANGUAGE plpgsql AS $$
DECLARE x record;
BEGIN
	FOR x IN SELECT kind, v, net FROM golden_values WHERE name = fname AND net > 0 LOOP
		FOR k IN 1 .. x.net LOOP f := golden_delete(f, x.kind, x.v); END LOOP;
	END LOOP;
	RETURN f;
END $$;

SELECT name, (cf_info(f2)).items - (cf_info(f)).items AS items_added,
       (cf_info(f)).subfilters AS subfilters_before, (cf_info(f2)).subfilters AS subfilters_after,
       (SELECT bool_and(f2 @> ('new-' || i)) FROM generate_series(1, 1000) i) AS new_present,
       (SELECT coalesce(bool_and(golden_contains(f2, kind, v)), true) FROM golden_values x
         WHERE x.name = s.name AND x.net > 0) AS old_present
  FROM (SELECT name, f, golden_add_new(f, 1000) AS f2 FROM golden
         WHERE name IN ('agg_int4', 'b2_fpr0.3', 'b2_fpr1e-9', 'b8_fpr0.001', 'empty',
                        'grown_x2', 'grown_x4_k0', 'union_grown')) s
 ORDER BY name;
-- a full filter of expansion 0 refuses more than it holds
SELECT (cf_info(golden_add_new(f, 200))).items FROM golden WHERE name = 'full_x0';
-- deleting every copy of every value empties a one-sub-filter filter
-- again (several sub-filters: see the deletes of every other value below)
SELECT name, (cf_info(f)).items AS before, (cf_info(golden_delete_all(f, name))).items AS after
  FROM golden WHERE name IN ('b2_fpr0.1', 'b2_fpr1e-9', 'b4_fpr0.01', 'b4_fpr0.04', 'b8_fpr0.001',
                             'b8_fpr1e-6', 'dups', 'full_x0')
 ORDER BY name;
-- unions of golden filters of one geometry keep every value of both
SELECT a.name AS a, b.name AS b, (cf_info(cf_union(a.f, b.f))).subfilters,
       (SELECT bool_and(golden_contains(cf_union(a.f, b.f), kind, v)) FROM golden_values x
         WHERE x.name IN (a.name, b.name) AND x.net > 0) AS all_present
  FROM golden a, golden b
 WHERE (a.name, b.name) IN (('b4_fpr0.01', 'union_appended'), ('grown_x2', 'union_grown'),
                            ('union_grown', 'agg_int4'), ('empty', 'dups'), ('b2_fpr0.1', 'b2_fpr0.1'))
 ORDER BY 1, 2;
SELECT (cf_info(cf_union_agg(f ORDER BY name))).items AS union_agg_items
  FROM golden WHERE name IN ('b4_fpr0.01', 'dups', 'empty', 'full_x0', 'grown_x2');
-- incompatible golden filters are refused, as any filters are
SELECT cf_union(a.f, b.f) FROM golden a, golden b WHERE a.name = 'b2_fpr0.1' AND b.name = 'b4_fpr0.01';
SELECT cf_union(a.f, b.f) FROM golden a, golden b WHERE a.name = 'b4_fpr0.01' AND b.name = 'b4_fpr0.04';

-- version-1 filters of several sub-filters: deleting every other value
-- never takes the last match of a value still held (a delete is done only
-- where its sub-filter is unambiguous, otherwise the value is left in place
-- and counted as retained; FORMAT.md, "Deletes")
CREATE FUNCTION golden_delete_half(f cuckoofilter, fname text) RETURNS cuckoofilter
LANGUAGE plpgsql AS $$
DECLARE x record;
BEGIN
	FOR x IN SELECT kind, v, net, row_number() OVER (ORDER BY kind, v) AS k
	           FROM golden_values WHERE name = fname AND net > 0 LOOP
		IF x.k % 2 = 0 THEN
			FOR k IN 1 .. x.net LOOP f := golden_delete(f, x.kind, x.v); END LOOP;
		END IF;
	END LOOP;
	RETURN f;
END $$;
SELECT name, (cf_info(f)).subfilters, (cf_info(f)).format_version AS version_before,
       (cf_info(h)).format_version AS version_after,
       (cf_info(f)).items - (cf_info(h)).items AS removed, (cf_info(h)).deletes, (cf_info(h)).retained,
       (SELECT bool_and(golden_contains(h, kind, v)) FROM
         (SELECT kind, v, row_number() OVER (ORDER BY kind, v) AS k
            FROM golden_values WHERE name = s.name AND net > 0) x WHERE k % 2 = 1) AS kept_present
  FROM (SELECT name, f, golden_delete_half(f, name) AS h FROM golden
         WHERE name IN ('grown_x2', 'grown_x4_k0', 'union_grown', 'union_appended')) s
 ORDER BY name;

-- the writer: building b4_fpr0.01 again with the same operations gives a
-- version-2 filter (what this version writes) that holds every value the
-- 1.0 one holds.  The bytes differ by design (the version-2 golden set,
-- test/golden/v2, pins this version's bytes).
CREATE FUNCTION golden_rebuild() RETURNS cuckoofilter LANGUAGE plpgsql AS $$
DECLARE f cuckoofilter := cf_create(500, 0.01, 4, 500, 2);
BEGIN
	FOR i IN 1 .. 480 LOOP f := cf_add(f, 'user-' || i || '@example.com'); END LOOP;
	FOR i IN 3 .. 480 BY 11 LOOP f := cf_delete(f, 'user-' || i || '@example.com'); END LOOP;
	RETURN f;
END $$;
SELECT (cf_info(r)).format_version, (cf_info(r)).items = (cf_info(g.f)).items AS same_items,
       (SELECT bool_and(golden_contains(r, kind, v)) FROM golden_values
         WHERE name = 'b4_fpr0.01' AND net > 0) AS holds_every_value
  FROM (SELECT golden_rebuild() AS r) s, golden g WHERE g.name = 'b4_fpr0.01';

DROP TABLE golden, golden_spec, golden_text, golden_bin, golden_values, golden_info, golden_answers;
DROP FUNCTION golden_contains(cuckoofilter, text, text);
DROP FUNCTION golden_count(cuckoofilter, text, text);
DROP FUNCTION golden_delete(cuckoofilter, text, text);
DROP FUNCTION golden_add_new(cuckoofilter, int);
DROP FUNCTION golden_delete_all(cuckoofilter, text);
DROP FUNCTION golden_rebuild();
DROP FUNCTION golden_delete_half(cuckoofilter, text);
