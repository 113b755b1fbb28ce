-- cuckoo--1.1--1.2.sql - updates extension cuckoo from 1.1 to 1.2.
-- Every stored filter keeps reading and answering as before; this round's
-- SQL changes are all in this one script (CHANGELOG.md, "1.2").

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION cuckoo UPDATE TO '1.2'" to load this file. \quit

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
