-- cuckoo--1.0.sql - the cuckoofilter type, its functions and operators.
-- A filter's text form is the strict base64 of its portable bytes (FORMAT.md).

-- complain if script is sourced in psql, rather than via CREATE EXTENSION
\echo Use "CREATE EXTENSION cuckoo" to load this file. \quit

-- type

CREATE TYPE cuckoofilter;

CREATE FUNCTION cuckoofilter_in(cstring) RETURNS cuckoofilter
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION cuckoofilter_out(cuckoofilter) RETURNS cstring
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION cuckoofilter_recv(internal) RETURNS cuckoofilter
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION cuckoofilter_send(cuckoofilter) RETURNS bytea
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- STORAGE external: stored out of line when large, never compressed.
-- Measured on a 1M-capacity filter (1.31 MB, docs/performance.md row 6):
-- reads cost the same under every strategy (the detoasted filter is cached
-- per query), but pglz makes writes slow: a half-full filter takes 87 ms to
-- write against 3 ms uncompressed, a full one 19 ms against 3 ms, and an
-- UPDATE of 1,000 13 kB filters 90 ms against 34 ms.  Compression only pays
-- for sparse filters (a fresh one shrinks to 15 kB), so tables of those can
-- opt in: ALTER TABLE t ALTER COLUMN f SET STORAGE EXTENDED, SET COMPRESSION lz4.
CREATE TYPE cuckoofilter (
	INPUT = cuckoofilter_in,
	OUTPUT = cuckoofilter_out,
	RECEIVE = cuckoofilter_recv,
	SEND = cuckoofilter_send,
	INTERNALLENGTH = VARIABLE,
	STORAGE = external
);

COMMENT ON TYPE cuckoofilter IS 'cuckoo filter: approximate set membership with deletion, no false negatives';
COMMENT ON FUNCTION cuckoofilter_in(cstring) IS 'reads a cuckoo filter from its base64 text form';
COMMENT ON FUNCTION cuckoofilter_out(cuckoofilter) IS 'writes a cuckoo filter as base64 text';
COMMENT ON FUNCTION cuckoofilter_recv(internal) IS 'reads a cuckoo filter from its binary form';
COMMENT ON FUNCTION cuckoofilter_send(cuckoofilter) IS 'writes a cuckoo filter in its binary form';

-- functions

CREATE FUNCTION cf_create(capacity bigint, fpr double precision DEFAULT 0.01,
						  bucket_size integer DEFAULT 4, max_kicks integer DEFAULT 500,
						  expansion integer DEFAULT 2)
	RETURNS cuckoofilter
	AS 'MODULE_PATHNAME', 'cuckoo_create' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION cf_create(bigint, double precision, integer, integer, integer) IS
	'creates an empty cuckoo filter for capacity items at false-positive rate fpr';

-- not strict: cf_add(NULL, v) starts a filter with default parameters and a
-- NULL value leaves the filter unchanged
CREATE FUNCTION cf_add(filter cuckoofilter, value anyelement) RETURNS cuckoofilter
	AS 'MODULE_PATHNAME', 'cuckoo_add' LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION cf_add(filter cuckoofilter, value text) RETURNS cuckoofilter
	AS 'MODULE_PATHNAME', 'cuckoo_add' LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION cf_add(cuckoofilter, anyelement) IS
	'adds one copy of a value; a NULL filter starts a new one, a NULL value changes nothing';
COMMENT ON FUNCTION cf_add(cuckoofilter, text) IS
	'adds one copy of a text value; a NULL filter starts a new one, a NULL value changes nothing';

-- set semantics: like cf_add, but a value the filter already reports
-- present is not stored again (a false positive means it is not stored)
CREATE FUNCTION cf_add_unique(filter cuckoofilter, value anyelement) RETURNS cuckoofilter
	AS 'MODULE_PATHNAME', 'cuckoo_add_unique' LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION cf_add_unique(filter cuckoofilter, value text) RETURNS cuckoofilter
	AS 'MODULE_PATHNAME', 'cuckoo_add_unique' LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION cf_add_unique(cuckoofilter, anyelement) IS
	'adds a value unless the filter already reports it present (set semantics); a NULL filter starts a new one';
COMMENT ON FUNCTION cf_add_unique(cuckoofilter, text) IS
	'adds a text value unless the filter already reports it present (set semantics); a NULL filter starts a new one';

-- batch add: one copy of the filter for all the values of an array
CREATE FUNCTION cf_add_all(filter cuckoofilter, vals anyarray) RETURNS cuckoofilter
	AS 'MODULE_PATHNAME', 'cuckoo_add_all' LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION cf_add_all(cuckoofilter, anyarray) IS
	'adds one copy of every non-NULL element of an array; a NULL filter starts a new one';

-- planner estimates: with a constant filter, the fraction of rows that pass is
-- estimated from its item count, its false-positive rate and the column's
-- distinct values, instead of PostgreSQL's fixed one third
CREATE FUNCTION cf_contains_support(internal) RETURNS internal
	AS 'MODULE_PATHNAME', 'cuckoo_contains_support' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION cf_contains_sel(internal, oid, internal, integer) RETURNS double precision
	AS 'MODULE_PATHNAME', 'cuckoo_contains_sel' LANGUAGE C STABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION cf_contains_support(internal) IS 'planner support for cf_contains: selectivity of a constant filter';
COMMENT ON FUNCTION cf_contains_sel(internal, oid, internal, integer) IS 'restriction selectivity of filter @> value';

CREATE FUNCTION cf_contains(filter cuckoofilter, value anyelement) RETURNS boolean
	AS 'MODULE_PATHNAME', 'cuckoo_contains' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
	SUPPORT cf_contains_support;

CREATE FUNCTION cf_contains(filter cuckoofilter, value text) RETURNS boolean
	AS 'MODULE_PATHNAME', 'cuckoo_contains' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
	SUPPORT cf_contains_support;

COMMENT ON FUNCTION cf_contains(cuckoofilter, anyelement) IS
	'true if the value may be in the filter, false if it certainly is not';
COMMENT ON FUNCTION cf_contains(cuckoofilter, text) IS
	'true if the text value may be in the filter, false if it certainly is not';

CREATE FUNCTION cf_delete(filter cuckoofilter, value anyelement) RETURNS cuckoofilter
	AS 'MODULE_PATHNAME', 'cuckoo_delete' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION cf_delete(filter cuckoofilter, value text) RETURNS cuckoofilter
	AS 'MODULE_PATHNAME', 'cuckoo_delete' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION cf_delete(cuckoofilter, anyelement) IS
	'removes one copy of a value that was added; unchanged if absent; deleting a value never added can remove another value''s fingerprint';
COMMENT ON FUNCTION cf_delete(cuckoofilter, text) IS
	'removes one copy of a text value that was added; unchanged if absent; deleting a value never added can remove another value''s fingerprint';

CREATE FUNCTION cf_count(filter cuckoofilter, value anyelement) RETURNS integer
	AS 'MODULE_PATHNAME', 'cuckoo_count' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION cf_count(filter cuckoofilter, value text) RETURNS integer
	AS 'MODULE_PATHNAME', 'cuckoo_count' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION cf_count(cuckoofilter, anyelement) IS
	'copies of the value''s fingerprint in the filter: at least the times it was added and not deleted';
COMMENT ON FUNCTION cf_count(cuckoofilter, text) IS
	'copies of the text value''s fingerprint in the filter: at least the times it was added and not deleted';

CREATE FUNCTION cf_union(a cuckoofilter, b cuckoofilter) RETURNS cuckoofilter
	AS 'MODULE_PATHNAME', 'cuckoo_union' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION cf_union(cuckoofilter, cuckoofilter) IS
	'a filter holding every item of both filters (same bucket size and false-positive rate)';

CREATE FUNCTION cf_info(filter cuckoofilter,
						OUT capacity bigint, OUT items bigint, OUT buckets bigint,
						OUT bucket_size integer, OUT fingerprint_bits integer,
						OUT load_factor double precision, OUT fpr double precision,
						OUT bytes bigint, OUT subfilters integer)
	RETURNS record
	AS 'MODULE_PATHNAME', 'cuckoo_info' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION cf_info(cuckoofilter) IS
	'parameters and statistics of a filter: capacity, items, load, expected false-positive rate, size in bytes';

CREATE FUNCTION cf_hash(value anyelement) RETURNS bigint
	AS 'MODULE_PATHNAME', 'cuckoo_hash' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION cf_hash(value text) RETURNS bigint
	AS 'MODULE_PATHNAME', 'cuckoo_hash' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION cf_hash(anyelement) IS
	'the 64-bit hash a cuckoo filter uses for a value';
COMMENT ON FUNCTION cf_hash(text) IS
	'the 64-bit hash a cuckoo filter uses for a text value';

-- operators

CREATE OPERATOR @> (
	LEFTARG = cuckoofilter,
	RIGHTARG = anyelement,
	FUNCTION = cf_contains,
	RESTRICT = cf_contains_sel
);

CREATE OPERATOR @> (
	LEFTARG = cuckoofilter,
	RIGHTARG = text,
	FUNCTION = cf_contains,
	RESTRICT = cf_contains_sel
);

COMMENT ON OPERATOR @> (cuckoofilter, anyelement) IS 'filter may contain value (same as cf_contains)';
COMMENT ON OPERATOR @> (cuckoofilter, text) IS 'filter may contain text value (same as cf_contains)';

-- aggregates

-- cf_agg(value [, fpr]): a filter of the distinct non-NULL values, sized to
-- their number.  The state is internal (the values' hashes), so parallel
-- plans need the combine, serial and deserial functions; the transition
-- functions are not strict because the state starts as NULL.  SSPACE: a
-- small group's state is one 64-byte chunk; without an estimate a hash
-- aggregate assumes 8 kB a group and spills many small groups to disk for
-- nothing (it still checks the memory really used against work_mem).

CREATE FUNCTION cf_agg_trans(internal, anyelement) RETURNS internal
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION cf_agg_trans(internal, anyelement, double precision) RETURNS internal
	AS 'MODULE_PATHNAME', 'cf_agg_trans_fpr' LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION cf_agg_final(internal) RETURNS cuckoofilter
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION cf_agg_combine(internal, internal) RETURNS internal
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION cf_agg_serial(internal) RETURNS bytea
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION cf_agg_deserial(bytea, internal) RETURNS internal
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE AGGREGATE cf_agg(anyelement) (
	SFUNC = cf_agg_trans,
	STYPE = internal,
	SSPACE = 128,
	FINALFUNC = cf_agg_final,
	COMBINEFUNC = cf_agg_combine,
	SERIALFUNC = cf_agg_serial,
	DESERIALFUNC = cf_agg_deserial,
	PARALLEL = SAFE
);

CREATE AGGREGATE cf_agg(anyelement, double precision) (
	SFUNC = cf_agg_trans,
	STYPE = internal,
	SSPACE = 128,
	FINALFUNC = cf_agg_final,
	COMBINEFUNC = cf_agg_combine,
	SERIALFUNC = cf_agg_serial,
	DESERIALFUNC = cf_agg_deserial,
	PARALLEL = SAFE
);

-- cf_agg(value, fpr, capacity): a filter of the given capacity (growing if
-- more values come), so filters built apart share one geometry and
-- cf_union / cf_union_agg fold them into one table
CREATE FUNCTION cf_agg_trans(internal, anyelement, double precision, bigint) RETURNS internal
	AS 'MODULE_PATHNAME', 'cf_agg_trans_capacity' LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE cf_agg(anyelement, double precision, bigint) (
	SFUNC = cf_agg_trans,
	STYPE = internal,
	SSPACE = 128,
	FINALFUNC = cf_agg_final,
	COMBINEFUNC = cf_agg_combine,
	SERIALFUNC = cf_agg_serial,
	DESERIALFUNC = cf_agg_deserial,
	PARALLEL = SAFE
);

COMMENT ON FUNCTION cf_agg_trans(internal, anyelement, double precision, bigint) IS
	'cf_agg transition function with a false-positive rate and a capacity';
COMMENT ON AGGREGATE cf_agg(anyelement, double precision, bigint) IS
	'a cuckoo filter of the distinct non-NULL values with the given false-positive rate and capacity (filters built apart with one capacity merge into one table)';

COMMENT ON FUNCTION cf_agg_trans(internal, anyelement) IS 'cf_agg transition function';
COMMENT ON FUNCTION cf_agg_trans(internal, anyelement, double precision) IS 'cf_agg transition function with a false-positive rate';
COMMENT ON FUNCTION cf_agg_final(internal) IS 'cf_agg final function';
COMMENT ON FUNCTION cf_agg_combine(internal, internal) IS 'cf_agg combine function';
COMMENT ON FUNCTION cf_agg_serial(internal) IS 'cf_agg serialization function';
COMMENT ON FUNCTION cf_agg_deserial(bytea, internal) IS 'cf_agg deserialization function';
COMMENT ON AGGREGATE cf_agg(anyelement) IS
	'a cuckoo filter of the distinct non-NULL values, sized to their number, false-positive rate 0.01';
COMMENT ON AGGREGATE cf_agg(anyelement, double precision) IS
	'a cuckoo filter of the distinct non-NULL values, sized to their number, at the given false-positive rate';

-- cf_union_agg(filter): the union of the non-NULL filters.  Its state is a
-- cuckoofilter, not internal, so Citus can push it down to the shards.
CREATE FUNCTION cf_union_agg_trans(cuckoofilter, cuckoofilter) RETURNS cuckoofilter
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE AGGREGATE cf_union_agg(cuckoofilter) (
	SFUNC = cf_union_agg_trans,
	STYPE = cuckoofilter,
	COMBINEFUNC = cf_union_agg_trans,
	PARALLEL = SAFE
);

COMMENT ON FUNCTION cf_union_agg_trans(cuckoofilter, cuckoofilter) IS
	'cf_union_agg transition and combine function: the union of two filters';
COMMENT ON AGGREGATE cf_union_agg(cuckoofilter) IS
	'the union of the non-NULL filters: every item of each is kept (same bucket size and false-positive rate)';
