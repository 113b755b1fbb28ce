-- cuckoo--1.2--1.3.sql - updates extension cuckoo from 1.2 to 1.3.
-- Every stored filter keeps reading and answering as before; this round's
-- SQL changes are all in this one script (CHANGELOG.md, "1.3").

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION cuckoo UPDATE TO '1.3'" to load this file. \quit

-- ---------------------------------------------------------------------
-- issue 33: answers that mislead
-- ---------------------------------------------------------------------

-- issue 33 (a): a list says it is one.  cf_info_all gains two columns:
-- layout ('list' for a growing filter's start, its values' exact 64-bit
-- hashes; 'table' otherwise) and list_max (the hashes a list holds before an
-- add makes it a table; NULL for a table).  A function's result columns can
-- only change by dropping it, which a view or function that uses it forbids:
-- there cf_info_all keeps its 1.1 columns and a WARNING says so.  cf_info
-- keeps its columns in every case (views use it).
DO $$
BEGIN
	IF EXISTS (SELECT FROM pg_depend
				WHERE refclassid = 'pg_proc'::regclass
				  AND refobjid = 'cf_info_all(cuckoofilter)'::regprocedure
				  AND deptype = 'n') THEN
		RAISE WARNING 'cf_info_all keeps the columns of cuckoo 1.2, without layout and list_max, because a view or function uses it'
			USING HINT = 'Drop those objects, update, and re-create them; cf_describe says whether a filter is a list.';
	ELSE
		DROP FUNCTION cf_info_all(cuckoofilter);
		CREATE FUNCTION cf_info_all(filter cuckoofilter,
								OUT capacity bigint, OUT items bigint, OUT buckets bigint,
								OUT bucket_size integer, OUT fingerprint_bits integer,
								OUT load_factor double precision, OUT fpr double precision,
								OUT bytes bigint, OUT subfilters integer,
								OUT target_fpr double precision, OUT expansion integer,
								OUT max_kicks integer, OUT growing boolean,
								OUT format_version integer, OUT value_hashing integer,
								OUT deletes bigint, OUT retained bigint, OUT families integer,
								OUT value_kind text, OUT layout text, OUT list_max bigint)
			RETURNS record
			AS 'MODULE_PATHNAME', 'cuckoo_info' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
		COMMENT ON FUNCTION cf_info_all(cuckoofilter) IS
			'every parameter and statistic of a filter: cf_info''s columns, then its layout (''list'': exact 64-bit hashes, of which a list holds list_max before it becomes a table; ''table'')';
	END IF;
END $$;
COMMENT ON FUNCTION cf_describe(cuckoofilter) IS
	'a one-line summary: items, capacity, expected and target false-positive rates, sub-filters, size; for a list (a growing filter''s start) its exact hashes and the items it holds before it becomes a table';

-- issue 33 (b): cf_debug_state is a testing aid, VOLATILE and PARALLEL
-- RESTRICTED (its counters belong to the calling backend and move between
-- calls); it leaves the cf_ namespace as the support functions did in 1.2,
-- so that every cf_* function is IMMUTABLE PARALLEL SAFE as documented.  A
-- rename keeps the OID: views and functions that call it keep working.
ALTER FUNCTION cf_debug_state(cuckoofilter) RENAME TO cuckoo_debug_state;
COMMENT ON FUNCTION cuckoo_debug_state(cuckoofilter) IS
'internal testing aid (VOLATILE, PARALLEL RESTRICTED; cf_debug_state before 1.3): how the filter value was passed (flat, toasted, compressed, expanded read-write or read-only; newest: whether an expanded value is the newest state of its buffer) and this backend''s counts of in-place adds and deletes, whole-filter copies (growth not counted) and flattenings of expanded filters; not a stable interface';

-- issue 33 (d): per-element answers of the batch add and delete (RedisBloom's
-- CF.INSERTNX), so that the safe mark / unsee recipe works for batches.  Not
-- strict, as cf_add_all_unique and cf_delete_all: a NULL filter starts a
-- default one (add) or stays NULL with every answer false (delete); a NULL
-- array leaves the filter unchanged with a NULL answer array; a NULL element
-- has a NULL answer.
CREATE FUNCTION cf_add_all_unique_status(filter cuckoofilter, vals anyarray,
	OUT result cuckoofilter, OUT stored boolean[])
AS 'MODULE_PATHNAME', 'cuckoo_add_all_unique_status'
LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cf_add_all_unique_status(cuckoofilter, anyarray) IS
'(result, stored): cf_add_all_unique and, per element, whether it stored it (CF.INSERTNX 1/0): false when the filter already reported the value, also one added earlier in the array; NULL for a NULL element';

CREATE FUNCTION cf_delete_all_status(filter cuckoofilter, vals anyarray,
	OUT result cuckoofilter, OUT removed boolean[])
AS 'MODULE_PATHNAME', 'cuckoo_delete_all_status'
LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cf_delete_all_status(cuckoofilter, anyarray) IS
'(result, removed): cf_delete_all and, per element, whether it removed an entry (CF.DEL 1/0): false when the value was not reported (also after earlier elements removed its copies) or the delete was retained; NULL for a NULL element';
