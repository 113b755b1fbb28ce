-- cuckoo--1.4--1.5.sql - updates extension cuckoo from 1.4 to 1.5.
-- Every stored filter keeps reading and answering as before; this round's
-- SQL changes are all in this one script (CHANGELOG.md, "1.5").

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION cuckoo UPDATE TO '1.5'" to load this file. \quit

-- cf_verify (issue 48): the full check of a filter's bytes, reported as a row
-- rather than raised, so that it runs over a column of filters, damaged ones
-- included: SELECT id FROM t WHERE NOT (cf_verify(f)).ok.  STRICT (a NULL
-- filter has nothing to check, as amcheck's functions), IMMUTABLE and
-- PARALLEL SAFE: a pure function of the bytes.
CREATE FUNCTION cf_verify(f cuckoofilter,
                          OUT ok boolean, OUT version integer, OUT subfilters integer,
                          OUT items bigint, OUT problems text[])
RETURNS record
AS 'MODULE_PATHNAME', 'cuckoo_verify'
LANGUAGE C STRICT IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cf_verify(cuckoofilter) IS
  'full check of a filter''s bytes (format version 3: check bytes of header and descriptors; every version: every slot, the stash, counts against contents, lists sorted): ok, the format version, sub-filters, items, and the problems found';

-- the same check of bytes that are not (yet) a filter: a file's, a dump's, a
-- client's, which cuckoofilter's input would refuse with the first problem only
CREATE FUNCTION cf_verify(bytes bytea,
                          OUT ok boolean, OUT version integer, OUT subfilters integer,
                          OUT items bigint, OUT problems text[])
RETURNS record
AS 'MODULE_PATHNAME', 'cuckoo_verify'
LANGUAGE C STRICT IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION cf_verify(bytea) IS
  'cf_verify of bytes that may be a cuckoo filter: what the cuckoofilter input would check, every problem reported';
