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
-- issue 34: the seen recipe in two columns (docs/seen.md).  base is a filter
-- a mark leaves untouched (the same toast pointer: none of it is written
-- again); delta is an array of the newest marks, folded into base when it
-- outgrows a limit set by base's size.  Every function takes the old values
-- of both columns, so one UPDATE sets both.  Not strict: a NULL base or
-- delta is empty; a NULL item changes nothing.
CREATE FUNCTION cf_mark_base(base cuckoofilter, delta anyarray, item anyelement) RETURNS cuckoofilter
	AS 'MODULE_PATHNAME', 'cuckoo_mark_base' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION cf_mark_delta(base cuckoofilter, delta anyarray, item anyelement) RETURNS anyarray
	AS 'MODULE_PATHNAME', 'cuckoo_mark_delta' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION cf_mark_all_base(base cuckoofilter, delta anyarray, items anyarray) RETURNS cuckoofilter
	AS 'MODULE_PATHNAME', 'cuckoo_mark_all_base' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION cf_mark_all_delta(base cuckoofilter, delta anyarray, items anyarray) RETURNS anyarray
	AS 'MODULE_PATHNAME', 'cuckoo_mark_all_delta' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION cf_unsee_base(base cuckoofilter, delta anyarray, item anyelement) RETURNS cuckoofilter
	AS 'MODULE_PATHNAME', 'cuckoo_unsee_base' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION cf_unsee_delta(base cuckoofilter, delta anyarray, item anyelement) RETURNS anyarray
	AS 'MODULE_PATHNAME', 'cuckoo_unsee_delta' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION cf_seen(base cuckoofilter, delta anyarray, item anyelement) RETURNS boolean
	AS 'MODULE_PATHNAME', 'cuckoo_seen' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION cf_unseen(base cuckoofilter, delta anyarray, candidates anyarray) RETURNS anyarray
	AS 'MODULE_PATHNAME', 'cuckoo_unseen' LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION cf_mark_base(cuckoofilter, anyarray, anyelement) IS
	'seen recipe: base after marking item (base itself, not rewritten, unless delta is folded into it); set delta = cf_mark_delta(base, delta, item) in the same UPDATE';
COMMENT ON FUNCTION cf_mark_delta(cuckoofilter, anyarray, anyelement) IS
	'seen recipe: delta after marking item (item prepended; NULL after a fold into base); set base = cf_mark_base(base, delta, item) in the same UPDATE';
COMMENT ON FUNCTION cf_mark_all_base(cuckoofilter, anyarray, anyarray) IS
	'seen recipe: base after marking every non-NULL element of items, in order (one fold at most)';
COMMENT ON FUNCTION cf_mark_all_delta(cuckoofilter, anyarray, anyarray) IS
	'seen recipe: delta after marking every non-NULL element of items, in order';
COMMENT ON FUNCTION cf_unsee_base(cuckoofilter, anyarray, anyelement) IS
	'seen recipe: base after one unsee of item (changed only if delta does not hold it); only for an item that was marked';
COMMENT ON FUNCTION cf_unsee_delta(cuckoofilter, anyarray, anyelement) IS
	'seen recipe: delta after one unsee of item (its newest copy removed, if delta holds it)';
COMMENT ON FUNCTION cf_seen(cuckoofilter, anyarray, anyelement) IS
	'seen recipe: whether item is in delta or reported present by base (false positives possible, false negatives not)';
COMMENT ON FUNCTION cf_unseen(cuckoofilter, anyarray, anyarray) IS
	'seen recipe: the candidates neither in delta nor reported present by base, in order (NULL elements dropped)';
