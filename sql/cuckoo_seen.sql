-- cuckoo_seen: the two-column seen recipe (issue 34, docs/seen.md):
-- cf_mark_base / cf_mark_delta, cf_mark_all_*, cf_unsee_*, cf_seen, cf_unseen.

-- the first mark: base stays NULL, delta holds the item (newest first)
SELECT cf_mark_base(NULL, NULL::bigint[], 7::bigint) IS NULL AS base_null,
       cf_mark_delta(NULL, NULL::bigint[], 7::bigint) AS delta;
SELECT cf_mark_delta(NULL, ARRAY[7]::bigint[], 8::bigint) AS delta;
-- a NULL item changes nothing (either column may be NULL)
SELECT cf_mark_base(NULL, ARRAY[7]::bigint[], NULL::bigint) IS NULL AS base_null,
       cf_mark_delta(NULL, ARRAY[7]::bigint[], NULL::bigint) AS delta,
       cf_mark_delta(NULL, NULL::bigint[], NULL::bigint) IS NULL AS delta_null;
-- a page: newest first, NULL elements skipped; an empty or NULL page changes nothing
SELECT cf_mark_all_delta(NULL, ARRAY[1]::bigint[], ARRAY[2, NULL, 3]::bigint[]) AS delta,
       cf_mark_all_delta(NULL, ARRAY[1]::bigint[], '{}'::bigint[]) AS empty_page,
       cf_mark_all_delta(NULL, ARRAY[1]::bigint[], NULL::bigint[]) AS null_page;
-- the same element type everywhere: a text delta with a bigint item is no call
SELECT cf_mark_delta(NULL, ARRAY['a'], 5::bigint);
SELECT cf_mark_delta(NULL, ARRAY['a'], 'b') AS text_items;
SELECT cf_mark_delta(NULL, ARRAY[[1, 2]]::bigint[], 5::bigint);

-- the table of the recipe
CREATE TABLE seen (user_id bigint PRIMARY KEY, base cuckoofilter, delta bigint[]);
PREPARE mark(bigint, bigint) AS
INSERT INTO seen AS s VALUES ($1, NULL, ARRAY[$2])
ON CONFLICT (user_id) DO UPDATE
SET base = cf_mark_base(s.base, s.delta, $2), delta = cf_mark_delta(s.base, s.delta, $2);
PREPARE mark_page(bigint, bigint[]) AS
INSERT INTO seen AS s VALUES ($1, NULL, (SELECT array_agg(x ORDER BY o DESC) FROM unnest($2) WITH ORDINALITY u(x, o) WHERE x IS NOT NULL))
ON CONFLICT (user_id) DO UPDATE
SET base = cf_mark_all_base(s.base, s.delta, $2), delta = cf_mark_all_delta(s.base, s.delta, $2);
PREPARE unsee(bigint, bigint) AS
UPDATE seen SET base = cf_unsee_base(base, delta, $2), delta = cf_unsee_delta(base, delta, $2)
 WHERE user_id = $1;

-- marks 1 .. 29 stay in delta (29 * 8 bytes + 24 of header: under the 256-byte floor)
DO $$ BEGIN FOR i IN 1..29 LOOP EXECUTE format('EXECUTE mark(1, %s)', i); END LOOP; END $$;
SELECT base IS NULL AS base_null, cardinality(delta), delta[1:3] AS newest FROM seen;
-- the 30th mark folds: base holds all 30, delta is empty (NULL)
EXECUTE mark(1, 30);
SELECT cf_items(base), delta IS NULL AS delta_null FROM seen;
-- the fold is one cf_add per mark, in the order marked: the same bytes
SELECT base = (SELECT cf_add_all(NULL, array_agg(i ORDER BY i)) FROM generate_series(1, 30::bigint) i) AS same_as_cf_add,
       base::text = (SELECT cf_add_all(NULL, array_agg(i ORDER BY i)) FROM generate_series(1, 30::bigint) i)::text AS same_bytes
  FROM seen;
EXECUTE mark(1, 31);
EXECUTE mark(1, 31);
SELECT cf_items(base), delta FROM seen;

-- checks: delta or base; cf_unseen keeps the candidates' order and repeats, drops NULLs
SELECT cf_seen(base, delta, 31::bigint) AS in_delta, cf_seen(base, delta, 5::bigint) AS in_base,
       cf_seen(base, delta, 99::bigint) AS absent, cf_seen(base, delta, NULL::bigint) AS null_item
  FROM seen;
SELECT cf_unseen(base, delta, ARRAY[99, 5, 31, NULL, 98, 99]::bigint[]) AS unseen,
       cf_unseen(base, delta, '{}'::bigint[]) AS empty,
       cf_unseen(base, delta, NULL::bigint[]) IS NULL AS null_candidates
  FROM seen;
-- a user without a row has seen nothing
SELECT cf_unseen(s.base, s.delta, ARRAY[1, 2]::bigint[]) FROM (SELECT 2 AS user_id) u LEFT JOIN seen s USING (user_id);
SELECT cf_seen(NULL, NULL::bigint[], 1::bigint), cf_unseen(NULL, NULL::bigint[], ARRAY[1, 2]::bigint[]);

-- unsee: one copy; from delta when it holds the item (base untouched), else from base
EXECUTE unsee(1, 31);
SELECT delta, cf_seen(base, delta, 31::bigint) AS still_seen FROM seen;
EXECUTE unsee(1, 31);
SELECT delta IS NULL AS delta_null, cf_seen(base, delta, 31::bigint) AS seen FROM seen;
EXECUTE unsee(1, 5);
SELECT cf_items(base), cf_seen(base, delta, 5::bigint) AS seen,
       cf_unseen(base, delta, ARRAY(SELECT generate_series(1, 30::bigint))) AS unseen FROM seen;
-- an unsee of an item base does not report leaves everything as it is
SELECT cf_unsee_base(base, delta, 12345::bigint) = base AS unchanged,
       cf_unsee_delta(base, delta, 12345::bigint) IS NULL AS delta_null FROM seen;
SELECT cf_unsee_base(NULL, NULL::bigint[], 1::bigint) IS NULL, cf_unsee_delta(NULL, ARRAY[1]::bigint[], NULL::bigint);

-- a page mark (also the first mark of a new user)
EXECUTE mark_page(3, ARRAY[10, NULL, 11, 12]::bigint[]);
EXECUTE mark_page(3, ARRAY[13, 14]::bigint[]);
SELECT delta, base IS NULL AS base_null FROM seen WHERE user_id = 3;

-- a large base is returned as the very same toast pointer: nothing of it is written again
INSERT INTO seen SELECT 4, cf_add_all(NULL, array_agg(i)), NULL FROM generate_series(1, 20000::bigint) i;
SELECT pg_column_size(base) > 40000 AS large,
       (cuckoo_debug_state(cf_mark_base(base, delta, 1000001::bigint))).form AS returned
  FROM seen WHERE user_id = 4;
-- the limit grows with base (base bytes / 16, at most 1,600 bytes of delta: 197 items)
DO $$ BEGIN FOR i IN 1..197 LOOP EXECUTE format('EXECUTE mark(4, %s)', 1000000 + i); END LOOP; END $$;
SELECT cf_items(base), cardinality(delta) FROM seen WHERE user_id = 4;
EXECUTE mark(4, 1000198);
SELECT cf_items(base), delta IS NULL AS delta_null FROM seen WHERE user_id = 4;
SELECT count(*) AS lost FROM generate_series(1, 20000) i, seen s
 WHERE s.user_id = 4 AND NOT cf_seen(s.base, s.delta, i::bigint);

-- an item base already reports twice stays in delta, after a NULL that
-- separates the items kept back from the newest marks: nothing lost, nothing
-- refused, no pile of copies in base
SELECT cf_items(b) AS in_base, cardinality(d) AS left_in_delta, d[1:3] AS head
  FROM (SELECT cf_mark_all_base(NULL, NULL::bigint[], a) AS b, cf_mark_all_delta(NULL, NULL::bigint[], a) AS d
          FROM (SELECT array_agg(7::bigint) AS a FROM generate_series(1, 40)) x) y;
-- only the marks after the separator count towards the fold limit
SELECT cf_mark_delta(cf_add_all(NULL, ARRAY[7, 7]::bigint[]), ARRAY[NULL, 7, 7]::bigint[], 8::bigint) AS delta,
       cf_seen(cf_add_all(NULL, ARRAY[7, 7]::bigint[]), ARRAY[NULL, 7]::bigint[], 7::bigint) AS seen;
-- unsee takes the item out of delta wherever it is; a delta with no item left is NULL
SELECT cf_unsee_delta(NULL, ARRAY[8, NULL, 7]::bigint[], 7::bigint) AS delta,
       cf_unsee_delta(NULL, ARRAY[NULL, 7]::bigint[], 7::bigint) IS NULL AS delta_null;

-- a base of another kind of value is refused, as cf_add refuses it
SELECT cf_seen(cf_add(NULL, 'x'::text), NULL::bigint[], 1::bigint);
SELECT cf_mark_base(cf_add(NULL, 'x'::text), ARRAY(SELECT generate_series(1, 40::bigint)), 1::bigint);
-- text items (an unknown literal takes delta's type)
SELECT cf_unseen(cf_mark_all_base(NULL, NULL::text[], ARRAY(SELECT 'item' || i FROM generate_series(1, 40) i)),
                 NULL, ARRAY['item1', 'item41', 'item40']);

-- in PL/pgSQL, both columns from the old values in one statement
CREATE FUNCTION seen_loop(n int) RETURNS TABLE (items bigint, in_delta int, lost bigint) LANGUAGE plpgsql AS $$
DECLARE
	b cuckoofilter;
	d bigint[];
BEGIN
	FOR i IN 1..n LOOP
		SELECT cf_mark_base(b, d, i::bigint), cf_mark_delta(b, d, i::bigint) INTO b, d;
	END LOOP;
	b := cf_mark_base(b, d, NULL::bigint);
	RETURN QUERY SELECT cf_items(b), cardinality(d),
		(SELECT count(*) FROM generate_series(1, n) g WHERE NOT cf_seen(b, d, g::bigint));
END $$;
SELECT * FROM seen_loop(1000);
-- leave nothing behind for the files after this one
DROP TABLE seen;
DROP FUNCTION seen_loop(int);
