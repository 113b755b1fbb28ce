-- cuckoo--1.3--1.4.sql - updates extension cuckoo from 1.3 to 1.4.
-- Every stored filter keeps reading and answering as before; this round's
-- SQL changes are all in this one script (CHANGELOG.md, "1.4").

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION cuckoo UPDATE TO '1.4'" to load this file. \quit
