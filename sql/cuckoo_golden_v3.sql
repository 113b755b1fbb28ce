-- cuckoo_golden_v3: filters of format version 3 (check bytes in header byte
-- 11 and descriptor byte 15) written by cuckoo 1.5 (test/golden/v3, frozen,
-- never regenerated: generate.sql is the record) must read back, pass
-- cf_verify, re-serialize byte for byte and answer exactly as 1.5 did; and
-- the writer must stay deterministic: the same SQL steps give the same bytes.
\getenv abs_srcdir PG_ABS_SRCDIR
CREATE TABLE g3_spec (name text PRIMARY KEY, note text);
CREATE TABLE g3_text (name text PRIMARY KEY, t text);
CREATE TABLE g3_values (name text, kind text, v text, c boolean);
\cd :abs_srcdir
\copy g3_spec FROM 'test/golden/v3/filters_spec.txt'
\copy g3_text FROM 'test/golden/v3/filters.txt'
\copy g3_values FROM 'test/golden/v3/values.txt'
CREATE TABLE g3 AS SELECT name, t::cuckoofilter AS f FROM g3_text;
SELECT count(*) AS filters, count(*) FILTER (WHERE get_byte(f::bytea, 1) = 3) AS version_3,
       count(*) FILTER (WHERE (cf_verify(f)).ok) AS verified,
       count(*) FILTER (WHERE f::text = t) AS same_text,
       count(*) FILTER (WHERE cuckoofilter_send(f) = decode(t, 'base64')) AS same_bytes
  FROM g3 JOIN g3_text USING (name);
SELECT name, (cf_verify(f)).subfilters, (cf_verify(f)).items, cf_encoding(f) FROM g3 ORDER BY name;
-- every recorded answer, exactly
SELECT g.name, count(*) AS asked,
       count(*) FILTER (WHERE CASE v.kind WHEN 'int8' THEN cf_contains(g.f, v.v::int8)
                                          ELSE cf_contains(g.f, v.v) END <> v.c) AS differ
  FROM g3 g JOIN g3_values v USING (name) GROUP BY g.name ORDER BY g.name;
-- the writer: rebuilt with the steps of generate.sql, the same bytes
SELECT name, f = CASE name
	WHEN 'list' THEN (SELECT cf_delete_all(cf_add_all(NULL::cuckoofilter, ARRAY(SELECT i FROM generate_series(1, 150) i)::int8[]),
	                                       ARRAY(SELECT i FROM generate_series(1, 150, 7) i)::int8[]))
	WHEN 'split_grown' THEN (SELECT cf_delete_all(cf_add_all(cf_create(100), ARRAY(SELECT i FROM generate_series(1, 5000) i)::int8[]),
	                                              ARRAY(SELECT i FROM generate_series(1, 5000, 9) i)::int8[]))
	WHEN 'agg_semi' THEN (SELECT cf_agg(i, 0.01, 0, 'semisorted') FROM generate_series(1::int8, 5000) i)
	WHEN 'union_side' THEN cf_union(cf_add_all(cf_create(1000, 0.01, 4, 500, 0), ARRAY(SELECT i FROM generate_series(1, 1000) i)::int8[]),
	                                cf_add_all(cf_create(3000, 0.01, 4, 500, 0), ARRAY(SELECT i FROM generate_series(1001, 3000) i)::int8[]))
	END AS rebuilt_identical
  FROM g3 WHERE name IN ('list', 'split_grown', 'agg_semi', 'union_side') ORDER BY name;
DROP TABLE g3, g3_spec, g3_text, g3_values;
