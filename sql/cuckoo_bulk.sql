-- cuckoo_bulk: no false negatives over 100,000 values, a third of them
-- deleted again, and a false-positive rate within bounds.

CREATE TABLE cf_bulk (f cuckoofilter);

-- 100,000 adds in one statement (a plpgsql loop), into a filter sized for them
DO $$
DECLARE
	f cuckoofilter := cf_create(100000);
BEGIN
	FOR i IN 1..100000 LOOP
		f := cf_add(f, i);
	END LOOP;
	INSERT INTO cf_bulk VALUES (f);
END $$;
SELECT items, subfilters FROM cf_bulk, cf_info(f);
SELECT count(*) AS false_negatives
  FROM cf_bulk, generate_series(1, 100000) i WHERE NOT cf_contains(f, i);

-- delete every third value
DO $$
DECLARE
	g cuckoofilter := (SELECT f FROM cf_bulk);
BEGIN
	FOR i IN 1..100000 LOOP
		IF i % 3 = 0 THEN
			g := cf_delete(g, i);
		END IF;
	END LOOP;
	UPDATE cf_bulk SET f = g;
END $$;
SELECT items FROM cf_bulk, cf_info(f);
SELECT count(*) AS false_negatives_after_delete
  FROM cf_bulk, generate_series(1, 100000) i WHERE i % 3 <> 0 AND NOT cf_contains(f, i);
-- the deleted third is mostly gone (false positives only)
SELECT count(*) < 33333 * 0.02 AS deleted_mostly_gone
  FROM cf_bulk, generate_series(1, 100000) i WHERE i % 3 = 0 AND cf_contains(f, i);

-- false positives on 100,000 values never added: the target rate is 0.01
SELECT count(*) < 100000 * 0.02 AS fpr_within_bounds
  FROM cf_bulk, generate_series(1000001, 1100000) i WHERE cf_contains(f, i);
SELECT fpr < 0.02 AS expected_fpr_within_bounds FROM cf_bulk, cf_info(f);

-- the same with text values through a growing filter, built by a recursive
-- query: every value is found
WITH RECURSIVE b(i, f) AS (
	SELECT 0, cf_create(1000, expansion => 2)
	UNION ALL
	SELECT i + 1, cf_add(f, 'value ' || (i + 1)) FROM b WHERE i < 5000
)
SELECT subfilters > 1 AS grew,
       (SELECT count(*) FROM generate_series(1, 5000) j WHERE NOT f @> ('value ' || j)) AS false_negatives
  FROM (SELECT f FROM b WHERE i = 5000) s, cf_info(f);

-- the filter as a scalar subquery, a CTE and a join partner, per row
SELECT count(*) AS found_subquery
  FROM generate_series(1, 100000) i WHERE cf_contains((SELECT f FROM cf_bulk), i) AND i % 3 <> 0;
WITH c AS MATERIALIZED (SELECT f FROM cf_bulk)
SELECT count(*) AS found_cte FROM c, generate_series(1, 100000) i WHERE c.f @> i AND i % 3 <> 0;


-- parallel workers probe the same filter: the plan is parallel and the
-- answer is the same
CREATE TABLE cf_vals AS SELECT i FROM generate_series(1, 100000) i;
ANALYZE cf_vals;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF)
SELECT count(*) FROM cf_vals WHERE cf_contains((SELECT f FROM cf_bulk), i);
SELECT count(*) AS found_parallel FROM cf_vals WHERE cf_contains((SELECT f FROM cf_bulk), i) AND i % 3 <> 0;
SELECT count(*) AS found_parallel_join FROM cf_vals v, cf_bulk b WHERE b.f @> v.i AND i % 3 <> 0;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;

DROP TABLE cf_bulk, cf_vals;
