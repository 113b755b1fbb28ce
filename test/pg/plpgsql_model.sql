-- plpgsql_model.sql - random operation sequences on PL/pgSQL filter
-- variables (expanded objects sharing one journaled buffer), checked after
-- every step against a model whose values go through a text round trip and
-- so are never expanded.  Three variables, adds, deletes, copies between
-- them, changes inside a failing subtransaction, unions, full and
-- cannot-grow errors.  Prints the failing seed and step, or nothing.
--   psql -X -v ON_ERROR_STOP=1 -v runs=1000 -v steps=1000 -d DB -f test/pg/plpgsql_model.sql
-- (needs CREATE EXTENSION cuckoo; 1000 x 1000 takes about 2 minutes).
-- Its functions live in pg_temp, so it leaves nothing behind.
\if :{?runs}
\else
\set runs 200
\endif
\if :{?steps}
\else
\set steps 300
\endif
CREATE FUNCTION pg_temp.flat_apply(f text, op text, v int) RETURNS text LANGUAGE plpgsql AS $$
DECLARE r text;
BEGIN
	IF op = 'add' THEN
		EXECUTE 'SELECT cf_add($1::cuckoofilter, $2)::text' INTO r USING f, v;
	ELSE
		EXECUTE 'SELECT cf_delete($1::cuckoofilter, $2)::text' INTO r USING f, v;
	END IF;
	RETURN r;
END $$;

CREATE FUNCTION pg_temp.fuzz_pl(seed float8, steps int) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	a cuckoofilter; b cuckoofilter; c cuckoofilter;
	ma text; mb text; mc text;      -- models
	r float8; v int; k int;
	caps int[] := ARRAY[1, 5, 20];
BEGIN
	PERFORM setseed(seed);
	a := cf_create(caps[1 + floor(random() * 3)::int], 0.01, (ARRAY[2,4,8])[1 + floor(random() * 3)::int],
	               (ARRAY[0, 5, 500])[1 + floor(random() * 3)::int], (ARRAY[0, 1, 2, 4])[1 + floor(random() * 4)::int]);
	ma := a::text; b := a; mb := ma; c := a; mc := ma;
	FOR i IN 1 .. steps LOOP
		r := random(); v := floor(random() * 40)::int; k := floor(random() * 3)::int;
		BEGIN
			IF r < 0.45 THEN
				IF k = 0 THEN a := cf_add(a, v); ma := pg_temp.flat_apply(ma, 'add', v);
				ELSIF k = 1 THEN b := cf_add(b, v); mb := pg_temp.flat_apply(mb, 'add', v);
				ELSE c := cf_add(c, v); mc := pg_temp.flat_apply(mc, 'add', v); END IF;
			ELSIF r < 0.7 THEN
				IF k = 0 THEN a := cf_delete(a, v); ma := pg_temp.flat_apply(ma, 'del', v);
				ELSIF k = 1 THEN b := cf_delete(b, v); mb := pg_temp.flat_apply(mb, 'del', v);
				ELSE c := cf_delete(c, v); mc := pg_temp.flat_apply(mc, 'del', v); END IF;
			ELSIF r < 0.8 THEN
				IF k = 0 THEN b := a; mb := ma; ELSIF k = 1 THEN c := b; mc := mb; ELSE a := c; ma := mc; END IF;
			ELSIF r < 0.9 THEN
				-- a change inside a failing subtransaction: variables keep the new value
				BEGIN
					a := cf_add(a, v); ma := pg_temp.flat_apply(ma, 'add', v);
					b := cf_delete(b, v); mb := pg_temp.flat_apply(mb, 'del', v);
					RAISE EXCEPTION 'rollback';
				EXCEPTION WHEN raise_exception THEN NULL;
				END;
			ELSE
				c := cf_union(a, b); mc := cf_union(ma::cuckoofilter, mb::cuckoofilter)::text;
			END IF;
		EXCEPTION WHEN program_limit_exceeded OR invalid_parameter_value THEN
			-- full, cannot grow, or union too big: the model must have failed the same way;
			-- re-sync nothing (both sides raised before assignment)
			NULL;
		END;
		IF a::text <> ma OR b::text <> mb OR c::text <> mc THEN
			RETURN format('seed %s step %s op r=%s k=%s v=%s: a %s b %s c %s', seed, i, round(r::numeric, 3), k, v,
			              a::text = ma, b::text = mb, c::text = mc);
		END IF;
	END LOOP;
	RETURN NULL;
END $$;
SELECT count(*) AS runs, count(p) AS failed, min(p) AS first_problem
  FROM (SELECT pg_temp.fuzz_pl(s / 7919.0, :steps) AS p FROM generate_series(1, :runs) s) x;
