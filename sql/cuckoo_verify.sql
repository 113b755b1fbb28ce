-- cuckoo_verify: issue 48, a damaged filter says so.  Format version 3's
-- check bytes (header byte 11, descriptor byte 15), cf_verify (the full
-- check, reported as a row), the refusal of damaged bytes as XX001
-- data_corrupted, unknown kinds refused in every version.
SET client_min_messages = warning;
CREATE TABLE vf (id int, f cuckoofilter);
INSERT INTO vf
SELECT 1, cf_add_all(cf_create(1000), ARRAY(SELECT i FROM generate_series(1, 100) i)) UNION ALL
SELECT 2, cf_add_all(cf_create(100), ARRAY(SELECT i FROM generate_series(1, 3000) i)) UNION ALL
SELECT 3, (SELECT cf_agg(i) FROM generate_series(1, 5000) i) UNION ALL
SELECT 4, cf_union(cf_add_all(cf_create(100, 0.01, 'packed', 4, 500, 0), ARRAY[1, 2, 3]),
                   cf_add_all(cf_create(300, 0.01, 'semisorted', 4, 500, 0), ARRAY[4, 5])) UNION ALL
SELECT 5, NULL;
-- what this build writes: version 3, every filter whole
SELECT id, get_byte(f::bytea, 1) AS version, (cf_verify(f)).* FROM vf ORDER BY id;
-- over a column: the damaged ones (none)
SELECT id FROM vf WHERE NOT (cf_verify(f)).ok;

-- damaged bytes: one bit of the header, of a descriptor, of a table; every
-- problem reported, not only the first
CREATE TABLE vb AS
SELECT id, f::bytea AS b FROM vf WHERE f IS NOT NULL;
CREATE FUNCTION vflip(b bytea, pos int, nbit int) RETURNS bytea LANGUAGE sql IMMUTABLE
AS $$ SELECT set_byte(b, pos, get_byte(b, pos) # (1 << nbit)) $$;
SELECT id, what, (cf_verify(d)).ok, (cf_verify(d)).problems
  FROM (SELECT id, 'header: capacity' AS what, vflip(b, 12, 0) AS d FROM vb UNION ALL
        SELECT id, 'header: kind', vflip(b, 10, 3) FROM vb UNION ALL
        SELECT id, 'header: check byte', vflip(b, 11, 7) FROM vb UNION ALL
        SELECT id, 'descriptor 0: nbuckets', vflip(b, 40, 0) FROM vb UNION ALL
        SELECT id, 'descriptor 0: geometry', vflip(b, 49, 0) FROM vb UNION ALL
        SELECT id, 'descriptor 0: nitems', vflip(b, 44, 0) FROM vb UNION ALL
        SELECT id, 'header: deletes (not read by lookups)', vflip(b, 24, 0) FROM vb) s
 ORDER BY id, what;
-- both tables of the union damaged: both reported
SELECT (cf_verify(vflip(vflip(b, octet_length(b) - 1, 0), 100, 0))).problems
  FROM vb WHERE id = 4;
-- the input refuses them as corrupt (XX001); a NULL filter has nothing to check
DO $$
DECLARE
	r record;
BEGIN
	FOR r IN SELECT id, vflip(b, 12, 0) AS d FROM vb ORDER BY id LOOP
		BEGIN
			PERFORM r.d::cuckoofilter;
			RAISE NOTICE '% accepted', r.id;
		EXCEPTION WHEN data_corrupted THEN
			RAISE WARNING '%: % (%)', r.id, SQLERRM, SQLSTATE;
		END;
	END LOOP;
END $$;
SELECT encode(vflip(b, 49, 0), 'base64')::cuckoofilter FROM vb WHERE id = 3;
SELECT cf_verify(NULL::cuckoofilter) IS NULL AS null_filter;

-- a version-2 filter (what 1.4 wrote): read as before, no check bytes
CREATE TABLE v2 AS
SELECT id, set_byte(set_byte(set_byte(b, 1, 2), 11, 0), 55, 0) AS b FROM vb WHERE id = 1;
SELECT (cf_verify(b)).*, cf_contains(b::cuckoofilter, 42) AS has_42 FROM v2;
-- an add makes it version 3 (the same bytes, its check bytes set)
SELECT get_byte(cf_add(b::cuckoofilter, 500)::bytea, 1) AS version_after_add,
       (cf_verify(cf_add(b::cuckoofilter, 500))).ok FROM v2;
-- value kinds 17-254 are refused in every version (FORMAT.md lists 0, 1-16, 255)
SELECT (cf_verify(set_byte(b, 10, 17))).problems FROM v2;
SELECT set_byte(b, 10, 200)::cuckoofilter FROM v2;

DROP TABLE vf, vb, v2;
DROP FUNCTION vflip(bytea, int, int);
RESET client_min_messages;
