-- cuckoo--1.0--1.1.sql - the SQL added in version 1.1 (CREATE EXTENSION runs
-- cuckoo--1.0.sql and then this script).

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION cuckoo UPDATE TO '1.1'" to load this file. \quit

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
