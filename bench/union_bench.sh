#!/usr/bin/env bash
# union_bench.sh - cf_union_agg over per-user filters against cf_agg over the
# same items, in one run on one throw-away cluster (issue 34, goal 4).
#
# Per-user filters are the default ones a feed builds (cf_add_all(NULL, items):
# capacity 1000, a list while it holds up to its bound, then a table).  For
# each population it prints the time of
#   SELECT cf_union_agg(f) FROM users          (the parts)
#   SELECT cf_agg(item) FROM items             (the same items, a table of rows)
# best of REPS, serial (max_parallel_workers_per_gather = 0) and with 2
# workers, and checks the union: false negatives (must be 0), the false-
# positive rate measured on 1M absent values, and deletes (a delete of each
# of 1,000 held values takes one item out, none is retained).  OLD=1 also times 1.2's aggregate (the
# state a cuckoofilter, one union per row) on the first population.
#
# Usage: bash bench/union_bench.sh        (after test/pg/build.sh ... install)
# Environment: PG_CONFIG, REPS (3), POPS ("5000:40:160 20000:50:50 100000:50:50",
# users:min items:max items each), OLD (0).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
export PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
REPS=${REPS:-3}
POPS=${POPS:-"5000:40:160 20000:50:50 100000:50:50"}
OLD=${OLD:-0}
export REPS POPS OLD

TMPCLUSTER_OPTS="-c shared_buffers=512MB -c work_mem=256MB -c jit=off -c max_parallel_workers_per_gather=2" \
exec bash "$top/test/pg/tmpcluster.sh" bash -c '
set -euo pipefail
export PGOPTIONS="-c client_min_messages=warning"
PSQL=(psql -X -q -At -v ON_ERROR_STOP=1)
sql() { "${PSQL[@]}" -c "$1"; }
# best of REPS wall-clock milliseconds of one statement (psql \timing)
best() {
	local q=$1 setup=$2 b="" t
	for ((r = 0; r < REPS; r++)); do
		t=$("${PSQL[@]}" -c "$setup" -c "\timing on" -c "$q" | sed -n "s/^Time: \([0-9.]*\) ms.*/\1/p" | tail -1)
		b=$(awk -v a="${b:-$t}" -v c="$t" "BEGIN { print (c < a ? c : a) }")
	done
	echo "$b"
}
sql "CREATE EXTENSION cuckoo"
echo "cuckoo $(sql "SELECT extversion FROM pg_extension WHERE extname = '\''cuckoo'\''"), $(sql "SHOW server_version"), REPS=$REPS"
echo
echo "| users | items/user | items | lists | cf_union_agg serial ms | cf_agg serial ms | ratio | cf_union_agg 2 workers ms | cf_agg 2 workers ms | ratio | union fpr | false negatives | deletes exact |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
first=1
for pop in $POPS; do
	IFS=: read -r U LO HI <<< "$pop"
	sql "DROP TABLE IF EXISTS items, users;
	     CREATE TABLE items AS
	     SELECT u, (hashint8(u::int8 * 1000003 + g) & 2147483647)::int8 * 4 AS item
	       FROM generate_series(1, $U) u,
	            LATERAL generate_series(1, $LO + (u * 7919) % ($HI - $LO + 1)) g;
	     CREATE TABLE users AS
	     SELECT u, cf_add_all(NULL::cuckoofilter, array_agg(item ORDER BY item)) AS f
	       FROM items GROUP BY u"
	sql "VACUUM ANALYZE items"
	sql "VACUUM ANALYZE users"
	n=$(sql "SELECT count(*) FROM items")
	lists=$(sql "SELECT count(*) FILTER (WHERE (cf_info(f)).buckets <= 256 AND (cf_info(f)).subfilters = 1) FROM users")
	us=$(best "SELECT cf_union_agg(f) IS NULL FROM users" "SET max_parallel_workers_per_gather = 0")
	as=$(best "SELECT cf_agg(item) IS NULL FROM items" "SET max_parallel_workers_per_gather = 0")
	up=$(best "SELECT cf_union_agg(f) IS NULL FROM users" "SET parallel_setup_cost = 0")
	ap=$(best "SELECT cf_agg(item) IS NULL FROM items" "SET parallel_setup_cost = 0")
	sql "DROP TABLE IF EXISTS un; SET max_parallel_workers_per_gather = 0; CREATE TABLE un AS SELECT cf_union_agg(f) AS f FROM users"
	fn=$(sql "SELECT count(*) FROM items, un WHERE NOT cf_contains(un.f, item)")
	# absent values: items are multiples of 4, these are not
	fpr=$(sql "SELECT round(100.0 * count(*) FILTER (WHERE cf_contains(un.f, g * 4 + 1)) / 1000000, 3) FROM un, generate_series(1, 1000000) g")
	# deletes: each of 1,000 held values removed from the union, none retained
	dels=$(sql "WITH d AS (SELECT item FROM items ORDER BY u, item LIMIT 1000),
	                 x AS (SELECT (SELECT f FROM un) AS f0,
	                              cf_delete_all((SELECT f FROM un), (SELECT array_agg(item) FROM d)) AS g)
	            SELECT (cf_info(f0)).items - (cf_info(g)).items || '\'' removed, '\'' || (cf_info(g)).retained || '\'' retained'\'' FROM x")
	echo "| $U | $LO-$HI | $n | $lists | $us | $as | $(awk -v a="$us" -v b="$as" "BEGIN { printf \"%.2f\", a / b }") | $up | $ap | $(awk -v a="$up" -v b="$ap" "BEGIN { printf \"%.2f\", a / b }") | $fpr% | $fn | $dels |"
	if [ "$OLD" = 1 ] && [ $first = 1 ]; then
		sql "CREATE AGGREGATE old_union_agg(cuckoofilter) (SFUNC = cuckoo_union_agg_trans, STYPE = cuckoofilter,
		     COMBINEFUNC = cuckoo_union_agg_trans, FINALFUNC = cuckoo_union_agg_final)"
		old=$(best "SELECT old_union_agg(f) IS NULL FROM users" "SET max_parallel_workers_per_gather = 0")
		echo
		echo "1.2 aggregate (a cuckoofilter state, one union per row), same $U users, serial: $old ms"
		echo
	fi
	first=0
done
'
