-- cuckoo--1.0--1.1.sql - updates extension cuckoo from 1.0 to 1.1.
-- New filters are written in format version 2 (FORMAT.md); version-1
-- filters keep reading, and are rewritten as version 2 when changed.

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION cuckoo UPDATE TO '1.1'" to load this file. \quit

-- cf_info: the 1.0 columns, then the rate asked for, the growth settings,
-- the format, the deletes done and left in place (FORMAT.md, "Deletes") and
-- the kind of value held.  A function's result columns can only change by
-- dropping it, which views and functions that use cf_info forbid; the update
-- must not fail for them, so there cf_info keeps its 1.0 columns (a NOTICE
-- says so) and cf_info_all, created in every case, has them all.
CREATE FUNCTION cf_info_all(filter cuckoofilter,
						OUT capacity bigint, OUT items bigint, OUT buckets bigint,
						OUT bucket_size integer, OUT fingerprint_bits integer,
						OUT load_factor double precision, OUT fpr double precision,
						OUT bytes bigint, OUT subfilters integer,
						OUT target_fpr double precision, OUT expansion integer,
						OUT max_kicks integer, OUT growing boolean,
						OUT format_version integer, OUT value_hashing integer,
						OUT deletes bigint, OUT retained bigint, OUT families integer,
						OUT value_kind text)
	RETURNS record
	AS 'MODULE_PATHNAME', 'cuckoo_info' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION cf_info_all(cuckoofilter) IS
	'every parameter and statistic of a filter: cf_info''s columns, then target rate, growth, format, deletes done and left in place, kind of value held';

DO $$
BEGIN
	IF EXISTS (SELECT FROM pg_depend
				WHERE refclassid = 'pg_proc'::regclass
				  AND refobjid = 'cf_info(cuckoofilter)'::regprocedure
				  AND deptype = 'n') THEN
		RAISE NOTICE 'cf_info keeps the columns of cuckoo 1.0 because other objects (views, functions) use it; cf_info_all(filter) returns every column';
	ELSE
		DROP FUNCTION cf_info(cuckoofilter);
		CREATE FUNCTION cf_info(filter cuckoofilter,
								OUT capacity bigint, OUT items bigint, OUT buckets bigint,
								OUT bucket_size integer, OUT fingerprint_bits integer,
								OUT load_factor double precision, OUT fpr double precision,
								OUT bytes bigint, OUT subfilters integer,
								OUT target_fpr double precision, OUT expansion integer,
								OUT max_kicks integer, OUT growing boolean,
								OUT format_version integer, OUT value_hashing integer,
								OUT deletes bigint, OUT retained bigint, OUT families integer,
								OUT value_kind text)
			RETURNS record
			AS 'MODULE_PATHNAME', 'cuckoo_info' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
		COMMENT ON FUNCTION cf_info(cuckoofilter) IS
			'parameters and statistics of a filter: capacity, items, load, expected and target false-positive rates, size, growth, format, deletes done and left in place, kind of value held';
	END IF;
END $$;

-- typed probes: a version-2 filter records the kind of value it holds
-- (number, text, datetime, ...; FORMAT.md) and refuses values of another
-- kind with an error instead of answering "absent"
CREATE FUNCTION cf_set_kind(filter cuckoofilter, kind text) RETURNS cuckoofilter
	AS 'MODULE_PATHNAME', 'cuckoo_set_kind' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION cf_set_kind(cuckoofilter, text) IS
	'the filter recording the kind of value it holds: ''any'' turns kind checks off (a filter of several kinds), a named kind (number, text, datetime, ...) can be given to an empty filter';

-- ---- cf_debug_state: a testing aid for the in-place PL/pgSQL path (#18.3) --
-- Internal, not part of the documented interface: the regression tests use
-- it to check that f := cf_add(f, x) in a loop changes one buffer in place
-- instead of copying the filter.  VOLATILE: the counters move between calls.
-- PARALLEL RESTRICTED: the counters belong to the backend that calls it.
CREATE FUNCTION cf_debug_state(filter cuckoofilter,
							   OUT form text, OUT newest boolean,
							   OUT in_place_ops bigint, OUT store_copies bigint,
							   OUT flattens bigint)
	RETURNS record
	AS 'MODULE_PATHNAME', 'cuckoo_debug_state'
	LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;

COMMENT ON FUNCTION cf_debug_state(cuckoofilter) IS
'internal testing aid: how the filter value was passed (flat, toasted, compressed, expanded read-write or read-only; newest: whether an expanded value is the newest state of its buffer) and this backend''s counts of in-place adds and deletes, whole-filter copies (growth not counted) and flattenings of expanded filters; not a stable interface';

-- batches: one call for a whole array, the filter opened (and, for the
-- updates, copied) once instead of once per element (src/pg/cuckoo_batch.c)

-- strict: a NULL filter or a NULL array gives NULL; a NULL element gives a
-- NULL at its position
CREATE FUNCTION cf_contains_each(filter cuckoofilter, vals anyarray) RETURNS boolean[]
	AS 'MODULE_PATHNAME', 'cuckoo_contains_each' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION cf_contains_each(cuckoofilter, anyarray) IS
	'cf_contains of every element of an array: a boolean array of the same shape, NULL where the element is NULL';

-- strict; NULL elements count as in filter @> ANY(vals) / @> ALL(vals)
CREATE FUNCTION cf_contains_any(filter cuckoofilter, vals anyarray) RETURNS boolean
	AS 'MODULE_PATHNAME', 'cuckoo_contains_any' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION cf_contains_all(filter cuckoofilter, vals anyarray) RETURNS boolean
	AS 'MODULE_PATHNAME', 'cuckoo_contains_all' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION cf_contains_any(cuckoofilter, anyarray) IS
	'true if some element may be in the filter; else NULL if an element is NULL, else false (as filter @> ANY(vals))';
COMMENT ON FUNCTION cf_contains_all(cuckoofilter, anyarray) IS
	'false if some element is certainly absent; else NULL if an element is NULL, else true (as filter @> ALL(vals))';

-- not strict: a NULL filter starts a default one (as cf_add_all), a NULL
-- array changes nothing
CREATE FUNCTION cf_add_all_unique(filter cuckoofilter, vals anyarray) RETURNS cuckoofilter
	AS 'MODULE_PATHNAME', 'cuckoo_add_all_unique' LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION cf_add_all_unique(cuckoofilter, anyarray) IS
	'cf_add_unique of every non-NULL element in order: an element already reported present, also one added earlier in the array, is not stored again';

-- not strict: a NULL array leaves the filter unchanged; a NULL filter gives NULL
CREATE FUNCTION cf_delete_all(filter cuckoofilter, vals anyarray) RETURNS cuckoofilter
	AS 'MODULE_PATHNAME', 'cuckoo_delete_all' LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION cf_delete_all(cuckoofilter, anyarray) IS
	'cf_delete of every non-NULL element in order: one copy removed per element; delete only values that were added';

-- ---------------------------------------------------------------------
-- SQL surface (issue #20): NULL-safe updates, filters as values (=, <>,
-- ordering, hashing, ||, bytea casts, cf_describe), join estimates
-- ---------------------------------------------------------------------

-- NULL-safe updates: cf_delete(f, NULL) is f, so that
-- UPDATE t SET f = cf_delete(f, $1) with a NULL $1 keeps the filter;
-- cf_delete(NULL, v) stays NULL.  cf_union(a, NULL) is a, cf_union(NULL, b)
-- is b, both NULL give NULL (as hll_union does).  The C code handles the
-- NULLs; 1.0 declared these functions strict.
ALTER FUNCTION cf_delete(cuckoofilter, anyelement) CALLED ON NULL INPUT;
ALTER FUNCTION cf_delete(cuckoofilter, text) CALLED ON NULL INPUT;
ALTER FUNCTION cf_union(cuckoofilter, cuckoofilter) CALLED ON NULL INPUT;

COMMENT ON FUNCTION cf_delete(cuckoofilter, anyelement) IS
	'removes one copy of a value that was added; unchanged if absent or NULL; deleting a value never added can remove another value''s fingerprint';
COMMENT ON FUNCTION cf_delete(cuckoofilter, text) IS
	'removes one copy of a text value that was added; unchanged if absent or NULL; deleting a value never added can remove another value''s fingerprint';
COMMENT ON FUNCTION cf_union(cuckoofilter, cuckoofilter) IS
	'a filter holding every item of both filters (same bucket size and false-positive rate); a NULL side gives the other';

-- filters as values: equality is equality of the stored bytes (equal sets
-- built differently can compare unequal); the order is that of the bytes
-- as bytea (memcmp, then the shorter first), a total order that means
-- nothing about the sets but lets DISTINCT, GROUP BY, UNION, sorting,
-- merge and hash joins, IS DISTINCT FROM and REPLICA IDENTITY FULL work.

CREATE FUNCTION cuckoofilter_eq(cuckoofilter, cuckoofilter) RETURNS boolean
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION cuckoofilter_ne(cuckoofilter, cuckoofilter) RETURNS boolean
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION cuckoofilter_lt(cuckoofilter, cuckoofilter) RETURNS boolean
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION cuckoofilter_le(cuckoofilter, cuckoofilter) RETURNS boolean
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION cuckoofilter_ge(cuckoofilter, cuckoofilter) RETURNS boolean
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION cuckoofilter_gt(cuckoofilter, cuckoofilter) RETURNS boolean
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION cuckoofilter_cmp(cuckoofilter, cuckoofilter) RETURNS integer
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION cuckoofilter_hash(cuckoofilter) RETURNS integer
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION cuckoofilter_hash_extended(cuckoofilter, bigint) RETURNS bigint
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;

COMMENT ON FUNCTION cuckoofilter_eq(cuckoofilter, cuckoofilter) IS 'true if the filters have the same bytes';
COMMENT ON FUNCTION cuckoofilter_ne(cuckoofilter, cuckoofilter) IS 'true if the filters have different bytes';
COMMENT ON FUNCTION cuckoofilter_lt(cuckoofilter, cuckoofilter) IS 'byte order of filters: less than';
COMMENT ON FUNCTION cuckoofilter_le(cuckoofilter, cuckoofilter) IS 'byte order of filters: less than or equal';
COMMENT ON FUNCTION cuckoofilter_ge(cuckoofilter, cuckoofilter) IS 'byte order of filters: greater than or equal';
COMMENT ON FUNCTION cuckoofilter_gt(cuckoofilter, cuckoofilter) IS 'byte order of filters: greater than';
COMMENT ON FUNCTION cuckoofilter_cmp(cuckoofilter, cuckoofilter) IS 'byte order of filters: -1, 0 or 1 (btree support)';
COMMENT ON FUNCTION cuckoofilter_hash(cuckoofilter) IS 'hash of a filter''s bytes (hash support)';
COMMENT ON FUNCTION cuckoofilter_hash_extended(cuckoofilter, bigint) IS 'seeded 64-bit hash of a filter''s bytes (hash support)';

CREATE OPERATOR = (
	LEFTARG = cuckoofilter, RIGHTARG = cuckoofilter, FUNCTION = cuckoofilter_eq,
	COMMUTATOR = =, NEGATOR = <>, RESTRICT = eqsel, JOIN = eqjoinsel,
	HASHES, MERGES
);
CREATE OPERATOR <> (
	LEFTARG = cuckoofilter, RIGHTARG = cuckoofilter, FUNCTION = cuckoofilter_ne,
	COMMUTATOR = <>, NEGATOR = =, RESTRICT = neqsel, JOIN = neqjoinsel
);
CREATE OPERATOR < (
	LEFTARG = cuckoofilter, RIGHTARG = cuckoofilter, FUNCTION = cuckoofilter_lt,
	COMMUTATOR = >, NEGATOR = >=, RESTRICT = scalarltsel, JOIN = scalarltjoinsel
);
CREATE OPERATOR <= (
	LEFTARG = cuckoofilter, RIGHTARG = cuckoofilter, FUNCTION = cuckoofilter_le,
	COMMUTATOR = >=, NEGATOR = >, RESTRICT = scalarlesel, JOIN = scalarlejoinsel
);
CREATE OPERATOR >= (
	LEFTARG = cuckoofilter, RIGHTARG = cuckoofilter, FUNCTION = cuckoofilter_ge,
	COMMUTATOR = <=, NEGATOR = <, RESTRICT = scalargesel, JOIN = scalargejoinsel
);
CREATE OPERATOR > (
	LEFTARG = cuckoofilter, RIGHTARG = cuckoofilter, FUNCTION = cuckoofilter_gt,
	COMMUTATOR = <, NEGATOR = <=, RESTRICT = scalargtsel, JOIN = scalargtjoinsel
);

COMMENT ON OPERATOR = (cuckoofilter, cuckoofilter) IS 'same bytes (equal sets built differently can differ)';
COMMENT ON OPERATOR <> (cuckoofilter, cuckoofilter) IS 'different bytes';
COMMENT ON OPERATOR < (cuckoofilter, cuckoofilter) IS 'less than, in the byte order';
COMMENT ON OPERATOR <= (cuckoofilter, cuckoofilter) IS 'less than or equal, in the byte order';
COMMENT ON OPERATOR >= (cuckoofilter, cuckoofilter) IS 'greater than or equal, in the byte order';
COMMENT ON OPERATOR > (cuckoofilter, cuckoofilter) IS 'greater than, in the byte order';

CREATE OPERATOR CLASS cuckoofilter_ops
	DEFAULT FOR TYPE cuckoofilter USING btree AS
	OPERATOR 1 <,
	OPERATOR 2 <=,
	OPERATOR 3 =,
	OPERATOR 4 >=,
	OPERATOR 5 >,
	FUNCTION 1 cuckoofilter_cmp(cuckoofilter, cuckoofilter);

CREATE OPERATOR CLASS cuckoofilter_hash_ops
	DEFAULT FOR TYPE cuckoofilter USING hash AS
	OPERATOR 1 =,
	FUNCTION 1 cuckoofilter_hash(cuckoofilter),
	FUNCTION 2 cuckoofilter_hash_extended(cuckoofilter, bigint);

-- a || b: the union, as hll users write it (same NULL rules as cf_union)
CREATE OPERATOR || (
	LEFTARG = cuckoofilter, RIGHTARG = cuckoofilter, FUNCTION = cf_union
);
COMMENT ON OPERATOR || (cuckoofilter, cuckoofilter) IS 'union of two filters (same as cf_union)';

-- casts: to bytea the filter's bytes (its binary form), from bytea the
-- bytes validated as binary input validates them
CREATE FUNCTION cuckoofilter(bytea) RETURNS cuckoofilter
	AS 'MODULE_PATHNAME', 'cuckoofilter_from_bytea' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cuckoofilter(bytea) IS
	'the filter whose bytes (binary form) these are, fully validated';

CREATE CAST (cuckoofilter AS bytea) WITH FUNCTION cuckoofilter_send(cuckoofilter);
CREATE CAST (bytea AS cuckoofilter) WITH FUNCTION cuckoofilter(bytea);
COMMENT ON CAST (cuckoofilter AS bytea) IS 'the filter''s bytes, as its binary form';
COMMENT ON CAST (bytea AS cuckoofilter) IS 'a filter from its bytes, fully validated';

-- a one-line summary for people
CREATE FUNCTION cf_describe(filter cuckoofilter) RETURNS text
	AS 'MODULE_PATHNAME', 'cuckoo_describe' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cf_describe(cuckoofilter) IS
	'a one-line summary: items, capacity, expected and target false-positive rates, sub-filters, size';

-- join estimates of filters.f @> t.key: ANALYZE records the mean items and
-- false-positive rate of a filter column's values, and the join estimator
-- turns them into the fraction of pairs that pass (the fixed 0.5 before)
CREATE FUNCTION cuckoofilter_typanalyze(internal) RETURNS boolean
	AS 'MODULE_PATHNAME' LANGUAGE C STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cuckoofilter_typanalyze(internal) IS
	'ANALYZE of a filter column: the standard statistics and the mean items and false-positive rate';
ALTER TYPE cuckoofilter SET (ANALYZE = cuckoofilter_typanalyze);

CREATE FUNCTION cf_contains_joinsel(internal, oid, internal, smallint, internal) RETURNS double precision
	AS 'MODULE_PATHNAME', 'cuckoo_contains_joinsel' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cf_contains_joinsel(internal, oid, internal, smallint, internal) IS
	'join selectivity of filter @> value';

ALTER OPERATOR @> (cuckoofilter, anyelement) SET (JOIN = cf_contains_joinsel);
ALTER OPERATOR @> (cuckoofilter, text) SET (JOIN = cf_contains_joinsel);

-- ---------------------------------------------------------------------
-- cf_agg that distributes (issue #17): typed overloads whose state is a
-- real type, cf_aggstate, with a combine function, so that engines which
-- split an aggregate into partials and a combine (Citus: the transition on
-- the workers, the state shipped in its text form, the combine and final
-- function on the coordinator) can run cf_agg where the rows are.
-- cf_agg(anyelement) keeps its internal state: a polymorphic aggregate
-- cannot be split by Citus, and views that use it keep working.  The
-- typed overloads hash and build exactly as cf_agg(anyelement) does, so a
-- filter is byte-identical whichever of them runs.  Types: the integers,
-- uuid and text, and character, name and "char", which cast to text
-- implicitly and have overloads of their own so that none of them changes
-- how it is hashed or becomes ambiguous (varchar resolves to text, which
-- hashes it the same).
-- ---------------------------------------------------------------------

CREATE TYPE cf_aggstate;

CREATE FUNCTION cf_aggstate_in(cstring) RETURNS cf_aggstate
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION cf_aggstate_out(cf_aggstate) RETURNS cstring
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION cf_aggstate_recv(internal) RETURNS cf_aggstate
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION cf_aggstate_send(cf_aggstate) RETURNS bytea
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- STORAGE external: the hashes are random, compressing them gains nothing
CREATE TYPE cf_aggstate (
	INPUT = cf_aggstate_in,
	OUTPUT = cf_aggstate_out,
	RECEIVE = cf_aggstate_recv,
	SEND = cf_aggstate_send,
	INTERNALLENGTH = VARIABLE,
	STORAGE = external
);

COMMENT ON TYPE cf_aggstate IS
	'partial state of the typed cf_agg aggregates: the rate, capacity and value kind asked for and the 64-bit hashes of the distinct values (FORMAT.md)';
COMMENT ON FUNCTION cf_aggstate_in(cstring) IS 'reads a cf_agg state from its base64 text form, checked';
COMMENT ON FUNCTION cf_aggstate_out(cf_aggstate) IS 'writes a cf_agg state as base64 text, its hashes sorted';
COMMENT ON FUNCTION cf_aggstate_recv(internal) IS 'reads a cf_agg state from its binary form, checked';
COMMENT ON FUNCTION cf_aggstate_send(cf_aggstate) IS 'writes a cf_agg state in binary form, its hashes sorted';

-- strict: the executor starts from a copy of the first partial state
CREATE FUNCTION cf_agg_state_combine(cf_aggstate, cf_aggstate) RETURNS cf_aggstate
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION cf_agg_state_final(cf_aggstate) RETURNS cuckoofilter
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cf_agg_state_combine(cf_aggstate, cf_aggstate) IS
	'combine function of the typed cf_agg aggregates: the union of two partial states';
COMMENT ON FUNCTION cf_agg_state_final(cf_aggstate) IS
	'final function of the typed cf_agg aggregates: the filter of the state''s distinct values';

-- One transition function and three aggregates per type, written by a loop:
-- the transition functions are not strict (the state starts as NULL, and a
-- NULL rate or capacity is an error, not a row to skip).  SSPACE: a state of
-- up to 16 distinct values is one 256-byte chunk (docs/aggregates.md has
-- what larger groups cost).
DO $$
DECLARE
	t text;
BEGIN
	FOREACH t IN ARRAY ARRAY['smallint', 'integer', 'bigint', 'uuid',
							 'text', 'character', 'name', '"char"']
	LOOP
		EXECUTE format($f$
			CREATE FUNCTION cf_agg_state_trans(cf_aggstate, %1$s) RETURNS cf_aggstate
				AS 'MODULE_PATHNAME', 'cf_agg_state_trans' LANGUAGE C IMMUTABLE PARALLEL SAFE;
			CREATE FUNCTION cf_agg_state_trans(cf_aggstate, %1$s, double precision) RETURNS cf_aggstate
				AS 'MODULE_PATHNAME', 'cf_agg_state_trans_fpr' LANGUAGE C IMMUTABLE PARALLEL SAFE;
			CREATE FUNCTION cf_agg_state_trans(cf_aggstate, %1$s, double precision, bigint) RETURNS cf_aggstate
				AS 'MODULE_PATHNAME', 'cf_agg_state_trans_capacity' LANGUAGE C IMMUTABLE PARALLEL SAFE;
			COMMENT ON FUNCTION cf_agg_state_trans(cf_aggstate, %1$s) IS
				'transition function of cf_agg(%1$s)';
			COMMENT ON FUNCTION cf_agg_state_trans(cf_aggstate, %1$s, double precision) IS
				'transition function of cf_agg(%1$s, double precision)';
			COMMENT ON FUNCTION cf_agg_state_trans(cf_aggstate, %1$s, double precision, bigint) IS
				'transition function of cf_agg(%1$s, double precision, bigint)';
			CREATE AGGREGATE cf_agg(%1$s) (
				SFUNC = cf_agg_state_trans, STYPE = cf_aggstate, SSPACE = 256,
				FINALFUNC = cf_agg_state_final, COMBINEFUNC = cf_agg_state_combine,
				PARALLEL = SAFE);
			CREATE AGGREGATE cf_agg(%1$s, double precision) (
				SFUNC = cf_agg_state_trans, STYPE = cf_aggstate, SSPACE = 256,
				FINALFUNC = cf_agg_state_final, COMBINEFUNC = cf_agg_state_combine,
				PARALLEL = SAFE);
			CREATE AGGREGATE cf_agg(%1$s, double precision, bigint) (
				SFUNC = cf_agg_state_trans, STYPE = cf_aggstate, SSPACE = 256,
				FINALFUNC = cf_agg_state_final, COMBINEFUNC = cf_agg_state_combine,
				PARALLEL = SAFE);
			COMMENT ON AGGREGATE cf_agg(%1$s) IS
				'a cuckoo filter of the distinct non-NULL values, sized to their number (a state Citus can split)';
			COMMENT ON AGGREGATE cf_agg(%1$s, double precision) IS
				'a cuckoo filter of the distinct non-NULL values at a target false-positive rate (a state Citus can split)';
			COMMENT ON AGGREGATE cf_agg(%1$s, double precision, bigint) IS
				'a cuckoo filter of the distinct non-NULL values with a given capacity and rate (a state Citus can split)';
		$f$, t);
	END LOOP;
END
$$;
