-- rf_fetch.sql - pgbench script for sql_bench.sh row 3: the floor for
-- rf_probe.sql, the same index lookup reading the filter's stored size only.
\set id random(1, 10000)
\set x random(1, 10000000)
SELECT pg_column_size(f) > 0 FROM rf WHERE id = :id;
