-- cuckoo_soft_input: bad text input is a soft error (PostgreSQL 16+):
-- pg_input_is_valid() answers false instead of raising, and
-- pg_input_error_info() reports the very message, detail and code that a
-- cast raises.  Run only on 16 and later (the Makefile adds it there).

-- the error a cast to cuckoofilter raises, as (message, detail, code)
CREATE FUNCTION cast_error(s text, OUT message text, OUT detail text, OUT code text)
LANGUAGE plpgsql AS $$
BEGIN
	PERFORM s::cuckoofilter;
	message := NULL;  -- no error: the same NULLs pg_input_error_info gives
EXCEPTION WHEN others THEN
	GET STACKED DIAGNOSTICS message = MESSAGE_TEXT, detail = PG_EXCEPTION_DETAIL,
		code = RETURNED_SQLSTATE;
	detail := NULLIF(detail, '');  -- no detail: '' here, NULL in pg_input_error_info
END $$;

CREATE TABLE inputs (name text, s text);
INSERT INTO inputs VALUES
	('valid', translate(encode(cuckoofilter_send(cf_create(1)), 'base64'), E'\n', '')),
	('valid, with values', translate(encode(cuckoofilter_send(
		cf_add(cf_add(cf_create(100), 1), 2)), 'base64'), E'\n', '')),
	('garbage', 'garbage'),
	('empty', ''),
	('not base64', 'zwEA$AoBAgD0AQAAAQAAAAEAAAAAAAAACgAAAAAAAAAA'),
	('too short', 'AAAA'),
	('bad magic', translate(encode(set_byte(cuckoofilter_send(cf_create(1)), 0, 0),
		'base64'), E'\n', '')),
	('truncated', translate(encode(substr(cuckoofilter_send(cf_create(1000)), 1, 40),
		'base64'), E'\n', ''));

-- no error escapes: each bad input is just "not valid"
SELECT name, pg_input_is_valid(s, 'cuckoofilter') FROM inputs ORDER BY name;

-- the soft error is the cast's error, word for word
SELECT name,
	   (e.message, e.detail, e.sql_error_code) IS NOT DISTINCT FROM
	   (c.message, c.detail, c.code) AS same_as_cast,
	   e.message IS NOT NULL AS reported
  FROM inputs, pg_input_error_info(s, 'cuckoofilter') e, cast_error(s) c
 ORDER BY name;

-- what the caller sees, for the input the base64 layer rejects
SELECT * FROM pg_input_error_info('garbage', 'cuckoofilter');
SELECT * FROM pg_input_error_info('', 'cuckoofilter');

-- arrays and domains of the type go through the same input function
CREATE DOMAIN cf_dom AS cuckoofilter;
SELECT pg_input_is_valid('{garbage}', 'cuckoofilter[]') AS array_input,
	   pg_input_is_valid('garbage', 'cf_dom') AS domain_input;

-- a NULL input is not an error
SELECT pg_input_is_valid(NULL, 'cuckoofilter') IS NULL AS null_input;

DROP DOMAIN cf_dom;
DROP TABLE inputs;
DROP FUNCTION cast_error(text);
