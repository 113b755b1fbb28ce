-- cuckoo_cache: a query probing many stored filters in turn.  cf_contains
-- and cf_count keep up to 64 detoasted filters per call site (least
-- recently used out first); every row must still be answered by its own
-- filter, whether the filter is cached, evicted or loaded again.

-- 80 filters stored out of line (STORAGE external, about 6.5 kB each) and
-- the same 80 stored inline compressed (STORAGE main); filter k holds
-- k * 1000 + 1 .. k * 1000 + 100
CREATE TABLE cf_many (id int PRIMARY KEY, f cuckoofilter);
CREATE TABLE cf_many_c (id int PRIMARY KEY, f cuckoofilter);
ALTER TABLE cf_many_c ALTER COLUMN f SET STORAGE main;
INSERT INTO cf_many
SELECT k, cf_add_all(cf_create(5000, expansion => 0), array(SELECT k * 1000 + g FROM generate_series(1, 100) g))
  FROM generate_series(1, 80) k;
INSERT INTO cf_many_c SELECT * FROM cf_many;
SELECT pg_relation_size(reltoastrelid) >= 80 * 6000 AS toasted_out_of_line
  FROM pg_class WHERE relname = 'cf_many';
SELECT count(*) AS inline_compressed FROM cf_many_c
 WHERE pg_column_size(f) < 5000 AND pg_column_size(f) > 100;

-- row i probes filter i % n + 1: n = 2 and n = 20 stay cached, n = 80
-- cycles through more filters than the cache holds, so every switch evicts one
CREATE TABLE cf_probe AS
SELECT i, n, i % n + 1 AS id, (i % n + 1) * 1000 + i % 100 + 1 AS present,
       (i % n + 1) * 1000 + 500 + i % 100 AS absent
  FROM generate_series(1, 2000) i, (VALUES (2), (20), (80)) v(n);
SET enable_hashjoin = off;
SET enable_mergejoin = off;

-- no false negatives through the cache, and the same answers as a plain copy
SELECT p.n, count(*) AS rows,
       count(*) FILTER (WHERE NOT cf_contains(b.f, p.present)) AS missing,
       count(*) FILTER (WHERE cf_count(b.f, p.present) < 1) AS count_missing,
       count(*) FILTER (WHERE cf_contains(b.f, p.absent)
                        <> cf_contains(b.f::text::cuckoofilter, p.absent)) AS differ
  FROM cf_probe p JOIN cf_many b USING (id)
 GROUP BY p.n ORDER BY p.n;
SELECT p.n, count(*) AS rows,
       count(*) FILTER (WHERE NOT cf_contains(b.f, p.present)) AS missing,
       count(*) FILTER (WHERE cf_contains(b.f, p.absent)
                        <> cf_contains(b.f::text::cuckoofilter, p.absent)) AS differ
  FROM cf_probe p JOIN cf_many_c b USING (id)
 GROUP BY p.n ORDER BY p.n;

-- a filter's value from another filter is (almost always) absent: a cache
-- that answered from the wrong filter would report the other values present
SELECT p.n, count(*) FILTER (WHERE cf_contains(b.f, (p.id % p.n + 1) * 1000 + p.i % 100 + 1)) < 40
       AS others_absent
  FROM cf_probe p JOIN cf_many b USING (id) WHERE p.n > 2 GROUP BY p.n ORDER BY p.n;

-- both storages in one call site: on-disk and compressed keys side by side
SELECT count(*) FILTER (WHERE NOT cf_contains(b.f, p.present)) AS missing
  FROM cf_probe p
  JOIN (SELECT id, f FROM cf_many UNION ALL SELECT id, f FROM cf_many_c) b USING (id)
 WHERE p.n = 80;

-- an updated filter gets a new toast value: the cache must not serve the old one
BEGIN;
UPDATE cf_many SET f = cf_add(f, 999999) WHERE id = 1;
SELECT cf_contains(f, 999999) AS updated_has_it, cf_contains(f, 1001) AS still_has_old
  FROM cf_many WHERE id = 1;
ROLLBACK;

RESET enable_hashjoin;
RESET enable_mergejoin;
DROP TABLE cf_probe, cf_many, cf_many_c;
