#!/usr/bin/env bash
# replica_identity.sh - logical replication of a table of filters with
# REPLICA IDENTITY FULL (no key): the subscriber finds the old row of an
# UPDATE or DELETE by comparing every column with its type's default
# equality, so cuckoofilter needs one (1.1: byte equality).  Without it the
# apply worker fails with "could not identify an equality operator".
#
# One throw-away cluster (pg_virtualenv -t, wal_level=logical) with two
# databases, publisher and subscriber; the slot is created apart, as a
# subscription to the same cluster requires.  Expects `make install` done.
# Prints PASS/FAIL lines and "replica_identity: N passed, M failed".
# CUCKOO_VERSION=1.0 runs it at 1.0, which has no equality: it must fail.
set -uo pipefail
PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
PG_VERSION=$("$PG_CONFIG" --version | sed -E 's/^PostgreSQL ([0-9]+).*/\1/')
bindir=$("$PG_CONFIG" --bindir)

if [ -z "${CUCKOO_REPLICA_INNER:-}" ]; then
	CUCKOO_REPLICA_INNER=1 exec pg_virtualenv -t -v "$PG_VERSION" -o wal_level=logical bash "$0" "$@"
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
# waits until the subscriber's answer to $1 is $2 (at most 20 s)
wait_for() {
	local got=""
	for _ in $(seq 1 200); do
		got=$(psql -d cf_sub -c "$1")
		[ "$got" = "$2" ] && break
		sleep 0.1
	done
	echo "$got"
}

psql -d postgres -c 'CREATE DATABASE cf_pub' -c 'CREATE DATABASE cf_sub'
for db in cf_pub cf_sub; do
	psql -d $db -c "CREATE EXTENSION cuckoo VERSION '${CUCKOO_VERSION:-1.1}'" \
		-c 'CREATE TABLE seen (user_id int, items cuckoofilter)' \
		-c 'ALTER TABLE seen REPLICA IDENTITY FULL'
done
psql -d cf_pub >/dev/null <<'EOF'
INSERT INTO seen SELECT u, cf_add_all(cf_create(100), ARRAY[u, u + 1]) FROM generate_series(1, 3) u;
-- a second row with the same filter as user 3, but another user: the old
-- row must be found by all its columns, the filter's bytes included
INSERT INTO seen VALUES (4, cf_add_all(cf_create(100), ARRAY[3, 4]));
INSERT INTO seen VALUES (5, NULL);
CREATE PUBLICATION cf_pub_seen FOR TABLE seen;
SELECT pg_create_logical_replication_slot('cf_sub_seen', 'pgoutput') IS NOT NULL;
EOF
# pg_virtualenv's cluster wants a password over TCP: PGPASSWORD is set for us
conninfo="dbname=cf_pub host=${PGHOST:-localhost} port=${PGPORT:-5432} user=${PGUSER:-postgres} password=${PGPASSWORD:-}"
if ! psql -d cf_sub -c "CREATE SUBSCRIPTION cf_sub_seen CONNECTION '$conninfo'
	PUBLICATION cf_pub_seen WITH (create_slot = false, slot_name = 'cf_sub_seen')" >/dev/null; then
	echo "FAIL: could not create the subscription"
	echo "replica_identity: $pass passed, 1 failed"
	exit 1
fi
check "initial copy: 5 rows" 5 "$(wait_for 'SELECT count(*) FROM seen' 5)"

psql -d cf_pub <<'EOF'
UPDATE seen SET items = cf_add(items, 100) WHERE user_id = 1;
UPDATE seen SET items = cf_delete(items, 3) WHERE user_id = 3;
UPDATE seen SET items = cf_add(items, 7) WHERE user_id = 5;
DELETE FROM seen WHERE user_id = 2;
EOF
check "UPDATE and DELETE replicated: 4 rows, user 2 gone" "4 0" \
	"$(wait_for "SELECT count(*) || ' ' || count(*) FILTER (WHERE user_id = 2) FROM seen" "4 0")"
check "user 1's filter has the added value" t \
	"$(wait_for 'SELECT items @> 100 FROM seen WHERE user_id = 1' t)"
check "user 3 lost 3, user 4 (same old filter) kept it" "f t" \
	"$(wait_for "SELECT string_agg(CASE WHEN items @> 3 THEN 't' ELSE 'f' END, ' ' ORDER BY user_id) FROM seen WHERE user_id IN (3, 4)" "f t")"
check "a NULL filter's row was found and updated" t \
	"$(wait_for 'SELECT items @> 7 FROM seen WHERE user_id = 5' t)"
pub=$(psql -d cf_pub -c "SELECT string_agg(user_id || ':' || md5(items::text), ',' ORDER BY user_id) FROM seen")
check "subscriber's filters are byte-identical to the publisher's" "$pub" \
	"$(wait_for "SELECT string_agg(user_id || ':' || md5(items::text), ',' ORDER BY user_id) FROM seen" "$pub")"
errors=$(psql -d cf_sub -c "SELECT count(*) FROM pg_stat_subscription_stats WHERE apply_error_count > 0")
check "no apply errors" 0 "$errors"

psql -d cf_sub -c 'DROP SUBSCRIPTION cf_sub_seen' >/dev/null
echo "replica_identity: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
