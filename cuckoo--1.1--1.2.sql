-- cuckoo--1.1--1.2.sql - updates extension cuckoo from 1.1 to 1.2.
-- Every stored filter keeps reading and answering as before; this round's
-- SQL changes are all in this one script (CHANGELOG.md, "1.2").

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION cuckoo UPDATE TO '1.2'" to load this file. \quit
