#!/usr/bin/env bash
# replica_identity.sh - logical replication of a table of filters with
# REPLICA IDENTITY FULL (no key): the subscriber finds the old row of an
# UPDATE or DELETE by comparing every column with its type's default
# equality, so cuckoofilter needs one (1.1: byte equality; 1.2 marks the
# btree operator class's equality as image equality, for deduplication).
# Without it the apply worker fails with "could not identify an equality
# operator".
#
# One throw-away cluster of $PG_CONFIG's server (test/pg/tmpcluster.sh,
# wal_level=logical) with two databases per version, publisher and
# subscriber; the slot is created apart, as a subscription to the same
# cluster requires.  Runs at the default version (a new install), then at
# 1.1 (an install left at 1.1 under the new library: the 1.1 operator class).
# Expects `make install` done.  Prints PASS/FAIL lines and
# "replica_identity: N passed, M failed".
# CUCKOO_VERSIONS="1.0" runs it at 1.0 only, which has no equality: it must
# fail.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
bindir=$("$PG_CONFIG" --bindir)

if [ -z "${CUCKOO_REPLICA_INNER:-}" ]; then
	CUCKOO_REPLICA_INNER=1 PG_CONFIG="$PG_CONFIG" TMPCLUSTER_OPTS="-c wal_level=logical" \
		exec bash "$top/test/pg/tmpcluster.sh" bash "$0" "$@"
fi

psql() { "$bindir/psql" -X -q -v ON_ERROR_STOP=1 -At "$@"; }
pass=0; fail=0
check() {	# check name expected actual
	if [ "$2" = "$3" ]; then
		pass=$((pass + 1)); echo "PASS: $1"
	else
		fail=$((fail + 1)); echo "FAIL: $1: expected '$2', got '$3'"
	fi
}
# waits until database $1's answer to $2 is $3 (at most 20 s)
wait_for() {
	local got=""
	for _ in $(seq 1 200); do
		got=$(psql -d "$1" -c "$2")
		[ "$got" = "$3" ] && break
		sleep 0.1
	done
	echo "$got"
}

# replicate VERSION: the scenario at extension VERSION ("default": none given)
replicate() {
	local version=$1 tag=${1//./_}
	local pub=cf_pub_$tag sub=cf_sub_$tag create="CREATE EXTENSION cuckoo"
	[ "$version" = default ] || create="CREATE EXTENSION cuckoo VERSION '$version'"
	if ! psql -d postgres -c "CREATE DATABASE $pub" -c "CREATE DATABASE $sub" > /dev/null; then
		fail=$((fail + 1)); echo "FAIL: $version: could not create the databases"; return
	fi
	for db in $pub $sub; do
		if ! psql -d $db -c "$create" -c 'CREATE TABLE seen (user_id int, items cuckoofilter)' \
			-c 'ALTER TABLE seen REPLICA IDENTITY FULL' > /dev/null; then
			fail=$((fail + 1)); echo "FAIL: $version: could not set up $db"; return
		fi
	done
	local want=$version
	[ "$version" = default ] && want=$(psql -d $pub -c "SELECT default_version FROM pg_available_extensions WHERE name = 'cuckoo'")
	check "$version: the extension is at $want" "$want" \
		"$(psql -d $sub -c "SELECT extversion FROM pg_extension WHERE extname = 'cuckoo'")"
	if ! psql -d $pub > /dev/null <<EOF
INSERT INTO seen SELECT u, cf_add_all(cf_create(100), ARRAY[u, u + 1]) FROM generate_series(1, 3) u;
-- a second row with the same filter as user 3, but another user: the old
-- row must be found by all its columns, the filter's bytes included
INSERT INTO seen VALUES (4, cf_add_all(cf_create(100), ARRAY[3, 4]));
INSERT INTO seen VALUES (5, NULL);
CREATE PUBLICATION ${pub}_seen FOR TABLE seen;
SELECT pg_create_logical_replication_slot('${sub}_seen', 'pgoutput') IS NOT NULL;
EOF
	then
		fail=$((fail + 1)); echo "FAIL: $version: could not fill the publisher"; return
	fi
	local conninfo="dbname=$pub host=${PGHOST:-localhost} port=${PGPORT:-5432} user=${PGUSER:-postgres}"
	if ! psql -d $sub -c "CREATE SUBSCRIPTION ${sub}_seen CONNECTION '$conninfo'
		PUBLICATION ${pub}_seen WITH (create_slot = false, slot_name = '${sub}_seen')" > /dev/null; then
		fail=$((fail + 1)); echo "FAIL: $version: could not create the subscription"; return
	fi
	check "$version: initial copy: 5 rows" 5 "$(wait_for $sub 'SELECT count(*) FROM seen' 5)"

	if ! psql -d $pub <<'EOF'
UPDATE seen SET items = cf_add(items, 100) WHERE user_id = 1;
UPDATE seen SET items = cf_delete(items, 3) WHERE user_id = 3;
UPDATE seen SET items = cf_add(items, 7) WHERE user_id = 5;
DELETE FROM seen WHERE user_id = 2;
EOF
	then
		fail=$((fail + 1)); echo "FAIL: $version: the updates failed on the publisher"
	fi
	check "$version: UPDATE and DELETE replicated: 4 rows, user 2 gone" "4 0" \
		"$(wait_for $sub "SELECT count(*) || ' ' || count(*) FILTER (WHERE user_id = 2) FROM seen" "4 0")"
	check "$version: user 1's filter has the added value" t \
		"$(wait_for $sub 'SELECT items @> 100 FROM seen WHERE user_id = 1' t)"
	check "$version: user 3 lost 3, user 4 (same old filter) kept it" "f t" \
		"$(wait_for $sub "SELECT string_agg(CASE WHEN items @> 3 THEN 't' ELSE 'f' END, ' ' ORDER BY user_id) FROM seen WHERE user_id IN (3, 4)" "f t")"
	check "$version: a NULL filter's row was found and updated" t \
		"$(wait_for $sub 'SELECT items @> 7 FROM seen WHERE user_id = 5' t)"
	local digest="SELECT string_agg(user_id || ':' || md5(items::text), ',' ORDER BY user_id) FROM seen"
	local pubd
	pubd=$(psql -d $pub -c "$digest")
	if [ -z "$pubd" ]; then
		fail=$((fail + 1)); echo "FAIL: $version: the publisher's filters could not be read"
	else
		check "$version: subscriber's filters are byte-identical to the publisher's" "$pubd" \
			"$(wait_for $sub "$digest" "$pubd")"
	fi
	check "$version: no apply errors" 0 \
		"$(psql -d $sub -c "SELECT count(*) FROM pg_stat_subscription_stats WHERE subname = '${sub}_seen' AND apply_error_count > 0")"
	psql -d $sub -c "DROP SUBSCRIPTION ${sub}_seen" > /dev/null
}

for v in ${CUCKOO_VERSIONS:-default 1.1}; do
	replicate "$v"
done
echo "replica_identity: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
