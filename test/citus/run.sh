#!/usr/bin/env bash
# run.sh - cf_agg split across Citus workers: a coordinator and two workers on
# loopback, a distributed table, and the typed cf_agg overloads checked against
# the same rows in a local table.  Runs only where Citus is installed for the
# PostgreSQL of PG_CONFIG (Citus is not a Debian package: build it yourself;
# nothing here builds it); elsewhere it says so and exits 0.  Not part of CI.
#
#   test/citus/run.sh         PASS/FAIL lines, then "citus: N passed, M failed"
#   test/citus/run.sh --keep  leave the clusters running
#
# Run as root (the clusters run as "postgres") or as the user who owns them.
# Knobs: CITUS_ROWS (200000), PG_CONFIG, CITUS_SEEN_SECONDS / _CLIENTS / _USERS (the
# seen recipe below: 15, 4, 40), CITUS_PREFILTER_ROWS / _REPS (the join pre-filter
# below: 200000, 0), CITUS_PREFILTER_ONLY=1 (only the pre-filter part); CITUS_MEASURE=N (0) times each
# type's cf_agg N times, distributed (split), pulled to the coordinator (what
# 1.1 did for the types it had no overload for: cf_agg(anyelement) without a
# combine, under another name) and local, interleaved, and prints a table:
# split or not, bytes identical, median (min-max) times, and the bytes the
# partial states take as text (version 2, and version 1's 24 + 8 n bytes)
# against the keys' text that a row-gather would ship.  CITUS_MEASURE_COLS
# (default: every column) limits the table to some columns, say "id n tz".
set -uo pipefail

PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
PGBIN=$("$PG_CONFIG" --bindir)
KEEP=0
[ "${1:-}" = --keep ] && KEEP=1
ROWS=${CITUS_ROWS:-200000}
MEASURE=${CITUS_MEASURE:-0}
MEASURE_COLS=${CITUS_MEASURE_COLS:-}

if [ ! -f "$("$PG_CONFIG" --pkglibdir)/citus.so" ]; then
	echo "citus: skipped, Citus is not installed for $("$PG_CONFIG" --version)"
	exit 0
fi

pass=0 fail=0
ok()  { pass=$((pass + 1)); echo "PASS: $*"; }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
finish() { echo; echo "citus: $pass passed, $fail failed"; [ "$fail" -eq 0 ]; exit $?; }

if [ "$(id -u)" -eq 0 ]; then
	OWNER=postgres
	as_owner() { runuser -u postgres -- "$@"; }
else
	OWNER=$(id -un)
	as_owner() { "$@"; }
fi
TMP=$(mktemp -d /tmp/cuckoo-citus.XXXXXXXX) || exit 1
chown "$OWNER" "$TMP"
chmod 700 "$TMP"
cd "$TMP" || exit 1

NODES=(coord worker1 worker2)
declare -A PORT
STARTED=()
cleanup() {
	local rc=$?
	if [ "$KEEP" -eq 1 ]; then
		echo "kept: psql -h 127.0.0.1 -p ${PORT[coord]:-?} -U postgres postgres"
		return $rc
	fi
	for n in "${STARTED[@]}"; do
		as_owner timeout 30 "$PGBIN/pg_ctl" -D "$TMP/$n" stop -m immediate -w >/dev/null 2>&1
	done
	cd / && rm -rf "$TMP"
	return $rc
}
trap cleanup EXIT

free_port() {
	local p i
	for ((i = 0; i < 200; i++)); do
		p=$((20000 + (RANDOM * 32768 + RANDOM) % 40000))
		(exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null && continue
		for q in "${PORT[@]}"; do [ "$q" = "$p" ] && continue 2; done
		echo "$p"; return 0
	done
	return 1
}

psql_on() {
	local n=$1; shift
	as_owner env PGCONNECT_TIMEOUT=10 timeout 300 "$PGBIN/psql" -X -q -At -v ON_ERROR_STOP=1 \
		-h 127.0.0.1 -p "${PORT[$n]}" -U postgres -d postgres "$@"
}
val() { local n=$1; shift; psql_on "$n" -c "$*" 2>&1 | tail -n 1; }

start_node() {
	local n=$1 p
	p=$(free_port) || return 1
	PORT[$n]=$p
	as_owner "$PGBIN/initdb" -D "$TMP/$n" -U postgres -A trust -E UTF8 --locale=C \
		--no-sync --no-instructions >"$TMP/$n.initdb.log" 2>&1 || { cat "$TMP/$n.initdb.log"; return 1; }
	as_owner tee -a "$TMP/$n/postgresql.conf" >/dev/null <<-EOF
		port = $p
		listen_addresses = '127.0.0.1'
		unix_socket_directories = '$TMP'
		shared_preload_libraries = 'citus,cuckoo'	# Citus first: it refuses to load after another
		fsync = off
		synchronous_commit = off
		full_page_writes = off
		citus.enable_statistics_collection = off
		max_connections = 60
	EOF
	STARTED+=("$n")
	as_owner timeout 60 "$PGBIN/pg_ctl" -D "$TMP/$n" -l "$TMP/$n.log" -w -t 50 start >/dev/null ||
		{ cat "$TMP/$n.log"; return 1; }
	psql_on "$n" -c "CREATE EXTENSION citus" -c "CREATE EXTENSION cuckoo"
}

for n in "${NODES[@]}"; do start_node "$n" || { bad "start $n"; finish; }; done
psql_on coord -c "SELECT citus_set_coordinator_host('127.0.0.1', ${PORT[coord]})" \
	-c "SELECT citus_add_node('127.0.0.1', ${PORT[worker1]})" \
	-c "SELECT citus_add_node('127.0.0.1', ${PORT[worker2]})" >/dev/null || { bad "add workers"; finish; }
echo "citus: $(val coord "SELECT citus_version()" | cut -d' ' -f1-2), cuckoo $(val coord "SELECT extversion FROM pg_extension WHERE extname = 'cuckoo'")"

if [ "${CITUS_PREFILTER_ONLY:-0}" = 0 ]; then
psql_on coord >/dev/null <<-EOF || { bad "load tables"; finish; }
	SET citus.shard_count = 32;
	SET TimeZone = 'UTC';
	CREATE TABLE ev (user_id bigint, item bigint, tag text, u uuid, n numeric, id bigint,
	                 f4 real, f8 double precision, d date, ts timestamp, tz timestamptz,
	                 iv interval, tm time, b bytea, bo boolean, j jsonb, ip inet, cd cidr);
	SELECT create_distributed_table('ev', 'user_id');
	INSERT INTO ev SELECT (i::bigint * 7919) % 1000, (i::bigint * 104729) % 50021, 'tag' || (i % 7001),
	       md5((i % 3001)::text)::uuid, (i % 977) / 10.0, i,
	       i / 7.0, i / 3.0, date '2000-01-01' + i % 100000, timestamp '2020-01-01' + i * interval '1 s',
	       timestamptz '2020-01-01 00:00+00' + i * interval '1.5 s', i * interval '1 s',
	       time '00:00' + (i % 86400) * interval '1 s', int8send(i), i % 2 = 0,
	       jsonb_build_object('id', i), inet '10.0.0.0' + i, set_masklen(inet '10.0.0.0' + i * 256, 24)::cidr
	FROM generate_series(1, $ROWS) i;
	CREATE TABLE ev_local AS SELECT * FROM ev;
	ANALYZE ev; ANALYZE ev_local;
	-- cf_agg(anyelement) with no combine function: Citus pulls the rows
	CREATE AGGREGATE cf_agg_rowgather(anyelement) (SFUNC = cuckoo_agg_trans, STYPE = internal,
		FINALFUNC = cuckoo_agg_final);
EOF

# every typed overload: the plan splits it (worker partials, a coordinator
# combine), and the filter is byte-identical to the local table's
declare -A TYPE=([item]=bigint [id]=bigint [u]=uuid [tag]=text [n]=numeric [f4]=real
	[f8]="double precision" [d]=date [ts]="timestamp without time zone"
	[tz]="timestamp with time zone" [iv]=interval [tm]="time without time zone" [b]=bytea
	[bo]=boolean [j]=jsonb [ip]=inet [cd]=cidr)
COLS=(item id u tag n f4 f8 d ts tz iv tm b bo j ip cd)
declare -A SPLIT SAME
for c in "${COLS[@]}"; do
	t=${TYPE[$c]}
	plan=$(psql_on coord -c "EXPLAIN VERBOSE SELECT cf_agg($c) FROM ev")
	if grep -q "coord_combine_agg" <<<"$plan" &&
		grep -qF "worker_partial_agg('public.cf_agg($t)'::regprocedure, $c)" <<<"$plan"; then
		SPLIT[$c]=yes; ok "cf_agg($c) ($t) runs as worker partials and a coordinator combine"
	else
		SPLIT[$c]=no; bad "cf_agg($c) ($t) is not split: $(grep -m1 -E 'Query:' <<<"$plan")"
	fi
	d=$(val coord "SELECT md5(cf_agg($c)::text) FROM ev")
	l=$(val coord "SELECT md5(cf_agg($c)::text) FROM ev_local")
	if [ -n "$d" ] && [ "$d" = "$l" ]; then SAME[$c]=yes; ok "cf_agg($c) ($t): distributed = local ($d)"
	else SAME[$c]=no; bad "cf_agg($c) ($t): distributed $d, local $l"; fi
done
# the control: a type without an overload (an array: cf_agg(anyelement),
# state internal) is not split, so the check above can tell
plan=$(psql_on coord -c "EXPLAIN VERBOSE SELECT cf_agg(ARRAY[item]) FROM ev")
if grep -q "worker_partial_agg" <<<"$plan"; then bad "cf_agg(bigint[]) is split: the plan check cannot tell"
else ok "control: cf_agg(bigint[]) (anyelement, state internal) is not split"; fi
for q in "cf_agg(item, 0.001)" "cf_agg(item, 0.01, 100000)" "cf_agg(item::int)" "cf_agg(tag::varchar)" \
	"cf_agg(ts, 0.001)" "cf_agg(n, 0.01, 100000)"; do
	d=$(val coord "SELECT md5($q::text) FROM ev")
	l=$(val coord "SELECT md5($q::text) FROM ev_local")
	if [ -n "$d" ] && [ "$d" = "$l" ]; then ok "$q: distributed = local ($d)"; else bad "$q: distributed $d, local $l"; fi
done
# grouped by a column that is not the distribution column: split per group
d=$(val coord "SELECT md5(string_agg(f::text, ',' ORDER BY k)) FROM (SELECT item % 7 AS k, cf_agg(item) AS f FROM ev GROUP BY 1) s")
l=$(val coord "SELECT md5(string_agg(f::text, ',' ORDER BY k)) FROM (SELECT item % 7 AS k, cf_agg(item) AS f FROM ev_local GROUP BY 1) s")
if [ -n "$d" ] && [ "$d" = "$l" ]; then ok "cf_agg per group: distributed = local"; else bad "per group: $d vs $l"; fi
# no false negative through the split
miss=$(val coord "SELECT count(*) FROM ev_local WHERE NOT cf_contains((SELECT cf_agg(item) FROM ev), item)")
[ "$miss" = 0 ] && ok "every value found in the split filter" || bad "$miss values missing"
# cf_union_agg: its state is internal from 1.3, so Citus pulls the filters to the
# coordinator (row-gather) and unites them there.  Parts of one capacity fold
# into one table that holds the sum of their items (a union of tables keeps a
# value once per part that holds it; these hold disjoint ids)
psql_on coord >/dev/null <<-EOF || bad "user filters"
	CREATE TABLE uf (user_id bigint, f cuckoofilter);
	SELECT create_distributed_table('uf', 'user_id', colocate_with => 'ev');
	INSERT INTO uf SELECT user_id, cf_agg(id, 0.01, 2 * $ROWS) FROM ev GROUP BY user_id;
EOF
sub=$(val coord "SELECT (cf_info(cf_union_agg(f))).subfilters FROM uf")
miss=$(val coord "SELECT count(*) FROM ev_local WHERE NOT cf_contains((SELECT cf_union_agg(f) FROM uf), id)")
if [ "$sub" = 1 ] && [ "$miss" = 0 ]; then ok "cf_union_agg of per-user filters of one capacity: one table, nothing missing"
else bad "cf_union_agg: $sub sub-filters, $miss missing"; fi

# per-user filters started by cf_add(NULL, v) (one family: issue 25): 20,000
# users of 1 to 5 items each (lists), distributed by user.  1.2 split
# cf_union_agg across the workers, each worker's partial union became a table
# sized to its shard, and the coordinator's union of 32 of them answered 8.1%
# where one backend got 0.69%.  From 1.3 (issue 34) the coordinator unites the
# lists' values once: the same filter as one backend, byte for byte.
psql_on coord >/dev/null <<-EOF || bad "per-user default filters"
	CREATE TABLE pu_local AS
	SELECT u::bigint AS user_id, cf_add_all(NULL::cuckoofilter, array_agg(u * 10 + i ORDER BY i)) AS f
	  FROM generate_series(1, 20000) u, generate_series(1, 1 + u % 5) i GROUP BY u;
	CREATE TABLE pu (user_id bigint, f cuckoofilter);
	SELECT create_distributed_table('pu', 'user_id');
	INSERT INTO pu SELECT * FROM pu_local;
EOF
r=$(val coord "SELECT (SELECT count(*) FROM pu_local, generate_series(1, 1 + user_id % 5) i
                        WHERE NOT cf_contains(u, user_id * 10 + i)) || ' ' ||
                      (SELECT count(*) FILTER (WHERE cf_contains(u, -g)) FROM generate_series(1, 200000) g) || ' ' ||
                      (cf_info(u)).subfilters
                 FROM (SELECT cf_union_agg(f) AS u FROM pu) s")
read -r miss fp subs <<<"$r"
l=$(val coord "SELECT count(*) FILTER (WHERE cf_contains(u, -g)) FROM generate_series(1, 200000) g,
                      (SELECT cf_union_agg(f ORDER BY user_id) AS u FROM pu_local) s")
same=$(val coord "SELECT (SELECT cf_union_agg(f) FROM pu)::bytea = (SELECT cf_union_agg(f) FROM pu_local)::bytea")
if [ "$miss" = 0 ] && [ "$subs" = 1 ] && [ "$same" = t ]; then
	ok "cf_union_agg of 20,000 default per-user filters on Citus: the one-backend filter, nothing missing ($fp of 200,000 absent values found; one backend: $l)"
else bad "per-user union on Citus: $r (missing, false positives of 200,000, sub-filters), same as one backend: $same ($l)"; fi

# The seen recipe of docs/seen.md on a table distributed by user_id (issue 43):
# pgbench clients on the coordinator mark items, mark pages of 5, unsee, and read
# cf_seen / cf_unseen, each user's operations routed to its shard; an exact
# (user_id, item, seen) table, co-located, is written in the same transaction.
# Readers check, in one statement (one snapshot on the user's shard), that no
# item the exact table holds as seen is reported unseen; at the end every user
# is checked again through cf_seen and cf_unseen.  Items 1-600 per user, so
# that unsees often hit a marked item and users fold delta into base.  CITUS_SEEN_SECONDS (15),
# CITUS_SEEN_CLIENTS (4), CITUS_SEEN_USERS (40).
SEEN_S=${CITUS_SEEN_SECONDS:-15} SEEN_C=${CITUS_SEEN_CLIENTS:-4} SEEN_U=${CITUS_SEEN_USERS:-40}
psql_on coord >/dev/null <<-EOF || bad "seen recipe: tables"
	SET citus.shard_count = 32;
	CREATE TABLE seen (user_id bigint PRIMARY KEY, base cuckoofilter, delta bigint[]);
	SELECT create_distributed_table('seen', 'user_id');
	CREATE TABLE seen_exact (user_id bigint, item bigint, seen boolean, PRIMARY KEY (user_id, item));
	SELECT create_distributed_table('seen_exact', 'user_id', colocate_with => 'seen');
	CREATE TABLE seen_violations (user_id bigint, lost bigint, how text);
	SELECT create_distributed_table('seen_violations', 'user_id', colocate_with => 'seen');
EOF
cat >"$TMP/mark.sql" <<EOF
\set item random(1, 600)
\set user random(1, $SEEN_U)
BEGIN;
INSERT INTO seen AS s VALUES (:user, NULL, ARRAY[:item::bigint])
ON CONFLICT (user_id) DO UPDATE
SET base = cf_mark_base(s.base, s.delta, :item::bigint), delta = cf_mark_delta(s.base, s.delta, :item::bigint);
INSERT INTO seen_exact VALUES (:user, :item, true) ON CONFLICT (user_id, item) DO UPDATE SET seen = true;
COMMIT;
EOF
cat >"$TMP/page.sql" <<EOF
\set i0 random(1, 596)
\set user random(1, $SEEN_U)
\set i1 :i0 + 1
\set i2 :i0 + 2
\set i3 :i0 + 3
\set i4 :i0 + 4
BEGIN;
INSERT INTO seen AS s VALUES (:user, cf_mark_all_base(NULL, NULL, ARRAY[:i0, :i1, :i2, :i3, :i4]::bigint[]),
                                     cf_mark_all_delta(NULL, NULL, ARRAY[:i0, :i1, :i2, :i3, :i4]::bigint[]))
ON CONFLICT (user_id) DO UPDATE
SET base = cf_mark_all_base(s.base, s.delta, ARRAY[:i0, :i1, :i2, :i3, :i4]::bigint[]),
    delta = cf_mark_all_delta(s.base, s.delta, ARRAY[:i0, :i1, :i2, :i3, :i4]::bigint[]);
INSERT INTO seen_exact VALUES (:user, :i0, true), (:user, :i1, true), (:user, :i2, true), (:user, :i3, true), (:user, :i4, true)
ON CONFLICT (user_id, item) DO UPDATE SET seen = true;
COMMIT;
EOF
cat >"$TMP/unsee.sql" <<EOF
\set item random(1, 600)
\set user random(1, $SEEN_U)
BEGIN;
SELECT 1 FROM seen WHERE user_id = :user FOR UPDATE;
UPDATE seen SET base = cf_unsee_base(base, delta, :item::bigint), delta = cf_unsee_delta(base, delta, :item::bigint)
 WHERE user_id = :user
   AND EXISTS (SELECT 1 FROM seen_exact e WHERE e.user_id = :user AND e.item = :item AND e.seen);
UPDATE seen_exact SET seen = false WHERE user_id = :user AND item = :item;
COMMIT;
EOF
cat >"$TMP/check.sql" <<EOF
\set user random(1, $SEEN_U)
SELECT coalesce(sum(CASE WHEN coalesce(cf_seen(s.base, s.delta, e.item), false) THEN 0 ELSE 1 END), 0) AS lost
  FROM seen s JOIN seen_exact e ON e.user_id = s.user_id
 WHERE s.user_id = :user AND e.user_id = :user AND e.seen \gset
\if :lost > 0
INSERT INTO seen_violations VALUES (:user, :lost, 'cf_seen');
\endif
SELECT coalesce(max(cardinality(cf_unseen(s.base, s.delta, a.items))), 0) AS lost
  FROM seen s, (SELECT array_agg(item) AS items FROM seen_exact WHERE user_id = :user AND seen) a
 WHERE s.user_id = :user \gset
\if :lost > 0
INSERT INTO seen_violations VALUES (:user, :lost, 'cf_unseen');
\endif
EOF
chown "$OWNER" "$TMP"/*.sql
as_owner env PGCONNECT_TIMEOUT=10 timeout $((SEEN_S + 120)) "$PGBIN/pgbench" -n -h 127.0.0.1 -p "${PORT[coord]}" -U postgres \
	-c "$SEEN_C" -j 2 -T "$SEEN_S" -f "$TMP/mark.sql@4" -f "$TMP/page.sql@2" -f "$TMP/unsee.sql@2" -f "$TMP/check.sql@2" \
	postgres >"$TMP/seen_pgbench.log" 2>&1
rc=$?
tx=$(sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p' "$TMP/seen_pgbench.log")
nf=$(sed -n 's/^number of failed transactions: \([0-9]*\).*/\1/p' "$TMP/seen_pgbench.log")
if [ "$rc" -eq 0 ] && [ "${tx:-0}" -gt 0 ]; then
	per=$(awk '/^SQL script [0-9]+:/ { n = $4; sub(/.*\//, "", n); sub(/\.sql$/, "", n) }
		/^ - [0-9]+ transactions/ && n != "" { printf "%s%s %s", sep, $2, n; sep = ", "; n = "" }' "$TMP/seen_pgbench.log")
	ok "seen recipe on Citus: $SEEN_C pgbench clients on the coordinator for ${SEEN_S}s, $tx transactions ($per), ${nf:-0} failed"
else
	bad "seen recipe on Citus: pgbench exited $rc"; grep -i -m 10 'error\|abort' "$TMP/seen_pgbench.log"
fi
v=$(val coord "SELECT count(*) || ' ' || coalesce(sum(lost), 0) FROM seen_violations")
if [ "$v" = "0 0" ]; then
	ok "seen recipe on Citus: the readers found no marked item reported unseen (cf_seen and cf_unseen, one snapshot per check)"
else
	bad "seen recipe on Citus: readers found violations (checks, items): $v"
fi
r=$(val coord "SELECT count(*) FILTER (WHERE e.seen) || ' ' || count(*) FILTER (WHERE NOT e.seen) || ' ' ||
	count(*) FILTER (WHERE NOT e.seen AND cf_seen(s.base, s.delta, e.item)) || ' ' ||
	count(*) FILTER (WHERE e.seen AND NOT coalesce(cf_seen(s.base, s.delta, e.item), false))
	FROM seen_exact e LEFT JOIN seen s USING (user_id)")
r="$r $(val coord "SELECT count(*) || ' ' || count(base) FROM seen")"
read -r nseen nunseen nstill nlost nusers nbase <<<"$r"
u=$(val coord "SELECT coalesce(sum(cardinality(cf_unseen(s.base, s.delta, a.items))), 0)
	FROM seen s JOIN (SELECT user_id, array_agg(item) AS items FROM seen_exact WHERE seen GROUP BY user_id) a USING (user_id)")
if [ "${nlost:-x}" = 0 ] && [ "$u" = 0 ] && [ "${nseen:-0}" -gt 0 ]; then
	ok "seen recipe on Citus: 0 false negatives: $nseen (user, item) marked, each reported seen by cf_seen and dropped by cf_unseen; $nunseen unseen, $nstill of them still reported (an item marked twice keeps a mark after one unsee, or a false positive); $nusers users, $nbase with a folded base"
else
	bad "seen recipe on Citus: $nlost marked items not reported by cf_seen, $u kept by cf_unseen ($r)"
fi

fi # CITUS_PREFILTER_ONLY

# CITUS_MEASURE=N: per type, N interleaved timings of the distributed and the
# local cf_agg (client side, psql's \timing), and the bytes shipped
ms() {	# ms QUERY: the query's time in ms, as psql's \timing reports it
	psql_on coord -c '\timing on' -c "$1" | sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' | tail -n 1
}
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
stats() {	# stats VALUES...: "median (min-max)"
	local s; s=$(printf '%s\n' "$@" | sort -g)
	printf '%.0f (%.0f-%.0f)' "$(median "$@")" "$(head -n 1 <<<"$s")" "$(tail -n 1 <<<"$s")"
}
# The join pre-filter on Citus: pf_big, CITUS_PREFILTER_ROWS rows
# (200,000; the bench: 10,000,000) distributed by id over 32 shards, key = id *
# 7919 mod K (K = rows / 10, each key ten times), joined on key to a small side
# of K keys filtered to 1% (grp = 0), in two shapes:
#   repartition  the small side distributed by key, not co-located: Citus cannot
#                push the join down and, with citus.enable_repartition_joins,
#                repartitions both tables by key between the workers
#   local        the small side a coordinator-local table: Citus ships its rows
#                (the 1%) to the workers and joins there
# and each again with the small side unfiltered (repartition-all, local-all:
# every row of pf_big has a partner, the filter would remove nothing), and the
# repartition join with 20% of the small side's keys (repartition-wide), a semi
# join (repartition-semi) and a LEFT JOIN (local-left): checked, not timed.
# The sides: off (the plain query); on (SET cuckoo.join_prefilter = on, the
# default thresholds) and forced (on, with cuckoo.join_prefilter_min_big_rows
# and _min_removed at 0) where the loaded library has the setting;
# hand-written (the README's pre-filter; the repartition shape needs it in a
# derived table: Citus refuses a subquery in the WHERE of a repartition join,
# "complex joins are only supported when all distributed tables are
# co-located"; the setting writes that derived table itself).
# Checks: every side gives the plain query's rows (count, payload lengths and
# the sum of a hash of pf_big's columns in each joined row: the multiset, the
# small side's keys being unique; an error is a failure:
# the setting must add none); on and hand-written show the filter in every
# worker task on pf_big (EXPLAIN VERBOSE with citus.explain_all_tasks, or the
# commands Citus sends for a repartition join); on puts no filter where the
# small side is unfiltered or keeps 20% on a repartition join.  CITUS_PREFILTER_REPS=N (0): N timings of off, on
# and hand-written in one session (psql's \timing), the order rotated every
# repetition after a warm-up round; median (min-max).
PF_ROWS=${CITUS_PREFILTER_ROWS:-200000} PF_REPS=${CITUS_PREFILTER_REPS:-0}
PF_K=$((PF_ROWS / 10))
psql_on coord >/dev/null <<-EOF || bad "pre-filter: tables"
	SET citus.shard_count = 32;
	CREATE TABLE pf_big (id bigint, key bigint, payload text);
	SELECT create_distributed_table('pf_big', 'id');
	INSERT INTO pf_big SELECT g, (g::bigint * 7919) % $PF_K, 'payload ' || g FROM generate_series(1, $PF_ROWS) g;
	CREATE TABLE pf_small (key bigint, grp int);
	INSERT INTO pf_small SELECT g, g % 100 FROM generate_series(0, $PF_K - 1) g;
	CREATE TABLE pf_small_d (key bigint, grp int);
	SELECT create_distributed_table('pf_small_d', 'key', colocate_with => 'none');
	INSERT INTO pf_small_d SELECT * FROM pf_small;
	VACUUM ANALYZE pf_big; VACUUM ANALYZE pf_small; VACUUM ANALYZE pf_small_d;
EOF
PF_REAL=$(val coord "SELECT current_setting('cuckoo.join_prefilter', true) IS NOT NULL")
PF_SEL="SELECT count(*), sum(length(b.payload)) FROM"
declare -A PF_Q PF_HAND PF_SET PF_SG PF_SHAPE PF_T PF_R PF_NF PF_NT
PF_SET[repartition]="SET citus.enable_repartition_joins = on;"
PF_SET[local]=""
PF_SET[repartition-all]=${PF_SET[repartition]}
PF_SET[local-all]=""
PF_Q[repartition]="$PF_SEL pf_big b JOIN pf_small_d s ON b.key = s.key WHERE s.grp = 0"
PF_Q[local]="$PF_SEL pf_big b JOIN pf_small s ON b.key = s.key WHERE s.grp = 0"
# the small side unfiltered: every key of pf_big has a partner, the filter
# would remove nothing; the rule is expected to decline
PF_Q[repartition-all]="$PF_SEL pf_big b JOIN pf_small_d s ON b.key = s.key"
PF_Q[local-all]="$PF_SEL pf_big b JOIN pf_small s ON b.key = s.key"
# a repartition join whose small side keeps 20% of its keys: the rows that
# pass would go through the coordinator to each of the join's 32 tasks (slower
# than repartitioning); the rule is expected to decline (kept > 1 / shards)
# the other kinds of join, checked, not timed: a semi join on the distributed
# small side, the nullable side of a LEFT JOIN from the local one
PF_SET[repartition-semi]=${PF_SET[repartition]}
PF_Q[repartition-semi]="$PF_SEL pf_big b WHERE b.key IN (SELECT s.key FROM pf_small_d s WHERE s.grp = 0)"
PF_SET[local-left]=""
PF_Q[local-left]="$PF_SEL pf_small s LEFT JOIN pf_big b ON b.key = s.key WHERE s.grp = 0"
PF_SET[repartition-wide]=${PF_SET[repartition]}
PF_Q[repartition-wide]="$PF_SEL pf_big b JOIN pf_small_d s ON b.key = s.key WHERE s.grp < 20"
PF_HAND[repartition]="$PF_SEL (SELECT * FROM pf_big WHERE (SELECT cf_agg(s2.key) FROM pf_small_d s2 WHERE s2.grp = 0) @> key) b
	JOIN pf_small_d s ON b.key = s.key WHERE s.grp = 0"
PF_HAND[local]="${PF_Q[local]} AND (SELECT cf_agg(s2.key) FROM pf_small s2 WHERE s2.grp = 0) @> b.key"
if [ "$PF_REAL" = t ]; then PF_SIDES=(off on forced hand-written); else PF_SIDES=(off hand-written); fi
PF_SG=([off]="" [hand-written]="" [on]="SET cuckoo.join_prefilter = on;"
	[forced]="SET cuckoo.join_prefilter = on; SET cuckoo.join_prefilter_min_big_rows = 0; SET cuckoo.join_prefilter_min_removed = 0;")
pf_query() { if [ "$2" = hand-written ]; then echo "${PF_HAND[$1]}"; else echo "${PF_Q[$1]}"; fi; }
pf_sides() {	# the sides of shape $1: the unfiltered shapes only off and on
	case $1 in
	*-all | *-wide | *-semi | *-left) if [ "$PF_REAL" = t ]; then echo off on; else echo off; fi ;;
	*) echo "${PF_SIDES[@]}" ;;
	esac
}
# the check's form of a query: its answer and a fingerprint of the multiset of
# rows the join gives (count, and the sum of a hash of each row: any order)
PF_CHK="SELECT count(*), sum(length(b.payload)), sum(hashtext(b.id || ',' || b.key || ',' || b.payload)::bigint) FROM"
pf_check() { local q=$1; echo "$PF_CHK${q#"$PF_SEL"}"; }
# where the filter went: sets nfilt, ntasks and PF_SHAPE[$k.$sd]
pf_where() {
	local k=$1 sd=$2 plan log
	plan=$(psql_on coord -c "SET citus.explain_all_tasks = on; ${PF_SET[$k]} ${PF_SG[$sd]} EXPLAIN (VERBOSE, COSTS OFF) $(pf_query "$k" "$sd")" 2>&1)
	echo "$plan" >"$TMP/pf_plan_${k}_$sd.txt"
	ntasks=$(grep -c 'Query: .*pf_big_[0-9]' <<<"$plan")
	nfilt=$(grep -c 'Query: .*pf_big_[0-9].*@>' <<<"$plan")
	if grep -q ERROR <<<"$plan"; then PF_SHAPE[$k.$sd]="error: $(grep -m 1 ERROR <<<"$plan" | cut -c 1-120)"
	elif grep -q 'MapMergeJob' <<<"$plan"; then
		# EXPLAIN shows no task of a repartition join: run it with the commands
		# Citus sends logged, and count the map tasks' queries on pf_big shards
		log=$(psql_on coord -c "${PF_SET[$k]} ${PF_SG[$sd]} SET citus.log_remote_commands = on;
			SET client_min_messages = notice; $(pf_query "$k" "$sd")" 2>&1)
		ntasks=$(grep -c 'NOTICE:  issuing .*pf_big_[0-9]' <<<"$log")
		nfilt=$(grep -c 'NOTICE:  issuing .*pf_big_[0-9].*@>' <<<"$log")
		PF_SHAPE[$k.$sd]="repartition join: in $nfilt of $ntasks commands on pf_big shards (citus.log_remote_commands)"
	else PF_SHAPE[$k.$sd]="in $nfilt of $ntasks worker task queries on pf_big shards"; fi
	PF_NF[$k.$sd]=$nfilt PF_NT[$k.$sd]=$ntasks
	if [ "$nfilt" = 0 ] && [ "$sd" = on ]; then
		PF_SHAPE[$k.$sd]="declined: $(psql_on coord -c "${PF_SET[$k]} ${PF_SG[$sd]} SET cuckoo.join_prefilter_messages = notice;
			EXPLAIN (COSTS OFF) $(pf_query "$k" "$sd")" 2>&1 | grep -m 1 'declined b\.key' | sed 's/.*: declined //' | cut -c 1-240)"
	fi
}
for k in repartition local repartition-all local-all repartition-wide repartition-semi local-left; do
	a=""
	for sd in $(pf_sides $k); do
		b=$(psql_on coord -c "${PF_SET[$k]} ${PF_SG[$sd]} $(pf_check "$(pf_query $k $sd)")" 2>&1 | tail -n 1)
		[ "$sd" = off ] && a=$b
		if [[ "$b" =~ ^[0-9]+\|[0-9]+\|-?[0-9]+$ ]] && [ "$a" = "$b" ]; then
			ok "pre-filter on Citus ($k, $PF_ROWS rows): $sd gives the plain query's rows (count|sum of payload lengths|sum of row hashes: $b)"
		else bad "pre-filter on Citus ($k): $sd answered: $b (off: $a)"; fi
		[ "$sd" = off ] && continue
		pf_where $k $sd
		[ "$sd" = forced ] && continue	# forced: only that it answers alike
		case $k in
		*-all | *-wide)	# nothing to remove, or too much kept: the rule declines
			if [ "$nfilt" = 0 ] && [ "$ntasks" -gt 0 ]; then
				ok "pre-filter on Citus ($k, $sd): no filter (${PF_SHAPE[$k.$sd]})"
			else bad "pre-filter on Citus ($k, $sd): a filter where the rule should decline: ${PF_SHAPE[$k.$sd]}"; fi ;;
		*)
			if [ "$nfilt" -gt 0 ] && [ "$nfilt" = "$ntasks" ]; then
				ok "pre-filter on Citus ($k, $sd): the filter is in every worker task that scans pf_big ($nfilt of $ntasks)"
			else
				bad "pre-filter on Citus ($k, $sd): the filter is in $nfilt of $ntasks worker tasks that scan pf_big (${PF_SHAPE[$k.$sd]})"
			fi ;;
		esac
	done
done
if [ "$PF_REPS" -gt 0 ]; then
	for k in repartition local repartition-all local-all; do
		# timed: off, on, hand-written (forced is only checked above)
		read -ra sides <<<"$(pf_sides $k | sed 's/ forced//')"
		ns=${#sides[@]}
		{
			echo '\set QUIET on'
			for ((r = 0; r <= PF_REPS; r++)); do
				for ((j = 0; j < ns; j++)); do
					sd=${sides[$(((r + j) % ns))]}
					echo "RESET ALL; ${PF_SET[$k]} ${PF_SG[$sd]}"
					echo "\\echo @@ $sd $r"
					echo '\timing on'
					echo "$(pf_query $k $sd);"
					echo '\timing off'
				done
			done
		} >"$TMP/pf_$k.sql"
		chown "$OWNER" "$TMP/pf_$k.sql"
		# (no 300 s limit here: at 10M rows the repartition join takes minutes a run)
		as_owner env PGCONNECT_TIMEOUT=10 "$PGBIN/psql" -X -q -At -h 127.0.0.1 -p "${PORT[coord]}" \
			-U postgres -d postgres -f "$TMP/pf_$k.sql" >"$TMP/pf_$k.out" 2>&1
		for sd in "${sides[@]}"; do
			mapfile -t ts < <(awk -v want="$sd" '/^@@ / { sd = $2; r = $3 } /^Time: / && sd == want && r > 0 { print $2 }' "$TMP/pf_$k.out")
			nerr=$(awk -v want="$sd" '/^@@ / { sd = $2 } /ERROR/ && sd == want { n++ } END { print n + 0 }' "$TMP/pf_$k.out")
			if [ "$nerr" -gt 0 ]; then PF_T[$k.$sd]="error ($nerr runs)"; PF_R[$k.$sd]=""
			elif [ "${#ts[@]}" -gt 0 ]; then PF_T[$k.$sd]=$(stats "${ts[@]}"); PF_R[$k.$sd]=$(median "${ts[@]}")
			else PF_T[$k.$sd]="error"; PF_R[$k.$sd]=""; fi
		done
	done
	echo
	echo "pre-filter on Citus: pf_big $PF_ROWS rows, 32 shards, 2 workers, small side $PF_K keys filtered to 1% (unfiltered: all);"
	echo "times in ms, median of $PF_REPS runs (min-max), psql's \\timing, sides in turn (order rotated); load: $(cut -d' ' -f1-3 /proc/loadavg) at the end"
	echo "| small side | side | time ms | time / off | where the filter went |"
	echo "|---|---|---|---|---|"
	for k in repartition local repartition-all local-all; do
		for sd in $(pf_sides $k | sed 's/ forced//'); do
			ratio=$(awk -v a="${PF_R[$k.$sd]}" -v b="${PF_R[$k.off]}" 'BEGIN { if (a != "" && b > 0) printf "%.3fx", a / b; else print "-" }')
			title=""
			if [ "$sd" = off ]; then
				case $k in
				repartition) title="distributed by key, not co-located (repartition join)" ;;
				local) title="coordinator-local table" ;;
				repartition-all) title="distributed by key, not co-located, unfiltered" ;;
				local-all) title="coordinator-local table, unfiltered" ;;
				esac
			fi
			echo "| $title | $sd | ${PF_T[$k.$sd]} | $([ "$sd" = off ] || echo "$ratio") | ${PF_SHAPE[$k.$sd]:-} |"
		done
	done
fi

if [ "$MEASURE" -gt 0 ] && [ "${CITUS_PREFILTER_ONLY:-0}" = 0 ]; then
	echo
	echo "$ROWS rows, 32 shards, 2 workers; times in ms: median of $MEASURE interleaved runs (min-max)"
	echo "| column | type | distinct | split | bytes identical | distributed (split) | rows pulled | local | split / local | states v2 (base64) | states v1 (base64) | key text |"
	echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
	for c in ${MEASURE_COLS:-${COLS[@]}}; do
		t=${TYPE[$c]}
		dist=(); pull=(); loc=()
		for ((r = 0; r < MEASURE; r++)); do
			dist+=("$(ms "SELECT cf_agg($c) IS NULL FROM ev")")
			pull+=("$(ms "SELECT cf_agg_rowgather($c) IS NULL FROM ev")")
			loc+=("$(ms "SELECT cf_agg($c) IS NULL FROM ev_local")")
		done
		# the partial states the workers ship, one per shard, as text (version
		# 2), what version 1 took (24 + 8 n bytes, base64), the keys' text
		sizes=$(val coord "WITH p AS (SELECT worker_partial_agg('public.cf_agg($t)'::regprocedure, $c)::text AS s
			                  FROM ev_local GROUP BY get_shard_id_for_distribution_column('ev', user_id)),
			              h AS (SELECT s, get_byte(decode(s, 'base64'), 4) + 256 * get_byte(decode(s, 'base64'), 5)
			                              + 65536 * get_byte(decode(s, 'base64'), 6) AS n FROM p)
			SELECT (SELECT count(DISTINCT $c) FROM ev_local) || ' ' || sum(octet_length(s)) || ' '
			       || sum(4 * ceil((24 + 8 * n) / 3.0)) || ' ' || (SELECT sum(octet_length($c::text)) FROM ev_local)
			FROM h")
		read -r ndist v2 v1 keys <<<"$sizes"
		echo "| $c | $t | $ndist | ${SPLIT[$c]} | ${SAME[$c]} | $(stats "${dist[@]}") | $(stats "${pull[@]}") | $(stats "${loc[@]}") |" \
			"$(awk -v a="$(median "${dist[@]}")" -v b="$(median "${loc[@]}")" 'BEGIN { printf "%.2f", a / b }') | $v2 | $v1 | $keys |"
	done
fi
finish
