-- cuckoo_inplace: f := cf_add(f, x) in PL/pgSQL changes one buffer in place
-- (cuckoo_expanded.c); cuckoo_debug_state's counters show whether a loop kept
-- that path or copied the filter, without timing anything.

-- cuckoo_debug_state: NULL in, NULL out; a flat value; a bad value
SELECT cuckoo_debug_state(NULL) IS NULL AS null_in_null_out;
SELECT form, newest FROM cuckoo_debug_state(cf_create(10));
SELECT form FROM cuckoo_debug_state('AAAA'::cuckoofilter);

-- deltas of the counters around a block of statements
CREATE FUNCTION cf_test_counters() RETURNS bigint[] LANGUAGE sql VOLATILE AS $$
	SELECT ARRAY[in_place_ops, store_copies, flattens] FROM cuckoo_debug_state(cf_create(1))
$$;

-- a plain loop: one copy (the flat cf_create value), then every add in place
DO $$
DECLARE
	f cuckoofilter := cf_create(100000, expansion => 0);
	c0 bigint[] := cf_test_counters();
	c1 bigint[];
	s record;
BEGIN
	FOR i IN 1..2000 LOOP
		f := cf_add(f, i);
	END LOOP;
	c1 := cf_test_counters();
	s := cuckoo_debug_state(f);
	RAISE NOTICE 'plain loop: in place %, copies %, flattens %; variable: %, newest %',
		c1[1] - c0[1], c1[2] - c0[2], c1[3] - c0[3], s.form, s.newest;
END $$;

-- each add in its own subtransaction (an exception block), none failing:
-- a committed subtransaction keeps the object and its in-place path
DO $$
DECLARE
	f cuckoofilter := cf_create(100000, expansion => 0);
	c0 bigint[] := cf_test_counters();
	c1 bigint[];
BEGIN
	FOR i IN 1..2000 LOOP
		BEGIN
			f := cf_add(f, i);
		EXCEPTION WHEN program_limit_exceeded THEN
			RAISE NOTICE 'unexpected: full';
		END;
	END LOOP;
	c1 := cf_test_counters();
	RAISE NOTICE 'exception block: in place %, copies %, flattens %',
		c1[1] - c0[1], c1[2] - c0[2], c1[3] - c0[3];
END $$;

-- "fill until full": the failed add leaves the variable the newest state of
-- its object (no copy), and adds through another expression stay in place
CREATE FUNCTION cf_test_fill(f cuckoofilter, first integer, n integer)
RETURNS cuckoofilter LANGUAGE plpgsql AS $$
BEGIN
	FOR i IN first .. first + n - 1 LOOP
		BEGIN
			f := cf_add(f, i);
		EXCEPTION WHEN program_limit_exceeded THEN
			RETURN f;
		END;
	END LOOP;
	RETURN f;
END $$;
DO $$
DECLARE
	small cuckoofilter := cf_create(20, expansion => 0);
	f cuckoofilter := cf_create(100000, expansion => 0);
	c0 bigint[];
	c1 bigint[];
	s record;
BEGIN
	-- fill small until full, inline: the error ends the loop
	c0 := cf_test_counters();
	FOR i IN 1..1000 LOOP
		BEGIN
			small := cf_add(small, i);
		EXCEPTION WHEN program_limit_exceeded THEN
			EXIT;
		END;
	END LOOP;
	c1 := cf_test_counters();
	s := cuckoo_debug_state(small);
	RAISE NOTICE 'fill until full: copies %; variable after the error: %, newest %',
		c1[2] - c0[2], s.form, s.newest;
	-- more adds, the same transaction, another expression: in place
	c0 := cf_test_counters();
	FOR i IN 1..2000 LOOP
		BEGIN
			f := cf_add(f, i);
		EXCEPTION WHEN program_limit_exceeded THEN
			EXIT;
		END;
	END LOOP;
	c1 := cf_test_counters();
	RAISE NOTICE 'after the error, another loop: in place %, copies %, flattens %',
		c1[1] - c0[1], c1[2] - c0[2], c1[3] - c0[3];
	-- a function that fills until full: a call that ends without an error
	-- keeps the in-place path, and so does the call whose add fails
	c0 := cf_test_counters();
	f := cf_test_fill(f, 10001, 2000);
	c1 := cf_test_counters();
	RAISE NOTICE 'cf_test_fill, no error: in place %, copies %',
		c1[1] - c0[1], c1[2] - c0[2];
	c0 := cf_test_counters();
	small := cf_test_fill(cf_create(20, expansion => 0), 1, 1000);
	c1 := cf_test_counters();
	RAISE NOTICE 'cf_test_fill, until full: copies %', c1[2] - c0[2];
	-- PostgreSQL's own rule, not ours: once an error was thrown inside the
	-- expression cf_add(f, i) of cf_test_fill, PL/pgSQL evaluates that
	-- expression through the executor (not as a "simple expression") until
	-- the transaction ends, which forms a result tuple and so flattens the
	-- filter on every add.  This shows it; if a PostgreSQL release drops
	-- the rule, the copies and flattens here go to 0.
	c0 := cf_test_counters();
	f := cf_test_fill(f, 20001, 100);
	c1 := cf_test_counters();
	RAISE NOTICE 'cf_test_fill after its own error, same transaction: in place %, copies %, flattens %',
		c1[1] - c0[1], c1[2] - c0[2], c1[3] - c0[3];
	RAISE NOTICE 'items %, missing %', (SELECT items FROM cf_info(f)),
		(SELECT count(*) FROM generate_series(1, 2000) i WHERE NOT cf_contains(f, i)) +
		(SELECT count(*) FROM generate_series(10001, 12000) i WHERE NOT cf_contains(f, i)) +
		(SELECT count(*) FROM generate_series(20001, 20100) i WHERE NOT cf_contains(f, i));
END $$;

-- in a new transaction the expression is simple again: in place
DO $$
DECLARE
	c0 bigint[] := cf_test_counters();
	c1 bigint[];
	f cuckoofilter := cf_test_fill(cf_create(100000, expansion => 0), 1, 2000);
BEGIN
	c1 := cf_test_counters();
	RAISE NOTICE 'cf_test_fill in a new transaction: in place %, copies %',
		c1[1] - c0[1], c1[2] - c0[2];
END $$;

DROP FUNCTION cf_test_fill(cuckoofilter, integer, integer);
DROP FUNCTION cf_test_counters();
