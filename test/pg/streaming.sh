#!/usr/bin/env bash
# streaming.sh - a physical streaming standby answers as its primary: a
# throw-away primary (wal_level=replica, unix socket only, as
# test/pg/tmpcluster.sh sets clusters up) holds filters, a standby is made
# with pg_basebackup -R -X stream, and the primary then inserts and updates
# filters, grows them past their capacity, deletes values and rows, stores
# unions, cf_agg output and a large out-of-line (TOAST) filter, and rolls a
# transaction back.  After each round the standby replays up to the
# primary's WAL insert position (waited for by LSN), and every answer must
# be the primary's: each filter's bytes (text output and send), cf_info,
# and cf_contains of every value of the probe range, members or not; every
# value added and not deleted must be found on the standby (no false
# negatives).  Expects `make install` done.  Prints PASS/FAIL lines and
# "streaming: N passed, M failed"; exits non-zero on any difference.
#
# Usage: PG_CONFIG=... bash test/pg/streaming.sh      (KEEP=1 keeps the
#        directory with both clusters' logs)
set -uo pipefail
PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
bindir=$("$PG_CONFIG" --bindir) || exit 1
export LC_ALL=C.UTF-8 LANG=C.UTF-8 LANGUAGE=
unset PGHOST PGPORT PGUSER PGDATABASE PGSERVICE PGOPTIONS

if [ "$(id -u)" -eq 0 ]; then
	owner=postgres
	as_owner() { (cd / && runuser -u postgres -- "$@"); }
else
	owner=$(id -un)
	as_owner() { "$@"; }
fi

dir=$(mktemp -d -t cuckoo-streaming.XXXXXX) || exit 1
chmod 755 "$dir"
mkdir -p "$dir/sock" "$dir/log"
chown "$owner" "$dir" "$dir/sock" "$dir/log"
started=()
cleanup() {
	local d
	for d in "${started[@]}"; do
		as_owner "$bindir/pg_ctl" -D "$d" -m immediate -w stop > /dev/null 2>&1
	done
	if [ -n "${KEEP:-}" ]; then echo "streaming: kept $dir"; else rm -rf "$dir"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

pport=$((20000 + RANDOM % 20000))
sport=$((pport + 1))
start() {	# start DATADIR PORT LOG
	if ! as_owner "$bindir/pg_ctl" -D "$1" -l "$3" -w -t 120 \
		-o "-p $2 -k $dir/sock -c listen_addresses= -c fsync=off" start > /dev/null; then
		cat "$3" >&2
		echo "streaming: the server in $1 did not start"
		echo "streaming: 0 passed, 1 failed"
		exit 1
	fi
	started+=("$1")
}
if ! as_owner "$bindir/initdb" -D "$dir/primary" -U postgres -A trust -E UTF8 --locale=C.UTF-8 \
	--no-sync > "$dir/log/initdb.log" 2>&1; then
	cat "$dir/log/initdb.log" >&2; echo "streaming: initdb failed"; exit 1
fi
# initdb -A trust lets local connections replicate: no pg_hba.conf change
cat >> "$dir/primary/postgresql.conf" <<'EOF'
wal_level = replica
max_wal_senders = 4
wal_keep_size = 256MB
hot_standby = on
EOF
start "$dir/primary" "$pport" "$dir/log/primary.log"

P() { "$bindir/psql" -X -q -v ON_ERROR_STOP=1 -At -h "$dir/sock" -p "$pport" -U postgres -d cf "$@"; }
S() { "$bindir/psql" -X -q -v ON_ERROR_STOP=1 -At -h "$dir/sock" -p "$sport" -U postgres -d cf "$@"; }
pass=0; fail=0
check() {	# check name expected actual
	if [ "$2" = "$3" ]; then
		pass=$((pass + 1)); echo "PASS: $1"
	else
		fail=$((fail + 1)); echo "FAIL: $1: expected '$2', got '$3'"
	fi
}

"$bindir/psql" -X -q -v ON_ERROR_STOP=1 -h "$dir/sock" -p "$pport" -U postgres -d postgres \
	-c 'CREATE DATABASE cf' || exit 1
# round 0, before the base backup: filters the standby gets in its copy
P > /dev/null <<'EOF' || exit 1
CREATE EXTENSION cuckoo;
-- the filters, and the values each holds now (added and not deleted)
CREATE TABLE f (id int PRIMARY KEY, items cuckoofilter);
CREATE TABLE live (id int, v bigint);
CREATE TABLE tf (id int PRIMARY KEY, items cuckoofilter);
CREATE TABLE tlive (id int, v text);
INSERT INTO live SELECT 1, v FROM generate_series(1, 300) v;
INSERT INTO live SELECT 2, v FROM generate_series(200, 500) v;
INSERT INTO f SELECT id, cf_add_all(cf_create(1000), array_agg(v ORDER BY v)) FROM live GROUP BY id;
INSERT INTO tlive SELECT 1, 'key-' || v FROM generate_series(1, 200) v;
INSERT INTO tf SELECT 1, cf_add_all(cf_create(500), array_agg(v ORDER BY v)) FROM tlive GROUP BY 1;
EOF

if ! as_owner "$bindir/pg_basebackup" -h "$dir/sock" -p "$pport" -U postgres -D "$dir/standby" \
	-R -X stream -c fast > "$dir/log/basebackup.log" 2>&1; then
	cat "$dir/log/basebackup.log" >&2
	echo "FAIL: pg_basebackup"; echo "streaming: $pass passed, 1 failed"; exit 1
fi
start "$dir/standby" "$sport" "$dir/log/standby.log"
check "the standby is in recovery" t "$(S -c 'SELECT pg_is_in_recovery()')"

# waits until the standby has replayed the primary's WAL up to its current
# insert position (at most 60 s); prints the standby's replay LSN
replay_wait() {
	local lsn got=f
	lsn=$(P -c 'SELECT pg_current_wal_insert_lsn()')
	for _ in $(seq 1 600); do
		got=$(S -c "SELECT pg_last_wal_replay_lsn() >= '$lsn'::pg_lsn")
		[ "$got" = t ] && break
		sleep 0.1
	done
	check "the standby replayed up to the primary's LSN $lsn" t "$got"
}

# every answer of one server, one line per fact (the same query on both)
ANSWERS="
SELECT 'f ' || id || ' text ' || md5(items::text) || ' send ' || md5(cuckoofilter_send(items))
       || ' info ' || cf_info(items)::text FROM f ORDER BY id;
SELECT 'tf ' || id || ' text ' || md5(items::text) || ' send ' || md5(cuckoofilter_send(items))
       || ' info ' || cf_info(items)::text FROM tf ORDER BY id;
SELECT 'f ' || id || ' contains ' || md5(string_agg(CASE WHEN cf_contains(items, p) THEN '1' ELSE '0' END, '' ORDER BY p))
       FROM f, generate_series(1::bigint, 30000::bigint) p GROUP BY id ORDER BY id;
SELECT 'tf ' || id || ' contains ' || md5(string_agg(CASE WHEN cf_contains(items, 'key-' || p) THEN '1' ELSE '0' END, '' ORDER BY p))
       FROM tf, generate_series(1, 30000) p GROUP BY id ORDER BY id;
SELECT 'rows ' || (SELECT count(*) FROM f) || ' ' || (SELECT count(*) FROM tf) || ' live ' || (SELECT count(*) FROM live) || ' ' || (SELECT count(*) FROM tlive);
"
# values added and not deleted that a server does not find (must be none)
MISSED="SELECT (SELECT count(*) FROM live l JOIN f USING (id) WHERE NOT cf_contains(f.items, l.v))
             + (SELECT count(*) FROM tlive l JOIN tf USING (id) WHERE NOT cf_contains(tf.items, l.v))"
compare() {	# compare ROUND
	local p s
	p=$(P -c "$ANSWERS") || p="primary: query failed"
	s=$(S -c "$ANSWERS") || s="standby: query failed"
	check "round $1: the primary finds every live value" 0 "$(P -c "$MISSED")"
	check "round $1: the standby finds every live value" 0 "$(S -c "$MISSED")"
	if [ "$p" = "$s" ]; then
		check "round $1: $(echo "$p" | wc -l) answers (bytes, cf_info, cf_contains of 30000 values per filter) equal the primary's" x x
	else
		check "round $1: the standby's answers equal the primary's" "$p" "$s"
	fi
}

replay_wait
compare 0

# round 1: new filters, added values, growth, deletes, unions, cf_agg,
# TOAST, a rolled-back change, a deleted row
P > /dev/null <<'EOF' || exit 1
-- a new small filter grown far past its capacity (several sub-filters)
INSERT INTO live SELECT 3, v FROM generate_series(1000, 6000) v;
INSERT INTO f SELECT 3, cf_add_all(cf_create(100), array_agg(v ORDER BY v)) FROM live WHERE id = 3;
-- added values, one row at a time (an UPDATE per value)
DO $$ BEGIN
	FOR i IN 501 .. 700 LOOP
		UPDATE f SET items = cf_add(items, i::bigint) WHERE id = 2;
		INSERT INTO live VALUES (2, i);
	END LOOP;
END $$;
-- filter 1 grows past its capacity of 1000
UPDATE f SET items = cf_add_all(items, ARRAY(SELECT v FROM generate_series(301, 2500) v)) WHERE id = 1;
INSERT INTO live SELECT 1, v FROM generate_series(301, 2500) v;
-- deletes: every third value of filter 1, and some of the grown filter 3
UPDATE f SET items = cf_delete_all(items, ARRAY(SELECT v FROM live WHERE id = 1 AND v % 3 = 0 ORDER BY v)) WHERE id = 1;
DELETE FROM live WHERE id = 1 AND v % 3 = 0;
UPDATE f SET items = cf_delete(items, 1000::bigint) WHERE id = 3;
DELETE FROM live WHERE id = 3 AND v = 1000;
-- a union of two stored filters, stored as a new row
INSERT INTO f SELECT 4, cf_union(a.items, b.items) FROM f a, f b WHERE a.id = 1 AND b.id = 2;
INSERT INTO live SELECT DISTINCT 4, v FROM live WHERE id IN (1, 2);
-- cf_agg output
INSERT INTO live SELECT 5, v FROM generate_series(10000, 14000) v;
INSERT INTO f SELECT 5, cf_agg(v) FROM live WHERE id = 5;
-- a large filter, stored out of line
INSERT INTO live SELECT 6, v FROM generate_series(1, 29000) v;
INSERT INTO f SELECT 6, cf_add_all(cf_create(200000), array_agg(v ORDER BY v)) FROM live WHERE id = 6;
-- text values: added, grown, deleted
UPDATE tf SET items = cf_add_all(items, ARRAY(SELECT 'key-' || v FROM generate_series(201, 2000) v)) WHERE id = 1;
INSERT INTO tlive SELECT 1, 'key-' || v FROM generate_series(201, 2000) v;
UPDATE tf SET items = cf_delete(items, 'key-7') WHERE id = 1;
DELETE FROM tlive WHERE id = 1 AND v = 'key-7';
-- a change rolled back: the standby must not see it
BEGIN;
UPDATE f SET items = cf_add(items, 29999::bigint) WHERE id = 1;
ROLLBACK;
-- a row deleted
INSERT INTO f SELECT 7, cf_add(cf_create(10), 1::bigint);
DELETE FROM f WHERE id = 7;
EOF
replay_wait
compare 1
check "round 1: filter 3 grew (past its capacity of 100)" t \
	"$(S -c "SELECT (cf_info(items)).capacity > 100 FROM f WHERE id = 3")"
check "round 1: filter 6 is stored out of line (TOASTed, > 2 kB)" t \
	"$(S -c "SELECT pg_column_size(items) > 2000 AND pg_total_relation_size(reltoastrelid) > 0 FROM f, pg_class WHERE id = 6 AND relname = 'f'")"

# round 2: more of the same on the replayed state
P > /dev/null <<'EOF' || exit 1
UPDATE f SET items = cf_add_all(items, ARRAY(SELECT v FROM generate_series(6001, 9000) v)) WHERE id = 3;
INSERT INTO live SELECT 3, v FROM generate_series(6001, 9000) v;
UPDATE f SET items = cf_delete_all(items, ARRAY(SELECT v FROM live WHERE id = 3 AND v % 5 = 0 ORDER BY v)) WHERE id = 3;
DELETE FROM live WHERE id = 3 AND v % 5 = 0;
UPDATE f SET items = cf_union(items, (SELECT items FROM f WHERE id = 5)) WHERE id = 4;
INSERT INTO live SELECT 4, v FROM live WHERE id = 5;
UPDATE f SET items = cf_delete_all(items, ARRAY(SELECT v FROM generate_series(1, 29000, 2) v)) WHERE id = 6;
DELETE FROM live WHERE id = 6 AND v % 2 = 1;
DELETE FROM f WHERE id = 2;
DELETE FROM live WHERE id = 2;
EOF
replay_wait
compare 2
check "the standby refuses writes" "cannot execute UPDATE in a read-only transaction" \
	"$(S -c "UPDATE f SET items = cf_add(items, 1::bigint)" 2>&1 | sed -n 's/^.*ERROR:  //p')"
for log in primary standby; do
	if grep -qE 'terminated by signal|PANIC' "$dir/log/$log.log"; then
		check "the $log's log shows no crash" "" "$(grep -E 'terminated by signal|PANIC' "$dir/log/$log.log")"
	fi
done
echo "streaming: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
