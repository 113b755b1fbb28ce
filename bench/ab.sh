#!/usr/bin/env bash
# ab.sh - two revisions of cuckoo measured on equal terms in one run (issue 35,
# goal 5): the core's lookups, growth, unions and bulk build, and the SQL
# functions (cf_agg, cf_contains per row, cf_add_all, PL/pgSQL cf_add,
# cf_union_agg, UPDATE ... cf_add), BASE and HEAD interleaved, one table of
# medians and HEAD/BASE ratios.
#
# Usage (as root):  bash bench/ab.sh BASE HEAD [--quick] [--reps N] [--out FILE] [--no-pin]
#   BASE, HEAD  commits of this repository (anything git rev-parse takes)
#   --quick     smaller and fewer: 1M keys only in the core, 200k SQL rows,
#               3 reps (under 2 minutes); a smoke test, not a measurement
#   --reps N    runs per side (default 5; --quick 3)
#   --out FILE  where the report goes too (default bench/results/ab-BASE-HEAD.md)
#   --no-pin    do not pin the core runs and the servers to CPU 1 (taskset -c 1)
#   bash bench/ab.sh --table FILE.raw   prints the table of a finished run again
# Environment: PG_CONFIG (the PostgreSQL 15 to copy, default Debian's), CC,
#   OPT (default bench/Makefile's: the code-generation flags of pg_config --cflags).
#
# How:
# - both revisions are exported with git archive into a temporary directory
#   (nothing in this checkout changes); each one's extension is built into its
#   own private copy of PostgreSQL (PGXS, pg_config's flags, with_llvm=no);
# - the core driver is ONE file, bench/ab_core.c: HEAD's if HEAD has it, else
#   this checkout's; it is built with the same $CC $OPT against each side's
#   src/core (through that tree's `make -C bench ab-core` if it has the target,
#   else cc over src/core/*.c).  If it does not build against BASE (the API
#   changed), BASE's own ab_core.c is used, else the first committed one, and
#   the report says so;
# - core: REPS runs of each side's program, alternating (A B, B A, A B ...),
#   each the best of 3 passes of thread CPU time; the table shows medians,
#   the paired ratio and the ratio of the best runs;
# - SQL: two throw-away clusters, one per side, identical settings, the same
#   data; per rep one session per side (order alternating as above) runs
#   every statement 3 times in a row and keeps the best; cpu = the
#   backend's time on CPU (/proc/PID/schedstat), wall = psql's \timing;
# - answers (false positives counted, items, row counts) and filter bytes
#   (FNV-1a of the core's, md5 of the SQL-built ones) are compared between
#   sides: goal 5's "no change in behaviour" shows there too.
set -euo pipefail

usage() { sed -n '9,17p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
cmdline="bash bench/ab.sh $*"
QUICK=0; REPS=""; OUT=""; PIN=1; TABLE=""; revs=()
while [ $# -gt 0 ]; do
	case $1 in
		--quick) QUICK=1 ;;
		--reps) REPS=${2:?}; shift ;;
		--out) OUT=${2:?}; shift ;;
		--no-pin) PIN=0 ;;
		--table) TABLE=${2:?}; shift ;;
		-h | --help) usage ;;
		-*) usage ;;
		*) revs+=("$1") ;;
	esac
	shift
done
table() {	# RAW: the table and summaries of a results file
	awk '
		$3 == "m" { k = $4; if (!(k in seen)) { seen[k] = 1; order[++nk] = k; unit[k] = $6 }
		            v[$1, k, ++n[$1, k]] = $5; byrep[$1, k, $2] = $5; if ($2 > nr) nr = $2 }
		$3 == "a" || $3 == "d" { key = $3 " " $4; val = $5; for (i = 6; i <= NF; i++) val = val " " $i
		            if (!(key in first)) { first[key] = val; keys[++nq] = key; kind[key] = $3 }
		            else if (first[key] != val) { bad[key] = bad[key] " " $1 ":" val } }
		function sorted(a, m,   i, j, x) {	# sorts a[1..m]; sets MIN MED MAX
			for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (a[j] < a[i]) { x = a[i]; a[i] = a[j]; a[j] = x }
			MIN = a[1]; MAX = a[m]; MED = (m % 2) ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
		}
		function stats(s, k,   m, i, a) {
			m = n[s, k]; for (i = 1; i <= m; i++) a[i] = v[s, k, i]
			sorted(a, m)
		}
		function paired(k,   r, m, a) {	# median over reps of HEAD / BASE of the same rep
			m = 0; for (r = 1; r <= nr; r++) if (((("A", k, r) in byrep)) && byrep["A", k, r] > 0) a[++m] = byrep["B", k, r] / byrep["A", k, r]
			sorted(a, m); return MED
		}
		function fmt(x) { return x >= 100 ? sprintf("%.1f", x) : x >= 10 ? sprintf("%.2f", x) : sprintf("%.3f", x) }
		END {
			print "| metric | unit | BASE median | HEAD median | HEAD/BASE | paired | best | BASE min..max | HEAD min..max |"
			print "|---|---|---:|---:|---:|---:|---:|---|---|"
			for (i = 1; i <= nk; i++) {
				k = order[i]
				stats("A", k); ma = MED; la = MIN; ha = MAX
				stats("B", k); mb = MED; lb = MIN; hb = MAX
				r = ma > 0 ? mb / ma : 0
				p = paired(k)
				b = la > 0 ? lb / la : 0
				printf "| %s | %s | %s | %s | %.3f | %.3f | %.3f | %s..%s | %s..%s |\n", k, unit[k], fmt(ma), fmt(mb), r, p, b, fmt(la), fmt(ha), fmt(lb), fmt(hb)
				g = (k ~ /^sql\./) ? (k ~ /\.wall$/ ? "sql wall" : "sql cpu") : "core"
				d = r > 1 ? r - 1 : 1 - r
				if (d > worst[g]) { worst[g] = d; wk[g] = k }
				d = p > 1 ? p - 1 : 1 - p
				if (d > pworst[g]) { pworst[g] = d; pwk[g] = k }
				d = b > 1 ? b - 1 : 1 - b
				if (d > bworst[g]) { bworst[g] = d; bwk[g] = k }
				lsum[g] += log(r); cnt[g]++
			}
			print ""
			split("core|sql cpu|sql wall", G, "|")
			for (g = 1; g <= 3; g++) {
				x = G[g]
				if (cnt[x]) printf "- %s: geometric mean of the ratios %.3f over %d metrics; largest |1 - ratio| %.3f (%s), paired %.3f (%s), best %.3f (%s)\n", x, exp(lsum[x] / cnt[x]), cnt[x], worst[x], wk[x], pworst[x], pwk[x], bworst[x], bwk[x]
			}
			na = 0; nd = 0; da = ""; dd = ""
			for (i = 1; i <= nq; i++) {
				key = keys[i]
				if (kind[key] == "a") { na++; if (key in bad) da = da "; " substr(key, 3) " A:" first[key] bad[key] }
				else { nd++; if (key in bad) dd = dd "; " substr(key, 3) }
			}
			print ""
			printf "Answers (false positives counted, items, row counts; %d): %s\n", na, da == "" ? "the same on both sides, every run" : "DIFFER: " substr(da, 3)
			print ""
			printf "Filter bytes (FNV-1a of the core'"'"'s filters, md5 of the SQL-built ones; %d): %s\n", nd, dd == "" ? "identical on both sides" : "DIFFER: " substr(dd, 3)
		}' "$1"
}
if [ -n "$TABLE" ]; then table "$TABLE"; exit; fi
[ ${#revs[@]} -eq 2 ] || usage
if [ "$(id -u)" -ne 0 ]; then
	echo "ab.sh: run as root (the clusters run as user postgres)" >&2
	exit 1
fi
top=$(cd "$(dirname "$0")/.." && pwd)
PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
CC=${CC:-cc}
OPT=${OPT:-"-O2 -g -fno-strict-aliasing -fwrapv -fexcess-precision=standard -fno-omit-frame-pointer -fstack-protector-strong"}
if [ $QUICK = 1 ]; then
	REPS=${REPS:-3}; CORE_ARGS="-q -p 2"; SQLP=2; N=200000; USERS=2000; LOOP=50000
else
	REPS=${REPS:-5}; CORE_ARGS=""; SQLP=3; N=1000000; USERS=5000; LOOP=100000
fi
PINCMD=()
[ $PIN = 1 ] && PINCMD=(taskset -c 1)

sha=(); short=(); subj=()
for i in 0 1; do
	sha[i]=$(git -C "$top" rev-parse --verify "${revs[i]}^{commit}") ||
		{ echo "ab.sh: ${revs[i]}: not a commit of $top" >&2; exit 1; }
	short[i]=$(git -C "$top" rev-parse --short "${sha[i]}")
	subj[i]=$(git -C "$top" log -1 --format=%s "${sha[i]}" | cut -c1-90)
done
OUT=${OUT:-$top/bench/results/ab-${short[0]}-${short[1]}.md}
side=(A B)		# A = BASE, B = HEAD
t_start=$SECONDS
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
date_start=$(date -u '+%Y-%m-%d %H:%M UTC')
log() { echo "ab.sh: $*" >&2; }

WORK=$(mktemp -d /tmp/cuckoo-ab.XXXXXX)
chmod 755 "$WORK"
cleanup() {
	for s in A B; do
		if [ -f "$WORK/data-$s/postmaster.pid" ]; then
			runuser -u postgres -- "$WORK/pg-$s/bin/pg_ctl" -D "$WORK/data-$s" -m immediate -w stop >/dev/null 2>&1 || true
		fi
	done
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---- build: sources, PostgreSQL copies, extensions, core drivers ------------
pglib=$("$PG_CONFIG" --bindir | sed 's|/bin$||')				# /usr/lib/postgresql/15
pgshare=$("$PG_CONFIG" --sharedir)							# /usr/share/postgresql/15
pginc=$(dirname "$("$PG_CONFIG" --includedir-server)")		# /usr/include/postgresql/15
for i in 0 1; do
	s=${side[i]}
	log "building ${revs[i]} (${short[i]}) as side $s"
	mkdir -p "$WORK/src-$s"
	git -C "$top" archive "${sha[i]}" | tar -x -C "$WORK/src-$s"
	# a private copy of PostgreSQL (it finds lib and share relative to its binaries)
	inst=$WORK/inst-$s
	mkdir -p "$inst$(dirname "$pglib")" "$inst$(dirname "$pgshare")" "$inst$(dirname "$pginc")"
	cp -a "$pglib" "$inst$(dirname "$pglib")/"
	cp -a "$pgshare" "$inst$(dirname "$pgshare")/"
	ln -s "$pginc" "$inst$pginc"
	rm -f "$inst$pglib/lib/cuckoo.so" "$inst$pgshare"/extension/cuckoo*
	ln -s "$inst$pglib" "$WORK/pg-$s"
	make -s -C "$WORK/src-$s" PG_CONFIG="$WORK/pg-$s/bin/pg_config" with_llvm=no -j2 install \
		>"$WORK/build-$s.log" 2>&1 || { cat "$WORK/build-$s.log" >&2; log "extension build of ${revs[i]} failed"; exit 1; }
done
chown -R postgres "$WORK"

# the core driver: HEAD's, else this checkout's
if [ -f "$WORK/src-B/bench/ab_core.c" ]; then drv=$WORK/src-B/bench/ab_core.c; drv_from="HEAD's (${short[1]})"
else drv=$top/bench/ab_core.c; drv_from="this checkout's"; fi
build_core() {	# TREE DRIVER OUT
	if grep -q '^ab-core:' "$1/bench/Makefile" 2>/dev/null; then
		make -s -C "$1/bench" ab-core CC="$CC" OPT="$OPT" AB_DRIVER="$2" AB_OUT="$3"
	else
		$CC $OPT -Wall -Wextra -I"$1/src/core" -o "$3" "$2" "$1"/src/core/*.c -lm
	fi
}
drv_note="one driver for both sides: $drv_from bench/ab_core.c, sha1 $(sha1sum "$drv" | cut -c1-12)"
build_core "$WORK/src-B" "$drv" "$WORK/ab_core-B" >"$WORK/core-build-B.log" 2>&1 ||
	{ cat "$WORK/core-build-B.log" >&2; log "the core driver does not build against ${revs[1]}"; exit 1; }
if ! build_core "$WORK/src-A" "$drv" "$WORK/ab_core-A" >"$WORK/core-build-A.log" 2>&1; then
	# the API changed: BASE's own driver, else the first one committed (issue 35's)
	if [ -f "$WORK/src-A/bench/ab_core.c" ]; then
		cp "$WORK/src-A/bench/ab_core.c" "$WORK/ab_core-A.c"; from="its own"
	else
		first=$(git -C "$top" log --diff-filter=A --format=%h -- bench/ab_core.c | tail -1)
		[ -n "$first" ] && git -C "$top" show "$first:bench/ab_core.c" >"$WORK/ab_core-A.c"; from="the first committed ($first)"
	fi
	if [ -s "$WORK/ab_core-A.c" ] &&
		build_core "$WORK/src-A" "$WORK/ab_core-A.c" "$WORK/ab_core-A" >>"$WORK/core-build-A.log" 2>&1; then
		drv_note="TWO drivers (HEAD's does not build against BASE): BASE runs $from bench/ab_core.c (sha1 $(sha1sum "$WORK/ab_core-A.c" | cut -c1-12)), HEAD $drv_from (sha1 $(sha1sum "$drv" | cut -c1-12)); compare only metrics both measure the same way"
		log "warning: $drv_note"
	else
		cat "$WORK/core-build-A.log" >&2; log "the core driver does not build against ${revs[0]}"; exit 1
	fi
fi

# results: one line per value, "SIDE REP KIND NAME VALUE [UNIT]"
RES=$WORK/results.txt
: >"$RES"
order() {	# rep number -> the sides in the order they run
	if [ $(($1 % 2)) = 1 ]; then echo A B; else echo B A; fi
}

# ---- core -------------------------------------------------------------------
log "core: $REPS runs per side (about $([ $QUICK = 1 ] && echo 3 || echo 14) s each)"
for r in $(seq "$REPS"); do
	for s in $(order "$r"); do
		"${PINCMD[@]}" "$WORK/ab_core-$s" $CORE_ARGS >"$WORK/core-$s-$r.txt" ||
			{ log "core run $s $r failed"; exit 1; }
		awk -v s="$s" -v r="$r" '/^[mad] / { print s, r, $0 }' "$WORK/core-$s-$r.txt" >>"$RES"
	done
done

# ---- SQL ----------------------------------------------------------------------
log "SQL: two clusters, $N rows, $USERS per-user filters"
port=(54391 54392)
for i in 0 1; do
	s=${side[i]}
	runuser -u postgres -- "$WORK/pg-$s/bin/initdb" -D "$WORK/data-$s" -A trust -U postgres -N \
		--no-instructions >"$WORK/initdb-$s.log" 2>&1
	cat >>"$WORK/data-$s/postgresql.conf" <<EOF
listen_addresses = ''
unix_socket_directories = '$WORK'
port = ${port[i]}
shared_buffers = 512MB
work_mem = 256MB
maintenance_work_mem = 256MB
max_parallel_workers_per_gather = 0
jit = off
fsync = off
synchronous_commit = off
full_page_writes = off
autovacuum = off
max_wal_size = 4GB
checkpoint_timeout = 1h
EOF
	runuser -u postgres -- "${PINCMD[@]}" "$WORK/pg-$s/bin/pg_ctl" -D "$WORK/data-$s" -l "$WORK/server-$s.log" -w -t 120 start >/dev/null
done
psqls() {	# SIDE psql-args...
	local s=$1 p
	shift
	p=${port[0]}; [ "$s" = B ] && p=${port[1]}
	"$WORK/pg-$s/bin/psql" -X -q -At -v ON_ERROR_STOP=1 -h "$WORK" -p "$p" -U postgres -d postgres "$@"
}
for s in A B; do
	psqls $s >/dev/null <<EOF
CREATE EXTENSION cuckoo;
CREATE EXTENSION pg_prewarm;
CREATE TABLE t AS SELECT g::bigint AS id FROM generate_series(1, $N) g;
CREATE TABLE arr AS SELECT array_agg(id ORDER BY id) AS a FROM t;
CREATE TABLE filters (name text PRIMARY KEY, f cuckoofilter NOT NULL);
INSERT INTO filters SELECT 'agg', cf_agg(id) FROM t WHERE id % 10 = 0;
INSERT INTO filters SELECT 'grown', cf_add_all(NULL::cuckoofilter, array_agg(id ORDER BY id)) FROM t WHERE id % 10 = 0;
INSERT INTO filters SELECT 'all', cf_agg(id) FROM t;
INSERT INTO filters SELECT 'text', cf_agg((id * 10)::text) FROM t WHERE id <= $N / 10;
-- per-user filters as a feed builds them (bench/union_bench.sh's first population)
CREATE TABLE items AS
SELECT u, (hashint8(u::int8 * 1000003 + g) & 2147483647)::int8 * 4 AS item
  FROM generate_series(1, $USERS) u, LATERAL generate_series(1, 40 + (u * 7919) % 121) g;
CREATE TABLE users AS
SELECT u, cf_add_all(NULL::cuckoofilter, array_agg(item ORDER BY item)) AS f FROM items GROUP BY u;
CREATE FUNCTION ab_loop(n int) RETURNS bigint LANGUAGE plpgsql AS \$\$
DECLARE f cuckoofilter;
BEGIN
	FOR i IN 1 .. n LOOP
		f := cf_add(f, i::bigint);
	END LOOP;
	RETURN (cf_info(f)).items;
END \$\$;
VACUUM (FREEZE, ANALYZE) t, arr, filters, items, users;
SELECT pg_prewarm('t'), pg_prewarm('arr'), pg_prewarm('filters'), pg_prewarm('users');
EOF
	# the bytes of what each side's SQL builds (compared below)
	psqls $s -F' ' >>"$RES" <<EOF
SELECT '$s', 0, 'd', 'sql.filter.' || name, md5(f::text) FROM filters ORDER BY name;
SELECT '$s', 0, 'd', 'sql.cf_agg.t', md5(cf_agg(id)::text) FROM t;
SELECT '$s', 0, 'd', 'sql.users', md5(string_agg(f::text, ',' ORDER BY u)) FROM users;
SELECT '$s', 0, 'd', 'sql.cf_union_agg', md5(cf_union_agg(f)::text) FROM users;
EOF
done

# the statements: "name|SQL"; each rep's session runs them in this order
if [ $((N % 1000000)) = 0 ]; then k=$((N / 1000000))M; else k=$((N / 1000))k; fi
cat >"$WORK/stmts.txt" <<EOF
cf_agg.${k}|SELECT (cf_info(cf_agg(id))).items FROM t
contains.agg.${k}|SELECT count(*) FROM t WHERE cf_contains((SELECT f FROM filters WHERE name = 'agg'), id)
contains.grown.${k}|SELECT count(*) FROM t WHERE cf_contains((SELECT f FROM filters WHERE name = 'grown'), id)
contains.all.${k}|SELECT count(*) FROM t WHERE cf_contains((SELECT f FROM filters WHERE name = 'all'), id)
contains.text.${k}|SELECT count(*) FROM t WHERE cf_contains((SELECT f FROM filters WHERE name = 'text'), id::text)
add_all.${k}|SELECT (cf_info(cf_add_all(NULL::cuckoofilter, a))).items FROM arr
plpgsql_add.$((LOOP / 1000))k|SELECT ab_loop($LOOP)
union_agg.${USERS}|SELECT (cf_info(cf_union_agg(f))).items FROM users
update_add.${USERS}|UPDATE users SET f = cf_add(f, u::bigint * 4 + 1)
EOF
cat >"$WORK/cpu.sh" <<'EOF'
#!/bin/sh
echo "@cpu $1 $(cut -d' ' -f1 "/proc/$BPID/schedstat")"
EOF
{
	echo "SELECT pg_backend_pid() AS bpid \\gset"
	echo "\\setenv BPID :bpid"
	echo "SELECT cf_contains(cf_add(NULL::cuckoofilter, 1::bigint), 1::bigint);"	# loads the library
	while IFS='|' read -r name q; do
		for _ in $(seq "$SQLP"); do
			case $name in update_*) echo "BEGIN;" ;; esac
			echo "\\echo @@ $name"
			echo "\\! sh $WORK/cpu.sh $name"
			echo '\timing on'
			echo "$q;"
			echo '\timing off'
			echo "\\! sh $WORK/cpu.sh $name"
			case $name in update_*) echo "ROLLBACK;"; echo "VACUUM users;" ;; esac
		done
	done <"$WORK/stmts.txt"
} >"$WORK/rep.sql"
log "SQL: $REPS sessions per side, $(wc -l <"$WORK/stmts.txt") statements each"
for r in $(seq "$REPS"); do
	for s in $(order "$r"); do
		psqls $s -f "$WORK/rep.sql" >"$WORK/sql-$s-$r.txt" 2>&1 || { tail "$WORK/sql-$s-$r.txt" >&2; log "SQL rep $s $r failed"; exit 1; }
		# the best of the session's SQLP runs of each statement, wall and cpu
		awk -v s="$s" -v r="$r" '
			function keep(k, x) { if (!(k in best)) { best[k] = x; ks[++nk] = k } else if (x < best[k]) best[k] = x }
			/^@@ / { name = $2; ans = ""; next }
			/^@cpu / { if ($2 in c0) { keep("sql." $2 ".cpu", ($3 - c0[$2]) / 1e6); delete c0[$2] } else c0[$2] = $3; next }
			/^Time: / { keep("sql." name ".wall", $2 + 0); if (!(name in a)) a[name] = (ans == "" ? "-" : ans); next }
			{ if (name != "" && ans == "") ans = $0 }
			END {
				for (i = 1; i <= nk; i++) printf "%s %s m %s %.3f ms\n", s, r, ks[i], best[ks[i]]
				for (n in a) printf "%s %s a sql.%s %s\n", s, r, n, a[n]
			}' "$WORK/sql-$s-$r.txt" >>"$RES"
	done
done
load_end=$(cut -d' ' -f1-3 /proc/loadavg)
pgver=$("$WORK/pg-A/bin/postgres" --version)
ext=()
for s in A B; do
	ext+=("$(psqls $s -c "SELECT extversion FROM pg_extension WHERE extname = 'cuckoo'")")
done

# ---- report -------------------------------------------------------------------
mkdir -p "$(dirname "$OUT")"
{
	echo "# A/B: ${short[0]} (BASE) against ${short[1]} (HEAD)"
	echo
	echo "Command: \`$cmdline\` (as root), $date_start, $((SECONDS - t_start)) s."
	echo "Machine: nproc $(nproc), $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1), $(free -g | awk '/^Mem:/ { print $2 }') GiB RAM;"
	echo "load average $load_start at start, $load_end at end."
	echo
	echo "- BASE ${short[0]}: ${subj[0]} (extension ${ext[0]})"
	echo "- HEAD ${short[1]}: ${subj[1]} (extension ${ext[1]})"
	echo "- core: $drv_note; \`$CC $OPT\` ($($CC --version | head -1)); $REPS runs per side alternating"
	echo "  (A B, B A, ...)$([ $PIN = 1 ] && echo ', taskset -c 1'), \`ab_core${CORE_ARGS:+ $CORE_ARGS}\`: each value the best of its passes, thread CPU time."
	echo "- SQL: $pgver, two throw-away clusters (one per side) with the same settings: shared_buffers 512MB,"
	echo "  work_mem 256MB, jit off, no parallel workers, fsync off$([ $PIN = 1 ] && echo ', servers on CPU 1'); $N rows, $USERS per-user filters;"
	echo "  $REPS sessions per side alternating, each statement run $SQLP times in a row per session, the best kept;"
	echo "  cpu = backend CPU (/proc/PID/schedstat), wall = psql \\timing."
	echo "- Every value is a time (lower is faster); HEAD/BASE = HEAD median / BASE median (> 1: HEAD slower);"
	echo "  paired = the median over reps of HEAD / BASE of the same rep (the two runs next to each other);"
	echo "  best = HEAD min / BASE min (the least disturbed run of each side: the steadiest on a loaded machine)."
	echo
	table "$RES"
} | tee "$OUT"
cp "$RES" "${OUT%.md}.raw"
log "report written to $OUT (every value: ${OUT%.md}.raw)"
