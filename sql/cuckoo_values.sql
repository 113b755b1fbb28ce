-- cuckoo_values: the SQL surface of issue #20 - NULL-safe updates, the
-- union's rate warning, filters as values (=, order, hashing, ||, bytea
-- casts, white space in text, cf_describe), the join estimate of @>, and
-- nondeterministic collations inside composites, ranges and arrays.

-- runs a statement; its error as SQLSTATE, message, detail and hint
CREATE FUNCTION vl_try(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE st text; msg text; det text; hint text;
BEGIN
	EXECUTE q;
	RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT,
		det = PG_EXCEPTION_DETAIL, hint = PG_EXCEPTION_HINT;
	RETURN concat_ws(' | ', st, msg, nullif(det, ''), nullif(hint, ''));
END $$;

-- ---------------------------------------------------------------------
-- NULL-safe updates
-- ---------------------------------------------------------------------

-- cf_delete(f, NULL) is f (it was NULL: a NULL parameter wiped the filter);
-- cf_delete(NULL, v) stays NULL
SELECT cf_delete(f, NULL::int) = f AS del_null_int,
       cf_delete(t, NULL::text) = t AS del_null_text,
       cf_delete(t, NULL) = t AS del_null_unknown,
       cf_delete(NULL, 1) IS NULL AS del_null_filter,
       cf_delete(NULL, 'x') IS NULL AS del_null_filter_text,
       cf_delete(NULL, NULL::int) IS NULL AS del_null_null
  FROM (SELECT cf_add(cf_create(100), 1) AS f, cf_add(cf_create(100), 'x') AS t) s;
-- the UPDATE of issue #20: a NULL parameter keeps the user's history
CREATE TABLE vl_seen (user_id int, items cuckoofilter);
INSERT INTO vl_seen VALUES (1, cf_add_all(cf_create(100), ARRAY[10, 20, 30])),
                           (2, cf_add(cf_create(100), 'a'));
PREPARE vl_del_int(int, int) AS UPDATE vl_seen SET items = cf_delete(items, $2) WHERE user_id = $1;
PREPARE vl_del_text(int, text) AS UPDATE vl_seen SET items = cf_delete(items, $2) WHERE user_id = $1;
EXECUTE vl_del_int(1, NULL);
EXECUTE vl_del_text(2, NULL);
SELECT user_id, items IS NOT NULL AS kept, (cf_info(items)).items FROM vl_seen ORDER BY user_id;
EXECUTE vl_del_int(1, 20);
EXECUTE vl_del_text(2, 'a');
SELECT user_id, (cf_info(items)).items FROM vl_seen ORDER BY user_id;
SELECT items @> 10 AS has_10, items @> 20 AS has_20 FROM vl_seen WHERE user_id = 1;
DEALLOCATE vl_del_int;
DEALLOCATE vl_del_text;
-- a NULL value in a PL/pgSQL loop (the expanded-object path) changes nothing
DO $$
DECLARE f cuckoofilter := cf_add(cf_create(10), 5);
BEGIN
	f := cf_delete(f, NULL::int);
	f := cf_delete(f, NULL::text);
	RAISE NOTICE 'still there: %, items %', f @> 5, (cf_info(f)).items;
END $$;
-- cf_union(a, NULL) is a, cf_union(NULL, b) is b, both NULL NULL; || the same
SELECT cf_union(a, NULL) = a AS union_a_null,
       cf_union(NULL, b) = b AS union_null_b,
       cf_union(NULL, NULL) IS NULL AS union_null_null,
       (a || NULL) = a AS op_a_null,
       (NULL || b) = b AS op_null_b,
       (NULL::cuckoofilter || NULL::cuckoofilter) IS NULL AS op_null_null
  FROM (SELECT cf_add(cf_create(10), 'a') AS a, cf_add(cf_create(10), 'b') AS b) s;
-- strictness in the catalog
SELECT p.oid::regprocedure AS function, p.proisstrict
  FROM pg_proc p
 WHERE p.proname IN ('cf_delete', 'cf_union') ORDER BY p.oid::regprocedure::text COLLATE "C";

-- ---------------------------------------------------------------------
-- union: a NOTICE when the result's expected rate is over twice its target
-- ---------------------------------------------------------------------

-- filters of capacity 1000 with 1000 distinct values each
CREATE TABLE vl_parts AS
	SELECT p, cf_add_all(cf_create(1000), array_agg(p * 1000 + g)) AS f
	  FROM generate_series(1, 40) p, generate_series(1, 1000) g GROUP BY p;
-- parts of one capacity are split tables of one family: a union folds them
-- into one table, whose entries keep the precision their parts wrote them
-- with (about 0.19% of false positives for each full part here)
-- two full ones: quiet; || is cf_union
SELECT (cf_info(a.f || b.f)).subfilters
  FROM vl_parts a, vl_parts b WHERE a.p = 1 AND b.p = 2;
-- four: still one table, quiet
SELECT (cf_info(cf_union(cf_union(a.f, b.f), cf_union(c.f, d.f)))).subfilters
  FROM vl_parts a, vl_parts b, vl_parts c, vl_parts d
 WHERE a.p = 1 AND b.p = 2 AND c.p = 3 AND d.p = 4;
-- sixteen: over twice the target: NOTICE, with what to do instead, said
-- once per call site and query, not once per row
SELECT count(*) AS over_target
  FROM vl_parts a, vl_parts b
 WHERE a.p <= 4 AND b.p <= 4 AND a.p <> b.p
   AND (cf_info(cf_union(cf_union(a.f, b.f), (SELECT cf_union_agg(f) FROM vl_parts WHERE p > 26)))).fpr > 0.02;
-- half-full parts of one capacity fold into one table: quiet
SELECT (cf_info(cf_union(cf_add_all(cf_create(2000), ARRAY(SELECT generate_series(1, 900))),
                         cf_add_all(cf_create(2000), ARRAY(SELECT generate_series(901, 1800)))))).subfilters;
-- cf_union_agg says it once per result, when the rate goes over
SELECT (cf_info(cf_union_agg(f ORDER BY p))).subfilters FROM vl_parts WHERE p <= 8;
SELECT (cf_info(cf_union_agg(f ORDER BY p))).subfilters FROM vl_parts WHERE p <= 16;
-- forty, in one table (chains of tables stop at 32 sub-filters instead:
-- cuckoo_lifecycle)
SELECT vl_try('SELECT cf_union_agg(f ORDER BY p) FROM vl_parts');
SELECT vl_try($q$SELECT cf_union(cf_union_agg(f ORDER BY p), (SELECT f FROM vl_parts WHERE p = 40))
                 FROM vl_parts WHERE p <= 32$q$);
-- the rate check's target is the rate asked for (a version-1 filter's:
-- its design rate, 2 x bucket size / 2^fpbits)
SELECT target_fpr FROM cf_info(cf_create(1000));
SELECT target_fpr FROM cf_info('\xcf0100040a010200f40100000100000001000000000000000a0000000000000000'::bytea::cuckoofilter);

-- ---------------------------------------------------------------------
-- equality and order of the stored bytes
-- ---------------------------------------------------------------------

CREATE TABLE vl_f (id int, f cuckoofilter);
INSERT INTO vl_f VALUES
	(1, cf_create(100)),
	(2, cf_add(cf_create(100), 'a')),
	(3, cf_add(cf_create(100), 'a')),
	(4, cf_add(cf_add(cf_create(100), 'a'), 'b')),
	(5, cf_create(1000)),
	(6, cf_create(100, 0.001)),
	(7, NULL);
-- same values added alike: equal; anything else: not
SELECT a.id, b.id, a.f = b.f AS eq, a.f <> b.f AS ne
  FROM vl_f a, vl_f b WHERE a.id < b.id AND a.id <= 3 AND b.id <= 4 ORDER BY 1, 2;
-- NULLs compare as NULL
SELECT (f = NULL) IS NULL AS eq_null, (f < NULL) IS NULL AS lt_null,
       cuckoofilter_cmp(f, NULL) IS NULL AS cmp_null
  FROM vl_f WHERE id = 1;
-- equal sets built differently are (usually) different values
SELECT cf_add(cf_add(cf_create(1), 'a'), 'b') = cf_add(cf_add(cf_create(1), 'b'), 'a') AS other_order,
       cf_agg(x) = cf_add_all(cf_create(100), ARRAY['a', 'b']) AS other_capacity,
       cf_agg(x, 0.01, 2) = (SELECT cf_agg(y, 0.01, 2) FROM (VALUES ('b'), ('a')) w(y)) AS built_alike
  FROM (VALUES ('a'), ('b')) v(x);
-- the order is the order of the bytes as bytea (memcmp, then the shorter
-- first), a total order consistent with cmp
SELECT bool_and((a.f < b.f) = (a.f::bytea < b.f::bytea)) AS lt_like_bytea,
       bool_and((a.f <= b.f) = (a.f::bytea <= b.f::bytea)) AS le_like_bytea,
       bool_and((a.f > b.f) = (a.f::bytea > b.f::bytea)) AS gt_like_bytea,
       bool_and((a.f >= b.f) = (a.f::bytea >= b.f::bytea)) AS ge_like_bytea,
       bool_and(sign(cuckoofilter_cmp(a.f, b.f)) = CASE WHEN a.f::bytea < b.f::bytea THEN -1
                                                         WHEN a.f::bytea > b.f::bytea THEN 1 ELSE 0 END) AS cmp_like_bytea,
       bool_and((a.f = b.f) = (a.f::bytea = b.f::bytea)) AS eq_like_bytea
  FROM vl_f a, vl_f b WHERE a.f IS NOT NULL AND b.f IS NOT NULL;
SELECT array_agg(id ORDER BY f, id) AS sorted FROM vl_f;
SELECT array_agg(id ORDER BY f DESC, id) AS sorted_desc FROM vl_f;
-- a prefix sorts first: the empty 2-bucket filter against itself plus a byte
SELECT cf_create(1)::bytea < (cf_create(1)::bytea || '\x00'::bytea) AS prefix_first;

-- DISTINCT, GROUP BY and UNION, by hashing and by sorting
SELECT count(DISTINCT f) AS distinct_filters FROM vl_f;
SET enable_hashagg = off;
SELECT id_list FROM (SELECT array_agg(id ORDER BY id) AS id_list FROM vl_f GROUP BY f) s ORDER BY id_list;
SELECT count(*) AS union_rows FROM (SELECT f FROM vl_f UNION SELECT f FROM vl_f) u;
RESET enable_hashagg;
SET enable_sort = off;
EXPLAIN (COSTS OFF) SELECT f, count(*) FROM vl_f GROUP BY f;
SELECT id_list FROM (SELECT array_agg(id ORDER BY id) AS id_list FROM vl_f GROUP BY f) s ORDER BY id_list;
SELECT count(*) AS union_rows FROM (SELECT f FROM vl_f UNION SELECT f FROM vl_f) u;
SELECT count(*) AS distinct_rows FROM (SELECT DISTINCT f FROM vl_f) d;
RESET enable_sort;

-- hash join and merge join on filter = filter
SET enable_nestloop = off;
SET enable_mergejoin = off;
EXPLAIN (COSTS OFF) SELECT a.id, b.id FROM vl_f a JOIN vl_f b ON a.f = b.f;
SELECT a.id, b.id FROM vl_f a JOIN vl_f b ON a.f = b.f ORDER BY 1, 2;
RESET enable_mergejoin;
SET enable_hashjoin = off;
EXPLAIN (COSTS OFF) SELECT a.id, b.id FROM vl_f a JOIN vl_f b ON a.f = b.f;
SELECT a.id, b.id FROM vl_f a JOIN vl_f b ON a.f = b.f ORDER BY 1, 2;
RESET enable_hashjoin;
RESET enable_nestloop;

-- IS DISTINCT FROM, rows containing filters, and NOT IN
SELECT a.f IS DISTINCT FROM b.f AS distinct_2_3, a.f IS DISTINCT FROM NULL AS distinct_from_null,
       NULL::cuckoofilter IS NOT DISTINCT FROM NULL AS null_not_distinct,
       ROW(1, a.f) = ROW(1, b.f) AS row_eq,
       (a.f, 1) IS NOT DISTINCT FROM (b.f, 1) AS row_not_distinct,
       a.f NOT IN (SELECT f FROM vl_f WHERE id IN (1, 4)) AS not_in
  FROM (SELECT * FROM vl_f WHERE id = 2) a, (SELECT * FROM vl_f WHERE id = 3) b;

-- a trigger that fires only when a row really changes
CREATE TABLE vl_log (id int, note text);
CREATE FUNCTION vl_log_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO vl_log VALUES (NEW.id, 'changed');
	RETURN NEW;
END $$;
CREATE TABLE vl_t AS SELECT * FROM vl_f;
CREATE TRIGGER vl_changed AFTER UPDATE ON vl_t FOR EACH ROW
	WHEN (OLD.* IS DISTINCT FROM NEW.*) EXECUTE FUNCTION vl_log_change();
UPDATE vl_t SET f = f;                                   -- nothing changes
UPDATE vl_t SET f = cf_add_unique(f, 'a') WHERE id <= 4; -- only 1 changes
UPDATE vl_t SET f = cf_delete(f, NULL) WHERE id = 4;     -- nothing changes
UPDATE vl_t SET f = cf_add(NULL, 1) WHERE id = 7;        -- NULL to a filter
SELECT * FROM vl_log ORDER BY id;
DROP TABLE vl_t;

-- indexes: btree and hash (a unique one refuses a second equal filter)
SET enable_seqscan = off;
CREATE INDEX vl_f_btree ON vl_f (f);
EXPLAIN (COSTS OFF) SELECT id FROM vl_f WHERE f = (SELECT cf_create(1000));
SELECT id FROM vl_f WHERE f = (SELECT cf_create(1000));
SELECT array_agg(id) AS below_empty_1000 FROM vl_f WHERE f < (SELECT cf_create(1000));
DROP INDEX vl_f_btree;
CREATE INDEX vl_f_hash ON vl_f USING hash (f);
EXPLAIN (COSTS OFF) SELECT id FROM vl_f WHERE f = (SELECT cf_create(1000));
SELECT id FROM vl_f WHERE f = (SELECT cf_create(1000));
DROP INDEX vl_f_hash;
RESET enable_seqscan;
CREATE UNIQUE INDEX vl_f_unique ON vl_f (f) WHERE id <> 3;
SELECT split_part(e, ' | ', 1) AS sqlstate, split_part(e, ' | ', 2) AS unique_refuses
  FROM vl_try('INSERT INTO vl_f VALUES (9, cf_create(1000))') e;
DROP INDEX vl_f_unique;
INSERT INTO vl_f VALUES (9, cf_create(1000));

-- a btree index entry holds about 2.7 kB, a hash index entry any filter
CREATE TABLE vl_wide (f cuckoofilter);
INSERT INTO vl_wide VALUES (cf_create(10000, expansion => 0));
SELECT vl_try('CREATE INDEX vl_wide_btree ON vl_wide (f)') AS btree_too_wide;
CREATE INDEX vl_wide_hash ON vl_wide USING hash (f);
SET enable_seqscan = off;
SELECT count(*) AS found_by_hash FROM vl_wide WHERE f = (SELECT cf_create(10000, expansion => 0));
RESET enable_seqscan;
DROP TABLE vl_wide;

-- REPLICA IDENTITY FULL: the publisher logs the whole old row; a
-- subscriber finds it again by each column's default equality, which is
-- what whole-row = (record_eq) uses too
ALTER TABLE vl_f REPLICA IDENTITY FULL;
SET client_min_messages = error;	-- no warning about wal_level
CREATE PUBLICATION vl_pub FOR TABLE vl_f;
RESET client_min_messages;
UPDATE vl_f SET f = cf_add(f, 'z') WHERE id = 5;
DELETE FROM vl_f WHERE id = 9;
SELECT count(*) AS rows_equal_to_themselves FROM vl_f a JOIN vl_f b ON a = b;
SELECT typ.typname, (SELECT opcname FROM pg_opclass c JOIN pg_am am ON am.oid = c.opcmethod
                      WHERE c.opcintype = typ.oid AND c.opcdefault AND am.amname = 'btree') AS btree_default,
       (SELECT opcname FROM pg_opclass c JOIN pg_am am ON am.oid = c.opcmethod
         WHERE c.opcintype = typ.oid AND c.opcdefault AND am.amname = 'hash') AS hash_default
  FROM pg_type typ WHERE typ.typname = 'cuckoofilter';
DROP PUBLICATION vl_pub;

-- hashing: equal bytes hash alike (also expanded values and toasted ones)
SELECT cuckoofilter_hash(a) = cuckoofilter_hash(b) AS hash_eq,
       cuckoofilter_hash_extended(a, 7) = cuckoofilter_hash_extended(b, 7) AS hash_ext_eq,
       cuckoofilter_hash_extended(a, 0) <> cuckoofilter_hash_extended(a, 7) AS seed_matters,
       cuckoofilter_hash(NULL) IS NULL AS hash_null
  FROM (SELECT cf_add(cf_create(10), 1) AS a, cf_add(cf_create(10), 1) AS b) s;
CREATE TABLE vl_big (f cuckoofilter);
INSERT INTO vl_big SELECT cf_add_all(cf_create(100000), ARRAY(SELECT generate_series(1, 50)));
DO $$
DECLARE f cuckoofilter := cf_create(100000);
	big cuckoofilter;
BEGIN
	FOR i IN 1..50 LOOP f := cf_add(f, i); END LOOP;   -- an expanded object
	SELECT v.f INTO big FROM vl_big v;
	RAISE NOTICE 'expanded = stored: %, hashes equal: %',
		f = big, cuckoofilter_hash(f) = cuckoofilter_hash(big);
END $$;
SELECT count(*) FROM vl_big a JOIN vl_big b ON a.f = b.f;
DROP TABLE vl_big;

-- ---------------------------------------------------------------------
-- || and the bytea casts
-- ---------------------------------------------------------------------

SELECT (a || b) @> 'a' AS has_a, (a || b) @> 'b' AS has_b, (a || b) = cf_union(a, b) AS is_union
  FROM (SELECT cf_add(cf_create(10), 'a') AS a, cf_add(cf_create(10), 'b') AS b) s;
SELECT vl_try('SELECT cf_create(10) || cf_create(10, 0.0001)');
-- || is the union, so a text label must be concatenated with the text form
SELECT vl_try($$SELECT 'label: ' || cf_create(1)$$) AS label_is_not_a_filter;
SELECT 'label: ' || cf_create(1)::text AS label_with_text;

-- to bytea: the bytes; from bytea: the bytes, validated like binary input
SELECT f::bytea = cuckoofilter_send(f) AS to_bytea_is_send,
       f::bytea::cuckoofilter = f AS round_trip,
       cuckoofilter(f::bytea) = f AS function_form,
       octet_length(f::bytea) + 4 = (cf_info(f)).bytes AS length
  FROM (SELECT cf_add(cf_create(100), 42) AS f) s;
SELECT NULL::cuckoofilter::bytea IS NULL AS null_to_bytea,
       NULL::bytea::cuckoofilter IS NULL AS null_from_bytea;
SELECT vl_try($$SELECT ''::bytea::cuckoofilter$$) AS empty;
SELECT vl_try($$SELECT '\xcf'::bytea::cuckoofilter$$) AS one_byte;
SELECT vl_try($$SELECT set_byte(cf_create(1)::bytea, 0, 0)::cuckoofilter$$) AS bad_magic;
SELECT vl_try($$SELECT (cf_create(1)::bytea || '\x00'::bytea)::cuckoofilter$$) AS extra_byte;
-- the bytes of cf_create(1) and cf_create(1, bucket_size => 2) as 1.0 wrote
-- them (format version 1, read forever), with a table corrupted
SELECT vl_try($$SELECT '\xcf0100040a010200f40100000100000001000000000000000a0000000000000000'::bytea::cuckoofilter$$) AS v1_ok;
SELECT vl_try($$SELECT set_byte('\xcf0100040a010200f40100000100000001000000000000000a0000000000000000'::bytea,
                                28, 1)::cuckoofilter$$) AS slot_without_count;
SELECT vl_try($$SELECT set_byte('\xcf01000209010200f401000001000000010000000000000009000000000000'::bytea,
                                30, 240)::cuckoofilter$$) AS unused_bits;
SELECT vl_try($$SELECT set_byte(cf_create(1)::bytea, 1, 3)::cuckoofilter$$) AS version_3;
SELECT vl_try($$SELECT substring(cf_create(1)::bytea FROM 1 FOR octet_length(cf_create(1)::bytea) - 1)::cuckoofilter$$) AS truncated;
-- an expanded value (a PL/pgSQL variable) casts to its flat bytes
DO $$
DECLARE f cuckoofilter := cf_create(100);
BEGIN
	FOR i IN 1..10 LOOP f := cf_add(f, i); END LOOP;
	RAISE NOTICE 'expanded to bytea and back: %, contains 7: %',
		f::bytea::cuckoofilter = f, f::bytea::cuckoofilter @> 7;
END $$;
-- the cast is explicit only
SELECT vl_try('INSERT INTO vl_f (f) SELECT cf_create(1)::bytea') AS no_assignment_cast;

-- ---------------------------------------------------------------------
-- text input ignores white space; output stays on one line
-- ---------------------------------------------------------------------

-- encode(..., 'base64') wraps at 76 characters, as base64 tools do
SELECT position(E'\n' IN encode(cf_create(100)::bytea, 'base64')) > 0 AS wrapped,
       encode(cf_create(100)::bytea, 'base64')::cuckoofilter = cf_create(100) AS wrapped_reads,
       (encode(cf_create(100)::bytea, 'base64') || E'\n')::cuckoofilter = cf_create(100) AS final_newline,
       replace(encode(cf_create(100)::bytea, 'base64'), E'\n', E'\r\n')::cuckoofilter = cf_create(100) AS crlf,
       (E' \t' || regexp_replace(cf_create(1)::text, '(....)', E'\\1 \t', 'g'))::cuckoofilter = cf_create(1) AS spaces_and_tabs,
       position(E'\n' IN cf_create(100)::text) = 0 AS output_one_line,
       cf_create(100)::text = replace(encode(cf_create(100)::bytea, 'base64'), E'\n', '') AS output_unwrapped;
-- errors still name the position of a bad character in the text as given
SELECT vl_try($$SELECT E' zwEA$AoBAgD0AQAAAQAAAAEAAAAAAAAACgAAAAAAAAAA\n'::cuckoofilter$$) AS bad_char;
SELECT vl_try($$SELECT E'zw\n==BAoBAgD0AQAAAQAAAAEAAAAAAAAACgAAAAAAAAAA'::cuckoofilter$$) AS padding_in_middle;
SELECT vl_try($$SELECT E'zwEA AoBA gD0A QAAA QAAA AEAA AAAA AAAA CgAA AAAA AAAA A===\n'::cuckoofilter$$) AS three_padding;
SELECT vl_try($$SELECT E'zwEA AoBA gD0A QAAA QAAA AEAA AAAA AAAA CgAA AAAA AAAA\fAAAA'::cuckoofilter$$) AS form_feed;
SELECT vl_try($$SELECT E' \n\t\r'::cuckoofilter$$) AS only_white_space;
SELECT vl_try($$SELECT E'zwE A'::cuckoofilter$$) AS four_without_the_space;

-- ---------------------------------------------------------------------
-- cf_describe
-- ---------------------------------------------------------------------

SELECT cf_describe(cf_create(10000));
SELECT cf_describe(cf_add(cf_create(10), 'x'));
SELECT cf_describe(cf_add_all(cf_create(10000), ARRAY(SELECT generate_series(1, 1234))));
SELECT cf_describe(cf_create(1000000, 0.0001));
SELECT cf_describe(f) FROM vl_parts WHERE p = 1;
SELECT cf_describe(cf_union(cf_union(a.f, b.f), cf_union(c.f, d.f)))
  FROM vl_parts a, vl_parts b, vl_parts c, vl_parts d
 WHERE a.p = 1 AND b.p = 2 AND c.p = 3 AND d.p = 4;
SELECT cf_describe(cf_agg(g)) FROM generate_series(1, 100000) g;
SELECT cf_describe(NULL) IS NULL AS describe_null;
SELECT p.provolatile, p.proisstrict, p.proparallel FROM pg_proc p WHERE p.proname = 'cf_describe';

-- ---------------------------------------------------------------------
-- join estimate of filters.f @> t.key
-- ---------------------------------------------------------------------

-- 10,000 keys; 100 filters of 100 keys each (a key is in 1 filter of 100)
CREATE TABLE vl_keys AS SELECT g AS key FROM generate_series(1, 10000) g;
CREATE TABLE vl_lists AS
	SELECT l, cf_agg(l * 100 + g) AS f FROM generate_series(0, 99) l, generate_series(1, 100) g GROUP BY l;
ANALYZE vl_keys;
-- the row estimate of a query's top join node
CREATE FUNCTION vl_est(q text) RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE j json;
BEGIN
	EXECUTE 'EXPLAIN (FORMAT JSON) ' || q INTO j;
	RETURN (j->0->'Plan'->>'Plan Rows')::float8;
END $$;
-- the real answer: 10,000 matches and the false positives
SELECT count(*) AS actual FROM vl_keys t JOIN vl_lists w ON w.f @> t.key;
-- without statistics of the filter column: the default, 1 pair in 100
-- (VACUUM counts the rows, only ANALYZE gathers column statistics)
VACUUM vl_lists;
SELECT vl_est('SELECT * FROM vl_keys t JOIN vl_lists w ON w.f @> t.key') AS no_filter_stats;
-- with them: from the filters' mean items (100) and rate, per distinct key
ANALYZE vl_lists;
SELECT round(vl_est('SELECT * FROM vl_keys t JOIN vl_lists w ON w.f @> t.key') / 100) * 100 AS operator_estimate,
       round(vl_est('SELECT * FROM vl_keys t JOIN vl_lists w ON cf_contains(w.f, t.key)') / 100) * 100 AS function_estimate,
       vl_est('SELECT * FROM vl_keys t JOIN vl_lists w ON w.f @> t.key')
         / (SELECT count(*) FROM vl_keys t JOIN vl_lists w ON w.f @> t.key) BETWEEN 0.95 AND 1.05 AS within_5_percent;
EXPLAIN (COSTS OFF) SELECT * FROM vl_keys t JOIN vl_lists w ON w.f @> t.key;
-- EXISTS and NOT EXISTS (semi and anti joins): the fraction of outer rows
-- with a match, 1 - (1 - sel)^inner rows (it was sel: 1.7% here).  Every
-- key is in a list; lists with a key below 500: 5 hold one, and among 499
-- keys at a rate near 0.7% nearly all others have a false positive
SELECT count(*) AS keys_in_a_list FROM vl_keys t WHERE EXISTS (SELECT 1 FROM vl_lists w WHERE w.f @> t.key);
SELECT round(vl_est('SELECT * FROM vl_keys t WHERE EXISTS (SELECT 1 FROM vl_lists w WHERE w.f @> t.key)') / 100) * 100 AS estimate,
       vl_est('SELECT * FROM vl_keys t WHERE NOT EXISTS (SELECT 1 FROM vl_lists w WHERE w.f @> t.key)') < 2000 AS keys_in_no_list_few;
SELECT count(*) AS lists_with_small_key
  FROM vl_lists w WHERE EXISTS (SELECT 1 FROM vl_keys t WHERE t.key < 500 AND w.f @> t.key);
SELECT vl_est('SELECT * FROM vl_lists w WHERE EXISTS (SELECT 1 FROM vl_keys t WHERE t.key < 500 AND w.f @> t.key)') AS estimate;
-- the statistics ANALYZE stores: the standard ones and the mean items and rate
SELECT s.stakind1, s.stakind2, s.stakind3, s.stakind4,
       round(v.n[1]) AS mean_items, v.n[2] BETWEEN 0.001 AND 0.01 AS mean_fpr_sane
  FROM pg_statistic s JOIN pg_class c ON c.oid = s.starelid,
       LATERAL (VALUES (s.stakind1, s.stanumbers1), (s.stakind2, s.stanumbers2), (s.stakind3, s.stanumbers3),
                       (s.stakind4, s.stanumbers4), (s.stakind5, s.stanumbers5)) v(k, n)
 WHERE c.relname = 'vl_lists' AND s.staattnum = 2 AND v.k = 21731;
-- NULL filters never pass; keys outside every filter only as false positives
UPDATE vl_lists SET f = NULL WHERE l >= 50;
ANALYZE vl_lists;
SELECT count(*) AS actual_half FROM vl_keys t JOIN vl_lists w ON w.f @> t.key;
SELECT round(vl_est('SELECT * FROM vl_keys t JOIN vl_lists w ON w.f @> t.key') / 100) * 100 AS estimate_half;
-- a key column without statistics: the default, times the filters' non-NULL fraction
CREATE TABLE vl_keys_nostats AS SELECT key FROM vl_keys;
VACUUM vl_keys_nostats;
SELECT vl_est('SELECT * FROM vl_keys_nostats t JOIN vl_lists w ON w.f @> t.key') AS no_key_stats;
SELECT p.oprname, p.oprjoin FROM pg_operator p
 WHERE p.oprname = '@>' AND p.oprleft = 'cuckoofilter'::regtype ORDER BY p.oprright::regtype::text;
DROP FUNCTION vl_est(text);
DROP TABLE vl_keys, vl_lists, vl_keys_nostats;

-- ---------------------------------------------------------------------
-- nondeterministic collations inside composites, ranges and arrays
-- ---------------------------------------------------------------------

CREATE COLLATION vl_ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
CREATE TYPE vl_row_ci AS (s text COLLATE vl_ci, n int);
CREATE TYPE vl_row_c AS (s text COLLATE "C", n int);
CREATE TYPE vl_range_ci AS RANGE (subtype = text, collation = vl_ci);
CREATE TYPE vl_range_c AS RANGE (subtype = text, collation = "C");
CREATE DOMAIN vl_text_ci AS text COLLATE vl_ci;
CREATE TYPE vl_row_dom AS (s vl_text_ci);
CREATE TYPE vl_row_arr AS (a text[] COLLATE vl_ci);
CREATE DOMAIN vl_row_ci_dom AS vl_row_ci;
CREATE DOMAIN vl_range_ci_dom AS vl_range_ci;
-- equality says these are equal, so a filter must not say absent
SELECT ROW('A', 1)::vl_row_ci = ROW('a', 1)::vl_row_ci AS composite_equal,
       vl_range_ci('A', 'C') = vl_range_ci('a', 'c') AS range_equal,
       ROW('A')::vl_row_dom = ROW('a')::vl_row_dom AS domain_column_equal,
       ROW(ARRAY['A'])::vl_row_arr = ROW(ARRAY['a'])::vl_row_arr AS array_column_equal,
       ROW('A' COLLATE vl_ci, 1) = ROW('a', 1) AS record_equal;
-- every one of them is refused with a clear error
SELECT vl_try($$SELECT cf_contains(cf_add(NULL, ROW('A', 1)::vl_row_ci), ROW('a', 1)::vl_row_ci)$$) AS composite;
SELECT vl_try($$SELECT cf_add(NULL, ROW('A' COLLATE vl_ci, 1))$$) AS record;
SELECT vl_try($$SELECT cf_add(NULL, vl_range_ci('A', 'C'))$$) AS range;
SELECT vl_try($$SELECT cf_add(NULL, vl_multirange_ci(vl_range_ci('A', 'C')))$$) AS multirange;
SELECT vl_try($$SELECT cf_add(NULL, ARRAY['A', 'B'] COLLATE vl_ci)$$) AS array_expr;
SELECT vl_try($$SELECT cf_add(NULL, ROW(ARRAY['A'])::vl_row_arr)$$) AS array_column;
SELECT vl_try($$SELECT cf_add(NULL, 'A'::vl_text_ci)$$) AS domain;
SELECT vl_try($$SELECT cf_add(NULL, ROW('A')::vl_row_dom)$$) AS domain_column;
SELECT vl_try($$SELECT cf_add(NULL, ROW('A', 1)::vl_row_ci_dom)$$) AS domain_over_composite;
SELECT vl_try($$SELECT cf_add(NULL, vl_range_ci('A', 'C')::vl_range_ci_dom)$$) AS domain_over_range;
SELECT vl_try($$SELECT cf_add(NULL, ARRAY[ROW('A', 1)::vl_row_ci])$$) AS array_of_composite;
SELECT vl_try($$SELECT cf_add(NULL, ROW(ROW('A', 1)::vl_row_ci, 2))$$) AS nested_composite;
SELECT vl_try($$SELECT cf_agg(r) FROM (VALUES (ROW('A', 1)::vl_row_ci)) v(r)$$) AS cf_agg_composite;
SELECT vl_try($$SELECT cf_add_all(NULL, ARRAY[vl_range_ci('A', 'C')])$$) AS cf_add_all_range;
SELECT vl_try($$SELECT cf_hash(ROW('A', 1)::vl_row_ci)$$) AS cf_hash_composite;
-- deterministic collations are fine, and NULL columns are no problem
SELECT cf_contains(cf_add(NULL, ROW('A', 1)::vl_row_c), ROW('A', 1)::vl_row_c) AS c_composite,
       cf_contains(cf_add(NULL, ROW('A', 1)::vl_row_c), ROW('a', 1)::vl_row_c) AS c_other_case,
       cf_contains(cf_add(NULL, ARRAY['A'] COLLATE "C"), ARRAY['A']) AS c_array,
       cf_contains(cf_add(NULL, vl_range_c('a', 'c')), vl_range_c('a', 'c')) AS c_range,
       cf_contains(cf_add(NULL, ROW(NULL, 1)::vl_row_c), ROW(NULL, 1)::vl_row_c) AS null_column;
DROP DOMAIN vl_row_ci_dom, vl_range_ci_dom;
DROP TYPE vl_row_arr, vl_row_dom, vl_range_ci, vl_range_c, vl_row_c, vl_row_ci;
DROP DOMAIN vl_text_ci;
DROP COLLATION vl_ci;

-- ---------------------------------------------------------------------
-- every new function is documented
-- ---------------------------------------------------------------------

SELECT p.oid::regprocedure AS function
  FROM pg_proc p JOIN pg_depend d ON d.objid = p.oid AND d.classid = 'pg_proc'::regclass
       JOIN pg_extension e ON e.oid = d.refobjid
 WHERE e.extname = 'cuckoo' AND obj_description(p.oid, 'pg_proc') IS NULL;
SELECT o.oid::regoperator AS operator
  FROM pg_operator o JOIN pg_depend d ON d.objid = o.oid AND d.classid = 'pg_operator'::regclass
       JOIN pg_extension e ON e.oid = d.refobjid
 WHERE e.extname = 'cuckoo' AND obj_description(o.oid, 'pg_operator') IS NULL;

DROP TABLE vl_seen, vl_parts, vl_f, vl_log;
DROP FUNCTION vl_log_change();
DROP FUNCTION vl_try(text);

-- ---------------------------------------------------------------------
-- issue 33: no size cliff when a list becomes a table
-- ---------------------------------------------------------------------

-- cf_create(1000000) starts as a list; at its bound (256 hashes) it becomes
-- a split table of 1/2^7 of its capacity's buckets (at 1%, an entry has 7
-- bits to spend on doublings), which doubles 7 times up to the capacity:
-- 13 kB, not the 1.7 MB table of its whole capacity
SELECT n, pg_column_size(f) AS bytes, (cf_info(f)).buckets,
       cf_contains_all(f, ARRAY(SELECT generate_series(1, n))) AS all_found
FROM (SELECT n, cf_add_all(cf_create(1000000), ARRAY(SELECT generate_series(1, n))) AS f
      FROM unnest(ARRAY[1, 255, 256, 257, 1000, 10000, 100000]) n) s
ORDER BY n;
-- the same filter grown by single adds (one UPDATE each): the largest step
-- from one value to the next is the list's conversion, under 16 kB
WITH RECURSIVE g(i, f) AS (
  SELECT 1, cf_add(cf_create(1000000), 1)
  UNION ALL SELECT i + 1, cf_add(f, i + 1) FROM g WHERE i < 1000)
SELECT max(pg_column_size(f)) AS largest, max(step - prev) AS largest_step,
       bool_and(step - prev < 16384) AS no_cliff
FROM (SELECT f, pg_column_size(f) AS step, lag(pg_column_size(f)) OVER (ORDER BY i) AS prev FROM g) s
WHERE prev IS NOT NULL;
-- cf_add(NULL, v) (capacity 1,000): its table is under a full list's
-- 2,048 bytes, so the list becomes cf_create's table, as in 1.2
SELECT n, pg_column_size(f) AS bytes, (cf_info(f)).buckets
FROM (SELECT n, cf_add_all(NULL::cuckoofilter, ARRAY(SELECT generate_series(1, n))) AS f
      FROM unnest(ARRAY[1, 213, 214, 1000]) n) s
ORDER BY n;
