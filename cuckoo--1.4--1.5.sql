-- cuckoo--1.4--1.5.sql - updates extension cuckoo from 1.4 to 1.5.
-- Every stored filter keeps reading and answering as before; this round's
-- SQL changes are all in this one script (CHANGELOG.md, "1.5").

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION cuckoo UPDATE TO '1.5'" to load this file. \quit
