#!/usr/bin/env bash
# lookup_ab.sh - the per-row probe of two builds side by side in one session:
# this tree's cf_contains (installed as the extension) against another
# build's cuckoo_contains (OLD_LIB, a cuckoo.so whose _PG_init uses another
# GUC prefix, so that both load into one backend), with the hashint8 floor and
# the hashed SubPlan of bench/sql_bench.sh's row 2 as yardsticks.  Statements
# are interleaved round-robin, REPS times; min and median wall ms printed.
#
# Usage (as root):  PG_CONFIG=... OLD_LIB=cuckoo_main REPS=7 bash bench/lookup_ab.sh
#   OLD_LIB   a library name in PG_CONFIG's pkglibdir (without .so)
# bench/results/engineering-log.md ("Issue #18") shows how the two builds were made.
set -euo pipefail
PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
PGBIN=$("$PG_CONFIG" --bindir)
OLD_LIB=${OLD_LIB:?set OLD_LIB to the other build, installed under another name}
REPS=${REPS:-7}
N=${N:-10000000}
PORT=5434

WORK=$(mktemp -d /tmp/cuckoo-ab.XXXXXX)
chmod 755 "$WORK"; chown postgres "$WORK"
cleanup() {
	runuser -u postgres -- "$PGBIN/pg_ctl" -D "$WORK/data" -m immediate -w stop >/dev/null 2>&1 || true
	rm -rf "$WORK"
}
trap cleanup EXIT
cd "$WORK"
runuser -u postgres -- "$PGBIN/initdb" -D "$WORK/data" -A trust -U postgres -N >/dev/null 2>&1
cat >>"$WORK/data/postgresql.conf" <<CONF
listen_addresses = ''
unix_socket_directories = '$WORK'
port = $PORT
shared_buffers = 2GB
work_mem = 256MB
max_parallel_workers_per_gather = 0
jit = off
fsync = off
autovacuum = off
CONF
runuser -u postgres -- "$PGBIN/pg_ctl" -D "$WORK/data" -l "$WORK/server.log" -w start >/dev/null
psqlq() { "$PGBIN/psql" -X -q -h "$WORK" -p $PORT -U postgres -v ON_ERROR_STOP=1 "$@"; }

psqlq >/dev/null <<SQL
CREATE EXTENSION cuckoo;
CREATE EXTENSION pg_prewarm;
CREATE FUNCTION old_contains(cuckoofilter, anyelement) RETURNS boolean
	AS '\$libdir/$OLD_LIB', 'cuckoo_contains' LANGUAGE C IMMUTABLE STRICT;
CREATE UNLOGGED TABLE big (id bigint NOT NULL);
INSERT INTO big SELECT generate_series(1, $N);
VACUUM (FREEZE, ANALYZE) big;
CREATE TABLE small_100k AS SELECT id FROM big WHERE id % 100 = 0;
CREATE TABLE small_1m AS SELECT id FROM big WHERE id % 10 = 0;
VACUUM (FREEZE, ANALYZE) small_100k, small_1m;
CREATE TABLE filters (name text PRIMARY KEY, f cuckoofilter NOT NULL);
INSERT INTO filters SELECT '100k', cf_agg(id) FROM small_100k;
INSERT INTO filters SELECT '1m', cf_agg(id) FROM small_1m;
VACUUM (FREEZE, ANALYZE) filters;
SELECT pg_prewarm('big'), pg_prewarm('small_100k'), pg_prewarm('small_1m');
SQL

{
	echo "SELECT count(*) FROM big;"
	echo '\timing on'
	for _ in $(seq "$REPS"); do
		echo "\\echo @@ floor"
		echo "SELECT count(*) FROM big WHERE hashint8(id) <> 0;"
		for s in 100k 1m; do
			echo "\\echo @@ new_$s"
			echo "SELECT count(*) FROM big WHERE cf_contains((SELECT f FROM filters WHERE name = '$s'), id);"
			echo "\\echo @@ old_$s"
			echo "SELECT count(*) FROM big WHERE old_contains((SELECT f FROM filters WHERE name = '$s'), id);"
			echo "\\echo @@ hsub_$s"
			echo "SELECT count(*) FROM big WHERE id IN (SELECT id FROM small_$s) OR false;"
		done
	done
} >"$WORK/ab.sql"
echo "lookup_ab: $N rows, $REPS interleaved reps, load $(cut -d' ' -f1-3 /proc/loadavg) at start"
psqlq -f "$WORK/ab.sql" | awk '
	/^@@ / { k = $2; next }
	/^Time: / { t[k, ++n[k]] = $2 }
	END {
		printf "%-10s %9s %9s\n", "statement", "min ms", "median ms"
		split("floor new_100k old_100k hsub_100k new_1m old_1m hsub_1m", ks, " ")
		for (i = 1; i <= 7; i++) {
			k = ks[i]; m = n[k]
			for (a = 1; a <= m; a++) v[a] = t[k, a]
			for (a = 1; a <= m; a++) for (b = a + 1; b <= m; b++) if (v[b] < v[a]) { x = v[a]; v[a] = v[b]; v[b] = x }
			min[k] = v[1]; med[k] = (m % 2) ? v[(m + 1) / 2] : (v[m / 2] + v[m / 2 + 1]) / 2
			printf "%-10s %9.1f %9.1f\n", k, min[k], med[k]
		}
		for (s = 1; s <= 2; s++) {
			z = (s == 1) ? "100k" : "1m"
			printf "%s: new / old %.2f (min) %.2f (median); new / hashed SubPlan %.2f / %.2f; old / hashed SubPlan %.2f / %.2f; new / floor %.2f / %.2f; old / floor %.2f / %.2f\n", z,
				min["new_" z] / min["old_" z], med["new_" z] / med["old_" z],
				min["new_" z] / min["hsub_" z], med["new_" z] / med["hsub_" z],
				min["old_" z] / min["hsub_" z], med["old_" z] / med["hsub_" z],
				min["new_" z] / min["floor"], med["new_" z] / med["floor"],
				min["old_" z] / min["floor"], med["old_" z] / med["floor"]
		}
	}'
echo "load $(cut -d' ' -f1-3 /proc/loadavg) at end"
