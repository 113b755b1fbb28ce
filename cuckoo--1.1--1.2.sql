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
