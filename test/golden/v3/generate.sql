-- generate.sql - the record of how the format-version-3 golden files in this
-- directory were made (cuckoo 1.5, issue 48, 2026-11-29).  NEVER re-run it to
-- "refresh" them: they are the frozen evidence that later builds still read
-- what 1.5 wrote.  See test/golden/README.md.
--
-- It was run once as:  psql -X -v ON_ERROR_STOP=1 -v i_know_the_golden_files_are_frozen=1 -f test/golden/v3/generate.sql
-- in a database with CREATE EXTENSION cuckoo (1.5), from the repository root.
\if :{?i_know_the_golden_files_are_frozen}
\else
\echo 'refusing to regenerate the frozen golden files (see test/golden/README.md)'
\quit
\endif

CREATE TEMP TABLE g3 (name text PRIMARY KEY, note text, f cuckoofilter);
INSERT INTO g3 VALUES
 ('list', 'cf_add(NULL, v): a list of 150 values, 20 deleted',
  (SELECT cf_delete_all(cf_add_all(NULL::cuckoofilter, ARRAY(SELECT i FROM generate_series(1, 150) i)::int8[]),
                        ARRAY(SELECT i FROM generate_series(1, 150, 7) i)::int8[]))),
 ('list_semi', 'a semi-sorted list of 100 text values',
  cf_add_all(cf_create(1000, 0.01, 'semisorted'), ARRAY(SELECT 't' || i FROM generate_series(1, 100) i))),
 ('split_grown', 'capacity 100 grown to 5,000 values: split table, doubled; every 9th deleted',
  (SELECT cf_delete_all(cf_add_all(cf_create(100), ARRAY(SELECT i FROM generate_series(1, 5000) i)::int8[]),
                        ARRAY(SELECT i FROM generate_series(1, 5000, 9) i)::int8[]))),
 ('split_semi', 'semi-sorted split table grown to 3,000 values',
  cf_add_all(cf_create(200, 0.01, 'semisorted'), ARRAY(SELECT i FROM generate_series(1, 3000) i)::int8[])),
 ('chain_fixed', 'expansion 0: one chain table, bucket size 8, 0.1%',
  cf_add_all(cf_create(3000, 0.001, 8, 500, 0), ARRAY(SELECT i FROM generate_series(1, 3000) i)::int8[])),
 ('chain_b2', 'expansion 0, bucket size 2',
  cf_add_all(cf_create(2000, 0.01, 2, 500, 0), ARRAY(SELECT i FROM generate_series(1, 2000) i)::int8[])),
 ('agg', 'cf_agg of 10,000 int8',
  (SELECT cf_agg(i) FROM generate_series(1::int8, 10000) i)),
 ('agg_semi', 'cf_agg of 5,000 int8, semi-sorted',
  (SELECT cf_agg(i, 0.01, 0, 'semisorted') FROM generate_series(1::int8, 5000) i)),
 ('union_side', 'union of two chain families side by side',
  cf_union(cf_add_all(cf_create(1000, 0.01, 4, 500, 0), ARRAY(SELECT i FROM generate_series(1, 1000) i)::int8[]),
           cf_add_all(cf_create(3000, 0.01, 4, 500, 0), ARRAY(SELECT i FROM generate_series(1001, 3000) i)::int8[])));
-- values: every value 1..5,000 (int8) and t1..t100 asked of every filter, with the answer 1.5 gave
CREATE TEMP TABLE g3v AS
SELECT g.name, 'int8' AS kind, i::text AS v, cf_contains(g.f, i::int8) AS c
  FROM g3 g, generate_series(1, 5000) i WHERE g.name <> 'list_semi'
UNION ALL
SELECT g.name, 'text', 't' || i, cf_contains(g.f, 't' || i)
  FROM g3 g, generate_series(1, 120) i WHERE g.name = 'list_semi';
\copy (SELECT name, f::text FROM g3 ORDER BY name) TO 'test/golden/v3/filters.txt'
\copy (SELECT name, note FROM g3 ORDER BY name) TO 'test/golden/v3/filters_spec.txt'
\copy (SELECT name, kind, v, c FROM g3v ORDER BY name, kind, v) TO 'test/golden/v3/values.txt'
