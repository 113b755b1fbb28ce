-- cuckoo--1.2--1.3.sql - updates extension cuckoo from 1.2 to 1.3.
-- Every stored filter keeps reading and answering as before; this round's
-- SQL changes are all in this one script (CHANGELOG.md, "1.3").

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION cuckoo UPDATE TO '1.3'" to load this file. \quit

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
