-- issue 28: typed cf_agg overloads (state cf_aggstate, which Citus splits)
-- for the key types of every value kind, each building the very filter
-- cf_agg(anyelement) builds; and the version 2 external form of the state
-- (delta-encoded hashes), read beside version 1.
SET extra_float_digits = 0;
-- cf_agg(anyelement) itself, under another name: the reference the typed
-- overloads must match byte for byte (a call cf_agg(col) now resolves to
-- the typed overload)
CREATE AGGREGATE t28_any(anyelement) (SFUNC = cuckoo_agg_trans, STYPE = internal,
	FINALFUNC = cuckoo_agg_final, COMBINEFUNC = cuckoo_agg_combine,
	SERIALFUNC = cuckoo_agg_serial, DESERIALFUNC = cuckoo_agg_deserial, PARALLEL = SAFE);
CREATE AGGREGATE t28_any(anyelement, double precision) (SFUNC = cuckoo_agg_trans, STYPE = internal,
	FINALFUNC = cuckoo_agg_final, COMBINEFUNC = cuckoo_agg_combine,
	SERIALFUNC = cuckoo_agg_serial, DESERIALFUNC = cuckoo_agg_deserial, PARALLEL = SAFE);
CREATE AGGREGATE t28_any(anyelement, double precision, bigint) (SFUNC = cuckoo_agg_trans, STYPE = internal,
	FINALFUNC = cuckoo_agg_final, COMBINEFUNC = cuckoo_agg_combine,
	SERIALFUNC = cuckoo_agg_serial, DESERIALFUNC = cuckoo_agg_deserial, PARALLEL = SAFE);
-- a partial aggregate per type (what Citus runs on a worker) and the merge
-- (what it runs on the coordinator)
CREATE AGGREGATE t28_merge(cf_aggstate) (SFUNC = cuckoo_aggstate_combine, STYPE = cf_aggstate,
	FINALFUNC = cuckoo_aggstate_final);
DO $$
DECLARE
	t text;
BEGIN
	FOREACH t IN ARRAY ARRAY['numeric', 'real', 'double precision', 'date', 'timestamp', 'timestamptz',
							 'interval', 'time', 'bytea', 'boolean', 'jsonb', 'inet', 'cidr']
	LOOP
		EXECUTE format('CREATE AGGREGATE t28_partial(%s) (SFUNC = cuckoo_aggstate_trans, STYPE = cf_aggstate)', t);
	END LOOP;
END
$$;

-- key columns of every type, with the values that hash specially: numbers
-- equal across types (1 = 1.0 = 1.00), -0, NaN and the infinities, dates
-- beyond timestamp's range, NULLs and repeats
SET TimeZone = 'UTC';
CREATE TABLE kt AS
SELECT i % 4 AS shard,
       CASE WHEN i % 97 = 0 THEN NULL ELSE (i % 900) / 4.0 END AS n,
       ((i % 900) / 4.0)::real AS f4,
       ((i % 900) / 3.0)::double precision AS f8,
       '2024-01-01'::date + i % 800 AS d,
       '2024-01-01'::timestamp + (i % 700) * interval '37 min' AS ts,
       '2024-01-01 00:00+00'::timestamptz + (i % 700) * interval '37 min 0.5 s' AS tz,
       (i % 300) * interval '1 hour 7 s' + (i % 5) * interval '1 month' AS iv,
       '00:00'::time + (i % 1000) * interval '17 s' AS tm,
       decode(md5((i % 600)::text), 'hex') AS b,
       CASE WHEN i % 3 = 0 THEN NULL ELSE i % 2 = 0 END AS bo,
       jsonb_build_object('k', i % 300, 'v', jsonb_build_array(i % 7)) AS j,
       ('10.0.' || (i % 50) || '.' || (i % 250))::inet AS ip,
       ('10.' || (i % 200) || '.0.0/16')::cidr AS cd
FROM generate_series(1, 4000) i;
INSERT INTO kt VALUES
	(0, 1.00, '-0', '-0', 'infinity', 'infinity', 'infinity', '0', '24:00', '\x', true, '{}', '::1', '::/0'),
	(1, 'NaN', 'NaN', 'NaN', '-infinity', '-infinity', '-infinity', '-1 s', '00:00', '\x00', false, 'null', '10.0.0.1/8', '0.0.0.0/0'),
	(2, 'Infinity', 'Infinity', 'Infinity', '5874897-12-31', '294276-12-31', '4713-01-01 BC', '178000000 years', '23:59:59.999999', '\x00', NULL, '[1, 2]', 'fe80::1/64', 'fe80::/64'),
	(3, '-Infinity', '-Infinity', '-Infinity', '4713-01-01 BC', '4713-01-01 BC', '294276-12-31 23:59:59+00', '-178000000 years', NULL, NULL, NULL, NULL, NULL, NULL),
	(3, -0.0, 0, 0, '2024-01-01', '2024-01-01', '2024-01-01', '1 day', '12:00', '\xdeadbeef', true, '1', '0.0.0.0', '10.0.0.0/8');
ANALYZE kt;

-- which overload each call resolves to: a typed one (state cf_aggstate)
-- for these types, the polymorphic one for the others; cidr and time have
-- overloads of their own because they cast implicitly to inet and interval
CREATE VIEW kt_calls AS
SELECT cf_agg(n) a1, cf_agg(f4) a2, cf_agg(f8) a3, cf_agg(d) a4, cf_agg(ts) a5, cf_agg(tz) a6,
       cf_agg(iv) a7, cf_agg(tm) a8, cf_agg(b) a9, cf_agg(bo) a10, cf_agg(j) a11, cf_agg(ip) a12,
       cf_agg(cd) a13, cf_agg(tm::timetz) o1, cf_agg(j::json) o2, cf_agg('08:00:2b:01:02:03'::macaddr) o3,
       cf_agg(n::money) o4, cf_agg(int4range(1, 2)) o5, cf_agg(ARRAY[n]) o6, cf_agg(n::varchar) o7
FROM kt;
SELECT p.oid::regprocedure AS resolves_to, a.aggtranstype::regtype AS state
FROM pg_depend dep JOIN pg_rewrite r ON r.oid = dep.objid
     JOIN pg_proc p ON p.oid = dep.refobjid JOIN pg_aggregate a ON a.aggfnoid = p.oid
WHERE r.ev_class = 'kt_calls'::regclass AND dep.refclassid = 'pg_proc'::regclass
ORDER BY p.oid::regprocedure::text COLLATE "C";

-- every type: the typed overload's filter equals cf_agg(anyelement)'s, at
-- the default rate, another rate and a given capacity; per group too (small
-- states); split by hand into a partial state per shard shipped as text
-- (version 2) and merged; the value kind recorded; every value found
CREATE FUNCTION t28_check(colname text) RETURNS TABLE (col text, kind text, items bigint, same boolean,
	same_fpr boolean, same_capacity boolean, groups_same boolean, split_same boolean, all_found boolean)
LANGUAGE plpgsql AS $$
BEGIN
	RETURN QUERY EXECUTE format($q$
		SELECT %1$L, (cf_info(cf_agg(%1$I))).value_kind, (cf_info(cf_agg(%1$I))).items,
		       cf_agg(%1$I) = t28_any(%1$I),
		       cf_agg(%1$I, 0.001) = t28_any(%1$I, 0.001),
		       cf_agg(%1$I, 0.02, 10000) = t28_any(%1$I, 0.02, 10000),
		       (SELECT bool_and(a = b) FROM (SELECT cf_agg(%1$I) a, t28_any(%1$I) b FROM kt GROUP BY shard, ip) g),
		       (SELECT t28_merge(s::cf_aggstate) FROM (SELECT t28_partial(%1$I)::text s FROM kt GROUP BY shard) p)
		           = cf_agg(%1$I),
		       bool_and(cf_contains(cf_agg_all, %1$I)) FILTER (WHERE %1$I IS NOT NULL)
		FROM kt, (SELECT cf_agg(%1$I) AS cf_agg_all FROM kt) f GROUP BY cf_agg_all$q$, colname);
END
$$;
SELECT c.* FROM unnest(ARRAY['n', 'f4', 'f8', 'd', 'ts', 'tz', 'iv', 'tm', 'b', 'bo', 'j', 'ip', 'cd']) k,
     LATERAL t28_check(k) c;
-- numbers equal across types hash equally: a filter of numeric finds the
-- same integers as bigint and float8 probes
SELECT cf_contains(cf_agg(n), 7::bigint) AS int_probe, cf_contains(cf_agg(n), 7.0::float8) AS float_probe,
       cf_contains(cf_agg(n), 0.25::float8) AS fraction_probe
FROM kt;
-- a probe of another kind is an error, not "absent"
SELECT cf_contains(cf_agg(d), 'x'::text) FROM kt;

-- PostgreSQL's own parallel aggregation of a new overload
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET parallel_leader_participation = off;
EXPLAIN (COSTS OFF) SELECT cf_agg(tz) FROM kt;
SELECT cf_agg(tz) = (SELECT t28_any(tz) FROM kt) AS parallel_same, cf_agg(n) = (SELECT t28_any(n) FROM kt) AS parallel_numeric_same
FROM kt;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
RESET parallel_leader_participation;

-- ---- the version 2 external form ----
-- golden: three values' state as text, and a state of none
SELECT t28_partial(x::numeric)::text AS state_text FROM generate_series(1, 3) x;
SELECT encode(decode(t28_partial(x::numeric)::text, 'base64'), 'hex') AS state_hex FROM generate_series(1, 3) x;
SELECT t28_partial(n)::text AS empty_state FROM kt WHERE false;
-- the binary form is the same bytes
CREATE TABLE kt_bin (shard int, state cf_aggstate);
\copy (SELECT shard, t28_partial(tz) FROM kt GROUP BY shard) TO 'results/cuckoo_aggstate_types.bin' WITH (FORMAT binary)
\copy kt_bin FROM 'results/cuckoo_aggstate_types.bin' WITH (FORMAT binary)
SELECT t28_merge(state) = (SELECT cf_agg(tz) FROM kt) AS binary_split_same,
       bool_and(cuckoo_aggstate_send(state) = decode(state::text, 'base64')) AS send_is_text_bytes
FROM kt_bin;
-- sizes: 60000 distinct bigint keys in 4 parts: version 2 against version 1
-- (24 + 8 n bytes) and against the keys' own text
CREATE TABLE kt_size AS
SELECT i % 4 AS shard, t28_partial(i::numeric)::text AS state, sum(length(i::text)) AS key_text_bytes
FROM generate_series(1000000001, 1000060000) i GROUP BY 1;
SELECT sum(octet_length(state)) AS v2_base64_bytes,
       sum(4 * ceil((24 + 8 * 15000) / 3.0))::bigint AS v1_base64_bytes,
       round(sum(octet_length(state)) / 60000.0, 2) AS v2_base64_per_key,
       sum(key_text_bytes) AS key_text_bytes
FROM kt_size;
SELECT t28_merge(state::cf_aggstate) = (SELECT cf_agg(i::numeric) FROM generate_series(1000000001, 1000060000) i) AS sized_split_same
FROM kt_size;
-- version 1 is read beside version 2: the same state, the same filter,
-- written back as version 2
SELECT cuckoo_aggstate_final(v1::cf_aggstate) = cuckoo_aggstate_final(v1::cf_aggstate::text::cf_aggstate) AS v1_reads_as_v2,
       encode(decode(v1::cf_aggstate::text, 'base64'), 'hex') AS v1_written_as_v2
FROM (SELECT encode('\x01010200030000007b14ae47e17a843f0000000000000000'::bytea
                    || '\x020000000000000001000000000000000200000000000000'::bytea, 'base64') v1) s;
-- a version 1 state with its hashes out of order, stored out of line (TOAST):
-- written back sorted, as version 2 (it was an internal error)
CREATE TABLE kt_v1 (s cf_aggstate);
ALTER TABLE kt_v1 ALTER COLUMN s SET STORAGE external;
INSERT INTO kt_v1
SELECT translate(encode('\x01010200900100007b14ae47e17a843f0000000000000000'::bytea
                        || string_agg(decode(lpad(to_hex(100000 - g), 16, '0'), 'hex'), ''::bytea ORDER BY g), 'base64'),
                 E'\n', '')::cf_aggstate
FROM generate_series(1, 400) g;
SELECT pg_column_size(s) AS v1_bytes, length(s::text) AS v2_text_length,
       cuckoo_aggstate_final(s) = cuckoo_aggstate_final(s::text::cf_aggstate) AS same_filter
FROM kt_v1;
DROP TABLE kt_v1;
-- hostile version 2 input: every field and every bit checked (text and
-- binary input share the check)
-- (a valid one: n = 0, k = 0)
SELECT encode('\x02010200000000007b14ae47e17a843f000000000000000000'::bytea, 'base64')::cf_aggstate IS NOT NULL AS valid_empty_v2;
-- (a valid one: one hash, 5, k = 63)
SELECT encode(decode(encode('\x02010200010000007b14ae47e17a843f00000000000000003f0a00000000000000'::bytea, 'base64')::cf_aggstate::text, 'base64'), 'hex') AS one_hash_round_trip;
-- (a valid one: hashes 2^62 and 2^62 + 1, k = 62, one padding bit)
SELECT encode('\x02010200020000007b14ae47e17a843f00000000000000003e01000000000000000000000000000000'::bytea, 'base64')::cf_aggstate IS NOT NULL AS valid_padded;
-- the header is short
SELECT encode('\x02010200000000007b14ae47e17a843f0000000000000000'::bytea, 'base64')::cf_aggstate;
-- a Rice parameter other than the writer's (64 - bitlen(n); 0 for n = 0)
SELECT encode('\x02010200000000007b14ae47e17a843f000000000000000040'::bytea, 'base64')::cf_aggstate;
SELECT encode('\x02010200010000007b14ae47e17a843f0000000000000000000a00000000000000'::bytea, 'base64')::cf_aggstate;
-- more hashes than the bytes can hold
SELECT encode('\x02010200020000007b14ae47e17a843f00000000000000003e0a00000000000000'::bytea, 'base64')::cf_aggstate;
SELECT encode('\x0201020000ffffff7b14ae47e17a843f000000000000000020ffffffff'::bytea, 'base64')::cf_aggstate;
-- the bits end inside a hash (a unary part that never ends)
SELECT encode('\x02010200020000007b14ae47e17a843f00000000000000003e'::bytea || decode(repeat('ff', 16), 'hex'), 'base64')::cf_aggstate;
-- a hash past 2^64 - 1 (the first is 2^64 - 1, the second one more)
SELECT encode('\x02010200020000007b14ae47e17a843f00000000000000003ef7ffffffffffffff030000000000000000'::bytea, 'base64')::cf_aggstate;
-- a byte too many, and a padding bit set
SELECT encode('\x02010200010000007b14ae47e17a843f00000000000000003f0a0000000000000000'::bytea, 'base64')::cf_aggstate;
SELECT encode('\x02010200020000007b14ae47e17a843f00000000000000003e01000000000000000000000000000080'::bytea, 'base64')::cf_aggstate;
-- flags, kind, hashing, rate and version, as in version 1
SELECT encode('\x02010201000000007b14ae47e17a843f000000000000000000'::bytea, 'base64')::cf_aggstate;
SELECT encode('\x02ff0200000000007b14ae47e17a843f000000000000000000'::bytea, 'base64')::cf_aggstate;
SELECT encode('\x02010100000000007b14ae47e17a843f000000000000000000'::bytea, 'base64')::cf_aggstate;
SELECT encode('\x0201020000000000000000000000f03f000000000000000000'::bytea, 'base64')::cf_aggstate;
SELECT encode('\x03010200000000007b14ae47e17a843f000000000000000000'::bytea, 'base64')::cf_aggstate;
-- every truncation of real states is refused, none crashes
CREATE FUNCTION t28_refused(s bytea) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
	PERFORM encode(s, 'base64')::cf_aggstate;
	RETURN false;
EXCEPTION WHEN invalid_text_representation THEN
	RETURN true;
END
$$;
SELECT count(*) AS truncations, count(*) FILTER (WHERE t28_refused(substr(s, 1, cut))) AS refused
FROM (SELECT decode(t28_partial(x::numeric)::text, 'base64') AS s FROM generate_series(1, 40) x) st,
     LATERAL generate_series(0, octet_length(s) - 1) cut;
DROP TABLE kt, kt_bin, kt_size CASCADE;
