-- cuckoo--1.3--1.4.sql - updates extension cuckoo from 1.3 to 1.4.
-- Every stored filter keeps reading and answering as before; this round's
-- SQL changes are all in this one script (CHANGELOG.md, "1.4").

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION cuckoo UPDATE TO '1.4'" to load this file. \quit

-- The seen recipe in three columns (docs/seen.md, "Three columns"): base
-- cuckoofilter, mid and delta arrays of the items.  A mark prepends to
-- delta; a full delta moves to mid; a mid over base's bytes / 4 is folded,
-- with delta, into base.  Every function takes the old values of all three
-- columns, so one UPDATE sets them all.  Not strict: a NULL base, mid or
-- delta is empty; a NULL item changes nothing.
CREATE FUNCTION cf_mark_base(base cuckoofilter, mid anyarray, delta anyarray, item anyelement) RETURNS cuckoofilter
	AS 'MODULE_PATHNAME', 'cuckoo_mark3_base' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION cf_mark_mid(base cuckoofilter, mid anyarray, delta anyarray, item anyelement) RETURNS anyarray
	AS 'MODULE_PATHNAME', 'cuckoo_mark3_mid' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION cf_mark_delta(base cuckoofilter, mid anyarray, delta anyarray, item anyelement) RETURNS anyarray
	AS 'MODULE_PATHNAME', 'cuckoo_mark3_delta' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION cf_mark_all_base(base cuckoofilter, mid anyarray, delta anyarray, items anyarray) RETURNS cuckoofilter
	AS 'MODULE_PATHNAME', 'cuckoo_mark3_all_base' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION cf_mark_all_mid(base cuckoofilter, mid anyarray, delta anyarray, items anyarray) RETURNS anyarray
	AS 'MODULE_PATHNAME', 'cuckoo_mark3_all_mid' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION cf_mark_all_delta(base cuckoofilter, mid anyarray, delta anyarray, items anyarray) RETURNS anyarray
	AS 'MODULE_PATHNAME', 'cuckoo_mark3_all_delta' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION cf_unsee_base(base cuckoofilter, mid anyarray, delta anyarray, item anyelement) RETURNS cuckoofilter
	AS 'MODULE_PATHNAME', 'cuckoo_unsee3_base' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION cf_unsee_mid(base cuckoofilter, mid anyarray, delta anyarray, item anyelement) RETURNS anyarray
	AS 'MODULE_PATHNAME', 'cuckoo_unsee3_mid' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION cf_unsee_delta(base cuckoofilter, mid anyarray, delta anyarray, item anyelement) RETURNS anyarray
	AS 'MODULE_PATHNAME', 'cuckoo_unsee3_delta' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION cf_seen(base cuckoofilter, mid anyarray, delta anyarray, item anyelement) RETURNS boolean
	AS 'MODULE_PATHNAME', 'cuckoo_seen3' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION cf_unseen(base cuckoofilter, mid anyarray, delta anyarray, candidates anyarray) RETURNS anyarray
	AS 'MODULE_PATHNAME', 'cuckoo_unseen3' LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION cf_mark_base(cuckoofilter, anyarray, anyarray, anyelement) IS
	'three-column seen recipe: base after marking item (base itself, not rewritten, unless mid and delta are folded into it); set mid and delta with cf_mark_mid and cf_mark_delta in the same UPDATE';
COMMENT ON FUNCTION cf_mark_mid(cuckoofilter, anyarray, anyarray, anyelement) IS
	'three-column seen recipe: mid after marking item (mid itself unless delta is folded into it; NULL after a fold into base)';
COMMENT ON FUNCTION cf_mark_delta(cuckoofilter, anyarray, anyarray, anyelement) IS
	'three-column seen recipe: delta after marking item (item prepended; NULL after a fold into mid or base)';
COMMENT ON FUNCTION cf_mark_all_base(cuckoofilter, anyarray, anyarray, anyarray) IS
	'three-column seen recipe: base after marking every non-NULL element of items, in order (one fold at most)';
COMMENT ON FUNCTION cf_mark_all_mid(cuckoofilter, anyarray, anyarray, anyarray) IS
	'three-column seen recipe: mid after marking every non-NULL element of items, in order';
COMMENT ON FUNCTION cf_mark_all_delta(cuckoofilter, anyarray, anyarray, anyarray) IS
	'three-column seen recipe: delta after marking every non-NULL element of items, in order';
COMMENT ON FUNCTION cf_unsee_base(cuckoofilter, anyarray, anyarray, anyelement) IS
	'three-column seen recipe: base after one unsee of item (changed only if neither delta nor mid holds it); only for an item that was marked';
COMMENT ON FUNCTION cf_unsee_mid(cuckoofilter, anyarray, anyarray, anyelement) IS
	'three-column seen recipe: mid after one unsee of item (its newest copy removed, if delta does not hold it and mid does)';
COMMENT ON FUNCTION cf_unsee_delta(cuckoofilter, anyarray, anyarray, anyelement) IS
	'three-column seen recipe: delta after one unsee of item (its newest copy removed, if delta holds it)';
COMMENT ON FUNCTION cf_seen(cuckoofilter, anyarray, anyarray, anyelement) IS
	'three-column seen recipe: whether item is in delta or mid or reported present by base (false positives possible, false negatives not)';
COMMENT ON FUNCTION cf_unseen(cuckoofilter, anyarray, anyarray, anyarray) IS
	'three-column seen recipe: the candidates neither in delta nor in mid nor reported present by base, in order (NULL elements dropped)';
