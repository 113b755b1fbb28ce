-- cf_aggstate: the typed cf_agg overloads keep a state of a real type, so an
-- engine that splits aggregates (Citus) can run the transition where the
-- rows are, ship the state as text or binary, and combine it elsewhere.
-- test_partial and test_merge below do by hand what Citus does.
SET extra_float_digits = 0;
CREATE TABLE agg_ev (shard int, user_id int, item bigint, tag text, u uuid);
INSERT INTO agg_ev
SELECT i % 8, i % 50, (i * 7919) % 20011, 'tag' || (i % 3001),
       ('00000000-0000-0000-0000-' || lpad(to_hex(i % 997), 12, '0'))::uuid
FROM generate_series(1, 30000) i;
ANALYZE agg_ev;

-- which overload a call resolves to: the typed ones for their types, the
-- polymorphic one (internal state) for every other type
SELECT a.aggfnoid::regprocedure AS aggregate, a.aggtranstype::regtype AS state,
       a.aggcombinefn AS combine, a.aggtransspace AS sspace
FROM pg_aggregate a JOIN pg_proc p ON p.oid = a.aggfnoid
WHERE p.proname = 'cf_agg'
ORDER BY a.aggfnoid::regprocedure::text;

-- a typed overload builds the very filter cf_agg(anyelement) builds: the
-- same hashes (value hashing 2: 7::bigint = 7::numeric), the same bulk build
SELECT (SELECT cf_agg(item) FROM agg_ev) = (SELECT cf_agg(item::numeric) FROM agg_ev) AS bigint_same;
SELECT (SELECT cf_agg(item::int) FROM agg_ev) = (SELECT cf_agg(item::numeric) FROM agg_ev) AS int_same;
SELECT (SELECT cf_agg(item::smallint) FROM agg_ev WHERE item < 30000)
     = (SELECT cf_agg(item::numeric) FROM agg_ev WHERE item < 30000) AS smallint_same;
SELECT (SELECT cf_agg(item, 0.001) FROM agg_ev) = (SELECT cf_agg(item::numeric, 0.001) FROM agg_ev) AS fpr_same;
SELECT (SELECT cf_agg(item, 0.01, 50000) FROM agg_ev)
     = (SELECT cf_agg(item::numeric, 0.01, 50000) FROM agg_ev) AS capacity_same;
-- string types each keep their own hashing: varchar goes to text (same
-- bytes), character and name have overloads of their own
SELECT (SELECT cf_agg(tag::varchar) FROM agg_ev) = (SELECT cf_agg(tag) FROM agg_ev) AS varchar_is_text;
SELECT (cf_info(cf_agg(tag::char(10)))).value_kind AS bpchar, (cf_info(cf_agg(tag::name))).value_kind AS name,
       (cf_info(cf_agg(tag))).value_kind AS text, (cf_info(cf_agg(u))).value_kind AS uuid,
       (cf_info(cf_agg(left(tag, 1)::"char"))).value_kind AS char
FROM agg_ev;
SELECT cf_contains(cf_agg(tag::char(10)), 'tag17'::char(10)) AS bpchar_found,
       cf_contains(cf_agg(tag::name), 'tag17'::name) AS name_found,
       cf_contains(cf_agg(u), '00000000-0000-0000-0000-000000000011'::uuid) AS uuid_found
FROM agg_ev;
SELECT cf_agg('abc') IS NOT NULL AS unknown_literal_is_text;

-- per group: every group's filter as cf_agg(anyelement) builds it; groups
-- of 1 to 600 distinct values cross the small state's 16
SELECT count(*) FILTER (WHERE a = b) AS same, count(*) AS groups
FROM (SELECT user_id, cf_agg(item) a, cf_agg(item::numeric) b FROM agg_ev GROUP BY user_id) s;
SELECT count(*) FILTER (WHERE a = b) AS same, count(*) AS groups
FROM (SELECT item % 997 AS k, cf_agg(item) a, cf_agg(item::numeric) b FROM agg_ev GROUP BY 1) s;
SET enable_hashagg = off;
SELECT count(*) FILTER (WHERE a = b) AS same, count(*) AS groups
FROM (SELECT item % 997 AS k, cf_agg(item) a, cf_agg(item::numeric) b FROM agg_ev GROUP BY 1) s;
RESET enable_hashagg;
-- NULLs are skipped; no value gives NULL
SELECT cf_agg(NULL::bigint) IS NULL AS all_null;
SELECT cf_agg(x) = cf_agg(x::numeric) AS nulls_skipped
FROM (VALUES (1::bigint), (NULL), (2), (NULL)) v(x);
SELECT cf_agg(item) FROM agg_ev WHERE false;
SELECT cf_agg(item, NULL) FROM agg_ev;
SELECT cf_agg(item, 0.01, NULL) FROM agg_ev;
SELECT cf_agg(item, 2) FROM agg_ev;
SELECT cf_agg(item, 0.01, 0) FROM agg_ev;
SELECT cf_agg(item, CASE WHEN item < 100 THEN 0.01 ELSE 0.02 END) FROM agg_ev;

-- PostgreSQL's own parallel aggregation: partial states pass between
-- processes as flat cf_aggstate values
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET parallel_leader_participation = off;
EXPLAIN (COSTS OFF) SELECT cf_agg(item) FROM agg_ev;
SELECT (SELECT cf_agg(item) FROM agg_ev) = (SELECT cf_agg(item::numeric) FROM agg_ev) AS parallel_same;
SELECT count(*) FILTER (WHERE a = b) AS same, count(*) AS groups
FROM (SELECT user_id, cf_agg(item) a, cf_agg(item::numeric) b FROM agg_ev GROUP BY user_id) s;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
RESET parallel_leader_participation;

-- split by hand as Citus splits it: a partial state per shard, shipped as
-- text, read back, combined, finished
CREATE AGGREGATE test_partial(bigint) (SFUNC = cuckoo_aggstate_trans, STYPE = cf_aggstate);
CREATE AGGREGATE test_partial(text, double precision) (SFUNC = cuckoo_aggstate_trans, STYPE = cf_aggstate);
CREATE AGGREGATE test_merge(cf_aggstate) (SFUNC = cuckoo_aggstate_combine, STYPE = cf_aggstate,
                                          FINALFUNC = cuckoo_aggstate_final);
CREATE TABLE agg_parts AS
SELECT shard, test_partial(item)::text AS state, test_partial(tag, 0.001)::text AS tstate
FROM agg_ev GROUP BY shard;
SELECT test_merge(state::cf_aggstate) = (SELECT cf_agg(item) FROM agg_ev) AS split_same,
       test_merge(tstate::cf_aggstate) = (SELECT cf_agg(tag, 0.001) FROM agg_ev) AS split_text_same
FROM agg_parts;
-- the same through the binary form
CREATE TABLE agg_bin (shard int, state cf_aggstate);
\copy (SELECT shard, test_partial(item) FROM agg_ev GROUP BY shard) TO 'results/cuckoo_aggstate.bin' WITH (FORMAT binary)
\copy agg_bin FROM 'results/cuckoo_aggstate.bin' WITH (FORMAT binary)
SELECT test_merge(state) = (SELECT cf_agg(item) FROM agg_ev) AS binary_split_same FROM agg_bin;
-- the text form of a state: header, sorted distinct hashes delta-encoded
-- (version 2); its size is what crosses the network per shard, against
-- version 1's 8 bytes a distinct value + 24
SELECT shard, get_byte(decode(state, 'base64'), 0) AS version, octet_length(decode(state, 'base64')) AS bytes,
       get_byte(decode(state, 'base64'), 4) + 256 * get_byte(decode(state, 'base64'), 5) AS hashes,
       24 + 8 * (get_byte(decode(state, 'base64'), 4) + 256 * get_byte(decode(state, 'base64'), 5)) AS version_1_bytes
FROM agg_parts ORDER BY shard LIMIT 3;
SELECT count(DISTINCT item) FILTER (WHERE shard = 0) AS distinct_in_shard_0 FROM agg_ev;
SELECT substr(test_partial(x)::text, 1, 32) AS state_text FROM generate_series(1, 3) x(x);
SELECT test_partial(x)::text = test_partial(4 - x)::text AS order_free FROM generate_series(1, 3) x(x);
-- a small state (up to 16 values) and a large one read back alike
SELECT cuckoo_aggstate_final(test_partial(x)::text::cf_aggstate) = cf_agg(x) AS small_round_trip
FROM generate_series(1, 10) x(x);
SELECT cuckoo_aggstate_final(test_partial(x)::text::cf_aggstate) = cf_agg(x) AS large_round_trip
FROM generate_series(1, 5000) x(x);
-- states of different columns or settings do not combine
SELECT test_merge(s) FROM (VALUES ((SELECT test_partial(item) FROM agg_ev)),
                                  ((SELECT test_partial(tag, 0.001) FROM agg_ev))) v(s);
SELECT test_merge(s) FROM (VALUES ((SELECT test_partial(item) FROM agg_ev)),
                                  ((SELECT test_partial(item::text, 0.01) FROM agg_ev))) v(s);
-- outside an aggregate
SELECT cuckoo_aggstate_trans(NULL::cf_aggstate, 1::bigint);
SELECT cuckoo_aggstate_combine(s, s) FROM agg_parts, LATERAL (SELECT state::cf_aggstate) v(s) LIMIT 1;

-- hostile input: every field checked, in text and binary alike (one check)
SELECT 'AQ=='::cf_aggstate;
SELECT 'not base64!'::cf_aggstate;
SELECT encode('\x020102000000000000'::bytea, 'base64')::cf_aggstate;
SELECT encode('\x01010200000000007b14ae47e17a843f0000000000000000'::bytea, 'base64')::cf_aggstate IS NOT NULL AS valid_empty;
SELECT encode('\x02010200000000007b14ae47e17a843f0000000000000000'::bytea, 'base64')::cf_aggstate;
SELECT encode('\x01010300000000007b14ae47e17a843f0000000000000000'::bytea, 'base64')::cf_aggstate;
SELECT encode('\x01c80200000000007b14ae47e17a843f0000000000000000'::bytea, 'base64')::cf_aggstate;
SELECT encode('\x01000200000000007b14ae47e17a843f0000000000000000'::bytea, 'base64')::cf_aggstate;
SELECT encode('\x01010201000000007b14ae47e17a843f0000000000000000'::bytea, 'base64')::cf_aggstate;
SELECT encode('\x01010200010000007b14ae47e17a843f0000000000000000'::bytea, 'base64')::cf_aggstate;
SELECT encode('\x0101020000000000000000000000f03f0000000000000000'::bytea, 'base64')::cf_aggstate;
SELECT encode('\x01010200000000007b14ae47e17a843fffffffffffffffff'::bytea, 'base64')::cf_aggstate;
SELECT cuckoo_aggstate_final(encode('\x01010200000000007b14ae47e17a843f0000000000000000'::bytea, 'base64')::cf_aggstate) AS empty_state;
-- hashes are any values, in any order, repeated: the filter is the same
SELECT cuckoo_aggstate_final(encode('\x01010200030000007b14ae47e17a843f0000000000000000'::bytea
                                 || '\x020000000000000001000000000000000200000000000000'::bytea, 'base64')::cf_aggstate)
     = cuckoo_aggstate_final(encode('\x01010200020000007b14ae47e17a843f0000000000000000'::bytea
                                 || '\x01000000000000000200000000000000'::bytea, 'base64')::cf_aggstate) AS unsorted_ok;

-- unions of many parts: per-user filters sized to each user (different
-- capacities) cannot fold, and the error says what to do, with the number;
-- parts built with one capacity of at least the whole union fold into one
-- table at the target rate
CREATE TABLE agg_users AS
SELECT user_id, cf_agg(item) AS f, cf_agg(item, 0.01, 40000) AS g
FROM (SELECT user_id, item FROM agg_ev WHERE item % 50 <= user_id) s GROUP BY user_id;
SELECT count(DISTINCT (cf_info(f)).capacity) > 32 AS many_capacities FROM agg_users;
SELECT cf_union_agg(f) FROM agg_users;
SELECT (cf_info(un)).subfilters, (cf_info(un)).items <= 40000 AS fits,
       (cf_info(un)).fpr <= 2 * 0.01 AS fpr_within_2x,
       (SELECT bool_and(cf_contains(un, item)) FROM agg_ev WHERE item % 50 <= user_id) AS no_false_negative
FROM (SELECT cf_union_agg(g) AS un FROM agg_users) s;
