-- cuckoo_answers: answers that misled (issue 33): a list says it is one
-- (cf_info_all, cf_describe); every cf_* function is IMMUTABLE PARALLEL SAFE
-- (cf_debug_state is now cuckoo_debug_state); one SQLSTATE and one message
-- per condition; per-element answers of the batch add and delete; join
-- estimates of filter @> key when an equality also pairs them.

-- ---------------------------------------------------------------------
-- (a) lists: a growing filter starts as its values' exact 64-bit hashes
-- ---------------------------------------------------------------------
-- layout and list_max: a list, the hashes it holds before it becomes a
-- table; a table (after the list's bound, a fixed-size filter, cf_agg)
SELECT n, layout, list_max, items, buckets, load_factor, fpr < 1e-15 AS fpr_about_0
  FROM (VALUES (0), (1), (3), (213), (214)) v(n),
       cf_info_all(cf_add_all(cf_create(1000), ARRAY(SELECT generate_series(1, n))));
SELECT layout, list_max FROM cf_info_all(cf_add(NULL, 1));
SELECT layout, list_max FROM cf_info_all(cf_create(1000, 0.01, 'semisorted'));
SELECT layout, list_max FROM cf_info_all(cf_create(1000, expansion => 0));
SELECT layout, list_max FROM cf_info_all((SELECT cf_agg(g) FROM generate_series(1, 10) g));
-- cf_describe says it too
SELECT cf_describe(cf_add(NULL, 1));
SELECT cf_describe(cf_add_all(cf_create(1000), ARRAY[1, 2, 3]));
SELECT cf_describe(cf_add_all(cf_create(1000, 0.01, 'semisorted'), ARRAY[1, 2, 3]));
SELECT cf_describe(cf_add_all(cf_create(1000), ARRAY(SELECT generate_series(1, 214))));
-- cf_info keeps its 19 columns (views use it); cf_info_all has 21
SELECT p.proname, cardinality(p.proallargtypes) - 1 AS columns
  FROM pg_proc p WHERE p.proname IN ('cf_info', 'cf_info_all') ORDER BY 1;

-- ---------------------------------------------------------------------
-- (b) every cf_* function is IMMUTABLE and PARALLEL SAFE; the extension's
-- other functions are support functions, each for its reason
-- ---------------------------------------------------------------------
CREATE VIEW ans_ext_functions AS
SELECT p.oid::regprocedure AS fn, p.proname, p.provolatile, p.proparallel
  FROM pg_proc p
  JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
  JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'cuckoo';
SELECT count(*) AS cf_functions,
       count(*) FILTER (WHERE provolatile <> 'i' OR proparallel <> 's') AS not_immutable_parallel_safe
  FROM ans_ext_functions WHERE proname LIKE 'cf\_%';
SELECT fn, provolatile, proparallel FROM ans_ext_functions
 WHERE provolatile <> 'i' OR proparallel <> 's' ORDER BY fn::text;
DROP VIEW ans_ext_functions;
SELECT form, newest FROM cuckoo_debug_state(cf_create(10));
SELECT to_regprocedure('cf_debug_state(cuckoofilter)') AS old_name_gone;

-- ---------------------------------------------------------------------
-- (c) one SQLSTATE and one message per condition, whatever the entry point
-- ---------------------------------------------------------------------
CREATE FUNCTION ans_err(q text, OUT state text, OUT message text, OUT detail text) LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE q;
	state := '00000';
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS state = RETURNED_SQLSTATE, message = MESSAGE_TEXT, detail = PG_EXCEPTION_DETAIL;
END $$;
-- a capacity whose filter needs more than 1 GB: 54000 (a limit), everywhere
SELECT q, (ans_err(q)).state, (ans_err(q)).message FROM (VALUES
	('SELECT cf_create(5000000000)'),
	('SELECT cf_create(5000000000, 0.01)'),
	('SELECT cf_create(5000000000, 0.01, ''semisorted'')'),
	('SELECT cf_agg(x, 0.01, 5000000000) FROM generate_series(1, 3) x'),
	('SELECT cf_agg(x, 0.01, 5000000000, ''packed'') FROM generate_series(1, 3) x'),
	('SELECT cf_agg(x::numeric, 0.01, 5000000000) FROM generate_series(1, 3) x')) v(q);
-- a capacity under 1, and other bad parameters: 22023, one message each
SELECT q, (ans_err(q)).state, (ans_err(q)).message FROM (VALUES
	('SELECT cf_create(0)'),
	('SELECT cf_create(0, 0.01, ''semisorted'')'),
	('SELECT cf_agg(x, 0.01, 0) FROM generate_series(1, 3) x'),
	('SELECT cf_agg(x, 0.01, -1, ''packed'') FROM generate_series(1, 3) x'),
	('SELECT cf_agg(x::numeric, 0.01, 0) FROM generate_series(1, 3) x'),
	('SELECT cf_create(100, 0.5)'),
	('SELECT cf_agg(x, 0.5) FROM generate_series(1, 3) x'),
	('SELECT cf_agg(x::numeric, 0.5) FROM generate_series(1, 3) x'),
	('SELECT cf_create(100, 0.01, 3)'),
	('SELECT cf_create(1, 0.01, 3)')) v(q);
-- a value too short for a header: one message whatever version it starts
-- as (none, 1 or 2), in text and binary input
SELECT q, (ans_err(q)).state, (ans_err(q)).detail FROM (VALUES
	('SELECT ''''::bytea::cuckoofilter'),
	('SELECT ''\xcf''::bytea::cuckoofilter'),
	('SELECT ''\xcf01''::bytea::cuckoofilter'),
	('SELECT ''\xcf02''::bytea::cuckoofilter'),
	('SELECT ''zwE=''::cuckoofilter'),
	('SELECT ''zwI=''::cuckoofilter')) v(q);
-- a bad cf_aggstate: worded as PostgreSQL's types, and as the base64 error
SELECT q, (ans_err(q)).state, (ans_err(q)).message FROM (VALUES
	('SELECT ''''::cf_aggstate'),
	('SELECT ''AAAA''::cf_aggstate'),
	('SELECT ''AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA''::cf_aggstate')) v(q);
DROP FUNCTION ans_err(text);

-- ---------------------------------------------------------------------
-- (d) per-element answers of the batch add and delete
-- ---------------------------------------------------------------------
SELECT stored, cf_items(result) FROM cf_add_all_unique_status(NULL, ARRAY[1, 2, 2, NULL, 3]);
SELECT stored, cf_items(result) FROM cf_add_all_unique_status(cf_add(NULL, 2), ARRAY[1, 2]);
SELECT stored FROM cf_add_all_unique_status(NULL, '{{1,2},{3,1}}'::int[]);
SELECT stored, cf_items(result) FROM cf_add_all_unique_status(cf_add(NULL, 1), '{}'::int[]);
SELECT stored IS NULL AS null_array, cf_items(result) FROM cf_add_all_unique_status(cf_add(NULL, 1), NULL::int[]);
SELECT stored IS NULL AS null_array, result IS NULL AS null_filter FROM cf_add_all_unique_status(NULL, NULL::int[]);
SELECT removed, cf_items(result) FROM cf_delete_all_status(cf_add_all(NULL, ARRAY[1, 2, 2]), ARRAY[2, 2, 2, NULL, 5]);
SELECT removed, result IS NULL AS null_filter FROM cf_delete_all_status(NULL, ARRAY[1, NULL]);
SELECT removed IS NULL AS null_array, cf_items(result) FROM cf_delete_all_status(cf_add(NULL, 1), NULL::int[]);
SELECT cf_add_all_unique_status(cf_add(NULL, 1), ARRAY['x']);	-- another kind: an error
-- the same filter, byte for byte, as the batch without answers, and the
-- same answers as the one-value forms applied in order (on a union of
-- parts of different capacities, where deletes of values both parts hold
-- are retained, and on a list)
CREATE FUNCTION ans_fold(f cuckoofilter, vals int[], del boolean, OUT result cuckoofilter, OUT answers boolean[])
LANGUAGE plpgsql AS $$
DECLARE v int; ok boolean;
BEGIN
	result := f; answers := '{}';
	FOREACH v IN ARRAY vals LOOP
		IF del THEN SELECT s.result, s.removed INTO result, ok FROM cf_delete_status(result, v) s;
		ELSE SELECT s.result, s.stored INTO result, ok FROM cf_add_unique_status(result, v) s;
		END IF;
		answers := answers || ok;
	END LOOP;
END $$;
CREATE TABLE ans_f AS
SELECT 'union' AS name, cf_union(cf_add_all(cf_create(5000), ARRAY(SELECT generate_series(1, 5000))),
                                 cf_add_all(cf_create(3000), ARRAY(SELECT generate_series(2001, 5000)))) AS f
UNION ALL SELECT 'list', cf_add_all(cf_create(1000), ARRAY(SELECT generate_series(1, 100)));
SELECT name, del,
       b.result = o.result AS same_filter, b.answers = o.answers AS same_answers,
       b.result = CASE WHEN del THEN cf_delete_all(f, v) ELSE cf_add_all_unique(f, v) END AS same_as_batch,
       (SELECT count(*) FROM unnest(b.answers) a WHERE a) AS true_answers
  FROM ans_f,
       (VALUES (false), (true)) d(del),
       LATERAL (SELECT ARRAY(SELECT generate_series(2990, 3020)) || ARRAY[2995, 2995, 50, 50, 51]) w(v),
       LATERAL (SELECT * FROM ans_fold(f, v, del)) o,
       LATERAL (SELECT * FROM (SELECT r.result, r.stored FROM cf_add_all_unique_status(f, v) r WHERE NOT del
                               UNION ALL
                               SELECT r.result, r.removed FROM cf_delete_all_status(f, v) r WHERE del) x) b(result, answers)
 ORDER BY name, del;
DROP TABLE ans_f;
DROP FUNCTION ans_fold(cuckoofilter, int[], boolean);
-- the safe mark / unsee recipe with batches: an item the filter already
-- reports (a false positive) comes back stored = false, so the unsee deletes
-- only what the mark stored, and none of the 500 earlier items is lost
CREATE TABLE ans_seen AS
SELECT cf_add_all_unique(cf_create(1000), ARRAY(SELECT generate_series(1, 500)::bigint)) AS items;
CREATE TABLE ans_fp AS
SELECT min(g)::bigint AS item FROM ans_seen, generate_series(501, 1000000) g WHERE items @> g::bigint;
CREATE TABLE ans_mark AS
SELECT m.result AS items, ARRAY[i.item, 2000001, 2000002, 2000002] AS batch, m.stored
  FROM ans_seen, ans_fp i, cf_add_all_unique_status(items, ARRAY[i.item, 2000001, 2000002, 2000002]) m;
SELECT stored FROM ans_mark;
SELECT (SELECT count(*) FROM generate_series(1, 500) g WHERE NOT u.result @> g::bigint) AS lost,
       u.removed, cf_items(u.result) AS items_left
  FROM ans_mark m,
       cf_delete_all_status(m.items, ARRAY(SELECT b FROM unnest(m.batch, m.stored) x(b, s) WHERE s)) u;
DROP TABLE ans_seen, ans_fp, ans_mark;

-- ---------------------------------------------------------------------
-- (e) join estimates: per-user filters of the items each user has seen,
-- joined to the events on the user: every event passes
-- ---------------------------------------------------------------------
CREATE TABLE ans_ev AS
SELECT u AS user_id, (u * 7919 + i * 104729) % 100000 AS item_id
  FROM generate_series(1, 200) u, generate_series(1, 50) i;
CREATE TABLE ans_seen AS SELECT user_id, cf_agg(item_id) AS items FROM ans_ev GROUP BY user_id;
ANALYZE ans_ev;		-- 10,000 rows: fully sampled, so the estimates are stable
ANALYZE ans_seen;
CREATE FUNCTION ans_est(q text) RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE j json;
BEGIN
	EXECUTE 'EXPLAIN (FORMAT JSON) ' || q INTO j;
	RETURN (j->0->'Plan'->>'Plan Rows')::float8;
END $$;
-- the join: 1.1 estimated 119 rows for @> (a key passes 50 of 100,000
-- distinct items, as if filters and keys met at random) and 9,881 for
-- NOT @>; the filters' items among the 50 keys each meets give 10,000 and 1
SELECT (SELECT count(*) FROM ans_ev e JOIN ans_seen s USING (user_id) WHERE s.items @> e.item_id) AS actual,
       ans_est('SELECT * FROM ans_ev e JOIN ans_seen s USING (user_id) WHERE s.items @> e.item_id') AS estimate,
       (SELECT count(*) FROM ans_ev e JOIN ans_seen s USING (user_id) WHERE NOT s.items @> e.item_id) AS actual_not,
       ans_est('SELECT * FROM ans_ev e JOIN ans_seen s USING (user_id) WHERE NOT s.items @> e.item_id') AS estimate_not,
       ans_est('SELECT * FROM ans_ev e JOIN ans_seen s USING (user_id) WHERE cf_contains(s.items, e.item_id)') AS function_estimate;
EXPLAIN (COSTS OFF) SELECT * FROM ans_ev e JOIN ans_seen s USING (user_id) WHERE s.items @> e.item_id;
-- one user (the equality through a constant): its 50 events
SELECT ans_est('SELECT * FROM ans_ev e JOIN ans_seen s ON s.user_id = e.user_id AND s.items @> e.item_id WHERE e.user_id = 7') AS one_user;
-- EXISTS: each event meets its user's one filter; each filter its 50 events
SELECT (SELECT count(*) FROM ans_ev e WHERE EXISTS (SELECT FROM ans_seen s WHERE s.user_id = e.user_id AND s.items @> e.item_id)) AS events_actual,
       ans_est('SELECT * FROM ans_ev e WHERE EXISTS (SELECT FROM ans_seen s WHERE s.user_id = e.user_id AND s.items @> e.item_id)') AS events_estimate,
       ans_est('SELECT * FROM ans_seen s WHERE EXISTS (SELECT FROM ans_ev e WHERE s.user_id = e.user_id AND s.items @> e.item_id)') AS users_estimate;
-- half the events new: half pass
CREATE TABLE ans_ev2 AS
SELECT * FROM ans_ev UNION ALL SELECT u, 200000 + u * 100 + i FROM generate_series(1, 200) u, generate_series(1, 50) i;
ANALYZE ans_ev2;
SELECT (SELECT count(*) FROM ans_ev2 e JOIN ans_seen s USING (user_id) WHERE s.items @> e.item_id) AS actual,
       ans_est('SELECT * FROM ans_ev2 e JOIN ans_seen s USING (user_id) WHERE s.items @> e.item_id') AS estimate,
       ans_est('SELECT * FROM ans_ev2 e JOIN ans_seen s USING (user_id) WHERE NOT s.items @> e.item_id') AS estimate_not;
-- two filters per user (each of half the user's items): an event meets
-- both, passes one; the rate is the filter's items among the user's events
CREATE TABLE ans_seen2 AS
SELECT user_id, item_id % 2 AS part, cf_agg(item_id) AS items FROM ans_ev GROUP BY 1, 2;
ANALYZE ans_seen2;
SELECT (SELECT count(*) FROM ans_ev e JOIN ans_seen2 s USING (user_id) WHERE s.items @> e.item_id) AS actual,
       ans_est('SELECT * FROM ans_ev e JOIN ans_seen2 s USING (user_id) WHERE s.items @> e.item_id') AS estimate,
       (SELECT count(*) FROM ans_ev e JOIN ans_seen2 s USING (user_id) WHERE NOT s.items @> e.item_id) AS actual_not,
       ans_est('SELECT * FROM ans_ev e JOIN ans_seen2 s USING (user_id) WHERE NOT s.items @> e.item_id') AS estimate_not;
DROP TABLE ans_seen2;
-- filters and keys joined by @> only (every key probes every filter): as
-- before, the filters' items among all distinct keys
SELECT (SELECT count(*) FROM ans_ev e JOIN ans_seen s ON s.items @> e.item_id) AS actual,
       ans_est('SELECT * FROM ans_ev e JOIN ans_seen s ON s.items @> e.item_id') AS estimate;
-- a filter column without statistics: the neutral half with an equality,
-- the default 1 pair in 100 without
CREATE TABLE ans_seen_nostats AS SELECT * FROM ans_seen;
VACUUM ans_seen_nostats;
SELECT ans_est('SELECT * FROM ans_ev e JOIN ans_seen_nostats s USING (user_id) WHERE s.items @> e.item_id') AS grouped_default,
       ans_est('SELECT * FROM ans_ev e JOIN ans_seen_nostats s USING (user_id) WHERE NOT s.items @> e.item_id') AS grouped_default_not,
       ans_est('SELECT * FROM ans_ev e JOIN ans_seen_nostats s ON s.items @> e.item_id') AS cross_default;
DROP FUNCTION ans_est(text);
DROP TABLE ans_ev, ans_ev2, ans_seen, ans_seen_nostats;

-- ---------------------------------------------------------------------
-- the update from 1.2: a view on cf_info_all keeps its columns (a WARNING
-- says so), one calling cf_debug_state keeps working under the new name
-- ---------------------------------------------------------------------
\set regress_db :DBNAME
CREATE DATABASE cuckoo_answers_update;
\c cuckoo_answers_update
CREATE EXTENSION cuckoo VERSION '1.2';
CREATE VIEW info_all_view AS SELECT (cf_info_all(cf_add(NULL, 1))).*;
CREATE VIEW debug_view AS SELECT (cf_debug_state(cf_create(10))).form;
ALTER EXTENSION cuckoo UPDATE TO '1.3';
SELECT items, value_kind FROM info_all_view;
SELECT form FROM debug_view;
SELECT to_regprocedure('cf_debug_state(cuckoofilter)') AS old_name, to_regprocedure('cuckoo_debug_state(cuckoofilter)') AS new_name;
-- without the view: the new columns
DROP VIEW info_all_view;
DROP EXTENSION cuckoo CASCADE;
CREATE EXTENSION cuckoo VERSION '1.2';
ALTER EXTENSION cuckoo UPDATE TO '1.3';
SELECT layout, list_max FROM cf_info_all(cf_add(NULL, 1));
\c :regress_db
DROP DATABASE cuckoo_answers_update;
