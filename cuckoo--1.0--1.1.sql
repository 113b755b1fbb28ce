-- cuckoo--1.0--1.1.sql - updates extension cuckoo from 1.0 to 1.1.
-- New filters are written in format version 2 (FORMAT.md); version-1
-- filters keep reading, and are rewritten as version 2 when changed.

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION cuckoo UPDATE TO '1.1'" to load this file. \quit

-- cf_info: the 1.0 columns, then the rate asked for, the growth settings,
-- the format, and the deletes done and left in place (FORMAT.md, "Deletes")
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
-- updates, copied) once instead of once per element (src/cuckoo_batch.c)

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
