#!/usr/bin/env bash
# run.sh - the news-feed "seen" workload (issue 34), five sides on the same
# data in one throw-away cluster:
#   exact  a table (user_id, item_id) with a primary key
#   new    the two-column recipe of docs/seen.md: base cuckoofilter, delta
#          bigint[] (cf_mark_base / cf_mark_delta, cf_unseen, cf_unsee_*)
#   old    the one-column recipe of 1.2's README: items cuckoofilter and
#          unstored bigint[] (cf_add_unique_status upsert, @> check, unsee)
#   three  the three-column recipe of docs/seen.md (1.4): base cuckoofilter,
#          mid and delta bigint[] (the four-argument cf_mark_*, cf_unseen,
#          cf_unsee_*), in a table WITH (fillfactor = 70) as the recipe says
#   new70  the two-column recipe in a table WITH (fillfactor = 70): what the
#          fill factor alone gives
# U users, user u holding floor(MAXN / u^0.5) items (Zipf, 9.9M pairs at
# 10,000 users and MAXN 50,000), plus one user of exactly 20,000 items for
# the single-item mark figure.  Item k of user u is u * 10^9 + k: the loaded
# items are k = 1 .. n, a mark or a page marks new items (k drawn from
# 10^6 .. 10^9, as a feed marks the items it just showed), a check asks
# for 100 candidates among k = 1 .. 100,000 (seen and unseen ones).  Operations (users drawn random_zipfian 1.1):
#   check  of 100 candidates of one user, return those not seen
#   mark   one new item;  page  20 new items;  unsee  one loaded item
#   mix    70% check, 29% mark, 1% unsee
# each alone and in the mix, at each client count, each side in turn with
# the same pgbench --random-seed and the same number of transactions (-t),
# so that every side receives the same marks and unsees and the filter sides
# are checked against the exact table at the end: false negatives (must be
# 0) and the false-positive rate (absent items probed per user).
#
# Usage: bash bench/seen/run.sh [--scale small|medium|full] [--clients 1,4]
#            [--txns N] [--reps N] [--check] [--out FILE]
#   --scale   small: 100 users, MAXN 5,000 (90k pairs; the correctness run)
#             medium: 2,000 users, MAXN 50,000 (4.4M pairs)
#             full: 10,000 users, MAXN 50,000 (9.9M pairs)
#   --txns    transactions per run (all clients together; default by scale)
#   --reps    repetitions of every run (default 1), the sides' order rotating;
#             the report gives the median throughput, WAL and growth summed
#   --check   only the correctness run: page, unsee and the mix at the given
#             clients, then the false-negative check; exits 1 if the new
#             recipe or the three-column one has any (1.2's recipe is reported, not judged: its page
#             mark, cf_add_all_unique, stores nothing for a false positive,
#             and an unsee of the item that caused it then loses the page's)
#   --out     also write the markdown report to FILE
# pgbench runs with -M prepared (as an application would).
# Server settings (all sides): fsync=off, synchronous_commit=off,
# full_page_writes=off (WAL per operation without full-page images: with
# them every side adds up to 8 kB per page first touched after a
# checkpoint), autovacuum=off (growth is measured before any vacuum),
# shared_buffers=1GB; every relation is read into the caches (pg_prewarm)
# before the first run.  Run it niced on a shared machine.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
export PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}

if [ "${1:-}" != inner ]; then
	export TMPCLUSTER_OPTS="${TMPCLUSTER_OPTS:-} -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c autovacuum=off -c shared_buffers=1GB -c max_wal_size=20GB -c checkpoint_timeout=1h -c max_connections=50"
	exec bash "$top/test/pg/tmpcluster.sh" bash "$0" inner "$@"
fi
shift
scale=small clients=1,4 txns="" check=0 out="" reps=1
while [ $# -gt 0 ]; do
	case "$1" in
		--scale) scale=$2; shift 2 ;;
		--clients) clients=$2; shift 2 ;;
		--txns) txns=$2; shift 2 ;;
		--check) check=1; shift ;;
		--reps) reps=$2; shift 2 ;;
		--out) out=$2; shift 2 ;;
		*) echo "run.sh: unknown argument $1" >&2; exit 2 ;;
	esac
done
case "$scale" in
	small) users=100 maxn=5000 deftx=400 wal20k=600 ;;
	medium) users=2000 maxn=50000 deftx=4000 wal20k=3000 ;;
	full) users=10000 maxn=50000 deftx=8000 wal20k=4000 ;;
	*) echo "run.sh: unknown scale $scale" >&2; exit 2 ;;
esac
txns=${txns:-$deftx}
seed=20261127
work=$(mktemp -d -t cuckoo-seenbench.XXXXXX)
chmod 777 "$work"
trap 'rm -rf "$work"' EXIT
P() { psql -X -q -v ON_ERROR_STOP=1 "$@"; }
Q() { psql -X -q -At -v ON_ERROR_STOP=1 -c "$1"; }
say() { echo "seen bench: $*" >&2; }

say "scale $scale: $users users, MAXN $maxn, $txns transactions per run, clients $clients"
t0=$(date +%s)
P -v users="$users" -v maxn="$maxn" <<'SQL'
CREATE EXTENSION cuckoo;
SELECT setseed(0.34) AS seeded \gset
CREATE TABLE users AS
	SELECT u::bigint AS user_id, greatest(1, floor(:maxn / sqrt(u)))::int AS n FROM generate_series(1, :users) u;
-- the user of 20,000 items, outside the Zipf draw
INSERT INTO users VALUES (:users + 1, 20000);
CREATE TABLE seen_exact (user_id bigint, item_id bigint, PRIMARY KEY (user_id, item_id));
-- items arrive interleaved over time (k-th item of every user, then the next)
INSERT INTO seen_exact
	SELECT u.user_id, u.user_id * 1000000000 + k
	  FROM generate_series(1, greatest(:maxn, 20000)) k JOIN users u ON k <= u.n ORDER BY k, u.user_id;
CREATE TABLE seen_new (user_id bigint PRIMARY KEY, base cuckoofilter, delta bigint[]);
INSERT INTO seen_new
	SELECT user_id, cf_add_all(NULL, array_agg(item_id ORDER BY item_id)), NULL FROM seen_exact GROUP BY user_id;
CREATE TABLE seen_old (user_id bigint PRIMARY KEY, items cuckoofilter, unstored bigint[] NOT NULL DEFAULT '{}');
INSERT INTO seen_old SELECT user_id, base FROM seen_new;
CREATE TABLE seen_three (user_id bigint PRIMARY KEY, base cuckoofilter, mid bigint[], delta bigint[])
	WITH (fillfactor = 70);
INSERT INTO seen_three SELECT user_id, base, NULL, NULL FROM seen_new;
CREATE TABLE seen_new70 (user_id bigint PRIMARY KEY, base cuckoofilter, delta bigint[]) WITH (fillfactor = 70);
INSERT INTO seen_new70 SELECT * FROM seen_new;
-- unsee takes the j-th item of this pool (loaded, distinct): each side
-- unsees the same items, each at most once, every one of them marked
CREATE TABLE unsee_pool AS
	SELECT row_number() OVER (ORDER BY random()) AS j, user_id, item_id
	  FROM (SELECT * FROM seen_exact TABLESAMPLE BERNOULLI (5) REPEATABLE (7) WHERE user_id <= :users) t;
ALTER TABLE unsee_pool ADD PRIMARY KEY (j);
CREATE SEQUENCE unsee_exact; CREATE SEQUENCE unsee_new; CREATE SEQUENCE unsee_old; CREATE SEQUENCE unsee_three; CREATE SEQUENCE unsee_new70;
CREATE TABLE runs (side text, workload text, clients int, rep int, txns bigint, seconds float8, tps float8,
	wal bigint, growth bigint, writes bigint);
CREATE TABLE storage (stage text, side text, users bigint, heap bigint, toast bigint, indexes bigint, total bigint);
CREATE TABLE lat (side text, workload text, clients int, op text, n bigint, p50_ms float8, p99_ms float8);
VACUUM ANALYZE;
CHECKPOINT;
SQL
say "loaded in $(( $(date +%s) - t0 )) s: $(Q "SELECT count(*) FROM seen_exact") pairs"
Q "SELECT count(*) FROM unsee_pool" > "$work/poolsize"

# the scripts: identical \set lines on every side, so the same draws
sets_check='\set u random_zipfian(1, '$users', 1.1)
\set k0 random(0, 99999)'
cand='ARRAY(SELECT :u::bigint * 1000000000 + 1 + (:k0 + g * 7919) % 100000 FROM generate_series(0, 99) g)'
sets_mark='\set u random_zipfian(1, '$users', 1.1)
\set k random(1000001, 999999999)'
sets_page='\set u random_zipfian(1, '$users', 1.1)
\set k1 random(1000001, 999999000)'
page='ARRAY(SELECT :u::bigint * 1000000000 + :k1 + g * 37 FROM generate_series(0, 19) g)'
sets_unsee='\set u random_zipfian(1, '$users', 1.1)'
pool() { echo "(SELECT user_id, item_id FROM unsee_pool WHERE j = (SELECT nextval('unsee_$1')))"; }

for side in exact new old three new70; do
	mkdir -p "$work/$side"
done
# exact
cat > "$work/exact/check.sql" <<EOF
$sets_check
SELECT c FROM unnest($cand) c
 WHERE NOT EXISTS (SELECT 1 FROM seen_exact e WHERE e.user_id = :u AND e.item_id = c);
EOF
cat > "$work/exact/mark.sql" <<EOF
$sets_mark
INSERT INTO seen_exact VALUES (:u, :u::bigint * 1000000000 + :k) ON CONFLICT DO NOTHING;
EOF
cat > "$work/exact/page.sql" <<EOF
$sets_page
INSERT INTO seen_exact SELECT :u, i FROM unnest($page) i ON CONFLICT DO NOTHING;
EOF
cat > "$work/exact/unsee.sql" <<EOF
$sets_unsee
DELETE FROM seen_exact e USING $(pool exact) p WHERE e.user_id = p.user_id AND e.item_id = p.item_id;
EOF
# new: docs/seen.md
cat > "$work/new/check.sql" <<EOF
$sets_check
SELECT cf_unseen(s.base, s.delta, c.a) FROM (SELECT $cand AS a) c LEFT JOIN seen_new s ON s.user_id = :u;
EOF
cat > "$work/new/mark.sql" <<EOF
$sets_mark
INSERT INTO seen_new AS s VALUES (:u, NULL, ARRAY[:u::bigint * 1000000000 + :k])
ON CONFLICT (user_id) DO UPDATE
SET base = cf_mark_base(s.base, s.delta, :u::bigint * 1000000000 + :k),
    delta = cf_mark_delta(s.base, s.delta, :u::bigint * 1000000000 + :k);
EOF
cat > "$work/new/page.sql" <<EOF
$sets_page
INSERT INTO seen_new AS s VALUES (:u, NULL, $page)
ON CONFLICT (user_id) DO UPDATE
SET base = cf_mark_all_base(s.base, s.delta, $page),
    delta = cf_mark_all_delta(s.base, s.delta, $page);
EOF
cat > "$work/new/unsee.sql" <<EOF
$sets_unsee
UPDATE seen_new s SET base = cf_unsee_base(s.base, s.delta, p.item_id),
                      delta = cf_unsee_delta(s.base, s.delta, p.item_id)
  FROM $(pool new) p WHERE s.user_id = p.user_id;
EOF
# old: 1.2's README
cat > "$work/old/check.sql" <<EOF
$sets_check
SELECT c FROM unnest($cand) c LEFT JOIN seen_old s ON s.user_id = :u
 WHERE NOT coalesce(s.items @> c, false);
EOF
cat > "$work/old/mark.sql" <<EOF
$sets_mark
INSERT INTO seen_old AS s (user_id, items) VALUES (:u, cf_add(NULL, :u::bigint * 1000000000 + :k))
ON CONFLICT (user_id) DO UPDATE
SET (items, unstored) = (
  SELECT a.result,
         CASE WHEN a.stored OR :u::bigint * 1000000000 + :k = ANY (s.unstored) THEN s.unstored
              ELSE s.unstored || (:u::bigint * 1000000000 + :k) END
    FROM cf_add_unique_status(s.items, :u::bigint * 1000000000 + :k) a);
EOF
cat > "$work/old/page.sql" <<EOF
$sets_page
INSERT INTO seen_old AS s (user_id, items) VALUES (:u, cf_add_all_unique(NULL, $page))
ON CONFLICT (user_id) DO UPDATE SET items = cf_add_all_unique(s.items, $page);
EOF
cat > "$work/old/unsee.sql" <<EOF
$sets_unsee
UPDATE seen_old s
   SET items = CASE WHEN p.item_id = ANY (s.unstored) THEN s.items
                    ELSE cf_add_all_unique(cf_delete(s.items, p.item_id), s.unstored) END,
       unstored = array_remove(s.unstored, p.item_id)
  FROM $(pool old) p WHERE s.user_id = p.user_id;
EOF
# three: docs/seen.md, "Three columns"
cat > "$work/three/check.sql" <<EOF
$sets_check
SELECT cf_unseen(s.base, s.mid, s.delta, c.a) FROM (SELECT $cand AS a) c LEFT JOIN seen_three s ON s.user_id = :u;
EOF
cat > "$work/three/mark.sql" <<EOF
$sets_mark
INSERT INTO seen_three AS s VALUES (:u, NULL, NULL, ARRAY[:u::bigint * 1000000000 + :k])
ON CONFLICT (user_id) DO UPDATE
SET base = cf_mark_base(s.base, s.mid, s.delta, :u::bigint * 1000000000 + :k),
    mid = cf_mark_mid(s.base, s.mid, s.delta, :u::bigint * 1000000000 + :k),
    delta = cf_mark_delta(s.base, s.mid, s.delta, :u::bigint * 1000000000 + :k);
EOF
cat > "$work/three/page.sql" <<EOF
$sets_page
INSERT INTO seen_three AS s VALUES (:u, NULL, NULL, $page)
ON CONFLICT (user_id) DO UPDATE
SET base = cf_mark_all_base(s.base, s.mid, s.delta, $page),
    mid = cf_mark_all_mid(s.base, s.mid, s.delta, $page),
    delta = cf_mark_all_delta(s.base, s.mid, s.delta, $page);
EOF
cat > "$work/three/unsee.sql" <<EOF
$sets_unsee
UPDATE seen_three s SET base = cf_unsee_base(s.base, s.mid, s.delta, p.item_id),
                        mid = cf_unsee_mid(s.base, s.mid, s.delta, p.item_id),
                        delta = cf_unsee_delta(s.base, s.mid, s.delta, p.item_id)
  FROM $(pool three) p WHERE s.user_id = p.user_id;
EOF
# new70: the new side's scripts on its own table
for f in check mark page unsee; do
	sed -e 's/seen_new\b/seen_new70/g; s/unsee_new\b/unsee_new70/g' "$work/new/$f.sql" > "$work/new70/$f.sql"
done
# the 20,000-item user's single marks
for side in exact new old three new70; do
	sed -e "s/^\\\\set u .*/\\\\set u $((users + 1))/" "$work/$side/mark.sql" > "$work/$side/mark20k.sql"
done

relsize() { Q "SELECT pg_total_relation_size('seen_$1')"; }
lsn() { Q "SELECT pg_current_wal_lsn()"; }

# run SIDE WORKLOAD CLIENTS TXNS
run() {
	local side=$1 wl=$2 c=$3 tx=$4 per files s0 s1 l0 l1 dir log tps secs writes
	per=$(( (tx + c - 1) / c ))
	# one seed per workload and client count, the same on every side
	rseed=$(( seed + rep * 100000 + c * 1000 + $(printf '%s' "$wl" | cksum | cut -d' ' -f1) % 1000 ))
	case "$wl" in
		mix) files="-f $work/$side/check.sql@70 -f $work/$side/mark.sql@29 -f $work/$side/unsee.sql@1" ;;
		*) files="-f $work/$side/$wl.sql" ;;
	esac
	dir="$work/log-$side-$wl-$c-$rep"
	mkdir -p "$dir"
	chmod 777 "$dir"
	Q "CHECKPOINT" > /dev/null
	s0=$(relsize "$side")
	l0=$(lsn)
	# shellcheck disable=SC2086
	(cd "$dir" && pgbench -n -M prepared -c "$c" -j "$c" -t "$per" --random-seed=$rseed -l $files > "$dir/out" 2>&1) || {
		cat "$dir/out" >&2; exit 1; }
	l1=$(lsn)
	s1=$(relsize "$side")
	tps=$(sed -n 's/^tps = \([0-9.]*\).*/\1/p' "$dir/out" | head -1)
	secs=$(awk -v t="$tps" -v n="$(( per * c ))" 'BEGIN { printf "%.3f", (t > 0 ? n / t : 0) }')
	# rows written: marks (items), page items, unsees
	case "$wl" in
		mark|mark20k) writes=$(( per * c )) ;;
		page) writes=$(( per * c * 20 )) ;;
		unsee) writes=$(( per * c )) ;;
		*) writes=0 ;;
	esac
	cat "$dir"/pgbench_log.* | awk -v side="$side" -v wl="$wl" -v c="$c" '
		BEGIN { split("check mark unsee", mixname, " ") }
		{ op = (wl == "mix") ? mixname[$4 + 1] : wl; printf "%s\t%s\t%d\t%s\t%.3f\n", side, wl, c, op, $3 / 1000.0 }' \
		>> "$work/lat.tsv"
	P -c "INSERT INTO runs VALUES ('$side', '$wl', $c, $rep, $(( per * c )), $secs, $tps,
		pg_wal_lsn_diff('$l1', '$l0'), $s1 - $s0, $writes)"
	say "$wl c=$c rep $rep $side: $tps tps"
}

IFS=, read -r -a clist <<< "$clients"
if [ "$check" = 1 ]; then
	workloads="page unsee mix"
else
	workloads="check mark page unsee mix"
fi
storage() {
	P -c "INSERT INTO storage SELECT '$1', s.side, (SELECT count(*) FROM users),
		pg_relation_size(s.rel), coalesce(pg_total_relation_size(nullif(c.reltoastrelid, 0)), 0),
		pg_indexes_size(s.rel), pg_total_relation_size(s.rel)
	  FROM (VALUES ('exact', 'seen_exact'::regclass), ('new', 'seen_new'::regclass), ('old', 'seen_old'::regclass),
	               ('three', 'seen_three'::regclass), ('new70', 'seen_new70'::regclass)) s(side, rel)
	  JOIN pg_class c ON c.oid = s.rel"
}
storage loaded
# warm: every relation of the five sides (heaps, TOAST, indexes) read once
Q "CREATE EXTENSION pg_prewarm;
   SELECT sum(pg_prewarm(r)) FROM (
     SELECT c.oid AS r FROM pg_class c WHERE c.relname IN ('seen_exact', 'seen_new', 'seen_old', 'seen_three', 'seen_new70', 'unsee_pool')
     UNION ALL SELECT c.reltoastrelid FROM pg_class c WHERE c.relname IN ('seen_new', 'seen_old', 'seen_three', 'seen_new70')
     UNION ALL SELECT i.indexrelid FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid
       WHERE c.relname IN ('seen_exact', 'seen_new', 'seen_old', 'seen_three', 'seen_new70', 'unsee_pool') OR c.oid IN
         (SELECT reltoastrelid FROM pg_class WHERE relname IN ('seen_new', 'seen_old', 'seen_three', 'seen_new70'))) x" > /dev/null
sides=(exact new old three new70)
for wl in $workloads; do
	for c in "${clist[@]}"; do
		tx=$txns
		[ "$wl" = unsee ] && tx=$(( txns / 4 ))
		for ((rep = 1; rep <= reps; rep++)); do
			# the sides in turn, the first one rotating from repetition to repetition
			for i in 0 1 2 3 4; do
				run "${sides[$(( (i + rep - 1) % 5 ))]}" "$wl" "$c" "$tx"
			done
		done
	done
done
if [ "$check" = 0 ]; then
	for ((rep = 1; rep <= reps; rep++)); do
		for i in 0 1 2 3 4; do
			run "${sides[$(( (i + rep - 1) % 5 ))]}" mark20k 1 "$wal20k"
		done
	done
fi
storage "after the runs"
P -c "VACUUM FULL seen_exact" -c "VACUUM FULL seen_new" -c "VACUUM FULL seen_old" -c "VACUUM FULL seen_three" -c "VACUUM FULL seen_new70"
storage "after VACUUM FULL"

# false negatives against the exact table, and the false-positive rate
P -c "CREATE TABLE quality AS
WITH e AS (SELECT user_id, array_agg(item_id) AS items, count(*) AS n FROM seen_exact GROUP BY user_id),
     a AS (SELECT user_id, ARRAY(SELECT -(user_id * 1000000000 + g) FROM generate_series(1, 1000) g) AS items FROM users)
SELECT 'new' AS side,
       (SELECT sum(e.n) FROM e) AS pairs,
       (SELECT sum(cardinality(cf_unseen(s.base, s.delta, e.items))) FROM e LEFT JOIN seen_new s USING (user_id)) AS false_negatives,
       (SELECT count(*) * 1000 FROM users) AS absent_probed,
       (SELECT sum(1000 - cardinality(cf_unseen(s.base, s.delta, a.items))) FROM a LEFT JOIN seen_new s USING (user_id)) AS false_positives
UNION ALL
SELECT 'three', (SELECT sum(e.n) FROM e),
       (SELECT sum(cardinality(cf_unseen(s.base, s.mid, s.delta, e.items))) FROM e LEFT JOIN seen_three s USING (user_id)),
       (SELECT count(*) * 1000 FROM users),
       (SELECT sum(1000 - cardinality(cf_unseen(s.base, s.mid, s.delta, a.items))) FROM a LEFT JOIN seen_three s USING (user_id))
UNION ALL
SELECT 'new70', (SELECT sum(e.n) FROM e),
       (SELECT sum(cardinality(cf_unseen(s.base, s.delta, e.items))) FROM e LEFT JOIN seen_new70 s USING (user_id)),
       (SELECT count(*) * 1000 FROM users),
       (SELECT sum(1000 - cardinality(cf_unseen(s.base, s.delta, a.items))) FROM a LEFT JOIN seen_new70 s USING (user_id))
UNION ALL
SELECT 'old', (SELECT sum(e.n) FROM e),
       (SELECT count(*) FROM seen_exact x LEFT JOIN seen_old s USING (user_id) WHERE NOT coalesce(s.items @> x.item_id, false)),
       (SELECT count(*) * 1000 FROM users),
       (SELECT count(*) FROM users u JOIN seen_old s USING (user_id), generate_series(1, 1000) g
         WHERE s.items @> -(u.user_id * 1000000000 + g))"
fn=$(Q "SELECT false_negatives FROM quality WHERE side = 'new'")
fn3=$(Q "SELECT false_negatives FROM quality WHERE side = 'three'")

P -c "CREATE TABLE lat_raw (side text, workload text, clients int, op text, ms float8)" \
	-c "\\copy lat_raw FROM '$work/lat.tsv'" \
	-c "INSERT INTO lat SELECT side, workload, clients, op, count(*),
		round(percentile_cont(0.5) WITHIN GROUP (ORDER BY ms)::numeric, 3),
		round(percentile_cont(0.99) WITHIN GROUP (ORDER BY ms)::numeric, 3) FROM lat_raw GROUP BY 1, 2, 3, 4"

# the report
{
	md() {
		[ -z "$1" ] || printf '\n%s\n' "$1"
		echo
		P -A -F '|' -P footer=off -c "$2" | awk '
			{ l = $0; gsub(/\|/, " | ", l); print "| " l " |" }
			NR == 1 { s = "|"; for (i = 0; i <= gsub(/\|/, "|"); i++) s = s "---|"; print s }'
	}
	echo "## bench/seen/run.sh --scale $scale --clients $clients --txns $txns --reps $reps"
	echo
	echo "$(date -u +%Y-%m-%d), $(Q "SELECT version()" | cut -d' ' -f1-2), cuckoo $(Q "SELECT extversion FROM pg_extension WHERE extname = 'cuckoo'")," \
		"$(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo '?'); load average $(cut -d' ' -f1-3 /proc/loadavg) at the end," \
		"$(nproc) cores; $users users (+1 of 20,000 items), $(Q "SELECT sum(n) FROM users") pairs loaded."
	echo "Server: fsync=off, synchronous_commit=off, full_page_writes=off, autovacuum=off, shared_buffers=1GB, relations prewarmed; pgbench -M prepared."
	md "### Storage (bytes; heap + TOAST + indexes)" "SELECT stage, side, heap, toast, indexes, total,
		round(total::numeric / users) AS per_user,
		round(total::numeric / first_value(total) OVER (PARTITION BY stage ORDER BY side), 4) AS vs_exact
		FROM storage ORDER BY array_position(ARRAY['loaded', 'after the runs', 'after VACUUM FULL'], stage), CASE side WHEN 'exact' THEN 0 WHEN 'new' THEN 1 WHEN 'new70' THEN 2 WHEN 'three' THEN 3 ELSE 4 END"
	md "### Throughput, WAL and growth (pgbench -t, the same seeds on every side; $reps repetition(s): median tps, sums)" "WITH r AS (
		SELECT workload, clients, side, sum(txns) AS txns, percentile_cont(0.5) WITHIN GROUP (ORDER BY tps) AS tps,
		       min(tps) AS tps_min, max(tps) AS tps_max, sum(wal) AS wal, sum(growth) AS growth, sum(writes) AS writes
		  FROM runs GROUP BY 1, 2, 3)
		SELECT workload, clients, side, txns, round(tps::numeric, 1) AS tps_median,
		round(tps_min::numeric) || '-' || round(tps_max::numeric) AS tps_range,
		round((tps / first_value(tps) OVER w)::numeric, 2) AS tps_vs_exact,
		round(wal::numeric / txns) AS wal_per_txn, CASE WHEN writes > 0 THEN round(wal::numeric / writes) END AS wal_per_item,
		growth, CASE WHEN writes > 0 THEN round(growth::numeric / writes) END AS growth_per_item,
		CASE WHEN writes > 0 THEN round(growth::numeric / nullif(first_value(growth) OVER w, 0), 2) END AS growth_vs_exact
		FROM r WINDOW w AS (PARTITION BY workload, clients ORDER BY CASE side WHEN 'exact' THEN 0 WHEN 'new' THEN 1 WHEN 'new70' THEN 2 WHEN 'three' THEN 3 ELSE 4 END)
		ORDER BY array_position(ARRAY['check','mark','page','unsee','mix','mark20k'], workload), clients,
			CASE side WHEN 'exact' THEN 0 WHEN 'new' THEN 1 WHEN 'new70' THEN 2 WHEN 'three' THEN 3 ELSE 4 END"
	md "### Latency per operation (ms, every transaction of every repetition, from pgbench --log)" "SELECT workload, clients, op, side, n, p50_ms, p99_ms,
		round((p50_ms / first_value(p50_ms) OVER w)::numeric, 2) AS p50_vs_exact
		FROM lat WINDOW w AS (PARTITION BY workload, clients, op ORDER BY CASE side WHEN 'exact' THEN 0 WHEN 'new' THEN 1 WHEN 'new70' THEN 2 WHEN 'three' THEN 3 ELSE 4 END)
		ORDER BY array_position(ARRAY['check','mark','page','unsee','mix','mark20k'], workload), clients, op,
			CASE side WHEN 'exact' THEN 0 WHEN 'new' THEN 1 WHEN 'new70' THEN 2 WHEN 'three' THEN 3 ELSE 4 END"
	md "### Answers against the exact table (after every run)" "SELECT side, pairs, false_negatives, absent_probed, false_positives,
		round(100.0 * false_positives / absent_probed, 3) AS fpr_percent FROM quality"
} > "$work/report.md"
cat "$work/report.md"
[ -z "$out" ] || cp "$work/report.md" "$out"
say "done in $(( $(date +%s) - t0 )) s; false negatives of the new recipe: $fn, of the three-column one: $fn3 (1.2's recipe: $(Q "SELECT false_negatives FROM quality WHERE side = 'old'"))"
[ "$fn" = 0 ] && [ "$fn3" = 0 ] || { say "FAILED: false negatives"; exit 1; }
