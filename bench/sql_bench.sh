#!/usr/bin/env bash
# sql_bench.sh - the SQL-level benchmark of the cuckoo extension: probe cost
# against the function-call floor and against hash joins, per-row filters,
# PL/pgSQL adds, space, and TOAST storage, on a throwaway PostgreSQL 15 cluster.
#
# Usage (as root, Debian 12):  bash bench/sql_bench.sh
# Environment:
#   SKIP_BUILD=1   use the installed extension instead of building this tree
#   REPS=3         repetitions per measurement (the best is reported)
#   PG_CONFIG      default /usr/lib/postgresql/15/bin/pg_config
#   LAST_ROW=2     stop after that row (rows 1-2, the probe and semi-join
#                  figures of #18, take about 4 minutes at 10M rows)
# What each row measures, and a recorded run: docs/performance.md.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
PGBIN=$("$PG_CONFIG" --bindir)
REPS=${REPS:-3}
N_BIG=10000000                 # rows 1-2: keep at 10M
PORT=5433                      # the socket lives in a private directory
PGB_TXNS=20000                 # row 3: pgbench transactions per client
LOOP_N=100000                  # row 4: PL/pgSQL iterations
FILL_CAP=100000                # row 5: capacity filled by cf_create + cf_add

if [ "$(id -u)" -ne 0 ]; then
	echo "sql_bench: run as root (the cluster runs as user postgres)" >&2
	exit 1
fi
t_start=$SECONDS

WORK=$(mktemp -d /tmp/cuckoo-sqlbench.XXXXXX)
chmod 755 "$WORK"
chown postgres "$WORK"
cleanup() {
	if [ -f "$WORK/data/postmaster.pid" ]; then
		runuser -u postgres -- "$PGBIN/pg_ctl" -D "$WORK/data" -m immediate -w stop >/dev/null 2>&1 || true
	fi
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
cd "$WORK"

# ---- build and install a snapshot of this tree ---------------------------
if [ "${SKIP_BUILD:-0}" != 1 ]; then
	# a private copy, so concurrent builds in the checkout cannot clash with ours
	mkdir "$WORK/build"
	(cd "$top" && tar cf - Makefile cuckoo.control cuckoo--*.sql src) |
		(cd "$WORK/build" && tar xf -)
	if ! make -s -C "$WORK/build" PG_CONFIG="$PG_CONFIG" >"$WORK/build.log" 2>&1 ||
		! make -s -C "$WORK/build" PG_CONFIG="$PG_CONFIG" install >>"$WORK/build.log" 2>&1; then
		cat "$WORK/build.log" >&2
		echo "sql_bench: build failed (SKIP_BUILD=1 uses the installed extension)" >&2
		exit 1
	fi
fi

# ---- the cluster ----------------------------------------------------------
runuser -u postgres -- "$PGBIN/initdb" -D "$WORK/data" -A trust -U postgres -N \
	--no-instructions >"$WORK/initdb.log" 2>&1
cat >>"$WORK/data/postgresql.conf" <<EOF
listen_addresses = ''
unix_socket_directories = '$WORK'
port = $PORT
# 2GB, not 1GB: a seq scan of a table larger than shared_buffers/4 goes
# through a 256kB ring, so the 346MB table would never stay cached
shared_buffers = 2GB
# the 1M-row hash tables of row 2 fit without batching
work_mem = 256MB
maintenance_work_mem = 512MB
max_parallel_workers_per_gather = 0
jit = off
# a throwaway cluster: no durability, no background noise
fsync = off
synchronous_commit = off
full_page_writes = off
autovacuum = off
max_wal_size = 8GB
checkpoint_timeout = 1h
EOF
runuser -u postgres -- "$PGBIN/pg_ctl" -D "$WORK/data" -l "$WORK/server.log" -w -t 120 start >/dev/null

export PGOPTIONS="-c statement_timeout=600s"
psqlq() {
	"$PGBIN/psql" -X -q -At -v ON_ERROR_STOP=1 -h "$WORK" -p "$PORT" -U postgres -d postgres "$@"
}

# ---- helpers ---------------------------------------------------------------
declare -A BEST RES CPU

# The backend's own CPU time (ns on CPU from /proc/PID/schedstat) is read
# around each measured statement too: less sensitive than wall time to other
# load on the machine.
cat >"$WORK/cpu.sh" <<'EOF'
#!/bin/sh
echo "$1 $(cut -d' ' -f1 "/proc/$BPID/schedstat")" >>"$CPUF"
EOF
export CPUF="$WORK/cpu.log"
# shead: the start of every generated script
shead() {
	echo "SELECT pg_backend_pid() AS bpid \\gset"
	echo "\\setenv BPID :bpid"
}
# m NAME SQL: a measured statement in a generated script
m() {
	printf '\\echo @@ %s\n\\! sh %s %s\n%s\n\\! sh %s %s\n' "$1" "$WORK/cpu.sh" "$1" "$2" "$WORK/cpu.sh" "$1"
}

# run_timed FILE: runs FILE in one session; for every NAME marked with m it
# keeps the best \timing in BEST[NAME] (ms) and the first result in RES[NAME]
run_timed() {
	local out="$1.out" name ms res
	: >"$CPUF"
	if ! psqlq -f "$1" >"$out" 2>&1; then
		tail -n 20 "$out" >&2
		echo "sql_bench: $1 failed" >&2
		exit 1
	fi
	while read -r name ms res; do
		BEST[$name]=$ms
		RES[$name]=$res
	done < <(awk '
		/^@@ / { name = $2; val = ""; next }
		/^Time: / {
			if (name != "") {
				t = $2 + 0
				if (!(name in best) || t < best[name]) best[name] = t
				if (!(name in res)) res[name] = val
				name = ""
			}
			next
		}
		{ if (name != "" && val == "") val = $0 }
		END { for (n in best) printf "%s %.3f %s\n", n, best[n], res[n] }' "$out")
	while read -r name ms; do
		CPU[$name]=$ms
	done < <(awk '
		{
			if ($1 in t0) {
				d = ($2 - t0[$1]) / 1e6
				delete t0[$1]
				if (!($1 in best) || d < best[$1]) best[$1] = d
			} else
				t0[$1] = $2
		}
		END { for (n in best) printf "%s %.3f\n", n, best[n] }' "$CPUF")
}

# ratio A B: "A/B" as 1.23x
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2fx", a / b; else printf "n/a" }'; }
calc() { awk "BEGIN { printf \"$1\", $2 }"; }
loadavg() { cut -d' ' -f1-3 /proc/loadavg; }

# ---- header ------------------------------------------------------------------
so=$("$PG_CONFIG" --pkglibdir)/cuckoo.so
rev=$(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo "?")
dirty=$(git -C "$top" status --porcelain -- src Makefile 'cuckoo--*.sql' 2>/dev/null | wc -l || true)
echo "== cuckoo SQL benchmark (bench/sql_bench.sh) =="
echo "date:      $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
echo "machine:   nproc $(nproc), $(lscpu | sed -n 's/^Model name: *//p' | head -1), $(free -g | awk '/^Mem:/ { print $2 }') GiB RAM, $(uname -sr)"
echo "load avg:  $(loadavg) at start"
echo "server:    $(psqlq -c 'SELECT version()' | cut -d, -f1)"
echo "settings:  shared_buffers=2GB work_mem=256MB jit=off max_parallel_workers_per_gather=0 fsync=off autovacuum=off"
echo "extension: git $rev, $dirty uncommitted file(s) in src/ Makefile sql script$([ "${SKIP_BUILD:-0}" = 1 ] && echo ', SKIP_BUILD: as installed'), cuckoo.so md5 $(md5sum "$so" | cut -c1-12)"
echo "timing:    best of $REPS, statements interleaved round-robin; wall = psql \\timing (client side),"
echo "           cpu = the backend's time on CPU (/proc/PID/schedstat); ratios and verdicts use cpu"

# ---- data --------------------------------------------------------------------
t0=$SECONDS
psqlq >/dev/null <<EOF
CREATE EXTENSION cuckoo;
CREATE EXTENSION pg_prewarm;
CREATE UNLOGGED TABLE big (id bigint NOT NULL);
INSERT INTO big SELECT generate_series(1, $N_BIG);
VACUUM (FREEZE, ANALYZE) big;
-- the sets the filters hold: every 100th and every 10th id of big
CREATE TABLE small_100k AS SELECT id FROM big WHERE id % 100 = 0;
CREATE TABLE small_1m AS SELECT id FROM big WHERE id % 10 = 0;
VACUUM (FREEZE, ANALYZE) small_100k, small_1m;
CREATE TABLE filters (name text PRIMARY KEY, f cuckoofilter NOT NULL);
INSERT INTO filters SELECT '100k', cf_agg(id) FROM small_100k;
INSERT INTO filters SELECT '1m', cf_agg(id) FROM small_1m;
-- row 6: 1M rows to probe
CREATE TABLE mid AS SELECT id FROM big WHERE id <= 1000000;
VACUUM (FREEZE, ANALYZE) filters, mid;
SELECT pg_prewarm('big'), pg_prewarm('small_100k'), pg_prewarm('small_1m'), pg_prewarm('mid');
EOF
echo "data:      big: $(psqlq -c "SELECT to_char(count(*), 'FM99,999,999') || ' bigint rows, ' || pg_size_pretty(pg_total_relation_size('big')) FROM big");" \
	"filters (cf_agg, fpr 1%): $(psqlq -F' ' -c "SELECT string_agg(name || ' = ' || (cf_info(f)).items || ' items, ' || (cf_info(f)).bytes || ' bytes, ' || CASE WHEN pg_column_size(f) < (cf_info(f)).bytes - 4 THEN 'compressed' ELSE 'TOASTed uncompressed' END, '; ' ORDER BY name) FROM filters"); set up in $((SECONDS - t0)) s"

# ==== row 1 ===================================================================
echo
echo "-- Row 1: count(*) over $N_BIG rows WHERE cf_contains(f, id), per way of supplying f (load $(loadavg))"
{
	echo "SELECT f::text AS lit_100k FROM filters WHERE name = '100k' \\gset"
	echo "SELECT f::text AS lit_1m FROM filters WHERE name = '1m' \\gset"
	echo "SET plan_cache_mode = force_generic_plan;"
	echo "PREPARE cfp(cuckoofilter) AS SELECT count(*) FROM big WHERE cf_contains(\$1, id);"
	echo "SELECT count(*) FROM big;"
	shead
	echo '\timing on'
	for _ in $(seq "$REPS"); do
		m scan "SELECT count(*) FROM big;"
		m floor_ne "SELECT count(*) FROM big WHERE hashint8(id) <> 0;"
		m floor_eq "SELECT count(*) FROM big WHERE hashint8(id) = 0;"
		for s in 100k 1m; do
			m "lit_$s" "SELECT count(*) FROM big WHERE cf_contains(:'lit_$s'::cuckoofilter, id);"
			m "prep_$s" "EXECUTE cfp(:'lit_$s');"
			m "subq_$s" "SELECT count(*) FROM big WHERE cf_contains((SELECT f FROM filters WHERE name = '$s'), id);"
			m "cte_$s" "WITH c AS (SELECT f FROM filters WHERE name = '$s') SELECT count(*) FROM big, c WHERE cf_contains(c.f, big.id);"
		done
	done
} >"$WORK/row1.sql"
run_timed "$WORK/row1.sql"

printf '%-46s %9s %9s %9s %10s %10s %10s %7s\n' "measurement" "wall ms" "cpu ms" "count" "cpu/<>0" "cpu/=0" "wall/<>0" "<=1.3x"
printf '%-46s %9s %9s %9s\n' "seq scan alone: count(*)" "${BEST[scan]}" "${CPU[scan]}" "${RES[scan]}"
printf '%-46s %9s %9s %9s\n' "floor: hashint8(id) <> 0 (every row counted)" "${BEST[floor_ne]}" "${CPU[floor_ne]}" "${RES[floor_ne]}"
printf '%-46s %9s %9s %9s\n' "floor: hashint8(id) = 0 (no row counted)" "${BEST[floor_eq]}" "${CPU[floor_eq]}" "${RES[floor_eq]}"
row1_met=0; row1_all=0
for s in 100k 1m; do
	for k in lit prep subq cte; do
		case $k in
			lit) d="literal constant" ;;
			prep) d="PREPAREd \$1 (generic plan)" ;;
			subq) d="scalar subquery (TOASTed column)" ;;
			cte) d="CTE value (join filter)" ;;
		esac
		n="${k}_$s"
		ok=$(awk -v a="${CPU[$n]}" -v b="${CPU[floor_ne]}" 'BEGIN { print (a <= 1.3 * b) ? "met" : "MISSED" }')
		row1_all=$((row1_all + 1))
		if [ "$ok" = met ]; then row1_met=$((row1_met + 1)); fi
		printf '%-46s %9s %9s %9s %10s %10s %10s %7s\n' "$s filter, $d" "${BEST[$n]}" "${CPU[$n]}" "${RES[$n]}" \
			"$(ratio "${CPU[$n]}" "${CPU[floor_ne]}")" "$(ratio "${CPU[$n]}" "${CPU[floor_eq]}")" \
			"$(ratio "${BEST[$n]}" "${BEST[floor_ne]}")" "$ok"
	done
done
echo "target <= 1.3x the <>0 floor (on CPU time): met by $row1_met of $row1_all"
for s in 100k 1m; do
	agree=yes
	for k in lit prep subq cte; do [ "${RES[${k}_$s]}" = "${RES[subq_$s]}" ] || agree=NO; done
	echo "$s: all four forms return the same count: $agree"
done
echo "plans (EXPLAIN COSTS OFF, 1m):"
psqlq <<EOF | sed 's/^/  /'
\echo [scalar subquery]
EXPLAIN (COSTS OFF) SELECT count(*) FROM big WHERE cf_contains((SELECT f FROM filters WHERE name = '1m'), id);
\echo [CTE]
EXPLAIN (COSTS OFF) WITH c AS (SELECT f FROM filters WHERE name = '1m') SELECT count(*) FROM big, c WHERE cf_contains(c.f, big.id);
EOF

# ==== row 2 ===================================================================
echo
echo "-- Row 2: semi-join pre-filter over $N_BIG rows: filter probe vs hashed SubPlan vs hash joins (load $(loadavg))"
{
	echo "SELECT count(*) FROM big;"
	shead
	echo '\timing on'
	for _ in $(seq "$REPS"); do
		for s in 100k 1m; do
			m "cf_$s" "SELECT count(*) FROM big WHERE (SELECT f FROM filters WHERE name = '$s') @> id;"
			m "semi_$s" "SELECT count(*) FROM big WHERE id IN (SELECT id FROM small_$s);"
			m "hsub_$s" "SELECT count(*) FROM big WHERE id IN (SELECT id FROM small_$s) OR false;"
			m "join_$s" "SELECT count(*) FROM big JOIN small_$s USING (id);"
		done
	done
} >"$WORK/row2.sql"
run_timed "$WORK/row2.sql"

# memory: the hash nodes' own "Memory Usage"; for the hashed SubPlan, which
# EXPLAIN does not report, the server's memory-context dump taken while a
# cursor over the query is open (its hash table context plus the bucket
# array in ExecutorState)
declare -A MEM PLAN
for s in 100k 1m; do
	for k in semi join; do
		if [ $k = semi ]; then q="SELECT count(*) FROM big WHERE id IN (SELECT id FROM small_$s)"
		else q="SELECT count(*) FROM big JOIN small_$s USING (id)"; fi
		ex=$(psqlq -c "EXPLAIN (ANALYZE, TIMING OFF, COSTS OFF) $q")
		PLAN[${k}_$s]=$(echo "$ex" | grep -oE '(Hash (Right )?(Semi )?Join|HashAggregate|Merge.*Join|Nested Loop)' | head -1 || true)
		kb=$(echo "$ex" | sed -n 's/.*Buckets:.*Memory Usage: \([0-9]*\)kB.*/\1/p' | head -1)
		if [ -n "$kb" ]; then MEM[${k}_$s]=$((kb * 1024)); fi
	done
	ex=$(psqlq -c "EXPLAIN (COSTS OFF) SELECT count(*) FROM big WHERE id IN (SELECT id FROM small_$s) OR false")
	PLAN[hsub_$s]=$(echo "$ex" | grep -o 'hashed SubPlan' | head -1 || true)
	if [ -z "${PLAN[hsub_$s]}" ]; then PLAN[hsub_$s]="NOT a hashed SubPlan: $(echo "$ex" | tr '\n' ' ')"; fi
	before=$(wc -l <"$WORK/server.log")
	pid=$(psqlq <<EOF | tail -1
BEGIN;
DECLARE c CURSOR FOR SELECT id FROM big WHERE id IN (SELECT id FROM small_$s) OR false;
FETCH 1 FROM c;
SELECT pg_log_backend_memory_contexts(pg_backend_pid());
SELECT pg_backend_pid();
COMMIT;
EOF
)
	MEM[hsub_$s]=$(tail -n +"$((before + 1))" "$WORK/server.log" | { grep -F "[$pid]" || true; } | awk '
		/Subplan HashTable Context:/ { for (i = 1; i <= NF; i++) if ($i == "total") ht += $(i - 1) }
		/ExecutorState:/ { for (i = 1; i <= NF; i++) if ($i == "total" && $(i - 1) > ex) ex = $(i - 1) }
		END { if (ht > 0) print ht + ex }')
	MEM[cf_$s]=$(psqlq -c "SELECT (cf_info(f)).bytes FROM filters WHERE name = '$s'")
done
printf '%-5s %-44s %9s %9s %8s %9s %11s %8s\n' "set" "method" "wall ms" "cpu ms" "count" "cpu/probe" "memory B" "B/item"
for s in 100k 1m; do
	items=100000
	if [ $s = 1m ]; then items=1000000; fi
	for k in cf semi hsub join; do
		case $k in
			cf) d="filter probe: (SELECT f ...) @> id" ;;
			semi) d="id IN (SELECT id FROM small): ${PLAN[semi_$s]}" ;;
			hsub) d="IN (...) OR false: ${PLAN[hsub_$s]}" ;;
			join) d="JOIN small USING (id): ${PLAN[join_$s]}" ;;
		esac
		mem=${MEM[${k}_$s]:-}
		per=$([ -n "$mem" ] && calc "%.1f" "$mem / $items" || echo "n/a")
		printf '%-5s %-44s %9s %9s %8s %9s %11s %8s\n' "$s" "$d" "${BEST[${k}_$s]}" "${CPU[${k}_$s]}" "${RES[${k}_$s]}" \
			"$(ratio "${CPU[${k}_$s]}" "${CPU[cf_$s]}")" "${mem:-n/a}" "$per"
	done
	fp=$(calc "%.3f%%" "(${RES[cf_$s]} - ${RES[join_$s]}) * 100 / ($N_BIG - ${RES[join_$s]})")
	ok=$(awk -v a="${CPU[cf_$s]}" -v b="${CPU[hsub_$s]}" 'BEGIN { print (a <= b) ? "met" : "MISSED" }')
	echo "$s: probe at most as slow as the hashed SubPlan: $ok (cpu $(ratio "${CPU[cf_$s]}" "${CPU[hsub_$s]}"), wall $(ratio "${BEST[cf_$s]}" "${BEST[hsub_$s]}")); measured false-positive rate $fp; no false negatives: $([ "${RES[cf_$s]}" -ge "${RES[join_$s]}" ] && echo yes || echo NO)"
done

[ "${LAST_ROW:-6}" -ge 3 ] || { echo; echo "(LAST_ROW=$LAST_ROW: rows from 3 on skipped; $((SECONDS - t_start)) s)"; exit 0; }
# ==== row 3 ===================================================================
echo
echo "-- Row 3: 10,000 rows each holding a 1,000-item filter (load $(loadavg))"
t0=$SECONDS
psqlq >/dev/null <<'EOF'
CREATE TABLE rf (id int PRIMARY KEY, f cuckoofilter NOT NULL);
INSERT INTO rf SELECT g, cf_agg(g::bigint * 1000 + i)
	FROM generate_series(1, 10000) g, generate_series(0, 999) i GROUP BY g;
VACUUM (FREEZE, ANALYZE) rf;
SELECT pg_prewarm('rf'), pg_prewarm('rf_pkey');
EOF
echo "table rf: $(psqlq -F' ' -c "SELECT pg_size_pretty(pg_total_relation_size('rf')) || ', filters of ' || round(avg((cf_info(f)).bytes)) || ' bytes (capacity ' || min((cf_info(f)).capacity) || ', ' || min((cf_info(f)).items) || ' items, load ' || round(avg((cf_info(f)).load_factor)::numeric, 3) || '), stored ' || CASE WHEN max(pg_column_size(f)) < 2000 THEN 'inline' ELSE 'TOASTed' END FROM rf"); built in $((SECONDS - t0)) s"
{
	shead
	echo '\timing on'
	for _ in $(seq "$REPS"); do
		echo "BEGIN;"
		m upd_add "UPDATE rf SET f = cf_add(f, id::bigint * 1000 + 1000);"
		echo "ROLLBACK;"
		echo "VACUUM rf;"
		echo "BEGIN;"
		m upd_same "UPDATE rf SET f = f;"
		echo "ROLLBACK;"
		echo "VACUUM rf;"
		m scan_probe "SELECT count(*) FROM rf WHERE cf_contains(f, id::bigint * 1000 + 5);"
		m scan_size "SELECT count(*) FROM rf WHERE pg_column_size(f) > 0;"
	done
} >"$WORK/row3.sql"
run_timed "$WORK/row3.sql"
declare -A TPS
for k in probe fetch; do
	best=0
	for _ in $(seq "$REPS"); do
		tps=$("$PGBIN/pgbench" -n -h "$WORK" -p "$PORT" -U postgres -c 2 -j 2 -t "$PGB_TXNS" -M prepared \
			-f "$top/bench/sql/rf_$k.sql" postgres 2>&1 | sed -n 's/^tps = \([0-9.]*\) .*/\1/p')
		best=$(awk -v a="$best" -v b="${tps:-0}" 'BEGIN { print (b > a) ? b : a }')
	done
	TPS[$k]=$best
done
row3() { # LABEL NAME: 10,000 operations
	printf '%-60s %9s %9s %10s\n' "$1" "${BEST[$2]}" "${CPU[$2]}" "$(calc %.0f "10000000 / ${BEST[$2]}")"
}
printf '%-60s %9s %9s %10s\n' "measurement" "wall ms" "cpu ms" "ops/s"
row3 "UPDATE rf SET f = cf_add(f, x), all 10,000 rows" upd_add
row3 "floor: UPDATE rf SET f = f (same rows rewritten)" upd_same
row3 "scan: count(*) WHERE cf_contains(f, x), 10,000 filters" scan_probe
row3 "floor: count(*) WHERE pg_column_size(f) > 0" scan_size
printf '%-60s %9s %9s %10.0f\n' "pgbench point probe, -c 2 -j 2 -M prepared, $((2 * PGB_TXNS)) txns" "" "" "${TPS[probe]}"
printf '%-60s %9s %9s %10.0f\n' "floor: same lookup, pg_column_size(f) instead of the probe" "" "" "${TPS[fetch]}"
echo "UPDATE with cf_add vs rewrite floor: $(ratio "${BEST[upd_add]}" "${BEST[upd_same]}") the time; point probes: $(calc %.0f%% "${TPS[probe]} * 100 / ${TPS[fetch]}") of the floor's throughput"

[ "${LAST_ROW:-6}" -ge 4 ] || { echo; echo "(LAST_ROW=$LAST_ROW: rows from 4 on skipped; $((SECONDS - t_start)) s)"; exit 0; }
# ==== row 4 ===================================================================
echo
echo "-- Row 4: PL/pgSQL loop of f := cf_add(f, i) on a 1M-capacity filter (load $(loadavg))"
cal=$(psqlq <<'EOF' | sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p'
\timing on
DO $$DECLARE f cuckoofilter := cf_create(1000000); BEGIN FOR i IN 1..1000 LOOP f := cf_add(f, i); END LOOP; END$$;
EOF
)
n=$LOOP_N
note=""
if awk -v c="$cal" -v n="$n" 'BEGIN { exit !(c * n / 1000 > 60000) }'; then
	n=10000
	note=" (reduced from $LOOP_N: a 1,000-add calibration took $cal ms)"
fi
{
	shead
	echo '\timing on'
	for _ in $(seq "$REPS"); do
		m loop_add "DO \$\$DECLARE f cuckoofilter := cf_create(1000000); BEGIN FOR i IN 1..$n LOOP f := cf_add(f, i); END LOOP; END\$\$;"
		m loop_inc "DO \$\$DECLARE f cuckoofilter := cf_create(1000000); x int := 0; BEGIN FOR i IN 1..$n LOOP x := x + 1; END LOOP; END\$\$;"
		m loop_copy "DO \$\$DECLARE f cuckoofilter := cf_create(1000000); BEGIN FOR i IN 1..10000 LOOP f := f; END LOOP; END\$\$;"
	done
} >"$WORK/row4.sql"
run_timed "$WORK/row4.sql"
printf '%-56s %9s %9s %12s\n' "loop body" "wall ms" "cpu ms" "us/iteration"
printf '%-56s %9s %9s %12s\n' "f := cf_add(f, i), $n iterations$note" "${BEST[loop_add]}" "${CPU[loop_add]}" "$(calc %.3f "${CPU[loop_add]} * 1000 / $n")"
printf '%-56s %9s %9s %12s\n' "x := x + 1, $n iterations (no-op)" "${BEST[loop_inc]}" "${CPU[loop_inc]}" "$(calc %.3f "${CPU[loop_inc]} * 1000 / $n")"
printf '%-56s %9s %9s %12s\n' "f := f, 10000 iterations (copies the 1.3 MB value)" "${BEST[loop_copy]}" "${CPU[loop_copy]}" "$(calc %.3f "${CPU[loop_copy]} * 1000 / 10000")"
echo "cf_add loop vs no-op loop: $(ratio "${CPU[loop_add]}" "${CPU[loop_inc]}") (cpu), $(ratio "${BEST[loop_add]}" "${BEST[loop_inc]}") (wall); per add, loop overhead subtracted: $(calc %.3f "(${CPU[loop_add]} - ${CPU[loop_inc]}) * 1000 / $n") us"

[ "${LAST_ROW:-6}" -ge 5 ] || { echo; echo "(LAST_ROW=$LAST_ROW: rows from 5 on skipped; $((SECONDS - t_start)) s)"; exit 0; }
# ==== row 5 ===================================================================
echo
echo "-- Row 5: space, bytes per item of filters filled to capacity (load $(loadavg))"
psqlq >/dev/null <<'EOF'
-- cf_create(cap, fpr) and n (default: cap) adds, in a PL/pgSQL loop
CREATE FUNCTION bench_fill(cap bigint, fpr float8, n bigint DEFAULT NULL) RETURNS cuckoofilter LANGUAGE plpgsql AS $$
DECLARE
	f cuckoofilter := cf_create(cap, fpr);
BEGIN
	FOR i IN 1..coalesce(n, cap) LOOP
		f := cf_add(f, i * 10);
	END LOOP;
	RETURN f;
END$$;
CREATE TABLE space (how text, eps float8, f cuckoofilter);
INSERT INTO space SELECT 'cf_agg, 1M values', e, cf_agg(id, e) FROM small_1m, (VALUES (0.01::float8), (0.001)) v(e) GROUP BY e;
INSERT INTO space SELECT 'cf_agg, 100k values', e, cf_agg(id, e) FROM small_100k, (VALUES (0.01::float8), (0.001)) v(e) GROUP BY e;
CREATE TABLE arr AS SELECT array_agg(id) AS a FROM small_1m;
EOF
t0=$SECONDS
psqlq -c "INSERT INTO space SELECT 'cf_create($FILL_CAP) + $FILL_CAP cf_add', e, bench_fill($FILL_CAP, e) FROM (VALUES (0.01::float8), (0.001)) v(e)" >/dev/null
fill_s=$((SECONDS - t0))
printf '%-6s %-34s %8s %8s %9s %8s %9s %6s %6s %4s\n' "fpr" "filter" "capacity" "items" "bytes" "B/item" "bits/item" "fpbits" "load" "subs"
psqlq -F'|' -c "SELECT eps, how, i.capacity, i.items, i.bytes, i.bytes::float8 / i.items, i.bytes * 8.0 / i.items, i.fingerprint_bits, i.load_factor, i.subfilters
	FROM space, cf_info(f) i ORDER BY eps DESC, how" |
	awk -F'|' '{ printf "%-6s %-34s %8s %8s %9s %8.2f %9.2f %6s %6.3f %4s\n", $1 * 100 "%", $2, $3, $4, $5, $6, $7, $8, $9, $10 }'
echo "(the two cf_create fills took $fill_s s together)"
psqlq -F'|' -c "SELECT pg_column_size(array_agg(id)), (SELECT pg_column_size(a) FROM arr) FROM small_1m" |
	awk -F'|' '{ printf "exact, bigint[] of the 1M values: %d bytes in memory = %.2f B/item; stored in a table (pglz): %d bytes = %.2f B/item (the values are multiples of 10, which compress)\n", $1, $1 / 1e6, $2, $2 / 1e6 }'
echo "exact, hash tables of row 2 (1M): hashed SubPlan $(calc %.1f "${MEM[hsub_1m]:-0} / 1e6") B/item, Hash Join $(calc %.1f "${MEM[join_1m]:-0} / 1e6") B/item, Hash Semi Join $(calc %.1f "${MEM[semi_1m]:-0} / 1e6") B/item"
echo "Bloom filter as libbloom sizes it (-ln(eps) / ln(2)^2 bits per item, the optimum for a Bloom filter): 1%: $(calc %.2f '-log(0.01) / log(2)^2') bits = $(calc %.2f '-log(0.01) / log(2)^2 / 8') B/item; 0.1%: $(calc %.2f '-log(0.001) / log(2)^2') bits = $(calc %.2f '-log(0.001) / log(2)^2 / 8') B/item"
if [ -f "$top/bench/README.md" ]; then
	echo "(bench/README.md records the core benchmark's measured libbloom bits/item: make -C bench run)"
fi

[ "${LAST_ROW:-6}" -ge 6 ] || { echo; echo "(LAST_ROW=$LAST_ROW: rows from 6 on skipped; $((SECONDS - t_start)) s)"; exit 0; }
# ==== row 6 ===================================================================
echo
echo "-- Row 6: storage of a fresh, a half-full and a full 1M filter, and of per-row filters, EXTENDED vs EXTERNAL (load $(loadavg))"
strategies="extended external"
if [ "$(psqlq -c "SELECT 'lz4' = ANY(enumvals) FROM pg_settings WHERE name = 'default_toast_compression'")" = t ]; then
	strategies="$strategies lz4"
fi
# the source values, stored uncompressed so that reading them costs the same
# for every strategy; the half-full one is filled by 500,000 PL/pgSQL adds
kinds="fresh full"
half_s=$(calc %.0f "${CPU[loop_add]} * 500000 / $n / 1000")
psqlq >/dev/null <<'EOF'
CREATE TABLE st_src (kind text PRIMARY KEY, f cuckoofilter NOT NULL);
ALTER TABLE st_src ALTER COLUMN f SET STORAGE EXTERNAL;
INSERT INTO st_src VALUES ('fresh', cf_create(1000000));
INSERT INTO st_src SELECT 'full', f FROM filters WHERE name = '1m';
EOF
if [ "$half_s" -le 120 ]; then
	psqlq -c "INSERT INTO st_src VALUES ('half', bench_fill(1000000, 0.01, 500000))" >/dev/null
	kinds="fresh half full"
else
	echo "(no half-full filter: 500,000 adds would take about $half_s s)"
fi
{
	for st in $strategies; do
		for k in $kinds pr; do
			if [ $k = pr ]; then t=pr_$st; echo "CREATE TABLE $t (id int PRIMARY KEY, f cuckoofilter);"
			else t=st_${st}_$k; echo "CREATE TABLE $t (f cuckoofilter);"; fi
			case $st in
				external) echo "ALTER TABLE $t ALTER COLUMN f SET STORAGE EXTERNAL;" ;;
				lz4) echo "ALTER TABLE $t ALTER COLUMN f SET COMPRESSION lz4;" ;;
			esac
		done
	done
	# per-row filters above the TOAST threshold: 1,000 rows of 10,000 items
	echo "CREATE TABLE pr_src AS SELECT g AS id, cf_agg(g::bigint * 10000 + i) AS f FROM generate_series(1, 1000) g, generate_series(0, 9999) i GROUP BY g;"
	for st in $strategies; do
		echo "INSERT INTO pr_$st SELECT * FROM pr_src;"
	done
	shead
	echo '\timing on'
	for _ in $(seq "$REPS"); do
		for st in $strategies; do
			for k in $kinds; do
				echo "TRUNCATE st_${st}_$k;"
				m "w_${st}_$k" "INSERT INTO st_${st}_$k SELECT f FROM st_src WHERE kind = '$k';"
			done
		done
	done
	echo "VACUUM ANALYZE;"
	for _ in $(seq "$REPS"); do
		for st in $strategies; do
			for k in $kinds; do
				m "p_${st}_$k" "SELECT count(*) FROM mid WHERE cf_contains((SELECT f FROM st_${st}_$k), id);"
				m "one_${st}_$k" "SELECT cf_contains((SELECT f FROM st_${st}_$k), 42::bigint);"
			done
		done
	done
	for _ in $(seq "$REPS"); do
		for st in $strategies; do
			echo "BEGIN;"
			m "pr_$st" "UPDATE pr_$st SET f = cf_add(f, id::bigint * 10000 + 10000);"
			echo "ROLLBACK;"
			echo "VACUUM pr_$st;"
		done
	done
} >"$WORK/row6.sql"
run_timed "$WORK/row6.sql"
printf '%-6s %-16s %14s %14s %15s %19s %15s\n' "filter" "storage" "pg_column_size" "relation bytes" "write ms w/cpu" "1M probes ms w/cpu" "1 probe ms w/cpu"
for k in $kinds; do
	for st in $strategies; do
		case $st in
			extended) d="EXTENDED (pglz)" ;;
			external) d="EXTERNAL" ;;
			lz4) d="EXTENDED (lz4)" ;;
		esac
		sizes=$(psqlq -F' ' -c "SELECT pg_column_size(f), pg_total_relation_size('st_${st}_$k') FROM st_${st}_$k")
		printf '%-6s %-16s %14s %14s %7s/%-7s %9s/%-9s %7s/%-7s\n' "$k" "$d" ${sizes} "${BEST[w_${st}_$k]}" "${CPU[w_${st}_$k]}" \
			"${BEST[p_${st}_$k]}" "${CPU[p_${st}_$k]}" "${BEST[one_${st}_$k]}" "${CPU[one_${st}_$k]}"
	done
done
psqlq -F' ' -c "SELECT kind, (cf_info(f)).bytes, (cf_info(f)).load_factor FROM st_src ORDER BY kind" |
	awk '{ printf "%s%s: %d bytes raw, load %.3f", (NR > 1 ? "; " : ""), $1, $2, $3 } END { print "" }'
echo "per-row filters above the TOAST threshold: $(psqlq -c "SELECT round(avg((cf_info(f)).bytes)) || ' bytes, ' || min((cf_info(f)).items) || ' items each' FROM pr_src");" \
	"UPDATE pr SET f = cf_add(f, x) on all 1,000 rows:"
printf '  %-16s %14s %14s %12s\n' "storage" "relation bytes" "wall/cpu ms" "rows/s"
for st in $strategies; do
	case $st in
		extended) d="EXTENDED (pglz)" ;;
		external) d="EXTERNAL" ;;
		lz4) d="EXTENDED (lz4)" ;;
	esac
	printf '  %-16s %14s %14s %12s\n' "$d" "$(psqlq -c "SELECT pg_total_relation_size('pr_$st')")" \
		"${BEST[pr_$st]}/${CPU[pr_$st]}" "$(calc %.0f "1000000 / ${BEST[pr_$st]}")"
done

echo
echo "load avg:  $(loadavg) at end; total $((SECONDS - t_start)) s; $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
