-- cuckoo_seen3: the three-column seen recipe (1.4, docs/seen.md "Three columns"):
-- cf_mark_base / cf_mark_mid / cf_mark_delta (base, mid, delta, item), cf_mark_all_*,
-- cf_unsee_*, cf_seen, cf_unseen with four arguments.

-- the first mark: base and mid stay NULL, delta holds the item (newest first)
SELECT cf_mark_base(NULL, NULL::bigint[], NULL::bigint[], 7::bigint) IS NULL AS base_null,
       cf_mark_mid(NULL, NULL::bigint[], NULL::bigint[], 7::bigint) IS NULL AS mid_null,
       cf_mark_delta(NULL, NULL::bigint[], NULL::bigint[], 7::bigint) AS delta;
SELECT cf_mark_delta(NULL, NULL, ARRAY[7]::bigint[], 8::bigint) AS delta,
       cf_mark_mid(NULL, ARRAY[1]::bigint[], ARRAY[7]::bigint[], 8::bigint) AS mid;
-- a NULL item or page changes nothing (any column may be NULL)
SELECT cf_mark_base(NULL, ARRAY[1]::bigint[], ARRAY[7]::bigint[], NULL::bigint) IS NULL AS base_null,
       cf_mark_mid(NULL, ARRAY[1]::bigint[], ARRAY[7]::bigint[], NULL::bigint) AS mid,
       cf_mark_delta(NULL, ARRAY[1]::bigint[], ARRAY[7]::bigint[], NULL::bigint) AS delta,
       cf_mark_all_delta(NULL, NULL, NULL::bigint[], NULL::bigint[]) IS NULL AS delta_null;
-- a page: newest first, NULL elements skipped
SELECT cf_mark_all_delta(NULL, NULL, ARRAY[1]::bigint[], ARRAY[2, NULL, 3]::bigint[]) AS delta,
       cf_mark_all_delta(NULL, NULL, ARRAY[1]::bigint[], '{}'::bigint[]) AS empty_page;
-- one element type for mid, delta and the item; one-dimensional arrays
SELECT cf_mark_delta(NULL, ARRAY['a'], ARRAY['b'], 5::bigint);
SELECT cf_mark_delta(NULL, ARRAY[1]::int[], ARRAY[2]::bigint[], 5::bigint);
SELECT cf_mark_mid(NULL, ARRAY[[1, 2]]::bigint[], ARRAY(SELECT generate_series(1, 40::bigint)), 5::bigint);
SELECT cf_seen(NULL, ARRAY[[1, 2]]::bigint[], NULL, 5::bigint);
SELECT cf_mark_delta(NULL, NULL, ARRAY['a'], 'b') AS text_items;
-- the two-column functions are still there, unchanged
SELECT cf_mark_delta(NULL, ARRAY[7]::bigint[], 8::bigint) AS two_columns;

-- the table of the recipe
CREATE TABLE seen3 (user_id bigint PRIMARY KEY, base cuckoofilter, mid bigint[], delta bigint[]) WITH (fillfactor = 70);
PREPARE mark(bigint, bigint) AS
INSERT INTO seen3 AS s VALUES ($1, NULL, NULL, ARRAY[$2])
ON CONFLICT (user_id) DO UPDATE
SET base  = cf_mark_base(s.base, s.mid, s.delta, $2),
    mid   = cf_mark_mid(s.base, s.mid, s.delta, $2),
    delta = cf_mark_delta(s.base, s.mid, s.delta, $2);
PREPARE mark_page(bigint, bigint[]) AS
INSERT INTO seen3 AS s
VALUES ($1, cf_mark_all_base(NULL, NULL, NULL, $2), cf_mark_all_mid(NULL, NULL, NULL, $2),
        cf_mark_all_delta(NULL, NULL, NULL, $2))
ON CONFLICT (user_id) DO UPDATE
SET base  = cf_mark_all_base(s.base, s.mid, s.delta, $2),
    mid   = cf_mark_all_mid(s.base, s.mid, s.delta, $2),
    delta = cf_mark_all_delta(s.base, s.mid, s.delta, $2);
PREPARE unsee(bigint, bigint) AS
UPDATE seen3 SET base  = cf_unsee_base(base, mid, delta, $2),
                 mid   = cf_unsee_mid(base, mid, delta, $2),
                 delta = cf_unsee_delta(base, mid, delta, $2)
 WHERE user_id = $1;

-- a new user: no base, so a full delta (30 items > 256 bytes) goes straight to base
DO $$ BEGIN FOR i IN 1..29 LOOP EXECUTE format('EXECUTE mark(1, %s)', i); END LOOP; END $$;
SELECT base IS NULL AS base_null, mid IS NULL AS mid_null, cardinality(delta), delta[1:3] AS newest FROM seen3;
EXECUTE mark(1, 30);
SELECT cf_items(base), pg_column_size(base), mid IS NULL AS mid_null, delta IS NULL AS delta_null FROM seen3;
-- while base is small, mid's limit (base's bytes / 4) is under one delta: each fold goes to base
DO $$ BEGIN FOR i IN 31..90 LOOP EXECUTE format('EXECUTE mark(1, %s)', i); END LOOP; END $$;
SELECT cf_items(base), pg_column_size(base), mid IS NULL AS mid_null, delta IS NULL AS delta_null FROM seen3;
-- then a full delta goes to mid
DO $$ BEGIN FOR i IN 91..121 LOOP EXECUTE format('EXECUTE mark(1, %s)', i); END LOOP; END $$;
SELECT cf_items(base), cardinality(mid), mid[1:3] AS mid_newest, delta FROM seen3;
-- checks: delta, mid or base; cf_unseen keeps order and repeats, drops NULLs
SELECT cf_seen(base, mid, delta, 121::bigint) AS in_delta, cf_seen(base, mid, delta, 100::bigint) AS in_mid,
       cf_seen(base, mid, delta, 5::bigint) AS in_base, cf_seen(base, mid, delta, 999::bigint) AS absent,
       cf_seen(base, mid, delta, NULL::bigint) AS null_item
  FROM seen3;
SELECT cf_unseen(base, mid, delta, ARRAY[999, 5, 100, 121, NULL, 998, 999]::bigint[]) AS unseen,
       cf_unseen(base, mid, delta, '{}'::bigint[]) AS empty,
       cf_unseen(base, mid, delta, NULL::bigint[]) IS NULL AS null_candidates
  FROM seen3;
SELECT cf_seen(NULL, NULL, NULL::bigint[], 1::bigint), cf_unseen(NULL, NULL, NULL::bigint[], ARRAY[1, 2]::bigint[]);
-- the next full delta does not fit mid: mid and delta are folded into base, which is
-- then byte for byte one cf_add per mark, in the order marked
DO $$ BEGIN FOR i IN 122..150 LOOP EXECUTE format('EXECUTE mark(1, %s)', i); END LOOP; END $$;
SELECT cf_items(base), mid IS NULL AS mid_null, delta IS NULL AS delta_null,
       base::text = (SELECT cf_add_all(NULL, array_agg(i ORDER BY i)) FROM generate_series(1, 150::bigint) i)::text AS same_bytes
  FROM seen3;

-- unsee: the newest copy, from delta, else mid, else base
DO $$ BEGIN FOR i IN 151..180 LOOP EXECUTE format('EXECUTE mark(1, %s)', i); END LOOP; END $$;
EXECUTE mark(1, 155);
EXECUTE mark(1, 181);
SELECT cf_items(base), cardinality(mid), delta FROM seen3;
EXECUTE unsee(1, 155);
SELECT delta, cf_seen(base, mid, delta, 155::bigint) AS still_seen FROM seen3;
EXECUTE unsee(1, 155);
SELECT cardinality(mid), cf_seen(base, mid, delta, 155::bigint) AS seen FROM seen3;
EXECUTE unsee(1, 5);
SELECT cf_items(base), cf_unseen(base, mid, delta, ARRAY(SELECT generate_series(1, 182::bigint))) AS unseen FROM seen3;
-- an unsee of an item nothing reports changes nothing
SELECT cf_unsee_base(base, mid, delta, 12345::bigint) = base AS base_same,
       cf_unsee_mid(base, mid, delta, 12345::bigint) = mid AS mid_same,
       cf_unsee_delta(base, mid, delta, 12345::bigint) = delta AS delta_same FROM seen3;
SELECT cf_unsee_base(NULL, NULL, NULL::bigint[], 1::bigint) IS NULL AS base_null,
       cf_unsee_mid(NULL, ARRAY[1]::bigint[], NULL, 1::bigint) IS NULL AS mid_null,
       cf_unsee_delta(NULL, NULL, ARRAY[1]::bigint[], NULL::bigint) AS null_item;

-- a page mark (also the first mark of a new user)
EXECUTE mark_page(3, ARRAY[10, NULL, 11, 12]::bigint[]);
EXECUTE mark_page(3, ARRAY[13, 14]::bigint[]);
SELECT delta, base IS NULL AS base_null, mid IS NULL AS mid_null FROM seen3 WHERE user_id = 3;

-- a large base and mid are returned as the very same toast pointers: a mark
-- that folds delta into mid writes mid, not base
INSERT INTO seen3 SELECT 4, cf_add_all(NULL, array_agg(i)), NULL, NULL FROM generate_series(1, 20000::bigint) i;
-- 197 marks fit delta (1,600 bytes); the 198th moves them to mid, and base is
-- returned as the same toast pointer
DO $$ BEGIN FOR i IN 1..197 LOOP EXECUTE format('EXECUTE mark(4, %s)', 1000000 + i); END LOOP; END $$;
SELECT cardinality(delta), (cuckoo_debug_state(cf_mark_base(base, mid, delta, 1000198::bigint))).form AS base_returned,
       cardinality(cf_mark_mid(base, mid, delta, 1000198::bigint)) AS new_mid,
       cf_mark_delta(base, mid, delta, 1000198::bigint) IS NULL AS new_delta_null
  FROM seen3 WHERE user_id = 4;
EXECUTE mark(4, 1000198);
SELECT cf_items(base), cardinality(mid), delta IS NULL AS delta_null FROM seen3 WHERE user_id = 4;
-- a mark that does not fold leaves mid as it is too
DO $$ BEGIN FOR i IN 199..594 LOOP EXECUTE format('EXECUTE mark(4, %s)', 1000000 + i); END LOOP; END $$;
SELECT cf_items(base), cardinality(mid), delta IS NULL AS delta_null,
       cf_mark_mid(base, mid, delta, 2000000::bigint) = mid AS mid_same
  FROM seen3 WHERE user_id = 4;
-- mid takes up to base's bytes / 4 (13,691 bytes: 1,708 items): 8 folds of 198 marks
DO $$ BEGIN FOR i IN 595..1781 LOOP EXECUTE format('EXECUTE mark(4, %s)', 1000000 + i); END LOOP; END $$;
SELECT cf_items(base), cardinality(mid), cardinality(delta) FROM seen3 WHERE user_id = 4;
-- the 9th would not fit: mid and delta go to base
EXECUTE mark(4, 1001782);
SELECT cf_items(base), mid IS NULL AS mid_null, delta IS NULL AS delta_null,
       base::text = (SELECT cf_add_all(NULL, array_agg(i ORDER BY o)) FROM (
           SELECT i, i AS o FROM generate_series(1, 20000::bigint) i
           UNION ALL SELECT i, i FROM generate_series(1000001, 1001782::bigint) i) x)::text AS same_bytes
  FROM seen3 WHERE user_id = 4;
SELECT count(*) AS lost FROM (SELECT generate_series(1, 20000) UNION ALL SELECT generate_series(1000001, 1001782)) g(i), seen3 s
 WHERE s.user_id = 4 AND NOT cf_seen(s.base, s.mid, s.delta, i::bigint);

-- an item base already reports twice stays in delta after the separator, as in two columns
SELECT cf_items(b) AS in_base, cardinality(d) AS left_in_delta, d[1:3] AS head, m IS NULL AS mid_null
  FROM (SELECT cf_mark_all_base(NULL, NULL, NULL::bigint[], a) AS b, cf_mark_all_mid(NULL, NULL, NULL::bigint[], a) AS m,
               cf_mark_all_delta(NULL, NULL, NULL::bigint[], a) AS d
          FROM (SELECT array_agg(7::bigint) AS a FROM generate_series(1, 40)) x) y;
-- a fold into mid moves the newest marks and keeps the separated items in delta
SELECT cf_mark_mid(f, NULL, d, 100::bigint) AS mid, cf_mark_delta(f, NULL, d, 100::bigint) AS delta
  FROM (SELECT cf_add_all(NULL, ARRAY(SELECT generate_series(1, 300::bigint))) AS f,
               ARRAY(SELECT generate_series(129, 101, -1)::bigint) || ARRAY[NULL, 7]::bigint[] AS d) x;
-- unsee takes an item out of mid; a mid with no item left is NULL
SELECT cf_unsee_mid(NULL, ARRAY[8, 7, 7]::bigint[], NULL, 7::bigint) AS mid,
       cf_unsee_mid(NULL, ARRAY[7]::bigint[], ARRAY[7]::bigint[], 7::bigint) AS delta_first,
       cf_unsee_mid(NULL, ARRAY[7]::bigint[], NULL, 7::bigint) IS NULL AS mid_null;

-- a base of another kind of value is refused, as cf_add refuses it
SELECT cf_seen(cf_add(NULL, 'x'::text), NULL, NULL::bigint[], 1::bigint);
SELECT cf_mark_base(cf_add(NULL, 'x'::text), NULL, ARRAY(SELECT generate_series(1, 40::bigint)), 1::bigint);
-- text items
SELECT cf_unseen(NULL, ARRAY['item3', 'item1'], ARRAY['item4'], ARRAY['item1', 'item2', 'item4', 'item5']);

-- random marks and unsees against an exact multiset, in PL/pgSQL variables:
-- every item marked more often than unseen is reported seen, and base, mid
-- and delta together hold at least as many copies as the multiset
CREATE FUNCTION seen3_model(n int, range int) RETURNS TABLE (ops int, marked bigint, folds_into_base int, lost bigint, short bigint)
LANGUAGE plpgsql AS $$
DECLARE
	b cuckoofilter;
	m bigint[];
	d bigint[];
	nb cuckoofilter;
	x bigint;
	page bigint[];
	r float8;
	folds int := 0;
BEGIN
	PERFORM setseed(0.34);
	CREATE TEMP TABLE model (item bigint PRIMARY KEY, c int NOT NULL);
	FOR i IN 1..n LOOP
		r := random();
		x := 1 + floor(random() * range)::bigint;
		IF r < 0.55 THEN
			SELECT cf_mark_base(b, m, d, x), cf_mark_mid(b, m, d, x), cf_mark_delta(b, m, d, x) INTO nb, m, d;
			INSERT INTO model VALUES (x, 1) ON CONFLICT (item) DO UPDATE SET c = model.c + 1;
		ELSIF r < 0.75 THEN
			page := ARRAY[x, x + 1, NULL, x + 2];
			SELECT cf_mark_all_base(b, m, d, page), cf_mark_all_mid(b, m, d, page), cf_mark_all_delta(b, m, d, page) INTO nb, m, d;
			INSERT INTO model SELECT y, 1 FROM unnest(ARRAY[x, x + 1, x + 2]) y ON CONFLICT (item) DO UPDATE SET c = model.c + 1;
		ELSE
			-- unsee only an item that was marked (once per mark)
			SELECT item INTO x FROM model WHERE c > 0 ORDER BY (item - x + range) % range LIMIT 1;
			CONTINUE WHEN x IS NULL;
			SELECT cf_unsee_base(b, m, d, x), cf_unsee_mid(b, m, d, x), cf_unsee_delta(b, m, d, x) INTO nb, m, d;
			UPDATE model SET c = c - 1 WHERE item = x;
		END IF;
		IF nb IS DISTINCT FROM b AND r < 0.75 THEN
			folds := folds + 1;
		END IF;
		b := nb;
	END LOOP;
	RETURN QUERY SELECT n, (SELECT sum(c) FROM model), folds,
		(SELECT count(*) FROM model WHERE c > 0 AND NOT cf_seen(b, m, d, item)),
		(SELECT count(*) FROM model
		  WHERE c > coalesce(cf_count(b, item), 0)
		             + (SELECT count(*) FROM unnest(m) y WHERE y = item)
		             + (SELECT count(*) FROM unnest(d) y WHERE y = item));
	DROP TABLE model;
END $$;
SELECT * FROM seen3_model(3000, 400);
SELECT * FROM seen3_model(3000, 5000);
-- same marks in the same order: the same bytes
SELECT count(DISTINCT (cf_mark_all_base(NULL, NULL, NULL::bigint[], a)::text,
                       cf_mark_all_mid(NULL, NULL, NULL::bigint[], a),
                       cf_mark_all_delta(NULL, NULL, NULL::bigint[], a))) AS distinct_results
  FROM (SELECT ARRAY(SELECT generate_series(1, 100::bigint)) AS a FROM generate_series(1, 3)) x;

-- leave nothing behind for the files after this one
DROP TABLE seen3;
DROP FUNCTION seen3_model(int, int);
