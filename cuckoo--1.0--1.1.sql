-- cuckoo--1.0--1.1.sql - the SQL added in version 1.1 (CREATE EXTENSION runs
-- cuckoo--1.0.sql and then this script).
\echo Use "ALTER EXTENSION cuckoo UPDATE TO '1.1'" to load this file. \quit

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
