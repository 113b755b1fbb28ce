#!/usr/bin/env bash
# prefilter_tiny.sh - for a small side of a few keys, is the cuckoo filter
# the right thing to ship to a postgres_fdw server, or `= ANY(array)`, which
# the remote server can answer from an index?  Both written by hand, beside
# the plain join, in one session of one throw-away cluster that is its own
# postgres_fdw server (loopback, database "remote"):
#
#   big_f   a foreign table of B rows (default 2,000,000), an index on key,
#           K distinct keys (default 200,000), 10 rows a key
#   small   N keys (N = 10, 100, 1,000, 10,000 by default), all of them big's
#
#   plain   SELECT count(*), sum(length(b.payload)) FROM big_f b JOIN small s ON b.key = s.key
#   filter  ... WHERE (SELECT cf_agg(s2.key) FROM small s2) @> b.key
#   any     ... WHERE b.key = ANY (ARRAY(SELECT s2.key FROM small s2))
#   on      plain with SET cuckoo.join_prefilter = on: what the rule chooses
#           (= ANY up to cuckoo.join_prefilter_max_array_keys keys, a filter above)
#
# Prints, for each N, the median (min-max) milliseconds of each form over
# REPS rounds (the forms in turn, the order rotated every round), the rows
# fetched from the server and the ratio to plain.  Nothing here is a test.
# Usage: PG_CONFIG=... bash bench/prefilter_tiny.sh [REPS]   (after make install)
#   TINY_B, TINY_K, TINY_N ("10 100 1000 10000"), TINY_INDEX (1; 0: no index on big.key)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
if [ -z "${TINY_INNER:-}" ]; then
	TINY_INNER=1 TMPCLUSTER_OPTS="-c shared_buffers=512MB -c work_mem=64MB -c jit=off -c max_parallel_workers_per_gather=0 -c fsync=off" \
		exec bash "$top/test/pg/tmpcluster.sh" bash "$0" "$@"
fi
reps=${1:-5}
B=${TINY_B:-2000000}
K=${TINY_K:-200000}
NS=${TINY_N:-10 100 1000 10000}
q() { psql -X -q -At -v ON_ERROR_STOP=1 "$@"; }

q -d postgres -c "CREATE DATABASE remote"
q -d remote <<SQL
CREATE EXTENSION cuckoo;
CREATE TABLE big (id bigint NOT NULL, key bigint NOT NULL, payload text);
INSERT INTO big SELECT g, (g::bigint * 7919) % $K, 'payload ' || g FROM generate_series(1, $B) g;
$( [ "${TINY_INDEX:-1}" = 1 ] && echo 'CREATE INDEX ON big (key);' )
VACUUM ANALYZE big;
SQL
q -d postgres <<SQL
CREATE EXTENSION cuckoo;
CREATE EXTENSION postgres_fdw;
CREATE SERVER remote FOREIGN DATA WRAPPER postgres_fdw
  OPTIONS (host '$PGHOST', port '$PGPORT', dbname 'remote', extensions 'cuckoo', use_remote_estimate 'true');
CREATE USER MAPPING FOR CURRENT_USER SERVER remote OPTIONS (user '$PGUSER');
CREATE FOREIGN TABLE big_f (id bigint NOT NULL, key bigint NOT NULL, payload text)
  SERVER remote OPTIONS (table_name 'big');
ANALYZE big_f;  -- local statistics: the rule's estimate of the fraction removed needs them
CREATE TABLE small (key bigint NOT NULL);
CREATE FUNCTION run_ms(q text) RETURNS float8 LANGUAGE plpgsql AS \$\$
DECLARE t0 timestamptz;
BEGIN
  t0 := clock_timestamp();
  EXECUTE q;
  RETURN extract(epoch FROM clock_timestamp() - t0) * 1000;
END \$\$;
-- the rows the foreign scan returned (EXPLAIN ANALYZE of the query: rows a loop x loops)
CREATE FUNCTION fetched(q text) RETURNS bigint LANGUAGE plpgsql AS \$\$
DECLARE l text; n bigint := 0;
BEGIN
  FOR l IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
    IF l ~ 'Foreign Scan on big_f' THEN
      n := n + substring(l FROM 'rows=([0-9]+)')::bigint * substring(l FROM 'loops=([0-9]+)')::bigint;
    END IF;
  END LOOP;
  RETURN n;
END \$\$;
SQL

echo "prefilter_tiny: $(q -d postgres -c 'SELECT version()' | cut -d, -f1), big_f $B rows ($K keys, index on key: ${TINY_INDEX:-1}, a loopback postgres_fdw server with use_remote_estimate), $reps rounds, load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-7s %-7s %10s %26s %9s %s\n' N form fetched "ms median (min-max)" "/ plain" plan
base="SELECT count(*), sum(length(b.payload)) FROM big_f b JOIN small s ON b.key = s.key"
for n in $NS; do
	q -d postgres -c "TRUNCATE small" -c "INSERT INTO small SELECT (g::bigint * 104729) % $K FROM generate_series(1, $n) g" -c "ANALYZE small"
	declare -A Q=(
		[plain]="$base"
		[filter]="$base WHERE (SELECT cf_agg(s2.key) FROM small s2) @> b.key"
		[any]="$base WHERE b.key = ANY (ARRAY(SELECT s2.key FROM small s2))"
		[on]="$base"
	)
	forms=(plain filter any on)
	out=$(
		{
			echo "CREATE TEMP TABLE t (form text, ms float8);"
			echo "LOAD 'cuckoo';"
			for f in "${forms[@]}"; do echo "SELECT run_ms(\$q\$${Q[$f]}\$q\$);"; done	# warm-up
			for ((r = 0; r < reps; r++)); do
				for ((i = 0; i < 4; i++)); do
					f=${forms[(r + i) % 4]}
					on=off; [ "$f" = on ] && on=on
					echo "SET cuckoo.join_prefilter = $on;"
					echo "INSERT INTO t SELECT '$f', run_ms(\$q\$${Q[$f]}\$q\$);"
				done
			done
			echo "SELECT form, percentile_cont(0.5) WITHIN GROUP (ORDER BY ms), min(ms), max(ms) FROM t GROUP BY form;"
		} | q -d postgres -F ' ' | grep -E '^(plain|filter|any|on) '
	)
	plain_ms=$(awk '$1 == "plain" { print $2 }' <<< "$out")
	for f in "${forms[@]}"; do
		read -r _ med mn mx < <(awk -v f="$f" '$1 == f' <<< "$out")
		on=off; [ "$f" = on ] && on=on
		rows=$(q -d postgres -c "LOAD 'cuckoo'" -c "SET cuckoo.join_prefilter = $on" -c "SELECT fetched(\$q\$${Q[$f]}\$q\$)")
		plan=$(q -d postgres -c "LOAD 'cuckoo'" -c "SET cuckoo.join_prefilter = $on" -c "EXPLAIN (COSTS OFF, VERBOSE) ${Q[$f]}" |
			grep -oE 'Hash Join|Nested Loop|Merge Join|= ANY|@>' | sort -u | tr '\n' ' ')
		printf '%-7s %-7s %10s %26s %9s %s\n' "$n" "$f" "$rows" \
			"$(printf '%.1f (%.1f-%.1f)' "$med" "$mn" "$mx")" "$(awk -v a="$med" -v b="$plain_ms" 'BEGIN { printf "%.3fx", a / b }')" "$plan"
	done
done
