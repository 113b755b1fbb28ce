-- cuckoo--1.1--1.2.sql - updates extension cuckoo from 1.1 to 1.2.
-- Every stored filter keeps reading and answering as before; this round's
-- SQL changes are all in this one script (CHANGELOG.md, "1.2").

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION cuckoo UPDATE TO '1.2'" to load this file. \quit

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
