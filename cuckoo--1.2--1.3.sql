-- cuckoo--1.2--1.3.sql - updates extension cuckoo from 1.2 to 1.3.
-- Every stored filter keeps reading and answering as before; this round's
-- SQL changes are all in this one script (CHANGELOG.md, "1.3").

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION cuckoo UPDATE TO '1.3'" to load this file. \quit

-- issue 34: cf_union_agg in linear time.  Its state is internal: the lists
-- among the parts give their hashes to one hash set (cf_agg's), the other
-- parts are united in a binary counter, and the final function builds the
-- union once (before, the executor copied the whole union on every row).
-- An aggregate cannot be altered, only replaced: where a view or function
-- uses it, it stays as it was (it then keeps 1.2's quadratic time).
CREATE FUNCTION cuckoo_union_agg_acc(internal, cuckoofilter) RETURNS internal
	AS 'MODULE_PATHNAME', 'cf_union_agg_acc' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_union_agg_acc(internal, cuckoofilter) IS
	'cf_union_agg transition function: absorbs one filter into the state';
CREATE FUNCTION cuckoo_union_agg_combine(internal, internal) RETURNS internal
	AS 'MODULE_PATHNAME', 'cf_union_agg_combine' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_union_agg_combine(internal, internal) IS
	'cf_union_agg combine function: the union of two partial states';
CREATE FUNCTION cuckoo_union_agg_finish(internal) RETURNS cuckoofilter
	AS 'MODULE_PATHNAME', 'cf_union_agg_finish' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_union_agg_finish(internal) IS
	'cf_union_agg final function: builds the union once, with a NOTICE if its expected false-positive rate is over twice its target';
CREATE FUNCTION cuckoo_union_agg_serial(internal) RETURNS bytea
	AS 'MODULE_PATHNAME', 'cf_union_agg_serial' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_union_agg_serial(internal) IS
	'cf_union_agg serialize function: the state as bytes, for parallel workers';
CREATE FUNCTION cuckoo_union_agg_deserial(bytea, internal) RETURNS internal
	AS 'MODULE_PATHNAME', 'cf_union_agg_deserial' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cuckoo_union_agg_deserial(bytea, internal) IS
	'cf_union_agg deserialize function: checks and reads a serialized state';
DO $$
BEGIN
	IF EXISTS (SELECT 1 FROM pg_depend
	            WHERE refclassid = 'pg_proc'::regclass
	              AND refobjid = 'cf_union_agg(cuckoofilter)'::regprocedure
	              AND deptype = 'n') THEN
		RAISE WARNING 'cf_union_agg is used by a view or function, so it is kept as it was: it takes time quadratic in the number of filters it unites'
			USING HINT = 'Drop those objects before ALTER EXTENSION cuckoo UPDATE and re-create them after it to get the new cf_union_agg.';
	ELSE
		DROP AGGREGATE cf_union_agg(cuckoofilter);
		CREATE AGGREGATE cf_union_agg(cuckoofilter) (
			SFUNC = cuckoo_union_agg_acc,
			STYPE = internal,
			SSPACE = 4096,
			FINALFUNC = cuckoo_union_agg_finish,
			COMBINEFUNC = cuckoo_union_agg_combine,
			SERIALFUNC = cuckoo_union_agg_serial,
			DESERIALFUNC = cuckoo_union_agg_deserial,
			PARALLEL = SAFE
		);
		COMMENT ON AGGREGATE cf_union_agg(cuckoofilter) IS
			'the union of the non-NULL filters (same bucket size and false-positive rate): lists unite into one filter of their distinct values, tables keep every entry of each; a NOTICE if the result''s expected false-positive rate is over twice its target';
	END IF;
END $$;
