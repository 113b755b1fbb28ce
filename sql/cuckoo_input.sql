-- cuckoo_input: text and binary input of truncated, corrupted and hostile
-- values; every one must be rejected with a clear message.

-- base64 text of a bytea, on one line
CREATE FUNCTION cf_b64(b bytea) RETURNS text
LANGUAGE sql IMMUTABLE AS $$ SELECT translate(encode(b, 'base64'), E'\n', '') $$;
-- the bytes of b with the little-endian uint32 at offset off replaced by v
CREATE FUNCTION cf_put32(b bytea, off integer, v bigint) RETURNS bytea
LANGUAGE sql IMMUTABLE AS $$
	SELECT set_byte(set_byte(set_byte(set_byte(b,
		off, (v & 255)::int), off + 1, ((v >> 8) & 255)::int),
		off + 2, ((v >> 16) & 255)::int), off + 3, ((v >> 24) & 255)::int)
$$;

-- Format version 1 (cuckoo 1.0 wrote it; it is read forever): the bytes of
-- cf_create(1), of cf_create(1, bucket_size => 2) and of cf_add(cf_create(1), 'x')
-- as 1.0 wrote them.  Everything down to the version-2 section is derived from them.
CREATE FUNCTION cf_v1() RETURNS bytea LANGUAGE sql IMMUTABLE
	AS $$ SELECT '\xcf0100040a010200f40100000100000001000000000000000a0000000000000000'::bytea $$;
CREATE FUNCTION cf_v1_b2() RETURNS bytea LANGUAGE sql IMMUTABLE
	AS $$ SELECT '\xcf01000209010200f401000001000000010000000000000009000000000000'::bytea $$;
CREATE FUNCTION cf_v1_x() RETURNS bytea LANGUAGE sql IMMUTABLE
	AS $$ SELECT '\xcf0100040a010200f40100000100000001000000010000000a000000a601000000'::bytea $$;

-- the valid version-1 filter: 33 bytes
SELECT cf_v1() AS good;
SELECT cf_b64(cf_v1())::cuckoofilter::text AS good_text;

-- bad base64
SELECT ''::cuckoofilter;
SELECT 'zwE'::cuckoofilter;
SELECT 'zwEABAoBAgD0AQAAAQAAAAEAAAAAAAAACgAAAAAAAAAAA'::cuckoofilter;
SELECT 'zwEA$AoBAgD0AQAAAQAAAAEAAAAAAAAACgAAAAAAAAAA'::cuckoofilter;
-- white space is skipped, as decode(..., 'base64') skips it: a space in
-- place of a character leaves 43 characters, a final newline is fine
SELECT 'zwEA AoBAgD0AQAAAQAAAAEAAAAAAAAACgAAAAAAAAAA'::cuckoofilter;
SELECT 'zwEABAoBAgD0AQAAAQAAAAEAAAAAAAAACgAAAAAAAAAA
'::cuckoofilter;
SELECT 'zwEA-AoBAgD0AQAAAQAAAAEAAAAAAAAACgAAAAAAAAAA'::cuckoofilter;
SELECT 'zw==BAoBAgD0AQAAAQAAAAEAAAAAAAAACgAAAAAAAAAA'::cuckoofilter;
SELECT 'AB=='::cuckoofilter;
SELECT 'ABC='::cuckoofilter;
SELECT 'A==='::cuckoofilter;
SELECT '===='::cuckoofilter;
-- valid base64, too short to be a filter
SELECT 'AAAA'::cuckoofilter;
SELECT 'zwEABAoBAgD0AQAAAQAAAA=='::cuckoofilter;

-- header fields
SELECT cf_b64(set_byte(cf_v1(), 0, 0))::cuckoofilter;        -- magic
SELECT cf_b64(set_byte(cf_v1(), 1, 3))::cuckoofilter;        -- version 3
SELECT cf_b64(set_byte(cf_v1(), 1, 2))::cuckoofilter;        -- version-1 bytes read as version 2
SELECT cf_b64(set_byte(cf_v1(), 1, 0))::cuckoofilter;        -- version 0
SELECT cf_b64(set_byte(cf_v1(), 2, 1))::cuckoofilter;        -- flags
SELECT cf_b64(set_byte(cf_v1(), 3, 3))::cuckoofilter;        -- bucket size
SELECT cf_b64(set_byte(cf_v1(), 3, 0))::cuckoofilter;        -- bucket size 0
SELECT cf_b64(set_byte(cf_v1(), 4, 3))::cuckoofilter;        -- fingerprint bits
SELECT cf_b64(set_byte(cf_v1(), 4, 33))::cuckoofilter;
SELECT cf_b64(set_byte(cf_v1(), 5, 0))::cuckoofilter;        -- no sub-filter
SELECT cf_b64(set_byte(cf_v1(), 5, 2))::cuckoofilter;        -- 2 sub-filters claimed
SELECT cf_b64(set_byte(cf_v1(), 5, 255))::cuckoofilter;
SELECT cf_b64(set_byte(cf_v1(), 6, 17))::cuckoofilter;       -- expansion
-- any expansion up to 16 in version 1: reads, and writes back the same text
SELECT t::cuckoofilter::text = t AS reads_back_same, (cf_info(t::cuckoofilter)).expansion
  FROM (SELECT cf_b64(set_byte(cf_v1(), 6, 3)) AS t) s;
SELECT cf_b64(set_byte(cf_v1(), 7, 1))::cuckoofilter;        -- reserved
SELECT cf_b64(set_byte(cf_v1(), 11, 128))::cuckoofilter;     -- reserved
SELECT cf_b64(cf_put32(cf_v1(), 12, 0))::cuckoofilter;       -- capacity 0

-- sub-filter descriptor fields
SELECT cf_b64(cf_put32(cf_v1(), 16, 0))::cuckoofilter;       -- no buckets
SELECT cf_b64(cf_put32(cf_v1(), 16, 4294967295))::cuckoofilter; -- huge nbuckets
SELECT cf_b64(cf_put32(cf_v1(), 16, 2))::cuckoofilter;       -- table too short
SELECT cf_b64(cf_put32(cf_v1(), 20, 100))::cuckoofilter;     -- more items than slots
SELECT cf_b64(cf_put32(cf_v1(), 20, 1))::cuckoofilter;       -- count mismatch
SELECT cf_b64(set_byte(cf_v1(), 24, 3))::cuckoofilter;       -- stage fingerprint bits
SELECT cf_b64(set_byte(cf_v1(), 24, 11))::cuckoofilter;      -- table size mismatch
SELECT cf_b64(set_byte(cf_v1(), 25, 1))::cuckoofilter;       -- reserved

-- lengths and table contents
SELECT cf_b64(substring(cf_v1() FROM 1 FOR 32))::cuckoofilter;  -- truncated
SELECT cf_b64(substring(cf_v1() FROM 1 FOR 27))::cuckoofilter;  -- no table
SELECT cf_b64(cf_v1() || '\x00'::bytea)::cuckoofilter;          -- extra byte
SELECT cf_b64(set_byte(cf_v1(), 28, 1))::cuckoofilter;          -- slot without count
SELECT cf_b64(set_byte(cf_v1_b2(), 30, 240))::cuckoofilter; -- unused bits
SELECT cf_b64(cf_v1_x())::cuckoofilter @> 'x' AS one_item_ok;
SELECT cf_b64(cf_put32(cf_v1_x(), 20, 0))::cuckoofilter; -- count too low
-- a second sub-filter glued on by hand: valid when empty, checked like the first
SELECT t::cuckoofilter::text = t AS reads_back_same, (cf_info(t::cuckoofilter)).subfilters,
       (cf_info(t::cuckoofilter)).items
  FROM (SELECT cf_b64(substring(set_byte(b, 5, 2) FROM 1 FOR 28) || '\x010000000000000009000000'::bytea
                      || substring(b FROM 29) || '\x0000000000'::bytea) AS t
          FROM (SELECT cf_v1() AS b) s) s;
SELECT cf_b64(substring(set_byte(b, 5, 2) FROM 1 FOR 28) || '\x010000000100000009000000'::bytea
              || substring(b FROM 29) || '\x0000000000'::bytea)::cuckoofilter
  FROM (SELECT cf_v1() AS b) s;
SELECT cf_b64(substring(set_byte(b, 5, 2) FROM 1 FOR 28) || '\x010000000000000009000000'::bytea
              || substring(b FROM 29) || '\x0000000010'::bytea)::cuckoofilter
  FROM (SELECT cf_v1() AS b) s;

-- Format version 2, what this version writes: a 40-byte header (target rate
-- at 16, deletes at 24, retained at 32) and 16-byte sub-filter descriptors
SELECT cuckoofilter_send(cf_create(1)) AS good_v2;
SELECT length(cuckoofilter_send(cf_create(1))) AS v2_bytes;
SELECT cf_b64(set_byte(cuckoofilter_send(cf_create(1)), 1, 1))::cuckoofilter;        -- version-2 bytes read as version 1
SELECT cf_b64(set_byte(cuckoofilter_send(cf_create(1)), 2, 1))::cuckoofilter;        -- flags
SELECT cf_b64(set_byte(cuckoofilter_send(cf_create(1)), 6, 3))::cuckoofilter;        -- expansion 3
SELECT cf_b64(set_byte(cuckoofilter_send(cf_create(1)), 7, 0))::cuckoofilter;        -- value hashing 0
SELECT cf_b64(set_byte(cuckoofilter_send(cf_create(1)), 7, 3))::cuckoofilter;        -- value hashing 3
SELECT cf_b64(set_byte(cuckoofilter_send(cf_create(1)), 11, 1))::cuckoofilter;       -- reserved
SELECT cf_b64(cf_put32(cf_put32(cuckoofilter_send(cf_create(1)), 16, 0), 20, 0))::cuckoofilter;  -- target rate 0
SELECT cf_b64(cf_put32(cf_put32(cuckoofilter_send(cf_create(1)), 16, 0), 20, 2146959360))::cuckoofilter; -- NaN
SELECT cf_b64(cf_put32(cuckoofilter_send(cf_create(1)), 40, 0))::cuckoofilter;       -- no buckets
SELECT cf_b64(cf_put32(cuckoofilter_send(cf_create(1)), 44, 100))::cuckoofilter;     -- more items than slots
SELECT cf_b64(cf_put32(cuckoofilter_send(cf_create(1)), 44, 1))::cuckoofilter;       -- count mismatch
SELECT cf_b64(set_byte(cuckoofilter_send(cf_create(1)), 49, 0))::cuckoofilter;       -- geometry 0
SELECT cf_b64(set_byte(cuckoofilter_send(cf_create(1)), 50, 1))::cuckoofilter;       -- level 1, one bucket
SELECT cf_b64(set_byte(cuckoofilter_send(cf_create(1)), 51, 11))::cuckoofilter;      -- base wider than the slots
SELECT cf_b64(set_byte(cuckoofilter_send(cf_create(1)), 52, 2))::cuckoofilter;       -- a later table encoding
SELECT cf_b64(set_byte(cuckoofilter_send(cf_create(1)), 53, 1))::cuckoofilter;       -- a stash record missing
SELECT cf_b64(set_byte(cuckoofilter_send(cf_create(1)), 55, 1))::cuckoofilter;       -- reserved
SELECT cf_b64(substring(cuckoofilter_send(cf_create(1)) FROM 1 FOR 39))::cuckoofilter;  -- truncated header
SELECT cf_b64(substring(cuckoofilter_send(cf_create(1)) FROM 1 FOR 60))::cuckoofilter;  -- truncated table
SELECT cf_b64(set_byte(cuckoofilter_send(cf_create(1)), 56, 1))::cuckoofilter;          -- slot without count
SELECT cf_b64(cuckoofilter_send(cf_add(cf_create(1), 'x')))::cuckoofilter @> 'x' AS v2_one_item_ok;
-- cf_create writes a split table (geometry 3) for a filter that grows; a
-- fixed-size one (expansion 0) is a chain table of level 0 (geometry 2)
SELECT get_byte(cuckoofilter_send(cf_create(1)), 49) AS growing_geometry,
       get_byte(cuckoofilter_send(cf_create(1, expansion => 0)), 49) AS fixed_geometry;
SELECT cf_b64(set_byte(cuckoofilter_send(cf_create(1, expansion => 0)), 49, 0))::cuckoofilter;   -- geometry 0
SELECT cf_b64(set_byte(cuckoofilter_send(cf_create(1, expansion => 0)), 51, 11))::cuckoofilter;  -- base wider than the slots
SELECT cf_b64(set_byte(cuckoofilter_send(cf_create(1, expansion => 0)), 53, 1))::cuckoofilter;   -- stash count in a chain table
-- the counters are free: any value reads, is reported and written back
SELECT t::cuckoofilter::text = t AS reads_back_same, (cf_info(t::cuckoofilter)).deletes,
       (cf_info(t::cuckoofilter)).retained
  FROM (SELECT cf_b64(cf_put32(cf_put32(cuckoofilter_send(cf_create(1)), 24, 7), 32, 3)) AS t) s;

-- binary input, through COPY BINARY: a bytea column's binary form is the
-- raw bytes, so a bytea table copied out loads into a cuckoofilter table
CREATE TABLE cf_raw (b bytea);
CREATE TABLE cf_bin (f cuckoofilter);
INSERT INTO cf_raw SELECT cf_v1_x();
\copy cf_raw TO 'results/cuckoo_input_ok.bin' WITH (FORMAT binary)
\copy cf_bin FROM 'results/cuckoo_input_ok.bin' WITH (FORMAT binary)
SELECT f @> 'x' AS has_x, f @> 'y' AS has_y FROM cf_bin;
-- truncated
TRUNCATE cf_raw;
INSERT INTO cf_raw SELECT substring(cf_v1() FROM 1 FOR 30);
\copy cf_raw TO 'results/cuckoo_input_bad.bin' WITH (FORMAT binary)
\copy cf_bin FROM 'results/cuckoo_input_bad.bin' WITH (FORMAT binary)
-- empty
TRUNCATE cf_raw;
INSERT INTO cf_raw VALUES (''::bytea);
\copy cf_raw TO 'results/cuckoo_input_bad.bin' WITH (FORMAT binary)
\copy cf_bin FROM 'results/cuckoo_input_bad.bin' WITH (FORMAT binary)
-- wrong magic
TRUNCATE cf_raw;
INSERT INTO cf_raw SELECT set_byte(cf_v1(), 0, 1);
\copy cf_raw TO 'results/cuckoo_input_bad.bin' WITH (FORMAT binary)
\copy cf_bin FROM 'results/cuckoo_input_bad.bin' WITH (FORMAT binary)
-- count mismatch
TRUNCATE cf_raw;
INSERT INTO cf_raw SELECT cf_put32(cf_v1(), 20, 2);
\copy cf_raw TO 'results/cuckoo_input_bad.bin' WITH (FORMAT binary)
\copy cf_bin FROM 'results/cuckoo_input_bad.bin' WITH (FORMAT binary)
-- huge nbuckets
TRUNCATE cf_raw;
INSERT INTO cf_raw SELECT cf_put32(cf_v1(), 16, 4000000000);
\copy cf_raw TO 'results/cuckoo_input_bad.bin' WITH (FORMAT binary)
\copy cf_bin FROM 'results/cuckoo_input_bad.bin' WITH (FORMAT binary)
-- unused bits
TRUNCATE cf_raw;
INSERT INTO cf_raw SELECT set_byte(cf_v1_b2(), 30, 16);
\copy cf_raw TO 'results/cuckoo_input_bad.bin' WITH (FORMAT binary)
\copy cf_bin FROM 'results/cuckoo_input_bad.bin' WITH (FORMAT binary)
-- only the good row made it
SELECT count(*) AS rows FROM cf_bin;

DROP TABLE cf_raw, cf_bin;
DROP FUNCTION cf_b64(bytea);
DROP FUNCTION cf_put32(bytea, integer, bigint);
DROP FUNCTION cf_v1(), cf_v1_b2(), cf_v1_x();
