-- readme_measurements.sql - figures that docs/limits.md quotes (they were in the README):
-- how many copies of one value a filter holds before it cannot grow, and what
-- 30 per-day parts cost and give when merged, by how they are sized.
-- Run in a scratch database with the extension (it creates and drops its own
-- objects), for example:
--   make install && pg_virtualenv -t -v 15 psql -X -f bench/sql/readme_measurements.sql
-- (about 2 minutes).  Measured 2026-11-24 at commit 26a07d1 and, for the copies
-- of one value in the split tables of 1.2, 2026-11-25; deterministic.
CREATE EXTENSION IF NOT EXISTS cuckoo;

-- copies of one value (cf_add) until the filter cannot take another
CREATE FUNCTION pg_temp.copies(f cuckoofilter) RETURNS text LANGUAGE plpgsql AS $$
DECLARE n int := 0;
BEGIN
	LOOP
		BEGIN
			f := cf_add(f, 42);
		EXCEPTION WHEN program_limit_exceeded THEN
			RETURN format('%s copies; %s; sub-filters %s, bytes %s', n, SQLERRM,
						  (cf_info(f)).subfilters, (cf_info(f)).bytes);
		END;
		n := n + 1;
	END LOOP;
END $$;
SELECT 'cf_add(NULL, v)' AS filter, pg_temp.copies(NULL::cuckoofilter)
UNION ALL SELECT 'cf_create(1000)', pg_temp.copies(cf_create(1000))
UNION ALL SELECT 'cf_create(1000000)', pg_temp.copies(cf_create(1000000))
UNION ALL SELECT 'cf_create(1000, bucket_size => 8)', pg_temp.copies(cf_create(1000, bucket_size => 8))
UNION ALL SELECT 'cf_create(1000, expansion => 0)', pg_temp.copies(cf_create(1000, expansion => 0));

-- 30 days of about 11,300 distinct users each, out of 100,000
CREATE TEMP TABLE events AS
SELECT d AS day, u AS user_id
  FROM generate_series(1, 30) d,
       LATERAL (SELECT DISTINCT ((hashint8(d * 1000003 + i) & 2147483647) % 100000)::bigint AS u
                  FROM generate_series(1, 12000) i) s;
SELECT count(*) AS rows, count(DISTINCT user_id) AS distinct_users,
       (SELECT round(avg(n)) FROM (SELECT count(DISTINCT user_id) n FROM events GROUP BY day) x) AS per_day,
       (SELECT max(n) FROM (SELECT user_id, count(*) n FROM events GROUP BY user_id) y) AS max_days_of_one_user
  FROM events;
CREATE TEMP TABLE absent AS SELECT -g::bigint AS v FROM generate_series(1, 200000) g;
CREATE FUNCTION pg_temp.report(lbl text, cap bigint) RETURNS TABLE (label text, parts_bytes bigint, parts_lz4 bigint, union_bytes bigint, subfilters int, items bigint, union_fpr_est float8, fp_measured float8, all_found boolean)
LANGUAGE plpgsql AS $$
DECLARE u cuckoofilter;
BEGIN
  CREATE TEMP TABLE parts (day int, f cuckoofilter);
  ALTER TABLE parts ALTER COLUMN f SET STORAGE EXTENDED, ALTER COLUMN f SET COMPRESSION lz4;
  IF cap IS NULL THEN
    INSERT INTO parts SELECT day, cf_agg(user_id) FROM events GROUP BY day;
  ELSE
    INSERT INTO parts SELECT day, cf_agg(user_id, 0.01, cap) FROM events GROUP BY day;
  END IF;
  BEGIN
    u := (SELECT cf_union_agg(f) FROM parts);
  EXCEPTION WHEN OTHERS THEN
    RETURN QUERY SELECT report.lbl, (SELECT sum((cf_info(f)).bytes)::bigint FROM parts), (SELECT sum(pg_column_size(f))::bigint FROM parts), NULL::bigint, NULL::int, NULL::bigint, NULL::float8, NULL::float8, NULL::boolean;
    RAISE NOTICE '%: union failed: %', report.lbl, SQLERRM;
    DROP TABLE parts; RETURN;
  END;
  RETURN QUERY SELECT report.lbl, (SELECT sum((cf_info(f)).bytes)::bigint FROM parts), (SELECT sum(pg_column_size(f))::bigint FROM parts),
     (cf_info(u)).bytes, (cf_info(u)).subfilters, (cf_info(u)).items, (cf_info(u)).fpr,
     (SELECT avg(cf_contains(u, v)::int) FROM absent)::float8,
     (SELECT bool_and(cf_contains(u, user_id)) FROM events);
  DROP TABLE parts;
END $$;
SELECT * FROM pg_temp.report('sized per day (cf_agg(user_id))', NULL::bigint);
SELECT * FROM pg_temp.report('capacity 100000 (distinct users)', 100000);
SELECT * FROM pg_temp.report('capacity 340000 (sum of daily distinct)', 340000);
SELECT * FROM pg_temp.report('capacity 375000 (sum + 10%)', 375000);
SELECT * FROM pg_temp.report('capacity 680000 (2 x sum)', 680000);
-- one filter of all 30 days
SELECT (cf_info(f)).bytes, (cf_info(f)).fpr, (SELECT avg(cf_contains(f, v)::int) FROM absent) FROM (SELECT cf_agg(user_id) f FROM events) s;

-- 33 parts sized each to its day: the union fails
CREATE TEMP TABLE ev33 AS
SELECT d AS day, ((hashint8(d * 1000003 + i) & 2147483647) % 100000)::bigint AS user_id
  FROM generate_series(1, 33) d, generate_series(1, 12000) i;
SELECT (cf_info(cf_union_agg(f))).subfilters AS subfilters_of_32
  FROM (SELECT day, cf_agg(user_id) f FROM ev33 WHERE day <= 32 GROUP BY day) s;
SELECT cf_union_agg(f) IS NOT NULL AS union_of_33
  FROM (SELECT day, cf_agg(user_id) f FROM ev33 GROUP BY day) s;

-- the same 10 values in each of 8 and of 20 parts of one capacity
SELECT n AS parts, (cf_info(u)).subfilters, (cf_info(u)).items
  FROM (VALUES (8), (20)) v(n),
       LATERAL (SELECT cf_union_agg(f) AS u
                  FROM (SELECT d, cf_agg(x, 0.01, 1000) AS f
                          FROM generate_series(1, n) d, generate_series(1, 10) x GROUP BY d) p) s;
