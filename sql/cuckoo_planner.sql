-- cuckoo_planner: row estimates for cf_contains / @> with a constant filter
-- (support function and restriction estimator), default otherwise.

CREATE TABLE pl_big AS SELECT g AS id FROM generate_series(1, 20000) g;
INSERT INTO pl_big SELECT NULL FROM generate_series(1, 2000);
ANALYZE pl_big;		-- 22,000 rows: fully sampled, so the statistics are exact
CREATE TABLE pl_w AS SELECT cf_agg(g) AS f FROM generate_series(1, 2000) g;

-- the planner's row estimate for a query
CREATE FUNCTION pl_est(q text) RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE j json;
BEGIN
	EXECUTE 'EXPLAIN (FORMAT JSON) ' || q INTO j;
	RETURN (j->0->'Plan'->>'Plan Rows')::float8;
END $$;

SELECT f AS wf FROM pl_w \gset
-- 2,000 of 20,000 distinct values are in the filter, plus its false positives
-- (fpr about 0.8% of the other 18,000); the 2,000 NULLs never pass
SELECT count(*) AS actual FROM pl_big WHERE cf_contains(:'wf'::cuckoofilter, id);
SELECT pl_est(format('SELECT * FROM pl_big WHERE cf_contains(%L::cuckoofilter, id)', :'wf'))
	BETWEEN 2000 AND 2300 AS function_estimate_close,
       pl_est(format('SELECT * FROM pl_big WHERE %L::cuckoofilter @> id', :'wf'))
	BETWEEN 2000 AND 2300 AS operator_estimate_close;
-- an empty filter passes (almost) nothing, a NULL filter nothing
SELECT pl_est('SELECT * FROM pl_big WHERE cf_contains(cf_create(100), id)') <= 2 AS empty_filter,
       pl_est('SELECT * FROM pl_big WHERE NULL::cuckoofilter @> id') <= 1 AS null_filter;
-- a filter only known at run time keeps PostgreSQL's default of one third
SELECT pl_est('SELECT * FROM pl_big WHERE cf_contains((SELECT f FROM pl_w), id)') AS subquery_default;

DROP FUNCTION pl_est(text);
DROP TABLE pl_big, pl_w;
