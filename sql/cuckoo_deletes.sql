-- cuckoo_deletes: deletes from grown and merged filters never lose another
-- value (FORMAT.md, "Deletes").  Each case deletes values in a scrambled
-- order and, at checkpoints, counts the values still added that the filter
-- reports absent: always 0.

-- n values 1..n added to f; then every value deleted in a scrambled order;
-- returns the false negatives seen at 10 checkpoints, and the counters
CREATE FUNCTION dl_churn(f cuckoofilter, n int, OUT false_negatives bigint,
	OUT items_left bigint, OUT deletes bigint, OUT retained bigint, OUT subfilters int)
LANGUAGE plpgsql AS $$
DECLARE
	v int;
	k int := 0;
BEGIN
	false_negatives := 0;
	FOR v IN 1 .. n LOOP f := cf_add(f, v); END LOOP;
	subfilters := (cf_info(f)).subfilters;
	FOR v IN SELECT x FROM generate_series(1, n) x ORDER BY cf_hash(x * 7919) LOOP
		f := cf_delete(f, v);
		k := k + 1;
		IF k % (n / 10) = 0 THEN
			false_negatives := false_negatives + (SELECT count(*) FROM generate_series(1, n) y
				WHERE cf_hash(y * 7919) > cf_hash(v * 7919) AND NOT f @> y);
		END IF;
	END LOOP;
	items_left := (cf_info(f)).items;
	deletes := (cf_info(f)).deletes;
	retained := (cf_info(f)).retained;
END $$;

-- grown from 1,000 to 10,000 items, of several shapes
SELECT shape, d.* FROM (VALUES
	('b4 fpr 0.01 x2',   cf_create(1000)),
	('b2 fpr 0.01 x2',   cf_create(1000, 0.01, 2)),
	('b8 fpr 0.01 x2',   cf_create(1000, 0.01, 8)),
	('b4 fpr 0.001 x1',  cf_create(1000, 0.001, 4, 500, 1)),
	('b4 fpr 0.1 x4',    cf_create(1000, 0.1, 4, 500, 4)),
	('b4 small fp x2',   cf_create(300, 0.3, 4, 500, 2))) s(shape, f),
	LATERAL dl_churn(f, 10000) d
 ORDER BY shape;

-- grown one cf_add at a time from NULL (capacity 1,000)
SELECT * FROM dl_churn(NULL, 5000);

-- merged: a union of two grown filters of one capacity is one family, and
-- so is cf_union_agg over parts of one capacity
CREATE TABLE dl_parts AS
SELECT p, (SELECT cf_add_all(cf_create(500), array_agg(x)) FROM generate_series(p * 2000 + 1, p * 2000 + 2000) x) AS f
  FROM generate_series(0, 3) p;
SELECT (cf_info(cf_union_agg(f))).subfilters, (cf_info(cf_union_agg(f))).families FROM dl_parts;
CREATE FUNCTION dl_drain(f cuckoofilter, n int, OUT false_negatives bigint, OUT items_left bigint,
	OUT retained bigint)
LANGUAGE plpgsql AS $$
DECLARE v int; k int := 0;
BEGIN
	false_negatives := 0;
	FOR v IN SELECT x FROM generate_series(1, n) x ORDER BY cf_hash(x * 31) LOOP
		f := cf_delete(f, v);
		k := k + 1;
		IF k % (n / 4) = 0 THEN
			false_negatives := false_negatives + (SELECT count(*) FROM generate_series(1, n) y
				WHERE cf_hash(y * 31) > cf_hash(v * 31) AND NOT f @> y);
		END IF;
	END LOOP;
	items_left := (cf_info(f)).items;
	retained := (cf_info(f)).retained;
END $$;
SELECT * FROM dl_drain((SELECT cf_union_agg(f) FROM dl_parts), 8000);
SELECT * FROM dl_drain((SELECT cf_union(a.f, b.f) FROM dl_parts a, dl_parts b WHERE a.p = 0 AND b.p = 1), 4000);

-- cf_agg output that later grew
SELECT * FROM dl_drain((SELECT cf_add_all(cf_agg(x), (SELECT array_agg(y) FROM generate_series(3001, 9000) y))
                          FROM generate_series(1, 3000) x), 9000);

-- parts of different capacities: tables of two families; a delete whose
-- value matches in both is left in place and counted, never wrong
SELECT * FROM dl_drain((SELECT cf_union(cf_add_all(cf_create(1000), (SELECT array_agg(x) FROM generate_series(1, 3000) x)),
                                        cf_add_all(cf_create(700), (SELECT array_agg(x) FROM generate_series(3001, 6000) x)))), 6000);

-- a sliding window: each day adds 300 ids and deletes the day that left the
-- 5-day window, on a filter that had to grow; after 30 days no live id is
-- absent, no delete failed, the rate stays within twice the target and the
-- size stopped growing once the live set was flat
CREATE FUNCTION dl_window(OUT false_negatives bigint, OUT retained bigint, OUT fpr_within_2x boolean,
	OUT bytes_day10 bigint, OUT bytes_day30 bigint, OUT subfilters int)
LANGUAGE plpgsql AS $$
DECLARE
	f cuckoofilter := cf_create(200);
	fp bigint;
BEGIN
	false_negatives := 0;
	FOR d IN 1 .. 30 LOOP
		f := cf_add_all(f, (SELECT array_agg(d * 1000 + i) FROM generate_series(1, 300) i));
		IF d > 5 THEN
			FOR i IN 1 .. 300 LOOP f := cf_delete(f, (d - 5) * 1000 + i); END LOOP;
		END IF;
		false_negatives := false_negatives + (SELECT count(*) FROM generate_series(greatest(1, d - 4), d) w,
			generate_series(1, 300) i WHERE NOT f @> (w * 1000 + i));
		IF d = 10 THEN bytes_day10 := (cf_info(f)).bytes; END IF;
	END LOOP;
	SELECT count(*) INTO fp FROM generate_series(1000001, 1020000) x WHERE f @> x;
	fpr_within_2x := fp <= 2 * 0.01 * 20000;
	bytes_day30 := (cf_info(f)).bytes;
	retained := (cf_info(f)).retained;
	subfilters := (cf_info(f)).subfilters;
END $$;
SELECT * FROM dl_window();

DROP TABLE dl_parts;
DROP FUNCTION dl_churn(cuckoofilter, int);
DROP FUNCTION dl_drain(cuckoofilter, int);
DROP FUNCTION dl_window();
