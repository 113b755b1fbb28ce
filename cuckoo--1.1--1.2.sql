-- cuckoo--1.1--1.2.sql - updates extension cuckoo from 1.1 to 1.2.
-- Every stored filter keeps reading and answering as before; this round's
-- SQL changes are all in this one script (CHANGELOG.md, "1.2").

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION cuckoo UPDATE TO '1.2'" to load this file. \quit

-- issue 24 (and issue 27, item 4): adds and deletes that report what they did

CREATE FUNCTION cf_try_add(filter cuckoofilter, value anyelement) RETURNS cuckoofilter
AS 'MODULE_PATHNAME', 'cuckoo_try_add'
LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION cf_try_add(filter cuckoofilter, value text) RETURNS cuckoofilter
AS 'MODULE_PATHNAME', 'cuckoo_try_add'
LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cf_try_add(cuckoofilter, anyelement) IS
'cf_add that never raises for lack of room: a full fixed-size filter (or one that cannot grow) comes back unchanged; cf_items(result) tells whether the value was stored';
COMMENT ON FUNCTION cf_try_add(cuckoofilter, text) IS
'cf_add that never raises for lack of room: a full fixed-size filter (or one that cannot grow) comes back unchanged; cf_items(result) tells whether the value was stored';

CREATE FUNCTION cf_items(filter cuckoofilter) RETURNS bigint
AS 'MODULE_PATHNAME', 'cuckoo_items'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cf_items(cuckoofilter) IS
'items the filter holds (adds less deletes); cheap, reads an in-memory filter in place';

CREATE FUNCTION cf_add_unique_status(filter cuckoofilter, value anyelement,
	OUT result cuckoofilter, OUT stored boolean)
AS 'MODULE_PATHNAME', 'cuckoo_add_unique_status'
LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION cf_add_unique_status(filter cuckoofilter, value text,
	OUT result cuckoofilter, OUT stored boolean)
AS 'MODULE_PATHNAME', 'cuckoo_add_unique_status'
LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cf_add_unique_status(cuckoofilter, anyelement) IS
'(result, stored): cf_add_unique and whether it stored anything (CF.ADDNX 1/0); false when the filter already reports the value';
COMMENT ON FUNCTION cf_add_unique_status(cuckoofilter, text) IS
'(result, stored): cf_add_unique and whether it stored anything (CF.ADDNX 1/0); false when the filter already reports the value';

CREATE FUNCTION cf_delete_status(filter cuckoofilter, value anyelement,
	OUT result cuckoofilter, OUT removed boolean)
AS 'MODULE_PATHNAME', 'cuckoo_delete_status'
LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION cf_delete_status(filter cuckoofilter, value text,
	OUT result cuckoofilter, OUT removed boolean)
AS 'MODULE_PATHNAME', 'cuckoo_delete_status'
LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cf_delete_status(cuckoofilter, anyelement) IS
'(result, removed): cf_delete and whether it removed an entry (CF.DEL 1/0); false when the value is not reported, or the delete was retained';
COMMENT ON FUNCTION cf_delete_status(cuckoofilter, text) IS
'(result, removed): cf_delete and whether it removed an entry (CF.DEL 1/0); false when the value is not reported, or the delete was retained';

-- issue 24: one rule for NULL parameters.  A NULL filter or value does what
-- each function's comment says; a NULL parameter (capacity, fpr, bucket
-- size, kicks, expansion, kind) is an error, as cf_agg's already was
-- (cf_create(100, NULL) returned NULL, and cf_add(NULL, v) then started a
-- default filter without a word).
ALTER FUNCTION cf_create(bigint, double precision, integer, integer, integer) CALLED ON NULL INPUT;
ALTER FUNCTION cf_set_kind(cuckoofilter, text) CALLED ON NULL INPUT;

-- issue 24: cf_union_agg's NOTICE describes its result (a final function),
-- not the first partial union that went over the target.  An aggregate cannot
-- be altered, only replaced: where a view or function uses it, it stays as
-- it was (its transition function then keeps 1.1's NOTICE).
CREATE FUNCTION cf_union_agg_final(cuckoofilter) RETURNS cuckoofilter
	AS 'MODULE_PATHNAME', 'cf_union_agg_final' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cf_union_agg_final(cuckoofilter) IS
	'cf_union_agg final function: the union, with a NOTICE if its expected false-positive rate is over twice its target';
DO $$
BEGIN
	IF EXISTS (SELECT 1 FROM pg_depend
	            WHERE refclassid = 'pg_proc'::regclass
	              AND refobjid = 'cf_union_agg(cuckoofilter)'::regprocedure
	              AND deptype = 'n') THEN
		RAISE WARNING 'cf_union_agg is used by a view or function, so it is kept as it was: its NOTICE describes the first partial union over the target, not the result'
			USING HINT = 'Drop those objects before ALTER EXTENSION cuckoo UPDATE and re-create them after it to get the new cf_union_agg.';
	ELSE
		DROP AGGREGATE cf_union_agg(cuckoofilter);
		CREATE AGGREGATE cf_union_agg(cuckoofilter) (
			SFUNC = cf_union_agg_trans,
			STYPE = cuckoofilter,
			COMBINEFUNC = cf_union_agg_trans,
			FINALFUNC = cf_union_agg_final,
			PARALLEL = SAFE
		);
		COMMENT ON AGGREGATE cf_union_agg(cuckoofilter) IS
			'the union of the non-NULL filters: every item of each is kept (same bucket size and false-positive rate); a NOTICE if the result''s expected false-positive rate is over twice its target';
	END IF;
END $$;


-- issue 24: the update from 1.0 keeps cf_info's nine columns where a view or
-- function uses it; ALTER EXTENSION runs its scripts with client_min_messages
-- at warning, so 1.1's NOTICE never reached anyone.  Say it as a WARNING.
DO $$
BEGIN
	IF (SELECT cardinality(proallargtypes) FROM pg_proc
	     WHERE oid = 'cf_info(cuckoofilter)'::regprocedure) = 10 THEN
		RAISE WARNING 'cf_info keeps the nine columns of cuckoo 1.0, because a view or function uses it'
			USING HINT = 'Use cf_info_all for every column, or drop those objects, update, and re-create them.';
	END IF;
END $$;

-- issue 24: the btree operator class of cuckoofilter says that its equality
-- is equality of the bytes (as it is), so that a filter of filters is
-- allowed (cuckoo refuses to hash types whose = may call different bytes
-- equal) and btree indexes on filters can deduplicate.
ALTER OPERATOR FAMILY cuckoofilter_ops USING btree
	ADD FUNCTION 4 (cuckoofilter) btequalimage(oid);

-- ---------------------------------------------------------------------
-- issue 28: typed cf_agg overloads (state cf_aggstate, which Citus splits)
-- for the other types key columns commonly have, one or more per value
-- kind the filter records: numbers (numeric, real, double precision),
-- datetimes (date, timestamp, timestamptz), interval, bytea, boolean,
-- jsonb, and inet.  They hash and build exactly as cf_agg(anyelement)
-- does, so the filter of a column is byte-identical whichever runs.  Types
-- that cast implicitly to one of these and had no overload would now
-- resolve to it instead of to cf_agg(anyelement), and hash as that type:
-- cidr (-> inet) and time (-> interval) get overloads of their own, so
-- every call keeps the filter it built in 1.1.  The state's external forms
-- become version 2 (delta-encoded hashes, FORMAT.md); version 1 is read
-- beside it.
-- ---------------------------------------------------------------------
DO $$
DECLARE
	t text;
BEGIN
	FOREACH t IN ARRAY ARRAY['numeric', 'real', 'double precision', 'date',
							 'timestamp without time zone', 'timestamp with time zone',
							 'interval', 'time without time zone', 'bytea', 'boolean',
							 'jsonb', 'inet', 'cidr']
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
COMMENT ON FUNCTION cf_aggstate_out(cf_aggstate) IS 'writes a cf_agg state as base64 text (version 2: its sorted hashes delta-encoded)';
COMMENT ON FUNCTION cf_aggstate_send(cf_aggstate) IS 'writes a cf_agg state in binary form (version 2: its sorted hashes delta-encoded)';
COMMENT ON FUNCTION cf_aggstate_in(cstring) IS 'reads a cf_agg state from its base64 text form (version 1 or 2), checked';
COMMENT ON FUNCTION cf_aggstate_recv(internal) IS 'reads a cf_agg state from its binary form (version 1 or 2), checked';

-- issue 26: semi-sorted buckets (table encoding 1), one bit an item less
-- than bit-packed buckets for slower lookups and adds: asked for by name at
-- cf_create and in cf_agg; cf_encoding says which a filter uses.  New
-- overloads only: every existing call resolves as before (a text argument
-- where the older forms take integers).
CREATE FUNCTION cf_create(capacity bigint, fpr double precision, encoding text,
						  bucket_size integer DEFAULT 4, max_kicks integer DEFAULT 500,
						  expansion integer DEFAULT 2)
	RETURNS cuckoofilter
	AS 'MODULE_PATHNAME', 'cuckoo_create_encoding'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cf_create(bigint, double precision, text, integer, integer, integer) IS
	'an empty cuckoo filter whose tables use the named encoding: ''packed'' (as cf_create(capacity, fpr)) or ''semisorted'' (bucket size 4, one bit an item less, slower lookups and adds)';

CREATE FUNCTION cf_encoding(filter cuckoofilter) RETURNS text
	AS 'MODULE_PATHNAME', 'cuckoo_encoding'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION cf_encoding(cuckoofilter) IS
	'the table encoding of a filter: ''packed'', ''semisorted'', or ''mixed'' (a union of both)';

CREATE FUNCTION cf_agg_trans(internal, anyelement, double precision, bigint, text) RETURNS internal
	AS 'MODULE_PATHNAME', 'cf_agg_trans_encoding' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cf_agg_trans(internal, anyelement, double precision, bigint, text) IS
	'cf_agg transition function with a false-positive rate, a capacity and a table encoding';

CREATE AGGREGATE cf_agg(anyelement, double precision, bigint, text) (
	SFUNC = cf_agg_trans,
	STYPE = internal,
	SSPACE = 128,
	FINALFUNC = cf_agg_final,
	COMBINEFUNC = cf_agg_combine,
	SERIALFUNC = cf_agg_serial,
	DESERIALFUNC = cf_agg_deserial,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE cf_agg(anyelement, double precision, bigint, text) IS
	'a cuckoo filter of the distinct non-NULL values with the given false-positive rate, capacity (0: sized by the data) and table encoding (''packed'' or ''semisorted'')';

-- issue 24: support functions (aggregate transition, final, combine and
-- serial functions, type I/O, planner support) are renamed from cf_* to
-- cuckoo_*, so that \df cf_* lists what users call.  Renaming keeps every
-- aggregate, type, operator and view that uses them working (they refer to
-- functions by OID); the C symbols do not change.  It renames by name, so it
-- belongs at the end of the script: support functions that other sections of
-- this round add (more cf_agg_state_trans overloads, say) are renamed too.
DO $$
DECLARE
	r record;
BEGIN
	FOR r IN
		SELECT p.oid::regprocedure AS sig, p.proname
		  FROM pg_proc p
		  JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid
		                  AND d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'
		  JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'cuckoo'
		 WHERE p.proname IN ('cf_agg_trans', 'cf_agg_final', 'cf_agg_combine', 'cf_agg_serial',
		                     'cf_agg_deserial', 'cf_agg_state_trans', 'cf_agg_state_combine',
		                     'cf_agg_state_final', 'cf_union_agg_trans', 'cf_union_agg_final',
		                     'cf_contains_support', 'cf_contains_sel', 'cf_contains_joinsel',
		                     'cf_aggstate_in', 'cf_aggstate_out', 'cf_aggstate_recv',
		                     'cf_aggstate_send')
	LOOP
		EXECUTE format('ALTER FUNCTION %s RENAME TO %I', r.sig,
		               CASE WHEN r.proname LIKE 'cf_agg_state_%'
		                    THEN 'cuckoo_aggstate_' || substr(r.proname, 14)
		                    ELSE 'cuckoo_' || substr(r.proname, 4) END);
	END LOOP;
END $$;
