#!/usr/bin/env bash
# issue24_bench.sh - the figures of issue #24 that docs/ quotes: what the
# default filter of cf_add(NULL, v) is and what growth then costs; the join
# forms (a filter from a joined table, a scalar subquery, a materialized
# CTE); and what per-row adds cost in WAL against batched adds.
#
# Usage: bash bench/issue24_bench.sh
#   needs a running server with the extension installed (PGHOST, PGPORT,
#   PGUSER, PGDATABASE as usual); creates and drops the schema cf_b24.
#   REPS (default 5) interleaved repetitions; min / median / max.
set -euo pipefail
REPS=${REPS:-5}
PSQL=${PSQL:-psql}
P() { $PSQL -X -q -v ON_ERROR_STOP=1 "$@"; }

P <<'SQL'
SET client_min_messages = warning;
DROP SCHEMA IF EXISTS cf_b24 CASCADE;
CREATE SCHEMA cf_b24;
SET search_path = cf_b24, public;
\echo == the default filter of cf_add(NULL, v), and growth (cf_add one value at a time, distinct values)
CREATE FUNCTION grow(n int) RETURNS cuckoofilter LANGUAGE plpgsql AS $$
DECLARE f cuckoofilter;
BEGIN
	FOR i IN 1..n LOOP f := cf_add(f, i); END LOOP;
	RETURN f;
END $$;
CREATE TABLE absent AS SELECT -g AS v FROM generate_series(1, 200000) g;
SELECT n AS items, (cf_info(f)).capacity, (cf_info(f)).bytes, (cf_info(f)).subfilters,
       round((cf_info(f)).bytes * 8.0 / n, 1) AS bits_per_item,
       round(100 * (cf_info(f)).fpr::numeric, 2) AS expected_fpr_pct,
       round(100.0 * (SELECT count(*) FROM absent WHERE f @> v) / 200000, 2) AS measured_fpr_pct
  FROM unnest(ARRAY[1, 1000, 10000, 100000, 1000000]) n, LATERAL (SELECT grow(n) AS f) s;
\echo for comparison: cf_agg over the same values (sized to them)
SELECT n AS items, (cf_info(f)).bytes, round((cf_info(f)).bytes * 8.0 / n, 1) AS bits_per_item
  FROM unnest(ARRAY[10000, 100000, 1000000]) n,
       LATERAL (SELECT cf_agg(g) AS f FROM generate_series(1, n) g) s;
SQL

# join forms: 2M probe rows, a filter of 1M keys (about 1.3 MB), or of 10M
# keys (13 MB, larger than work_mem) for the CTE
P <<'SQL'
SET search_path = cf_b24, public;
CREATE TABLE probe AS SELECT g::bigint AS key FROM generate_series(1, 2000000) g;
CREATE TABLE bigf AS SELECT cf_agg(g::bigint * 2) AS f FROM generate_series(1, 1000000) g;
CREATE TABLE hugef AS SELECT cf_agg(g::bigint * 2) AS f FROM generate_series(1, 10000000) g;
VACUUM ANALYZE probe, bigf, hugef;
CREATE TABLE runs (rep int, what text, ms float8);
SELECT pg_size_pretty(pg_column_size(f)::bigint) AS bigf, (SELECT pg_size_pretty(pg_column_size(f)::bigint) FROM hugef) AS hugef,
       current_setting('work_mem') AS work_mem, current_setting('max_parallel_workers_per_gather') AS workers FROM bigf;
CREATE FUNCTION t(q text) RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE t0 timestamptz := clock_timestamp(); n bigint;
BEGIN
	EXECUTE q INTO n;
	RETURN extract(epoch FROM clock_timestamp() - t0) * 1000;
END $$;
SQL
{
	echo "SET search_path = cf_b24, public;"
	for rep in $(seq 0 "$REPS"); do
		cat <<SQL
INSERT INTO runs SELECT $rep, 'join_table (1M-key filter)', t('SELECT count(*) FROM probe p, bigf w WHERE w.f @> p.key');
INSERT INTO runs SELECT $rep, 'scalar_subquery (1M-key filter)', t('SELECT count(*) FROM probe p WHERE cf_contains((SELECT f FROM bigf), p.key)');
INSERT INTO runs SELECT $rep, 'cte_materialized (10M-key filter)', t('WITH w AS MATERIALIZED (SELECT f FROM hugef) SELECT count(*) FROM probe p, w WHERE w.f @> p.key');
INSERT INTO runs SELECT $rep, 'scalar_subquery (10M-key filter)', t('SELECT count(*) FROM probe p WHERE cf_contains((SELECT f FROM hugef), p.key)');
SQL
	done
	echo "DELETE FROM runs WHERE rep = 0;"
} | P
P <<'SQL'
SET search_path = cf_b24, public;
\echo == join forms over 2M probe rows, ms (median of the reps; min, max); ratio to the scalar subquery of the same filter
WITH s AS (SELECT what, min(ms) lo, percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) med, max(ms) hi FROM runs GROUP BY what)
SELECT s.what, round(s.lo::numeric) AS min_ms, round(s.med::numeric) AS median_ms, round(s.hi::numeric) AS max_ms,
       round((s.med / b.med)::numeric, 2) AS ratio
  FROM s JOIN s b ON b.what = CASE WHEN s.what LIKE '%1M%' THEN 'scalar_subquery (1M-key filter)' ELSE 'scalar_subquery (10M-key filter)' END
 ORDER BY s.what;
\echo plans
EXPLAIN (COSTS OFF) SELECT count(*) FROM probe p, bigf w WHERE w.f @> p.key;
EXPLAIN (COSTS OFF) SELECT count(*) FROM probe p WHERE cf_contains((SELECT f FROM bigf), p.key);
SQL

# per-row adds: 20 per-user filters of 20,000 items each, then 2,000
# single-item upserts, against 20 batches of 100 items (cf_add_all_unique)
P <<'SQL'
SET search_path = cf_b24, public;
CREATE TABLE seen (user_id int PRIMARY KEY, items cuckoofilter);
CREATE TABLE seen_rows (user_id int, item bigint, PRIMARY KEY (user_id, item));
INSERT INTO seen SELECT u, cf_agg(u * 1000000 + g::bigint, 0.01, 40000) FROM generate_series(1, 20) u, generate_series(1, 20000) g GROUP BY u;
INSERT INTO seen_rows SELECT u, u * 1000000 + g FROM generate_series(1, 20) u, generate_series(1, 20000) g;
VACUUM ANALYZE seen, seen_rows;
-- table growth is measured before any vacuum
ALTER TABLE seen SET (autovacuum_enabled = false, toast.autovacuum_enabled = false);
ALTER TABLE seen_rows SET (autovacuum_enabled = false);
SELECT pg_size_pretty(avg(pg_column_size(items))::bigint) AS filter_size_stored, (SELECT (cf_info(items)).bytes FROM seen LIMIT 1) AS filter_bytes FROM seen;
CREATE TABLE wal (what text, adds int, wal_bytes numeric, ms float8, table_growth bigint);
CREATE PROCEDURE per_row(n int) LANGUAGE plpgsql AS $$
DECLARE l0 pg_lsn := pg_current_wal_insert_lsn(); t0 timestamptz := clock_timestamp();
	s0 bigint := pg_total_relation_size('seen');
BEGIN
	FOR i IN 1..n LOOP
		UPDATE seen SET items = cf_add_unique(items, (900000000 + i)::bigint) WHERE user_id = 1 + i % 20;
		COMMIT;
	END LOOP;
	INSERT INTO wal VALUES ('filter, one add per UPDATE', n, pg_current_wal_insert_lsn() - l0, extract(epoch FROM clock_timestamp() - t0) * 1000,
	                        pg_total_relation_size('seen') - s0);
	COMMIT;
	s0 := pg_total_relation_size('seen_rows');
	l0 := pg_current_wal_insert_lsn(); t0 := clock_timestamp();
	FOR i IN 1..n LOOP
		INSERT INTO seen_rows VALUES (1 + i % 20, 900000000 + i);
		COMMIT;
	END LOOP;
	INSERT INTO wal VALUES ('row table, one INSERT per item', n, pg_current_wal_insert_lsn() - l0, extract(epoch FROM clock_timestamp() - t0) * 1000,
	                        pg_total_relation_size('seen_rows') - s0);
	COMMIT;
	s0 := pg_total_relation_size('seen');
	l0 := pg_current_wal_insert_lsn(); t0 := clock_timestamp();
	FOR b IN 0..(n / 100) - 1 LOOP
		UPDATE seen SET items = cf_add_all_unique(items, ARRAY(SELECT (910000000 + b * 100 + g)::bigint FROM generate_series(1, 100) g))
		 WHERE user_id = 1 + b % 20;
		COMMIT;
	END LOOP;
	INSERT INTO wal VALUES ('filter, batches of 100 (cf_add_all_unique)', n, pg_current_wal_insert_lsn() - l0, extract(epoch FROM clock_timestamp() - t0) * 1000,
	                        pg_total_relation_size('seen') - s0);
	COMMIT;
END $$;
CALL per_row(2000);
\echo == per-row adds against batches: 20 filters of 20,000 items, 2,000 items added
SELECT what, adds, round(wal_bytes / adds) AS wal_bytes_per_item, round((ms * 1000 / adds)::numeric) AS us_per_item,
       pg_size_pretty(table_growth) AS table_growth_before_vacuum FROM wal;
SQL
if [ "${KEEP:-0}" != 1 ]; then
	P -c 'SET client_min_messages = warning; DROP SCHEMA cf_b24 CASCADE'
fi
