-- growth_sql.sql - issue 25's figures in SQL, for one build of the extension
-- (run by bench/growth_sql.sh once per server; read that script's header).
-- Every result goes into a table of schema cf_g25, which growth_sql.sh then
-- copies out as CSV for its report.
--
-- psql variables: label (names the build), maxn (largest sweep size), steps
-- (log-spaced sweep sizes), absent (absent keys per FPR measurement), users
-- and items (the per-user scenario), real_users (users whose filters are
-- also built by real single-item upserts and compared byte for byte),
-- lkeys (keys per lookup query), reps (interleaved lookup repetitions).
\set ON_ERROR_STOP 1
\pset footer off
SET client_min_messages = warning;
SET max_parallel_workers_per_gather = 0;	-- one process per query: the filters, not the scheduler
SET jit = off;
DROP SCHEMA IF EXISTS cf_g25 CASCADE;
CREATE SCHEMA cf_g25;
SET search_path = cf_g25, public;
CREATE EXTENSION IF NOT EXISTS cuckoo WITH SCHEMA public;

CREATE TABLE params AS SELECT :maxn::int AS maxn, :steps::int AS steps, :absent::int AS absent,
	:users::int AS users, :items::int AS items, :real_users::int AS real_users,
	:lkeys::int AS lkeys, :reps::int AS reps;
CREATE TABLE meta AS SELECT :'label'::text AS label, extversion AS extversion, version() AS server,
	now() AS started FROM pg_extension WHERE extname = 'cuckoo';

-- absent keys: negative, every present value below is positive
CREATE TABLE absent_arr AS SELECT ARRAY(SELECT -g::bigint FROM generate_series(1, (SELECT absent FROM params)) g) AS a;

-- cf_add one value at a time, from the default (cf_add(NULL, v)): the same
-- sequence of calls as one single-item upsert per value
CREATE AGGREGATE add_agg(bigint) (SFUNC = cf_add, STYPE = cuckoofilter);

-- false positives of f among the absent keys
CREATE FUNCTION fp_count(f cuckoofilter) RETURNS bigint LANGUAGE sql AS $$
	SELECT count(*) FILTER (WHERE x) FROM absent_arr, unnest(cf_contains_each(f, a)) x
$$;
-- false negatives of f among vals (0 required)
CREATE FUNCTION fn_count(f cuckoofilter, vals bigint[]) RETURNS bigint LANGUAGE sql AS $$
	SELECT CASE WHEN cf_contains_all(f, vals) THEN 0
	       ELSE (SELECT count(*) FILTER (WHERE NOT x) FROM unnest(cf_contains_each(f, vals)) x) END
$$;

------------------------------------------------------------------------------
-- 1. space sweep: cf_add_all_unique(start, 1..n) against cf_agg(v, fpr) of 1..n
--    start: cf_add(NULL, v)'s default (NULL) at 1%, cf_create(1000, 0.001) at 0.1%
------------------------------------------------------------------------------
CREATE TABLE sweep (fpr float8, kind text, n int,
	g_bytes bigint, g_items bigint, g_sub int, g_load float8, g_buckets bigint, g_fbits int, g_fp bigint, g_fn bigint,
	a_bytes bigint, a_items bigint, a_sub int, a_load float8, a_fbits int, a_fp bigint, a_fn bigint,
	nabsent int, g_ms float8);

CREATE FUNCTION sweep_one(p_fpr float8, p_kind text, n int) RETURNS sweep LANGUAGE plpgsql AS $$
DECLARE arr bigint[]; g cuckoofilter; a cuckoofilter; gi record; ai record; r sweep; t0 timestamptz;
BEGIN
	arr := ARRAY(SELECT i::bigint FROM generate_series(1, n) i);
	t0 := clock_timestamp();
	IF p_fpr = 0.01 THEN
		g := cf_add_all_unique(NULL, arr);
	ELSE
		g := cf_add_all_unique(cf_create(1000, p_fpr), arr);
	END IF;
	r.g_ms := extract(epoch FROM clock_timestamp() - t0) * 1000;
	a := (SELECT cf_agg(x, p_fpr) FROM unnest(arr) x);
	SELECT * INTO gi FROM cf_info(g);
	SELECT * INTO ai FROM cf_info(a);
	r.fpr := p_fpr; r.kind := p_kind; r.n := n;
	r.g_bytes := gi.bytes; r.g_items := gi.items; r.g_sub := gi.subfilters; r.g_load := gi.load_factor;
	r.g_buckets := gi.buckets; r.g_fbits := gi.fingerprint_bits; r.g_fp := fp_count(g); r.g_fn := fn_count(g, arr);
	r.a_bytes := ai.bytes; r.a_items := ai.items; r.a_sub := ai.subfilters; r.a_load := ai.load_factor;
	r.a_fbits := ai.fingerprint_bits; r.a_fp := fp_count(a); r.a_fn := fn_count(a, arr);
	r.nabsent := (SELECT absent FROM params);
	RETURN r;
END $$;

CREATE FUNCTION sweep_all(p_fpr float8) RETURNS void LANGUAGE plpgsql AS $$
DECLARE p params; lvl record; x float8; r sweep;
BEGIN
	SELECT * INTO p FROM params;
	INSERT INTO sweep
	SELECT (sweep_one(p_fpr, 'sweep', n)).*
	  FROM (SELECT DISTINCT round(1000 * power(p.maxn / 1000.0, i::float8 / (p.steps - 1)))::int AS n
	          FROM generate_series(0, p.steps - 1) i) s ORDER BY n;
	-- "full": for each table size the sweep met, the largest of 0.95, 0.93,
	-- 0.91 x its slots that still fits it (same buckets) at load >= 0.9
	FOR lvl IN SELECT DISTINCT g_buckets FROM sweep WHERE fpr = p_fpr AND kind = 'sweep' ORDER BY 1 LOOP
		FOREACH x IN ARRAY ARRAY[0.95, 0.93, 0.91] LOOP
			CONTINUE WHEN floor(x * lvl.g_buckets * 4) < 1000 OR floor(x * lvl.g_buckets * 4) > p.maxn;
			r := sweep_one(p_fpr, 'full', floor(x * lvl.g_buckets * 4)::int);
			IF r.g_buckets = lvl.g_buckets AND r.g_load >= 0.9 THEN
				INSERT INTO sweep SELECT r.*;
				EXIT;
			END IF;
		END LOOP;
	END LOOP;
END $$;

\echo == 1. space sweep at 1%
SELECT sweep_all(0.01);
\echo == 1. space sweep at 0.1%
SELECT sweep_all(0.001);

------------------------------------------------------------------------------
-- 2. per-user scenario: users x items, single-item adds from cf_add(NULL, v)
------------------------------------------------------------------------------
\echo == 2. per-user scenario
CREATE TABLE pu_vals AS
	SELECT u, i, u * 10000000::bigint + i AS v FROM generate_series(1, (SELECT users FROM params)) u,
	       generate_series(1, (SELECT items FROM params)) i;
-- real upserts (one statement per item, arrival order round robin over the
-- users) for the first real_users users
CREATE TABLE seen (user_id int PRIMARY KEY, f cuckoofilter);
CREATE PROCEDURE upserts() LANGUAGE plpgsql AS $$
DECLARE p params; r record; k int := 0;
BEGIN
	SELECT * INTO p FROM params;
	FOR r IN SELECT u, v FROM pu_vals WHERE u <= p.real_users ORDER BY i, u LOOP
		INSERT INTO seen AS t VALUES (r.u, cf_add(NULL, r.v))
			ON CONFLICT (user_id) DO UPDATE SET f = cf_add(t.f, r.v);
		k := k + 1;
		IF k % 1000 = 0 THEN COMMIT; END IF;
	END LOOP;
	COMMIT;
END $$;
CALL upserts();
CREATE TABLE pu_filters AS
	SELECT u, add_agg(v ORDER BY i) AS grown, cf_agg(v, 0.01) AS agg, array_agg(v) AS vals
	  FROM pu_vals GROUP BY u;
CREATE TABLE peruser AS
	SELECT 'grown: single-item cf_add from cf_add(NULL, v)' AS method, count(*) AS users,
	       (SELECT items FROM params) AS items,
	       avg((cf_info(grown)).bytes) AS avg_bytes, avg(pg_column_size(grown)) AS avg_stored,
	       avg((cf_info(grown)).subfilters) AS avg_sub, max((cf_info(grown)).subfilters) AS max_sub,
	       avg((cf_info(grown)).load_factor) AS avg_load, min((cf_info(grown)).fingerprint_bits) AS fbits,
	       sum(fp_count(grown)) AS fp, count(*) * (SELECT absent FROM params) AS tested,
	       sum(fn_count(grown, vals)) AS fn
	  FROM pu_filters
	UNION ALL
	SELECT 'cf_agg(v, 0.01) per user', count(*), (SELECT items FROM params),
	       avg((cf_info(agg)).bytes), avg(pg_column_size(agg)),
	       avg((cf_info(agg)).subfilters), max((cf_info(agg)).subfilters),
	       avg((cf_info(agg)).load_factor), min((cf_info(agg)).fingerprint_bits),
	       sum(fp_count(agg)), count(*) * (SELECT absent FROM params), sum(fn_count(agg, vals))
	  FROM pu_filters;
-- the real upserts built byte-identical filters (so the grown rows are what upserts store)
CREATE TABLE upsert_check AS
	SELECT count(*) AS users_upserted, count(*) FILTER (WHERE s.f = p.grown) AS identical_to_grown
	  FROM seen s JOIN pu_filters p ON p.u = s.user_id;

------------------------------------------------------------------------------
-- 3. unions of per-user filters, then deletes of a third of the values
------------------------------------------------------------------------------
\echo == 3. unions
CREATE TABLE unions (name text, parts int, values_in bigint, error text, union_ms float8,
	sub int, items bigint, bytes bigint, load float8, fbits int, fp bigint, fn bigint,
	del_error text, deleted bigint, del_items bigint, del_deletes bigint, retained bigint,
	del_fn bigint, del_still_present bigint, del_fp bigint, exp_fpr float8);
CREATE TABLE parts (u int, f cuckoofilter);
CREATE TABLE part_vals (u int, v bigint);
CREATE FUNCTION union_case(p_name text, p_agg bool) RETURNS void LANGUAGE plpgsql AS $$
DECLARE r unions; f cuckoofilter; d cuckoofilter; vals bigint[]; keep bigint[]; gone bigint[];
	t0 timestamptz; fi record; e_state text; e_detail text; e_hint text;
BEGIN
	TRUNCATE parts;
	IF p_agg THEN
		INSERT INTO parts SELECT u, cf_agg(v, 0.01) FROM part_vals GROUP BY u;
	ELSE
		INSERT INTO parts SELECT u, add_agg(v ORDER BY v) FROM part_vals GROUP BY u;
	END IF;
	vals := ARRAY(SELECT v FROM part_vals);
	keep := ARRAY(SELECT v FROM part_vals WHERE v % 3 <> 0);
	gone := ARRAY(SELECT v FROM part_vals WHERE v % 3 = 0);
	r.name := p_name; r.parts := (SELECT count(*) FROM parts); r.values_in := cardinality(vals);
	t0 := clock_timestamp();
	BEGIN
		f := (SELECT cf_union_agg(parts.f) FROM parts);
	EXCEPTION WHEN others THEN
		GET STACKED DIAGNOSTICS e_state = RETURNED_SQLSTATE, e_detail = PG_EXCEPTION_DETAIL, e_hint = PG_EXCEPTION_HINT;
		r.error := e_state || ': ' || SQLERRM || coalesce(' DETAIL: ' || nullif(e_detail, ''), '')
		           || coalesce(' HINT: ' || nullif(e_hint, ''), '');
	END;
	r.union_ms := extract(epoch FROM clock_timestamp() - t0) * 1000;
	IF r.error IS NULL THEN
		SELECT * INTO fi FROM cf_info(f);
		r.sub := fi.subfilters; r.items := fi.items; r.bytes := fi.bytes; r.load := fi.load_factor;
		r.fbits := fi.fingerprint_bits; r.exp_fpr := fi.fpr; r.fp := fp_count(f); r.fn := fn_count(f, vals);
		r.deleted := cardinality(gone);
		BEGIN
			d := cf_delete_all(f, gone);
			SELECT * INTO fi FROM cf_info(d);
			r.del_items := fi.items; r.del_deletes := fi.deletes; r.retained := fi.retained;
			r.del_fn := fn_count(d, keep);
			r.del_still_present := (SELECT count(*) FILTER (WHERE x) FROM unnest(cf_contains_each(d, gone)) x);
			r.del_fp := fp_count(d);
		EXCEPTION WHEN others THEN
			GET STACKED DIAGNOSTICS e_state = RETURNED_SQLSTATE, e_detail = PG_EXCEPTION_DETAIL;
			r.del_error := e_state || ': ' || SQLERRM || coalesce(' DETAIL: ' || nullif(e_detail, ''), '');
		END;
	END IF;
	INSERT INTO unions SELECT r.*;
END $$;

CREATE FUNCTION union_per_user(p_name text, p_users int, p_k int, p_vary bool, p_agg bool) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
	TRUNCATE part_vals;
	-- p_vary: user u holds 1000 + (u * 7919) % 2001 values (1,000..3,000, about 2,000)
	INSERT INTO part_vals
	SELECT u, u * 100000::bigint + i
	  FROM generate_series(1, p_users) u,
	       generate_series(1, CASE WHEN p_vary THEN 1000 + (u * 7919) % 2001 ELSE p_k END) i;
	PERFORM union_case(p_name, p_agg);
END $$;

SELECT union_per_user('20000 users x 1 (cf_add(NULL, v))', 20000, 1, false, false);
SELECT union_per_user('20000 users x 5 (cf_add(NULL, v))', 20000, 5, false, false);
SELECT union_per_user('20000 users x 50 (cf_add(NULL, v))', 20000, 50, false, false);
SELECT union_per_user('100 users x 2000 (cf_add(NULL, v))', 100, 2000, false, false);
SELECT union_per_user('100 users x 1000..3000 (cf_add(NULL, v))', 100, 0, true, false);
-- the first 64 of those users: a union that works, with more items than values
SELECT union_per_user('64 users x 1000..3000 (cf_add(NULL, v))', 64, 0, true, false);
SELECT union_per_user('100 users x 1000..3000 (cf_agg(v, 0.01), sized to each user)', 100, 0, true, true);

------------------------------------------------------------------------------
-- 4. lookups in SQL: count(*) of keys WHERE cf_contains(f, k), f grown from
--    the default to 16,000 items against cf_agg of the same items
------------------------------------------------------------------------------
\echo == 4. lookups
CREATE TABLE lfilters AS
	SELECT 'grown' AS name, cf_add_all_unique(NULL, ARRAY(SELECT g::bigint FROM generate_series(1, 16000) g)) AS f
	UNION ALL
	SELECT 'agg', cf_agg(g::bigint, 0.01) FROM generate_series(1, 16000) g;
CREATE TABLE lfilter_info AS SELECT name, (cf_info(f)).* FROM lfilters;
CREATE TABLE keys_present AS SELECT (g % 16000 + 1)::bigint AS k FROM generate_series(1, (SELECT lkeys FROM params)) g;
CREATE TABLE keys_absent AS SELECT -g::bigint AS k FROM generate_series(1, (SELECT lkeys FROM params)) g;
VACUUM ANALYZE keys_present, keys_absent;
CREATE TABLE lookup_runs (rep int, filter text, keys text, ms float8, hits bigint);
CREATE PROCEDURE lookups() LANGUAGE plpgsql AS $$
DECLARE p params; g cuckoofilter; a cuckoofilter; t0 timestamptz; n bigint; rep int; o int;
	fname text; kname text; f cuckoofilter;
BEGIN
	SELECT * INTO p FROM params;
	SELECT lfilters.f INTO g FROM lfilters WHERE name = 'grown';
	SELECT lfilters.f INTO a FROM lfilters WHERE name = 'agg';
	FOR rep IN 0..p.reps LOOP			-- rep 0 warms up and is dropped
		FOR o IN 0..3 LOOP
			-- the order rotates by rep so that no side always runs first
			fname := CASE WHEN ((o + rep) % 2) = 0 THEN 'grown' ELSE 'agg' END;
			kname := CASE WHEN ((o / 2 + rep) % 2) = 0 THEN 'present' ELSE 'absent' END;
			f := CASE fname WHEN 'grown' THEN g ELSE a END;
			t0 := clock_timestamp();
			EXECUTE format('SELECT count(*) FROM %I WHERE cf_contains($1, k)', 'keys_' || kname) INTO n USING f;
			INSERT INTO lookup_runs VALUES (rep, fname, kname, extract(epoch FROM clock_timestamp() - t0) * 1000, n);
		END LOOP;
		COMMIT;
	END LOOP;
	DELETE FROM lookup_runs WHERE lookup_runs.rep = 0;
END $$;
CALL lookups();

