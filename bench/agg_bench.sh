#!/usr/bin/env bash
# agg_bench.sh - times cf_agg against count() (the scan floor) and hll_add_agg
# on bigint rows in a throwaway cluster, serial and with 2 parallel workers,
# and measures cf_agg's peak memory.  Prints markdown tables.
#
# Usage: bash bench/agg_bench.sh [-q]
#   -q   quick: 1M rows, one repetition (a smoke test, not a measurement)
# Needs: postgresql-15-hll, the postgres user when run as root.  Builds this
# tree's cuckoo into a private copy of PostgreSQL (nothing is installed).
# Environment: PG_CONFIG, N (rows), REPS (best of).
set -euo pipefail

PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
N=${N:-10000000}
REPS=${REPS:-3}
if [ "${1:-}" = "-q" ]; then N=1000000; REPS=1; fi
NDUP=100000						# distinct values of the duplicated table
top=$(cd "$(dirname "$0")/.." && pwd)

dir=$(mktemp -d -t cuckoo-aggbench.XXXXXX)
as_pg() {
	if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}
started=""
cleanup() {
	[ -n "$started" ] && as_pg "$BIN/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null 2>&1 || true
	rm -rf "$dir"
}
trap cleanup EXIT

# A private copy of PostgreSQL with this tree's cuckoo built into it, so that
# a `make install` elsewhere during the run cannot swap the library under a
# running server (its parallel workers load it afresh).  PostgreSQL finds its
# lib and share directories relative to the binary.
echo "Building cuckoo into a private copy of PostgreSQL ..." >&2
libdir=$("$PG_CONFIG" --bindir | sed 's|/bin$||')			# /usr/lib/postgresql/15
sharedir=$("$PG_CONFIG" --sharedir)						# /usr/share/postgresql/15
incdir=$(dirname "$("$PG_CONFIG" --includedir-server)")	# /usr/include/postgresql/15
inst=$dir/inst
mkdir -p "$inst$(dirname "$libdir")" "$inst$(dirname "$sharedir")" "$inst$(dirname "$incdir")" "$dir/src"
cp -a "$libdir" "$inst$(dirname "$libdir")/"
cp -a "$sharedir" "$inst$(dirname "$sharedir")/"
ln -s "$incdir" "$inst$incdir"
rm -f "$inst$libdir/lib/cuckoo.so" "$inst$sharedir"/extension/cuckoo*
BIN=$inst$libdir/bin
(cd "$top" && git ls-files -co --exclude-standard -z | xargs -0 cp --parents -t "$dir/src")
make -s -C "$dir/src" PG_CONFIG="$BIN/pg_config" with_llvm=no install >"$dir/build.log" 2>&1 ||
	{ cat "$dir/build.log"; echo "agg_bench: build failed" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] && chown -R postgres "$dir"
port=$((20000 + RANDOM % 20000))

# jit off: JIT compile time would add noise to queries this short
as_pg "$BIN/initdb" -D "$dir/data" -A trust -U postgres >/dev/null
as_pg "$BIN/pg_ctl" -D "$dir/data" -l "$dir/log" -w -o "-p $port -k $dir \
	-c listen_addresses='' -c shared_buffers=1GB -c work_mem=256MB -c jit=off \
	-c max_worker_processes=8 -c max_parallel_workers=8 \
	-c max_parallel_workers_per_gather=2" start >/dev/null
started=1
PSQL=(psql -X -q -At -v ON_ERROR_STOP=1 -h "$dir" -p "$port" -U postgres -d postgres)
sql() { "${PSQL[@]}" -c "$1"; }

echo "Setting up $N rows (unique ids, and $NDUP distinct values repeated) ..." >&2
sql "CREATE EXTENSION cuckoo; CREATE EXTENSION hll;"
sql "CREATE TABLE t_unique AS SELECT g::bigint AS id FROM generate_series(1, $N) g;
	 CREATE TABLE t_dup AS SELECT (g % $NDUP)::bigint AS id FROM generate_series(1, $N) g;"
sql "VACUUM ANALYZE t_unique"
sql "VACUUM ANALYZE t_dup"

# best of REPS, in ms, of each query "$@" with $1 workers: the queries run
# in turn (q1 q2 q3 q1 q2 q3 ...) after one warm-up each, so that a machine
# that speeds up or slows down during the run moves all of them alike
best_ms() {
	local workers=$1 q
	shift
	local nq=$#
	{
		echo "SET max_parallel_workers_per_gather = $workers;"
		for q in "$@"; do echo "$q;"; done
		echo '\timing on'
		for _ in $(seq "$REPS"); do
			for q in "$@"; do echo "$q;"; done
		done
	} | "${PSQL[@]}" | sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' |
		awk -v nq="$nq" '{ k = (NR - 1) % nq; if (!(k in b) || $1 < b[k]) b[k] = $1 }
			END { for (k = 0; k < nq; k++) printf "%s%s", b[k], (k < nq - 1 ? " " : "\n") }'
}

# best of REPS backend CPU time (user + system), in ms, of each serial query
# "$@", run in turn as best_ms does: less disturbed than wall time when
# other work shares the machine (10 ms resolution)
best_cpu_ms() {
	local pid c0 c1 ms tck q k nq=$#
	local -a best=()
	tck=$(getconf CLK_TCK)
	coproc C { "${PSQL[@]}" 2>&1; }
	echo "SET max_parallel_workers_per_gather = 0; SELECT pg_backend_pid();" >&"${C[1]}"
	read -r pid <&"${C[0]}"
	for q in "$@"; do				# warm-up
		echo "$q;" >&"${C[1]}"
		read -r _ <&"${C[0]}"
	done
	for _ in $(seq "$REPS"); do
		k=0
		for q in "$@"; do
			c0=$(awk '{ print $14 + $15 }' "/proc/$pid/stat")
			echo "$q;" >&"${C[1]}"
			read -r _ <&"${C[0]}"
			c1=$(awk '{ print $14 + $15 }' "/proc/$pid/stat")
			ms=$(( (c1 - c0) * 1000 / tck ))
			if [ -z "${best[k]:-}" ] || [ "$ms" -lt "${best[k]}" ]; then best[k]=$ms; fi
			k=$((k + 1))
		done
	done
	echo '\q' >&"${C[1]}"
	wait "$C_PID" 2>/dev/null || true
	echo "${best[*]:0:nq}"
}

# checks the plan of $2 with $1 workers is (not) parallel, as intended
plan_workers() {
	{
		echo "SET max_parallel_workers_per_gather = $1;"
		echo "EXPLAIN (COSTS OFF) $2;"
	} | "${PSQL[@]}" | sed -n 's/.*Workers Planned: \([0-9]*\).*/\1/p' | head -1
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
sec() { awk -v a="$1" 'BEGIN { printf "%.3f", a / 1000 }'; }

echo "## cf_agg speed: $N bigint rows, best of $REPS"
echo
echo "$(nproc) CPUs ($(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1)), $("$BIN/postgres" --version)."
echo
echo "| table | plan | count(id) s | hll_add_agg s | cf_agg s | cf_agg / count | cf_agg / hll |"
echo "|---|---|---|---|---|---|---|"
for t in t_unique t_dup; do
	case $t in
		t_unique) label="$N distinct" ;;
		t_dup) label="$NDUP distinct" ;;
	esac
	for w in 0 2; do
		q_count="SELECT count(id) FROM $t"
		q_hll="SELECT hll_add_agg(hll_hash_bigint(id)) IS NOT NULL FROM $t"
		q_cf="SELECT cf_agg(id) IS NOT NULL FROM $t"
		pw=$(plan_workers "$w" "$q_cf")
		plan=$([ "$w" -eq 0 ] && echo serial || echo "${pw:-0} workers")
		read -r c h f < <(best_ms "$w" "$q_count" "$q_hll" "$q_cf")
		echo "| $label | $plan | $(sec "$c") | $(sec "$h") | $(sec "$f") | $(ratio "$f" "$c") | $(ratio "$f" "$h") |"
	done
	read -r c h f < <(best_cpu_ms "SELECT count(id) FROM $t" \
		"SELECT hll_add_agg(hll_hash_bigint(id)) IS NOT NULL FROM $t" \
		"SELECT cf_agg(id) IS NOT NULL FROM $t")
	echo "| $label | serial, backend CPU | $(sec "$c") | $(sec "$h") | $(sec "$f") | $(ratio "$f" "$c") | $(ratio "$f" "$h") |"
done
echo
echo "Load average while measuring: $(cut -d' ' -f1-3 /proc/loadavg) (at the end)."
echo

# Peak memory: the growth of the backend's peak RSS (VmHWM) while running
# cf_agg, over a count() of the same rows run first in the same fresh
# session (which touches the same table pages and executor memory).
peak_kb() {
	local src=$1 pid base peak
	coproc P { "${PSQL[@]}" 2>&1; }
	echo "SET max_parallel_workers_per_gather = 0; SELECT pg_backend_pid();" >&"${P[1]}"
	read -r pid <&"${P[0]}"
	echo "SELECT count(id) FROM $src;" >&"${P[1]}"
	read -r _ <&"${P[0]}"
	base=$(sed -n 's/^VmHWM:[^0-9]*\([0-9]*\).*/\1/p' "/proc/$pid/status")
	echo "SELECT cf_agg(id) IS NOT NULL FROM $src;" >&"${P[1]}"
	read -r _ <&"${P[0]}"
	peak=$(sed -n 's/^VmHWM:[^0-9]*\([0-9]*\).*/\1/p' "/proc/$pid/status")
	echo '\q' >&"${P[1]}"
	wait "$P_PID" 2>/dev/null || true
	echo $((peak - base))
}

echo "## cf_agg peak memory (serial)"
echo
echo "| input | distinct values | peak RSS growth | bytes per distinct value | filter bytes |"
echo "|---|---|---|---|---|"
mem_row() {
	local label=$1 src=$2 nd=$3 kb fb
	kb=$(peak_kb "$src")
	fb=$(sql "SELECT (cf_info(cf_agg(id))).bytes FROM $src")
	echo "| $label | $nd | $((kb / 1024)) MB | $(awk -v k="$kb" -v n="$nd" 'BEGIN { printf "%.1f", k * 1024 / n }') | $fb |"
}
M1=$((N / 10))
mem_row "$M1 rows" "(SELECT id FROM t_unique WHERE id <= $M1) s" "$M1"
mem_row "$N rows" "t_unique" "$N"
mem_row "$N rows" "t_dup" "$NDUP"
echo

# Many small groups in a hash aggregate: EXPLAIN ANALYZE's Memory Usage.
# Groups of 3 values fit cf_agg's state inline; groups of 10 take a small
# hash set.
G=$((N / 100))
for size in 3 10; do
	echo "## GROUP BY: $G groups of $size values, hash aggregate memory"
	echo
	echo "| aggregate | Memory Usage | bytes per group | batches (1 = no spill) |"
	echo "|---|---|---|---|"
	for agg in "count(v)" "cf_agg(v)" "hll_add_agg(hll_hash_bigint(v))"; do
		line=$({
			echo "SET enable_sort = off; SET max_parallel_workers_per_gather = 0;"
			echo "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
				  SELECT g, $agg FROM (SELECT id / $size AS g, id AS v FROM t_unique
									   WHERE id < $((size * G))) s GROUP BY g;"
		} | "${PSQL[@]}" | grep -m1 'Memory Usage')
		kb=$(echo "$line" | sed -n 's/.*Memory Usage: \([0-9]*\)kB.*/\1/p')
		batches=$(echo "$line" | sed -n 's/.*Batches: \([0-9]*\).*/\1/p')
		echo "| $agg | ${kb} kB | $(awk -v k="$kb" -v g="$G" 'BEGIN { printf "%.0f", k * 1024 / g }') | $batches |"
	done
	echo
done
echo "(work_mem = 256MB; a hash aggregate that would exceed it spills groups to disk.)"
