-- rf_probe.sql - pgbench script for sql_bench.sh row 3: one point probe of a
-- per-row stored filter (10,000 rows of 1,000-item filters in table rf).
\set id random(1, 10000)
\set x random(1, 10000000)
SELECT cf_contains(f, :x::bigint) FROM rf WHERE id = :id;
