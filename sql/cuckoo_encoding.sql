-- cuckoo_encoding: text hashes as UTF-8 whatever the database encoding, so a
-- filter answers the same after a move between databases; nondeterministic
-- collations are refused (equal values with other bytes would be "absent").
SET client_encoding = 'UTF8';
\set regdb :DBNAME
CREATE TYPE cf_mood AS ENUM ('ça va', 'bof');
SELECT cf_hash('café'::text) AS h_text, cf_hash('café'::char(8)) AS h_bpchar,
       cf_hash('ça va'::cf_mood) AS h_enum \gset
-- a filter of text and enum labels: marked as holding several kinds
SELECT cf_add(cf_add(cf_set_kind(cf_create(100), 'any'), 'café'), 'ça va'::cf_mood) AS f_utf8 \gset

CREATE DATABASE cf_latin1 ENCODING 'LATIN1' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0;
\c cf_latin1
SET client_encoding = 'UTF8';
CREATE EXTENSION cuckoo;
CREATE TYPE cf_mood AS ENUM ('ça va', 'bof');
SELECT current_setting('server_encoding') AS server_encoding,
       cf_hash('café'::text) = :h_text AS same_text_hash,
       cf_hash('café'::char(8)) = :h_bpchar AS same_bpchar_hash,
       cf_hash('ça va'::cf_mood) = :h_enum AS same_enum_hash;
-- a filter built in the UTF8 database answers here, and the other way round
SELECT :'f_utf8'::cuckoofilter @> 'café' AS text_found,
       :'f_utf8'::cuckoofilter @> 'ça va'::cf_mood AS enum_found,
       :'f_utf8'::cuckoofilter @> 'cafe' AS other_absent;
SELECT cf_agg(x) AS f_latin1 FROM (VALUES ('naïve'), ('über')) v(x) \gset
\c :regdb
SET client_encoding = 'UTF8';
SELECT :'f_latin1'::cuckoofilter @> 'naïve' AS naive_found,
       :'f_latin1'::cuckoofilter @> 'über' AS uber_found;
DROP DATABASE cf_latin1;
DROP TYPE cf_mood;

-- nondeterministic collations are refused, in functions and in cf_agg
CREATE COLLATION cf_ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
SELECT 'abc' = 'ABC' COLLATE cf_ci AS equal_under_ci;
SELECT cf_contains(cf_add(NULL, 'abc'), 'ABC' COLLATE cf_ci);
SELECT cf_add(NULL, 'abc' COLLATE cf_ci);
SELECT cf_agg(x COLLATE cf_ci) FROM (VALUES ('abc')) v(x);
-- a deterministic collation is fine
SELECT cf_contains(cf_add(NULL, 'abc'), 'abc' COLLATE "C") AS c_collation;
DROP COLLATION cf_ci;
