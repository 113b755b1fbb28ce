-- cuckoo--1.0--1.1.sql - what cuckoo 1.1 adds to 1.0 (ALTER EXTENSION cuckoo UPDATE)
\echo Use "ALTER EXTENSION cuckoo UPDATE TO '1.1'" to load this file. \quit

-- (sections of this release's SQL changes follow, one per feature)
