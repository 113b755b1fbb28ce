#!/usr/bin/env bash
# seen_concurrency.sh - the README's mark / unsee recipe under concurrency
# (issue 24 item 2): pgbench clients mark and unsee random items of 3 users
# at once (each mark and unsee one transaction, with an exact record of what
# is marked), then every item whose last operation was a mark must still be
# reported seen.  Prints the counts; fails if one is lost.  Then the same
# for the two-column recipe of docs/seen.md (issue 34: cf_mark_base /
# cf_mark_delta upserts, single items and pages of 5, and cf_unsee_base /
# cf_unsee_delta), whose folds of delta into base run all the time with
# users of 3,000 items; then the three-column recipe (1.4: cf_mark_mid,
# cf_unsee_mid and the four-argument forms), whose folds of delta into mid
# and of mid into base run all the time.
#
# Usage: PG_CONFIG=... bash test/pg/seen_concurrency.sh   (after make install)
#   SECONDS_RUN (default 10, per recipe), CLIENTS (default 4).
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
if [ "${1:-}" != inner ]; then
	exec bash "$top/test/pg/tmpcluster.sh" bash "$0" inner
fi
work=$(mktemp -d -t cuckoo-seen.XXXXXX)
chmod 755 "$work"
trap 'rm -rf "$work"' EXIT
cat > "$work/mark.sql" <<'EOF'
\set item random(1, 3000)
\set user random(1, 3)
BEGIN;
INSERT INTO seen AS s (user_id, items) VALUES (:user, cf_add(NULL, :item::bigint))
ON CONFLICT (user_id) DO UPDATE
SET (items, unstored) = (
  SELECT a.result,
         CASE WHEN a.stored OR :item::bigint = ANY (s.unstored) THEN s.unstored
              ELSE s.unstored || :item::bigint END
    FROM cf_add_unique_status(s.items, :item::bigint) a);
INSERT INTO state VALUES (:user, :item, true) ON CONFLICT (user_id, item) DO UPDATE SET seen = true;
COMMIT;
EOF
cat > "$work/unsee.sql" <<'EOF'
\set item random(1, 3000)
\set user random(1, 3)
BEGIN;
SELECT 1 FROM seen WHERE user_id = :user FOR UPDATE;
WITH st AS (UPDATE state SET seen = false WHERE user_id = :user AND item = :item AND seen RETURNING 1)
UPDATE seen
   SET items = CASE WHEN :item::bigint = ANY (unstored) THEN items
                    ELSE cf_add_all_unique(cf_delete(items, :item::bigint), unstored) END,
       unstored = array_remove(unstored, :item::bigint)
 WHERE user_id = :user AND EXISTS (SELECT 1 FROM st);
COMMIT;
EOF
psql -X -q -v ON_ERROR_STOP=1 <<'EOF' || exit 1
CREATE EXTENSION cuckoo;
CREATE TABLE seen (user_id bigint PRIMARY KEY, items cuckoofilter, unstored bigint[] NOT NULL DEFAULT '{}');
-- the exact record: whether each (user, item) was last marked or unseen
CREATE TABLE state (user_id bigint, item bigint, seen boolean, PRIMARY KEY (user_id, item));
EOF
pgbench -n -c "${CLIENTS:-4}" -j 2 -T "${SECONDS_RUN:-10}" -f "$work/mark.sql@3" -f "$work/unsee.sql@2" \
	> "$work/pgbench.log" 2>&1 || { cat "$work/pgbench.log"; exit 1; }
grep -E "processed|failed transactions" "$work/pgbench.log" | head -2
lost=$(psql -X -At -c "SELECT count(*) FILTER (WHERE st.seen) || ' seen, ' ||
	count(*) FILTER (WHERE NOT st.seen) || ' unseen (' ||
	count(*) FILTER (WHERE NOT st.seen AND s.items @> st.item) || ' of them still reported), lost: ' ||
	count(*) FILTER (WHERE st.seen AND NOT s.items @> st.item)
	FROM state st JOIN seen s USING (user_id)") || exit 1
echo "seen_concurrency (1.2's recipe): $lost"
case "$lost" in
	*"lost: 0") ;;
	*) echo "seen_concurrency: FAILED, marked items reported unseen"; exit 1 ;;
esac

# the two-column recipe (docs/seen.md)
cat > "$work/mark2.sql" <<'EOF2'
\set item random(1, 3000)
\set user random(1, 3)
BEGIN;
INSERT INTO seen2 AS s VALUES (:user, NULL, ARRAY[:item::bigint])
ON CONFLICT (user_id) DO UPDATE
SET base = cf_mark_base(s.base, s.delta, :item::bigint), delta = cf_mark_delta(s.base, s.delta, :item::bigint);
INSERT INTO state2 VALUES (:user, :item, true) ON CONFLICT (user_id, item) DO UPDATE SET seen = true;
COMMIT;
EOF2
cat > "$work/page2.sql" <<'EOF2'
\set item random(1, 2996)
\set user random(1, 3)
BEGIN;
INSERT INTO seen2 AS s VALUES (:user, NULL, ARRAY(SELECT :item::bigint + g FROM generate_series(4, 0, -1) g))
ON CONFLICT (user_id) DO UPDATE
SET base = cf_mark_all_base(s.base, s.delta, ARRAY(SELECT :item::bigint + g FROM generate_series(0, 4) g)),
    delta = cf_mark_all_delta(s.base, s.delta, ARRAY(SELECT :item::bigint + g FROM generate_series(0, 4) g));
INSERT INTO state2 SELECT :user, :item + g, true FROM generate_series(0, 4) g
ON CONFLICT (user_id, item) DO UPDATE SET seen = true;
COMMIT;
EOF2
cat > "$work/unsee2.sql" <<'EOF2'
\set item random(1, 3000)
\set user random(1, 3)
BEGIN;
SELECT 1 FROM seen2 WHERE user_id = :user FOR UPDATE;
WITH st AS (UPDATE state2 SET seen = false WHERE user_id = :user AND item = :item AND seen RETURNING 1)
UPDATE seen2 SET base = cf_unsee_base(base, delta, :item::bigint), delta = cf_unsee_delta(base, delta, :item::bigint)
 WHERE user_id = :user AND EXISTS (SELECT 1 FROM st);
COMMIT;
EOF2
psql -X -q -v ON_ERROR_STOP=1 <<'EOF2' || exit 1
CREATE TABLE seen2 (user_id bigint PRIMARY KEY, base cuckoofilter, delta bigint[]);
CREATE TABLE state2 (user_id bigint, item bigint, seen boolean, PRIMARY KEY (user_id, item));
EOF2
pgbench -n -c "${CLIENTS:-4}" -j 2 -T "${SECONDS_RUN:-10}" -f "$work/mark2.sql@2" -f "$work/page2.sql@1" -f "$work/unsee2.sql@2" \
	> "$work/pgbench2.log" 2>&1 || { cat "$work/pgbench2.log"; exit 1; }
grep -E "processed|failed transactions" "$work/pgbench2.log" | head -2
lost=$(psql -X -At -c "SELECT count(*) FILTER (WHERE st.seen) || ' seen, ' ||
	count(*) FILTER (WHERE NOT st.seen) || ' unseen (' ||
	count(*) FILTER (WHERE NOT st.seen AND cf_seen(s.base, s.delta, st.item)) || ' of them still reported), folded into base: ' ||
	(SELECT sum(cf_items(base)) FROM seen2) || ', in delta: ' || (SELECT sum(cardinality(delta)) FROM seen2) || ', lost: ' ||
	count(*) FILTER (WHERE st.seen AND NOT coalesce(cf_seen(s.base, s.delta, st.item), false))
	FROM state2 st LEFT JOIN seen2 s USING (user_id)") || exit 1
echo "seen_concurrency (two columns): $lost"
case "$lost" in
	*"lost: 0") ;;
	*) echo "seen_concurrency: FAILED, marked items reported unseen"; exit 1 ;;
esac

# the three-column recipe (docs/seen.md, "Three columns"): users start with a
# base of 3,000 other items (8 kB), so that delta folds into mid (limit 512
# bytes) and mid (limit 2 kB) into base all the time
cat > "$work/mark3.sql" <<'EOF3'
\set item random(1, 3000)
\set user random(1, 3)
BEGIN;
INSERT INTO seen3 AS s VALUES (:user, NULL, NULL, ARRAY[:item::bigint])
ON CONFLICT (user_id) DO UPDATE
SET base = cf_mark_base(s.base, s.mid, s.delta, :item::bigint), mid = cf_mark_mid(s.base, s.mid, s.delta, :item::bigint),
    delta = cf_mark_delta(s.base, s.mid, s.delta, :item::bigint);
INSERT INTO state3 VALUES (:user, :item, true) ON CONFLICT (user_id, item) DO UPDATE SET seen = true;
COMMIT;
EOF3
cat > "$work/page3.sql" <<'EOF3'
\set item random(1, 2996)
\set user random(1, 3)
BEGIN;
INSERT INTO seen3 AS s VALUES (:user, NULL, NULL, ARRAY(SELECT :item::bigint + g FROM generate_series(4, 0, -1) g))
ON CONFLICT (user_id) DO UPDATE
SET base = cf_mark_all_base(s.base, s.mid, s.delta, ARRAY(SELECT :item::bigint + g FROM generate_series(0, 4) g)),
    mid = cf_mark_all_mid(s.base, s.mid, s.delta, ARRAY(SELECT :item::bigint + g FROM generate_series(0, 4) g)),
    delta = cf_mark_all_delta(s.base, s.mid, s.delta, ARRAY(SELECT :item::bigint + g FROM generate_series(0, 4) g));
INSERT INTO state3 SELECT :user, :item + g, true FROM generate_series(0, 4) g
ON CONFLICT (user_id, item) DO UPDATE SET seen = true;
COMMIT;
EOF3
cat > "$work/unsee3.sql" <<'EOF3'
\set item random(1, 3000)
\set user random(1, 3)
BEGIN;
SELECT 1 FROM seen3 WHERE user_id = :user FOR UPDATE;
WITH st AS (UPDATE state3 SET seen = false WHERE user_id = :user AND item = :item AND seen RETURNING 1)
UPDATE seen3 SET base = cf_unsee_base(base, mid, delta, :item::bigint), mid = cf_unsee_mid(base, mid, delta, :item::bigint),
                 delta = cf_unsee_delta(base, mid, delta, :item::bigint)
 WHERE user_id = :user AND EXISTS (SELECT 1 FROM st);
COMMIT;
EOF3
psql -X -q -v ON_ERROR_STOP=1 <<'EOF3' || exit 1
CREATE TABLE seen3 (user_id bigint PRIMARY KEY, base cuckoofilter, mid bigint[], delta bigint[]) WITH (fillfactor = 70);
CREATE TABLE state3 (user_id bigint, item bigint, seen boolean, PRIMARY KEY (user_id, item));
INSERT INTO seen3 SELECT u, cf_add_all(NULL, ARRAY(SELECT 100000 + generate_series(1, 3000::bigint))), NULL, NULL
  FROM generate_series(1, 3) u;
EOF3
pgbench -n -c "${CLIENTS:-4}" -j 2 -T "${SECONDS_RUN:-10}" -f "$work/mark3.sql@2" -f "$work/page3.sql@1" -f "$work/unsee3.sql@2" \
	> "$work/pgbench3.log" 2>&1 || { cat "$work/pgbench3.log"; exit 1; }
grep -E "processed|failed transactions" "$work/pgbench3.log" | head -2
lost=$(psql -X -At -c "SELECT count(*) FILTER (WHERE st.seen) || ' seen, ' ||
	count(*) FILTER (WHERE NOT st.seen) || ' unseen (' ||
	count(*) FILTER (WHERE NOT st.seen AND cf_seen(s.base, s.mid, s.delta, st.item)) || ' of them still reported), in base: ' ||
	(SELECT sum(cf_items(base)) FROM seen3) || ', in mid: ' || (SELECT coalesce(sum(cardinality(mid)), 0) FROM seen3) ||
	', in delta: ' || (SELECT coalesce(sum(cardinality(delta)), 0) FROM seen3) || ', lost: ' ||
	count(*) FILTER (WHERE st.seen AND NOT coalesce(cf_seen(s.base, s.mid, s.delta, st.item), false))
	FROM state3 st LEFT JOIN seen3 s USING (user_id)") || exit 1
lost_base=$(psql -X -At -c "SELECT count(*) FROM seen3 s, generate_series(100001, 103000) i
	WHERE NOT cf_seen(s.base, s.mid, s.delta, i::bigint)") || exit 1
echo "seen_concurrency (three columns): $lost; of the 9,000 items base started with, lost: $lost_base"
case "$lost/$lost_base" in
	*"lost: 0/0") echo "seen_concurrency: no marked item was lost"; exit 0 ;;
	*) echo "seen_concurrency: FAILED, marked items reported unseen"; exit 1 ;;
esac
