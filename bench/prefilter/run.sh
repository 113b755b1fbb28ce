#!/usr/bin/env bash
# run.sh - the join pre-filter (issue 40) measured: each scenario with
# cuckoo.join_prefilter off and on, in one run, on throw-away clusters.
#
#   bash bench/prefilter/run.sh [--scale smoke|full] [--reps N] [--plan-reps N]
#                               [--citus-reps N] [--citus|--no-citus] [--keep]
#
#   --scale smoke   (default) 200,000-row big table, 3 repetitions, no Citus: about
#                   30 s; every side must give the plain query's answer (exit 1 if not)
#   --scale full    the issue's sizes: 10,000,000-row big table, 1,000,000-row small
#                   tables, 5 repetitions, Citus: about 30-40 minutes on 2 cores
#   --reps N        timed repetitions per side (after one untimed round)
#   --plan-reps N   planning-time repetitions per side for (d) (smoke 300, full 3000)
#   --citus-reps N  timed repetitions per side for (e) (smoke 1, full 3)
#   --citus / --no-citus   run (e) or not (default: full yes, smoke no)
#   --keep          leave the postgres_fdw clusters running
#
# Needs the extension installed for PG_CONFIG's server (make install PG_CONFIG=...)
# and postgres_fdw (in postgresql-15).  Two clusters, "remote" and "coord", on
# unix sockets in one temp directory; as root they run as "postgres".  Both load
# the library with session_preload_libraries = 'cuckoo'.
#
# The data: big(id, key, payload) on "remote", B rows, key = id * 7919 mod K with
# K = B / 10 (each key 0..K-1 ten times); small(key, grp) with the K keys, grp =
# key % 100 (grp = 0 is 1% of the keys); small_miss(key) K keys of which 1% are
# in big (the rest are not).  On "coord", big_f is a postgres_fdw foreign table
# of big (extensions 'cuckoo'), and small is copied there.
#
#   (a) fdw:    big_f JOIN small ON key, WHERE small.grp = 0        (1% of big matches)
#   (b) local:  big JOIN small_miss ON key   (on remote)             (1% of big matches)
#   (c) fdw / local: big(_f) JOIN small ON key, small unfiltered     (every row matches)
#   (d) planning time (EXPLAIN's Planning Time, off and on in turn) of queries the
#       rule examines and declines: the (c) local query, a four-table join
#   (f) the ordinary shapes of issue 47, local (on remote), the query-level form alone
#       (cuckoo.join_prefilter_runtime off where it exists): events (B rows) of users
#       (B / 15) filtered to 0.5% (active); a bigint hash join, text and uuid keys, IN,
#       EXISTS, three tables (sessions, B / 2), a view with LIMIT 3, an index nested
#       loop (events_ix, an index on user_id), and "the 6M small side": mid (B rows)
#       filtered from huge (4 B rows) whose condition keeps 2.35% of it.  Sides: off,
#       off again (the A/A pair: the noise), auto (the default), always (1.4's rule)
#   (e) Citus: test/citus/run.sh's pre-filter part (CITUS_PREFILTER_ONLY=1, the same
#       B rows), when Citus is installed for PG_CONFIG's server: a repartition join
#       (small side distributed, not co-located) and a coordinator-local small side,
#       each with the small side filtered to 1% and unfiltered
#
# The sides, each the same query but "hand-written":
#   off           the plain query (the setting off)
#   on            SET cuckoo.join_prefilter = on (defaults for the thresholds)
#   forced        on, with cuckoo.join_prefilter_min_big_rows = 0 and
#                 cuckoo.join_prefilter_min_removed = 0 (what the rule does where
#                 its estimates decline)
#   hand-written  README "Pre-filter a join": ... AND (SELECT cf_agg(s2.key) FROM
#                 small s2 WHERE <small's conditions>) @> b.key, the setting off
# on and forced only where the loaded library has the setting.  Times are
# server-side wall times (clock_timestamp around EXECUTE in PL/pgSQL), the sides
# in turn, the order rotated every repetition (A B C D, B C D A, ...) after one
# untimed round; median and (min-max).  Rows fetched: for a foreign scan the rows
# that crossed from the remote (EXPLAIN ANALYZE actual rows + rows removed by a
# local filter), for a local scan the rows it handed up (every scan of the table:
# forced may filter both sides).  Every side's answer is compared with off's.
# max_parallel_workers_per_gather = 0 and jit = off on both clusters (a 2-core
# shared machine); work_mem = 256MB so that the hash joins are single-batch.
set -uo pipefail

PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
PGBIN=$("$PG_CONFIG" --bindir) || exit 1
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
SCALE=smoke KEEP=0 REPS="" PREPS="" NOCITUS=""
while [ $# -gt 0 ]; do
	case $1 in
	--scale) SCALE=$2; shift ;;
	--scale=*) SCALE=${1#*=} ;;
	--reps) REPS=$2; shift ;;
	--plan-reps) PREPS=$2; shift ;;
	--citus-reps) CITUS_REPS=$2; shift ;;
	--no-citus) NOCITUS=1 ;;
	--citus) NOCITUS=0 ;;
	--keep) KEEP=1 ;;
	*) echo "usage: run.sh [--scale smoke|full] [--reps N] [--plan-reps N] [--citus-reps N] [--citus|--no-citus] [--keep]" >&2; exit 2 ;;
	esac
	shift
done
case $SCALE in
smoke) B=${PREFILTER_BIG:-200000}; REPS=${REPS:-3}; PREPS=${PREPS:-300}; CREPS=${CITUS_REPS:-1}; NOCITUS=${NOCITUS:-1} ;;
full) B=${PREFILTER_BIG:-10000000}; REPS=${REPS:-5}; PREPS=${PREPS:-3000}; CREPS=${CITUS_REPS:-3}; NOCITUS=${NOCITUS:-0} ;;
*) echo "run.sh: --scale smoke or full" >&2; exit 2 ;;
esac
K=$((B / 10))

if [ "$(id -u)" -eq 0 ]; then
	OWNER=postgres
	as_owner() { (cd / && runuser -u postgres -- "$@"); }
else
	OWNER=$(id -un)
	as_owner() { "$@"; }
fi
TMP=$(mktemp -d /tmp/cuckoo-prefilter.XXXXXXXX) || exit 1
chown "$OWNER" "$TMP"
chmod 700 "$TMP"
NODES=(remote coord)
declare -A PORT
STARTED=()
cleanup() {
	local rc=$?
	if [ "$KEEP" -eq 1 ]; then
		echo "kept: psql -h $TMP -p ${PORT[coord]:-?} -U postgres postgres (remote: -p ${PORT[remote]:-?})"
		return $rc
	fi
	for n in "${STARTED[@]}"; do
		as_owner timeout 30 "$PGBIN/pg_ctl" -D "$TMP/$n" stop -m immediate -w >/dev/null 2>&1
	done
	rm -rf "$TMP"
	return $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM
die() { echo "prefilter: $*" >&2; for l in "$TMP"/*.log; do tail -n 5 "$l" >&2; done; exit 1; }

psql_on() {
	local n=$1; shift
	as_owner env PGCONNECT_TIMEOUT=10 "$PGBIN/psql" -X -q -At -v ON_ERROR_STOP=1 \
		-h "$TMP" -p "${PORT[$n]}" -U postgres -d postgres "$@"
}
val() { local n=$1; shift; psql_on "$n" -c "$*" | tail -n 1; }

start_node() {
	local n=$1 p=$((20000 + RANDOM % 30000))
	[ "$n" = coord ] && [ "$p" = "${PORT[remote]:-}" ] && p=$((p + 1))
	PORT[$n]=$p
	as_owner "$PGBIN/initdb" -D "$TMP/$n" -U postgres -A trust -E UTF8 --locale=C \
		--no-sync --no-instructions >"$TMP/$n.initdb.log" 2>&1 || { cat "$TMP/$n.initdb.log"; return 1; }
	as_owner tee -a "$TMP/$n/postgresql.conf" >/dev/null <<-EOF
		port = $p
		listen_addresses = ''
		unix_socket_directories = '$TMP'
		shared_buffers = 1GB
		work_mem = 256MB
		maintenance_work_mem = 512MB
		max_wal_size = 4GB
		fsync = off
		synchronous_commit = off
		full_page_writes = off
		autovacuum = off
		max_parallel_workers_per_gather = 0
		jit = off
		session_preload_libraries = 'cuckoo'
		log_min_messages = warning
	EOF
	STARTED+=("$n")
	as_owner "$PGBIN/pg_ctl" -D "$TMP/$n" -l "$TMP/$n.log" -w -t 60 start >/dev/null || return 1
	psql_on "$n" -c "CREATE EXTENSION cuckoo"
}
for n in "${NODES[@]}"; do start_node "$n" || die "cannot start $n"; done

# the real setting, or the hand-written stand-in
REAL=$(val coord "SELECT current_setting('cuckoo.join_prefilter', true) IS NOT NULL")
if [ "$REAL" = t ]; then ON_LABEL="on (cuckoo.join_prefilter)"; else ON_LABEL="hand-written (stand-in)"; fi
echo "prefilter: $("$PG_CONFIG" --version), cuckoo $(val coord "SELECT extversion FROM pg_extension WHERE extname = 'cuckoo'")," \
	"scale $SCALE: big $B rows, small $K keys, $REPS repetitions; on = $ON_LABEL"

T0=$SECONDS
psql_on remote <<-EOF || die "load"
	CREATE TABLE big (id bigint NOT NULL, key bigint NOT NULL, payload text);
	INSERT INTO big SELECT g, (g::bigint * 7919) % $K, 'payload ' || g FROM generate_series(1, $B) g;
	CREATE TABLE small (key bigint NOT NULL, grp int NOT NULL);
	INSERT INTO small SELECT g, g % 100 FROM generate_series(0, $K - 1) g;
	-- 1% of the keys are big's (the multiples of 100), the others are not
	CREATE TABLE small_miss (key bigint NOT NULL);
	INSERT INTO small_miss SELECT CASE WHEN g % 100 = 0 THEN g ELSE $K + g END FROM generate_series(0, $K - 1) g;
	VACUUM ANALYZE;
EOF
psql_on coord <<-EOF || die "coordinator"
	CREATE EXTENSION postgres_fdw;
	CREATE SERVER remote FOREIGN DATA WRAPPER postgres_fdw
	  OPTIONS (host '$TMP', port '${PORT[remote]}', dbname 'postgres', extensions 'cuckoo',
	           fetch_size '10000', use_remote_estimate 'false');
	CREATE USER MAPPING FOR postgres SERVER remote OPTIONS (user 'postgres');
	CREATE FOREIGN TABLE big_f (id bigint NOT NULL, key bigint NOT NULL, payload text)
	  SERVER remote OPTIONS (table_name 'big');
	CREATE TABLE small (key bigint NOT NULL, grp int NOT NULL);
	INSERT INTO small SELECT g, g % 100 FROM generate_series(0, $K - 1) g;
	VACUUM ANALYZE small;
	ANALYZE big_f;
EOF
echo "loaded in $((SECONDS - T0)) s"

# helpers on both clusters
for n in remote coord; do
	psql_on "$n" <<-'EOF' || die "helpers on $n"
	-- a side's settings: RESET ALL (the clusters' settings are in postgresql.conf),
	-- then 'name=value,name=value'
	CREATE FUNCTION pf_apply(gucs text) RETURNS void LANGUAGE plpgsql AS $$
	DECLARE kv text;
	BEGIN
	  RESET ALL;
	  FOREACH kv IN ARRAY coalesce(string_to_array(nullif(gucs, ''), ','), '{}') LOOP
	    PERFORM set_config(split_part(kv, '=', 1), split_part(kv, '=', 2), false);
	  END LOOP;
	END $$;
	-- wall ms of each side's query, the sides in turn, the order rotated every
	-- repetition (A B C, B C A, ...), after one untimed warm-up round
	CREATE FUNCTION pf_time(qs text[], gucs text[], reps int)
	RETURNS TABLE (side int, ms float8) LANGUAGE plpgsql AS $$
	DECLARE t timestamptz; i int; j int; n int := cardinality(qs);
	BEGIN
	  FOR i IN 0..reps LOOP
	    FOR j IN 0..n - 1 LOOP
	      side := 1 + (i + j) % n;
	      PERFORM pf_apply(gucs[side]);
	      t := clock_timestamp();
	      EXECUTE qs[side];
	      ms := extract(epoch FROM clock_timestamp() - t) * 1000;
	      IF i > 0 THEN RETURN NEXT; END IF;
	    END LOOP;
	  END LOOP;
	  PERFORM pf_apply('');
	END $$;
	-- EXPLAIN's Planning Time of q under each side's settings, in turn
	CREATE FUNCTION pf_plan_time(q text, gucs text[], reps int)
	RETURNS TABLE (side int, ms float8) LANGUAGE plpgsql AS $$
	DECLARE j json; i int; k int; n int := cardinality(gucs);
	BEGIN
	  FOR i IN 0..reps LOOP
	    FOR k IN 0..n - 1 LOOP
	      side := 1 + (i + k) % n;
	      PERFORM pf_apply(gucs[side]);
	      EXECUTE 'EXPLAIN (FORMAT JSON, COSTS OFF, SUMMARY ON) ' || q INTO j;
	      IF i > 0 THEN ms := (j -> 0 ->> 'Planning Time')::float8; RETURN NEXT; END IF;
	    END LOOP;
	  END LOOP;
	  PERFORM pf_apply('');
	END $$;
	-- "median (min-max)"
	CREATE FUNCTION pf_stats(v float8[], digits int DEFAULT 0) RETURNS text LANGUAGE sql AS $$
	  SELECT round(percentile_cont(0.5) WITHIN GROUP (ORDER BY x)::numeric, digits) || ' ('
	         || round(min(x)::numeric, digits) || '-' || round(max(x)::numeric, digits) || ')'
	  FROM unnest(v) x $$;
	CREATE FUNCTION pf_median(v float8[]) RETURNS float8 LANGUAGE sql AS $$
	  SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY x) FROM unnest(v) x $$;
	-- the answer, rows the scans of rel handed up (foreign: + rows a local filter
	-- removed), and where a cuckoo filter is in the plan (one line), under gucs
	CREATE FUNCTION pf_rows(q text, rel text, gucs text)
	RETURNS TABLE (answer text, fetched bigint, shape text) LANGUAGE plpgsql AS $$
	DECLARE plan jsonb; joins text;
	BEGIN
	  PERFORM pf_apply(gucs);
	  EXECUTE 'SELECT row(s.*)::text FROM (' || q || ') s' INTO answer;
	  EXECUTE 'EXPLAIN (ANALYZE, VERBOSE, TIMING OFF, FORMAT JSON) ' || q INTO plan;
	  PERFORM pf_apply('');
	  SELECT sum(((n->>'Actual Rows')::numeric
	              + CASE WHEN n->>'Node Type' = 'Foreign Scan'
	                     THEN coalesce((n->>'Rows Removed by Filter')::numeric, 0) ELSE 0 END)
	             * (n->>'Actual Loops')::numeric)::bigint
	    INTO fetched
	    FROM jsonb_path_query(plan, 'strict $.**') n
	   WHERE jsonb_typeof(n) = 'object' AND n->>'Relation Name' = rel;
	  SELECT coalesce(string_agg(DISTINCT
	           CASE WHEN n->>'Remote SQL' ~ 'cf_contains|@>' THEN 'in the Remote SQL of ' || (n->>'Relation Name')
	                ELSE 'in the Filter of ' || (n->>'Node Type') || ' on ' || coalesce(n->>'Relation Name', '?') END
	           || coalesce(' (' || (n->>'Rows Removed by Filter') || ' removed)', ''), '; '), 'nowhere')
	    INTO shape
	    FROM jsonb_path_query(plan, 'strict $.**') n
	   WHERE jsonb_typeof(n) = 'object' AND n ? 'Node Type'
	     AND (n->>'Remote SQL' ~ 'cf_contains|@>' OR n->>'Filter' ~ 'cf_contains|@>');
	  SELECT string_agg(DISTINCT n->>'Node Type', '/') INTO joins
	    FROM jsonb_path_query(plan, 'strict $.**') n
	   WHERE jsonb_typeof(n) = 'object' AND n ? 'Join Type';
	  shape := coalesce(joins, 'no join') || ', filter ' || shape;
	  RETURN NEXT;
	END $$;
	EOF
done
psql_on remote -c "SELECT pf_apply('')" >/dev/null || die "helpers"

SEL="SELECT count(*), sum(length(b.payload)) FROM"
declare -A NODE QOFF QHAND REL TITLE TARGET
# per scenario: node, the query, the hand-written pre-filter, the scanned relation
NODE[a]=coord; REL[a]=big_f
QOFF[a]="$SEL big_f b JOIN small s ON b.key = s.key WHERE s.grp = 0"
QHAND[a]="${QOFF[a]} AND (SELECT cf_agg(s2.key) FROM small s2 WHERE s2.grp = 0) @> b.key"
NODE[b]=remote; REL[b]=big
QOFF[b]="$SEL big b JOIN small_miss s ON b.key = s.key"
QHAND[b]="${QOFF[b]} WHERE (SELECT cf_agg(s2.key) FROM small_miss s2) @> b.key"
NODE[c_fdw]=coord; REL[c_fdw]=big_f
QOFF[c_fdw]="$SEL big_f b JOIN small s ON b.key = s.key"
QHAND[c_fdw]="${QOFF[c_fdw]} WHERE (SELECT cf_agg(s2.key) FROM small s2) @> b.key"
NODE[c_local]=remote; REL[c_local]=big
QOFF[c_local]="$SEL big b JOIN small s ON b.key = s.key"
QHAND[c_local]="${QOFF[c_local]} WHERE (SELECT cf_agg(s2.key) FROM small s2) @> b.key"
TITLE=([a]="(a) postgres_fdw: big_f ⋈ small, small 1% (grp = 0)"
	[b]="(b) local hash join: big ⋈ small_miss, 1% of big matches"
	[c_fdw]="(c) postgres_fdw, small unfiltered (removes nothing)"
	[c_local]="(c) local, small unfiltered (removes nothing)")
TARGET=([a]="rows <= 1/20, time <= 0.3x" [b]="time <= 0.8x" [c_fdw]="time <= 1.05x" [c_local]="time <= 1.05x")
# the sides: label, settings, which query (off: the plain one, hand: the hand-written)
FORCE="cuckoo.join_prefilter_min_big_rows=0,cuckoo.join_prefilter_min_removed=0"
if [ "$REAL" = t ]; then
	SIDES=(off on forced hand-written)
	declare -A SG=([off]="" [on]="cuckoo.join_prefilter=on" [forced]="cuckoo.join_prefilter=on,$FORCE" [hand-written]="")
else
	SIDES=(off hand-written)
	declare -A SG=([off]="" [hand-written]="")
fi
echo "sides: $(for s in "${SIDES[@]}"; do printf '%s [%s] ' "$s" "${SG[$s]:-plain}"; done)"

sq() { printf "'%s'" "${1//\'/\'\'}"; }
arr() { local a="ARRAY[" sep="" x; for x in "$@"; do a+="$sep$(sq "$x")"; sep=", "; done; echo "$a]::text[]"; }
FAILED=0
OUT=$TMP/table.md
{
	echo "| scenario | side | rows fetched | time ms, median (min-max) | plan: where the filter went | time / off | target |"
	echo "|---|---|---|---|---|---|---|"
} >"$OUT"
for k in a b c_fdw c_local; do
	n=${NODE[$k]} qs=() gs=()
	for s in "${SIDES[@]}"; do
		if [ "$s" = hand-written ]; then qs+=("${QHAND[$k]}"); else qs+=("${QOFF[$k]}"); fi
		gs+=("${SG[$s]}")
	done
	declare -A ANS=() FET=() SHP=()
	for i in "${!SIDES[@]}"; do
		IFS='|' read -r ANS[$i] FET[$i] SHP[$i] < <(val "$n" "SELECT * FROM pf_rows($(sq "${qs[$i]}"), '${REL[$k]}', $(sq "${gs[$i]}"))")
		if [ -z "${ANS[$i]}" ] || [ "${ANS[$i]}" != "${ANS[0]}" ]; then
			echo "FAIL: $k: ${SIDES[$i]} answered '${ANS[$i]}', off '${ANS[0]}'"; FAILED=1
		fi
	done
	r=$(val "$n" "WITH t AS (SELECT * FROM pf_time($(arr "${qs[@]}"), $(arr "${gs[@]}"), $REPS)),
		m AS (SELECT side, pf_stats(array_agg(ms)) AS st, pf_median(array_agg(ms)) AS med FROM t GROUP BY side)
		SELECT string_agg(st || ';' || round((med / (SELECT med FROM m WHERE side = 1))::numeric, 3), '|' ORDER BY side) FROM m")
	IFS='|' read -r -a TS <<<"$r"
	for i in "${!SIDES[@]}"; do
		st=${TS[$i]%;*} ratio=${TS[$i]#*;}
		rr=""
		[ "$i" -gt 0 ] && rr=$(awk -v a="${FET[$i]}" -v b="${FET[0]}" 'BEGIN { if (a > 0) printf " (1/%.1f)", b / a }')
		if [ "$i" -eq 0 ]; then
			echo "| ${TITLE[$k]} | off | ${FET[$i]} | $st | ${SHP[$i]} | | ${TARGET[$k]} |"
		else
			echo "| | ${SIDES[$i]} | ${FET[$i]}$rr | $st | ${SHP[$i]} | ${ratio}x | |"
		fi
	done >>"$OUT"
	echo "  $k: answer ${ANS[0]}; $(for i in "${!SIDES[@]}"; do printf '%s %s ms; ' "${SIDES[$i]}" "${TS[$i]%;*}"; done)" >&2
done

# (d) planning time of queries the rule examines and declines: the (c) local
# query (removes nothing) and a four-table join (small tables on both sides)
if [ "$REAL" = t ]; then
	psql_on remote -c "CREATE TABLE dim AS SELECT g AS key, g % 7 AS grp FROM generate_series(1, 1000) g" -c "ANALYZE dim" >/dev/null
	QD1=${QOFF[c_local]}
	QD2="SELECT count(*) FROM small s JOIN dim d1 ON d1.key = s.key JOIN dim d2 ON d2.key = d1.key JOIN small_miss m ON m.key = d2.key"
	for q in "$QD1" "$QD2"; do
		shd=$(psql_on remote -c "SET cuckoo.join_prefilter = on" -c "SET cuckoo.join_prefilter_messages = notice" \
			-c "EXPLAIN (COSTS OFF) $q" 2>&1 | grep -c 'NOTICE:.*declined')
		sha=$(psql_on remote -c "SET cuckoo.join_prefilter = on" -c "SET cuckoo.join_prefilter_messages = notice" \
			-c "EXPLAIN (COSTS OFF) $q" 2>&1 | grep -c 'NOTICE:  cuckoo.join_prefilter: filter')
		r=$(val remote "WITH t AS (SELECT * FROM pf_plan_time($(sq "$q"), ARRAY['', 'cuckoo.join_prefilter=on'], $PREPS)),
			m AS (SELECT side, pf_stats(array_agg(ms), 3) AS st, pf_median(array_agg(ms)) AS med FROM t GROUP BY side)
			SELECT string_agg(st || ';' || round((med / (SELECT med FROM m WHERE side = 1))::numeric, 3), '|' ORDER BY side) FROM m")
		IFS='|' read -r -a TS <<<"$r"
		lbl="(d) planning time: (c) local query"
		[ "$q" = "$QD2" ] && lbl="(d) planning time: a four-table join of small tables"
		{
			echo "| $lbl ($PREPS plans a side) | off | | ${TS[0]%;*} | | | time <= 1.1x |"
			echo "| | on | | ${TS[1]%;*} | $shd candidates declined, $sha applied | ${TS[1]#*;}x | |"
		} >>"$OUT"
	done
else
	echo "| (d) planning time | - | | | not measured: the loaded cuckoo has no cuckoo.join_prefilter | | time <= 1.1x |" >>"$OUT"
fi

# (f) the ordinary shapes, the query-level form alone, off / off again (A/A) /
# auto / always, on remote (local tables)
if [ "$REAL" = t ] && [ "$(val coord "SELECT current_setting('cuckoo.join_prefilter_query', true) IS NOT NULL")" = t ]; then
	U=$((B / 15))
	psql_on remote <<-EOF || die "shapes"
		CREATE TABLE users (id bigint NOT NULL, handle text NOT NULL, uid uuid NOT NULL, active bool NOT NULL);
		INSERT INTO users SELECT g, 'user' || g, md5(g::text)::uuid, g % 200 = 0 FROM generate_series(1, $U) g;
		CREATE TABLE events (user_id bigint NOT NULL, handle text NOT NULL, uid uuid NOT NULL, v int NOT NULL);
		INSERT INTO events SELECT u, 'user' || u, md5(u::text)::uuid, g
		  FROM (SELECT g, 1 + (g::bigint * 7919) % $U AS u FROM generate_series(1, $B) g) x;
		CREATE TABLE sessions (user_id bigint NOT NULL, w int NOT NULL);
		INSERT INTO sessions SELECT 1 + (g::bigint * 104729) % $U, g FROM generate_series(1, $B / 2) g;
		CREATE TABLE events_ix AS SELECT * FROM events;
		CREATE INDEX ON events_ix (user_id);
		CREATE VIEW active_events AS SELECT e.* FROM events e JOIN users u ON e.user_id = u.id WHERE u.active;
		CREATE TABLE mid (k bigint NOT NULL, v int NOT NULL);
		INSERT INTO mid SELECT (g::bigint * 7919) % ($B * 4), g FROM generate_series(1, $B) g;
		CREATE TABLE huge (k bigint NOT NULL, grp int NOT NULL);
		INSERT INTO huge SELECT g, CASE WHEN g % 10000 < 235 THEN 0 ELSE 1 END FROM generate_series(0, $B * 4 - 1) g;
		VACUUM ANALYZE;
	EOF
	declare -A FQ
	FK=(f_int f_text f_uuid f_in f_exists f_three f_limit f_nl f_6m)
	FQ[f_int]="SELECT count(*), sum(e.v) FROM events e JOIN users u ON e.user_id = u.id WHERE u.active"
	FQ[f_text]="SELECT count(*), sum(e.v) FROM events e JOIN users u ON e.handle = u.handle WHERE u.active"
	FQ[f_uuid]="SELECT count(*), sum(e.v) FROM events e JOIN users u ON e.uid = u.uid WHERE u.active"
	FQ[f_in]="SELECT count(*), sum(e.v) FROM events e WHERE e.user_id IN (SELECT id FROM users WHERE active)"
	FQ[f_exists]="SELECT count(*), sum(e.v) FROM events e WHERE EXISTS (SELECT FROM users u WHERE u.id = e.user_id AND u.active)"
	FQ[f_three]="SELECT count(*), sum(e.v + s.w) FROM events e JOIN users u ON e.user_id = u.id JOIN sessions s ON s.user_id = u.id WHERE u.active"
	FQ[f_limit]="SELECT count(*), sum(v) FROM (SELECT * FROM active_events LIMIT 3) x"
	FQ[f_nl]="SELECT count(*), sum(e.v) FROM events_ix e JOIN users u ON e.user_id = u.id WHERE u.active"
	FQ[f_6m]="SELECT count(*), sum(m.v) FROM mid m JOIN huge h ON m.k = h.k WHERE h.grp = 0"
	declare -A FT=([f_int]="(f) bigint hash join, users 0.5%" [f_text]="(f) text key" [f_uuid]="(f) uuid key"
		[f_in]="(f) IN (SELECT ...)" [f_exists]="(f) EXISTS" [f_three]="(f) three tables (events, users, sessions)"
		[f_limit]="(f) a view with LIMIT 3" [f_nl]="(f) index nested loop (events_ix.user_id indexed)"
		[f_6m]="(f) the 6M shape: mid (B) from huge (4 B, 2.35% kept)")
	# the run-time form off where the build has it (a reserved prefix: no placeholder)
	RT=""
	[ "$(val remote "SELECT current_setting('cuckoo.join_prefilter_runtime', true) IS NOT NULL")" = t ] &&
		RT=",cuckoo.join_prefilter_runtime=off"
	FSIDES=(off "off (A/A)" auto always)
	FG=("${RT#,}" "${RT#,}" "cuckoo.join_prefilter=on$RT" "cuckoo.join_prefilter=on,cuckoo.join_prefilter_query=always$RT")
	for k in "${FK[@]}"; do
		qs=("${FQ[$k]}" "${FQ[$k]}" "${FQ[$k]}" "${FQ[$k]}")
		declare -A ANS=() FET=() SHP=()
		rel=events
		case $k in f_nl) rel=events_ix ;; f_6m) rel=mid ;; esac
		for i in "${!FSIDES[@]}"; do
			IFS='|' read -r ANS[$i] FET[$i] SHP[$i] < <(val remote "SELECT * FROM pf_rows($(sq "${qs[$i]}"), '$rel', $(sq "${FG[$i]}"))")
			if [ -z "${ANS[$i]}" ] || [ "${ANS[$i]}" != "${ANS[0]}" ]; then
				echo "FAIL: $k: ${FSIDES[$i]} answered '${ANS[$i]}', off '${ANS[0]}'"; FAILED=1
			fi
		done
		r=$(val remote "WITH t AS (SELECT * FROM pf_time($(arr "${qs[@]}"), $(arr "${FG[@]}"), $REPS)),
			m AS (SELECT side, pf_stats(array_agg(ms), 1) AS st, pf_median(array_agg(ms)) AS med FROM t GROUP BY side)
			SELECT string_agg(st || ';' || round((med / (SELECT med FROM m WHERE side = 1))::numeric, 3), '|' ORDER BY side) FROM m")
		IFS='|' read -r -a TS <<<"$r"
		for i in "${!FSIDES[@]}"; do
			st=${TS[$i]%;*} ratio=${TS[$i]#*;}
			if [ "$i" -eq 0 ]; then
				echo "| ${FT[$k]} | off | ${FET[$i]} | $st | ${SHP[$i]} | | <= 1.05x where nothing is gained |"
			else
				echo "| | ${FSIDES[$i]} | ${FET[$i]} | $st | ${SHP[$i]} | ${ratio}x | |"
			fi
		done >>"$OUT"
		echo "  $k: answer ${ANS[0]}; $(for i in "${!FSIDES[@]}"; do printf '%s %s ms; ' "${FSIDES[$i]}" "${TS[$i]%;*}"; done)" >&2
	done
else
	echo "| (f) ordinary shapes | - | | | not measured: the loaded cuckoo has no cuckoo.join_prefilter_query | | |" >>"$OUT"
fi

# (e) Citus: test/citus/run.sh's pre-filter part (its own coordinator + 2 workers)
if [ "$NOCITUS" = 1 ]; then
	echo "| (e) Citus | - | | | not measured (smoke: add --citus; full: without --no-citus) | | time <= 0.5x |" >>"$OUT"
elif [ -f "$("$PG_CONFIG" --pkglibdir)/citus.so" ]; then
	for n in "${STARTED[@]}"; do	# free the memory and the cores first
		as_owner "$PGBIN/pg_ctl" -D "$TMP/$n" stop -m fast -w >/dev/null 2>&1
	done
	STARTED=()
	CITUS_PREFILTER_ONLY=1 CITUS_PREFILTER_ROWS=$B CITUS_PREFILTER_REPS=$CREPS PG_CONFIG=$PG_CONFIG \
		bash "$ROOT/test/citus/run.sh" >"$TMP/citus.out" 2>&1
	crc=$?
	sed 's/^/  citus: /' "$TMP/citus.out" | grep -E 'PASS|FAIL|^  citus: citus' >&2
	[ "$crc" -eq 0 ] || FAILED=1
	# its table: | small side | side | time | time / off | where |
	awk -F'|' '
		/^\| distributed by key/ { t = "(e) Citus, 32 shards: small side distributed, not co-located (repartition join), 1%"; target = "time <= 0.5x" }
		/^\| coordinator-local/   { t = "(e) Citus, 32 shards: small side coordinator-local, 1%"; target = "time <= 0.5x" }
		/^\| distributed by key.*unfiltered/ { t = "(e) Citus, 32 shards: small side distributed, not co-located, unfiltered"; target = "time <= 1.05x" }
		/^\| coordinator-local.*unfiltered/   { t = "(e) Citus, 32 shards: small side coordinator-local, unfiltered"; target = "time <= 1.05x" }
		/^\| .* \| (off|on|forced|hand-written) \|/ {
			gsub(/^ +| +$/, "", $3); gsub(/^ +| +$/, "", $4); gsub(/^ +| +$/, "", $5); gsub(/^ +| +$/, "", $6)
			if ($3 == "off") printf "| %s | off | | %s | | | %s |\n", t, $4, target
			else printf "| | %s | | %s | filter %s | %s | |\n", $3, $4, $6, $5
		}' "$TMP/citus.out" >>"$OUT"
	grep -q '^| (e)' "$OUT" || echo "| (e) Citus | - | | | test/citus/run.sh printed no table (see above) | | time <= 0.5x |" >>"$OUT"
else
	echo "| (e) Citus | - | | | not measured: Citus is not installed for $("$PG_CONFIG" --version) | | time <= 0.5x |" >>"$OUT"
fi
echo
cat "$OUT"
[ "$FAILED" -eq 0 ] && echo "prefilter: every side gave the plain query's answer" || { echo "prefilter: FAILED (see the FAIL lines above)"; exit 1; }
