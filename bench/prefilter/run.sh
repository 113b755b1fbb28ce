#!/usr/bin/env bash
# run.sh - the join pre-filter (issue 40) measured: each scenario with
# cuckoo.join_prefilter off and on, in one run, on throw-away clusters.
#
#   bash bench/prefilter/run.sh [--scale smoke|full] [--reps N] [--plan-reps N] [--keep]
#
#   --scale smoke   (default) 200,000-row big table, 3 repetitions: seconds; checks
#                   that both sides give the same answers and prints the table
#   --scale full    the issue's sizes: 10,000,000-row big table, 1,000,000-row small
#                   table, 7 repetitions (loading takes minutes: run it alone, niced)
#   --reps N        timed repetitions per side (interleaved, after one warm-up each)
#   --plan-reps N   planning-time repetitions per side for (d) (smoke 300, full 3000)
#   --keep          leave the clusters running
#
# Needs the extension installed for PG_CONFIG's server (make install PG_CONFIG=...)
# and postgres_fdw (in postgresql-15).  Two clusters, "remote" and "coord", on
# unix sockets in one temp directory; as root they run as "postgres".
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
#   (d) planning time of the (c) local query (the rule should decline it): EXPLAIN's
#       Planning Time, interleaved
#   (e) Citus: bash test/citus/run.sh's pre-filter measurement, when Citus is
#       installed for PG_CONFIG's server
#
# "on" is SET cuckoo.join_prefilter = on when the loaded library has that setting;
# until then it is the hand-written pre-filter of README "Pre-filter a join",
# (SELECT cf_agg(key) FROM small WHERE ...) @> big.key, labelled "hand-written".
# Times are server-side wall times (clock_timestamp around EXECUTE in PL/pgSQL),
# off and on alternating (off-on, on-off, ...), the median and (min-max).  Rows
# fetched: for a foreign scan the rows that crossed from the remote (EXPLAIN
# ANALYZE actual rows + rows removed by a local filter), for a local scan the rows
# it handed up to the join.  Both sides' results are compared (count and a sum).
# max_parallel_workers_per_gather = 0 on both clusters (a 2-core shared machine);
# work_mem = 256MB so that the hash joins are single-batch.
set -uo pipefail

PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
PGBIN=$("$PG_CONFIG" --bindir) || exit 1
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
SCALE=smoke KEEP=0 REPS="" PREPS=""
while [ $# -gt 0 ]; do
	case $1 in
	--scale) SCALE=$2; shift ;;
	--scale=*) SCALE=${1#*=} ;;
	--reps) REPS=$2; shift ;;
	--plan-reps) PREPS=$2; shift ;;
	--keep) KEEP=1 ;;
	*) echo "usage: run.sh [--scale smoke|full] [--reps N] [--plan-reps N] [--keep]" >&2; exit 2 ;;
	esac
	shift
done
case $SCALE in
smoke) B=${PREFILTER_BIG:-200000}; REPS=${REPS:-3}; PREPS=${PREPS:-300} ;;
full) B=${PREFILTER_BIG:-10000000}; REPS=${REPS:-7}; PREPS=${PREPS:-3000} ;;
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
	INSERT INTO big SELECT g, (g * 7919) % $K, 'payload ' || g FROM generate_series(1, $B) g;
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
	-- times of q_off and q_on, interleaved (off-on, on-off, ...), one warm-up each;
	-- with set_guc, cuckoo.join_prefilter is set off / on before each run
	CREATE FUNCTION pf_time(q_off text, q_on text, set_guc boolean, reps int)
	RETURNS TABLE (side text, ms float8) LANGUAGE plpgsql AS $$
	DECLARE t timestamptz; s text; i int;
	BEGIN
	  FOR i IN 0..reps LOOP
	    FOREACH s IN ARRAY CASE WHEN i % 2 = 0 THEN ARRAY['off', 'on'] ELSE ARRAY['on', 'off'] END LOOP
	      IF set_guc THEN PERFORM set_config('cuckoo.join_prefilter', s, false); END IF;
	      t := clock_timestamp();
	      EXECUTE CASE s WHEN 'off' THEN q_off ELSE q_on END;
	      IF i > 0 THEN
	        side := s; ms := extract(epoch FROM clock_timestamp() - t) * 1000; RETURN NEXT;
	      END IF;
	    END LOOP;
	  END LOOP;
	  IF set_guc THEN PERFORM set_config('cuckoo.join_prefilter', 'off', false); END IF;
	END $$;
	-- EXPLAIN's Planning Time of q, off and on interleaved
	CREATE FUNCTION pf_plan_time(q text, reps int)
	RETURNS TABLE (side text, ms float8) LANGUAGE plpgsql AS $$
	DECLARE j json; s text; i int;
	BEGIN
	  FOR i IN 0..reps LOOP
	    FOREACH s IN ARRAY CASE WHEN i % 2 = 0 THEN ARRAY['off', 'on'] ELSE ARRAY['on', 'off'] END LOOP
	      PERFORM set_config('cuckoo.join_prefilter', s, false);
	      EXECUTE 'EXPLAIN (FORMAT JSON, COSTS OFF, SUMMARY ON) ' || q INTO j;
	      IF i > 0 THEN side := s; ms := (j -> 0 ->> 'Planning Time')::float8; RETURN NEXT; END IF;
	    END LOOP;
	  END LOOP;
	  PERFORM set_config('cuckoo.join_prefilter', 'off', false);
	END $$;
	-- "median (min-max)" of the side's times
	CREATE FUNCTION pf_stats(v float8[], digits int DEFAULT 0) RETURNS text LANGUAGE sql AS $$
	  SELECT round(percentile_cont(0.5) WITHIN GROUP (ORDER BY x)::numeric, digits) || ' ('
	         || round(min(x)::numeric, digits) || '-' || round(max(x)::numeric, digits) || ')'
	  FROM unnest(v) x $$;
	-- rows the scans of rel handed up (foreign: + rows a local filter removed), and
	-- where a cuckoo filter is in the plan (one line)
	CREATE FUNCTION pf_rows(q text, rel text, setting text) RETURNS TABLE (fetched bigint, shape text)
	LANGUAGE plpgsql AS $$
	DECLARE plan jsonb; joins text;
	BEGIN
	  IF setting IS NOT NULL THEN PERFORM set_config('cuckoo.join_prefilter', setting, false); END IF;
	  EXECUTE 'EXPLAIN (ANALYZE, VERBOSE, TIMING OFF, FORMAT JSON) ' || q INTO plan;
	  IF setting IS NOT NULL THEN PERFORM set_config('cuckoo.join_prefilter', 'off', false); END IF;
	  SELECT sum(((n->>'Actual Rows')::numeric
	              + CASE WHEN n->>'Node Type' = 'Foreign Scan'
	                     THEN coalesce((n->>'Rows Removed by Filter')::numeric, 0) ELSE 0 END)
	             * (n->>'Actual Loops')::numeric)::bigint
	    INTO fetched
	    FROM jsonb_path_query(plan, 'strict $.**') n
	   WHERE jsonb_typeof(n) = 'object' AND n->>'Relation Name' = rel;
	  SELECT coalesce(string_agg(DISTINCT
	           CASE WHEN n->>'Remote SQL' ~ 'cf_contains|@>' THEN 'in the Remote SQL of ' || (n->>'Relation Name')
	                ELSE 'in the ' || CASE WHEN n->>'Filter' ~ 'cf_contains|@>' THEN 'Filter' ELSE 'quals' END
	                     || ' of ' || (n->>'Node Type') || ' on ' || coalesce(n->>'Relation Name', '?') END
	           || coalesce(' (' || (n->>'Rows Removed by Filter') || ' removed)', ''), '; '), 'nowhere')
	    INTO shape
	    FROM jsonb_path_query(plan, 'strict $.**') n
	   WHERE jsonb_typeof(n) = 'object' AND n ? 'Node Type' AND n->>'Node Type' <> 'Aggregate'
	     AND (n->>'Remote SQL' ~ 'cf_contains|@>' OR n->>'Filter' ~ 'cf_contains|@>');
	  SELECT string_agg(DISTINCT n->>'Node Type', '/') INTO joins
	    FROM jsonb_path_query(plan, 'strict $.**') n
	   WHERE jsonb_typeof(n) = 'object' AND n ? 'Join Type';
	  shape := coalesce(joins, 'no join') || ', filter ' || shape;
	  RETURN NEXT;
	END $$;
	EOF
done
psql_on remote -c "SELECT 1 FROM pf_stats('{1}')" >/dev/null || die "helpers"

SEL="SELECT count(*), sum(length(b.payload)) FROM"
HAND_A="(SELECT cf_agg(s2.key) FROM small s2 WHERE s2.grp = 0) @> b.key"
declare -A NODE QOFF QON REL
# label -> node, off query, on query (stand-in), scanned relation
NODE[a]=coord; REL[a]=big_f
QOFF[a]="$SEL big_f b JOIN small s ON b.key = s.key WHERE s.grp = 0"
QON[a]="${QOFF[a]} AND $HAND_A"
NODE[b]=remote; REL[b]=big
QOFF[b]="$SEL big b JOIN small_miss s ON b.key = s.key"
QON[b]="${QOFF[b]} WHERE (SELECT cf_agg(s2.key) FROM small_miss s2) @> b.key"
NODE[c_fdw]=coord; REL[c_fdw]=big_f
QOFF[c_fdw]="$SEL big_f b JOIN small s ON b.key = s.key"
QON[c_fdw]="${QOFF[c_fdw]} WHERE (SELECT cf_agg(s2.key) FROM small s2) @> b.key"
NODE[c_local]=remote; REL[c_local]=big
QOFF[c_local]="$SEL big b JOIN small s ON b.key = s.key"
QON[c_local]="${QOFF[c_local]} WHERE (SELECT cf_agg(s2.key) FROM small s2) @> b.key"
declare -A TITLE=([a]="(a) postgres_fdw: big_f ⋈ small, small 1% (grp = 0)"
	[b]="(b) local hash join: big ⋈ small_miss, 1% of big matches"
	[c_fdw]="(c) postgres_fdw, small unfiltered (removes nothing)"
	[c_local]="(c) local, small unfiltered (removes nothing)")
declare -A TARGET=([a]="rows <= 1/20, time <= 0.3x" [b]="time <= 0.8x" [c_fdw]="time <= 1.05x" [c_local]="time <= 1.05x")

sq() { printf "'%s'" "${1//\'/\'\'}"; }
FAILED=0
OUT=$TMP/table.md
{
	echo "| scenario | side | rows fetched | time ms, median (min-max) | plan: where the filter went | on/off (time) | target |"
	echo "|---|---|---|---|---|---|---|"
} >"$OUT"
for k in a b c_fdw c_local; do
	n=${NODE[$k]} qoff=${QOFF[$k]}
	if [ "$REAL" = t ]; then qon=$qoff; setg=true; so="'off'"; sn="'on'"
	else qon=${QON[$k]}; setg=false; so=NULL; sn=NULL; fi
	# the same answer on both sides
	roff=$(psql_on "$n" -c "SELECT set_config('cuckoo.join_prefilter', 'off', false) FROM (SELECT 1) x WHERE $setg" \
		-c "$qoff" 2>&1 | tail -n 1)
	ron=$(psql_on "$n" -c "SELECT set_config('cuckoo.join_prefilter', 'on', false) FROM (SELECT 1) x WHERE $setg" \
		-c "$qon" 2>&1 | tail -n 1)
	if [ "$roff" != "$ron" ]; then echo "FAIL: $k: off $roff, on $ron"; FAILED=1; fi
	IFS='|' read -r foff shoff < <(val "$n" "SELECT * FROM pf_rows($(sq "$qoff"), '${REL[$k]}', $so)")
	IFS='|' read -r fon shon < <(val "$n" "SELECT * FROM pf_rows($(sq "$qon"), '${REL[$k]}', $sn)")
	r=$(val "$n" "WITH t AS (SELECT * FROM pf_time($(sq "$qoff"), $(sq "$qon"), $setg, $REPS))
		SELECT (SELECT pf_stats(array_agg(ms)) FROM t WHERE side = 'off') || '|' ||
		       (SELECT pf_stats(array_agg(ms)) FROM t WHERE side = 'on') || '|' ||
		       round(((SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) FROM t WHERE side = 'on') /
		              (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) FROM t WHERE side = 'off'))::numeric, 3)")
	IFS='|' read -r toff ton ratio <<<"$r"
	rr=$(awk -v a="$fon" -v b="$foff" 'BEGIN { if (a > 0) printf "1/%.1f", b / a; else print "-" }')
	{
		echo "| ${TITLE[$k]} | off | $foff | $toff | $shoff | | ${TARGET[$k]} |"
		echo "| | $([ "$REAL" = t ] && echo on || echo hand-written) | $fon ($rr) | $ton | $shon | ${ratio}x | |"
	} >>"$OUT"
	echo "  $k: result $roff (off) $ron (on); off $toff ms, on $ton ms" >&2
done

# (d) planning time of a query the rule declines
if [ "$REAL" = t ]; then
	q=${QOFF[c_local]}
	IFS='|' read -r _ shd < <(val remote "SELECT * FROM pf_rows($(sq "$q"), 'big', 'on')")
	r=$(val remote "WITH t AS (SELECT * FROM pf_plan_time($(sq "$q"), $PREPS))
		SELECT (SELECT pf_stats(array_agg(ms), 3) FROM t WHERE side = 'off') || '|' ||
		       (SELECT pf_stats(array_agg(ms), 3) FROM t WHERE side = 'on') || '|' ||
		       round(((SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) FROM t WHERE side = 'on') /
		              (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) FROM t WHERE side = 'off'))::numeric, 3)")
	IFS='|' read -r poff pon pratio <<<"$r"
	{
		echo "| (d) planning time, (c) local query ($PREPS plans a side) | off | | $poff | | | time <= 1.1x |"
		echo "| | on | | $pon | $shd | ${pratio}x | |"
	} >>"$OUT"
else
	echo "| (d) planning time | - | | | not measured: the loaded cuckoo has no cuckoo.join_prefilter | | time <= 1.1x |" >>"$OUT"
fi

# (e) Citus
if [ -f "$("$PG_CONFIG" --pkglibdir)/citus.so" ]; then
	echo "| (e) Citus | | | | see: CITUS_PREFILTER=$B CITUS_MEASURE=$REPS bash test/citus/run.sh | | time <= 0.5x |" >>"$OUT"
else
	echo "| (e) Citus | - | | | not measured: Citus is not installed for $("$PG_CONFIG" --version) | | time <= 0.5x |" >>"$OUT"
fi
echo
cat "$OUT"
[ "$FAILED" -eq 0 ] && echo "prefilter: both sides gave the same answers" || { echo "prefilter: answers differ"; exit 1; }
