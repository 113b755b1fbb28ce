#!/usr/bin/env bash
# pg_upgrade.sh - a cluster holding filter columns, upgraded with pg_upgrade
# from one PostgreSQL major to a newer one, keeps every filter answering
# identically: the database of test/pg/stored_filters.sql (golden filters
# 1.0 wrote, grown, cf_agg, union, deleted, empty, out-of-line ones, an
# expression index, a view, a materialized view) is created in the old
# cluster, every answer recorded (test/pg/stored_answers.sql), the cluster
# upgraded, and the answers compared in the new one.  The extension must be
# installed in both servers.
# Usage: PG_CONFIG_OLD=... PG_CONFIG_NEW=... bash test/pg/pg_upgrade.sh
#   (default: the system's 15 to $PG_CONFIG_NEW, which must be given)
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
old_config=${PG_CONFIG_OLD:-/usr/lib/postgresql/15/bin/pg_config}
new_config=${PG_CONFIG_NEW:?set PG_CONFIG_NEW to the newer server\'s pg_config}
old_bin=$("$old_config" --bindir) && new_bin=$("$new_config" --bindir) || exit 1
old_ver=$("$old_config" --version) new_ver=$("$new_config" --version)
new_major=$(echo "$new_ver" | sed -E 's/^PostgreSQL ([0-9]+).*/\1/')
export LC_ALL=C.UTF-8 LANG=C.UTF-8 LANGUAGE=

if [ "$(id -u)" -eq 0 ]; then
	owner=postgres; as_owner() { (cd "$work/run" && runuser -u postgres -- "$@"); }
else
	owner=$(id -un); as_owner() { (cd "$work/run" && "$@"); }
fi
work=$(mktemp -d -t cuckoo-upgrade.XXXXXX) || exit 1
chmod 755 "$work"
mkdir -p "$work/old" "$work/new" "$work/sock" "$work/run"
chown "$owner" "$work/old" "$work/new" "$work/sock" "$work/run"
running=""
cleanup() {
	[ -n "$running" ] && as_owner "$running/pg_ctl" -D "$datadir" -m immediate -w stop > /dev/null 2>&1
	[ -n "${KEEP:-}" ] || rm -rf "$work"
}
trap cleanup EXIT
port=$((20000 + RANDOM % 20000))
export PGHOST=$work/sock PGPORT=$port PGUSER=postgres
start() {	# start BINDIR DATADIR
	as_owner "$1/pg_ctl" -D "$2" -l "$work/run/server-$(basename "$2").log" -w -t 120 \
		-o "-p $port -k $work/sock -c listen_addresses=" start > /dev/null || {
		cat "$work/run/server-$(basename "$2").log"; echo "pg_upgrade: the server did not start"; exit 1; }
	running=$1 datadir=$2
}
stop() { as_owner "$running/pg_ctl" -D "$datadir" -m fast -w stop > /dev/null; running=""; }
psql() { "$old_bin/psql" -X -q -v ON_ERROR_STOP=1 "$@"; }

echo "pg_upgrade: $old_ver -> $new_ver"
initopts=(-U postgres -A trust -E UTF8 --locale=C.UTF-8 --no-sync)
as_owner "$old_bin/initdb" -D "$work/old" "${initopts[@]}" > "$work/run/initdb-old.log" 2>&1 ||
	{ cat "$work/run/initdb-old.log"; exit 1; }
# 18 turns data checksums on by default; the old cluster has none
newopts=()
[ "$new_major" -ge 18 ] && newopts=(--no-data-checksums)
as_owner "$new_bin/initdb" -D "$work/new" "${initopts[@]}" "${newopts[@]}" > "$work/run/initdb-new.log" 2>&1 ||
	{ cat "$work/run/initdb-new.log"; exit 1; }

start "$old_bin" "$work/old"
psql -d postgres -c 'CREATE DATABASE cf_upgrade' > /dev/null || exit 1
(cd "$top" && psql -d cf_upgrade -c 'CREATE EXTENSION cuckoo' -f test/pg/stored_filters.sql > /dev/null) ||
	{ echo "pg_upgrade: could not store the filters"; exit 1; }
(cd "$top" && psql -d cf_upgrade -At -f test/pg/stored_answers.sql) > "$work/before.txt" || exit 1
ext_before=$(psql -d cf_upgrade -At -c "SELECT extversion FROM pg_extension WHERE extname = 'cuckoo'")
# Debian's 15.20 (and 17.12: November 2026's minor releases) give every
# column a server option pg_attver that 18.6, the newest 18 whose sources
# Debian carries, predates: its pg_dump (which pg_upgrade runs) copies the
# option and its server rejects it ('unrecognized parameter "pg_attver"').
# That option is the server's own bookkeeping, nothing of cuckoo's: when
# the new server does not know it, it is removed from the old cluster's
# user columns before the upgrade, and the run says so.
if ! grep -qa 'pg_attver' "$new_bin/postgres"; then
	for db in postgres cf_upgrade; do
		n=$(psql -d "$db" -At -c "WITH u AS (
			UPDATE pg_attribute SET attoptions = (SELECT array_agg(o) FROM unnest(attoptions) o
			                                       WHERE o NOT LIKE 'pg_attver=%')
			 WHERE attrelid >= 16384 AND attoptions::text LIKE '%pg_attver=%' RETURNING 1)
			SELECT count(*) FROM u") || exit 1
		[ "$n" -gt 0 ] && echo "pg_upgrade: removed the old server's pg_attver option from $n columns of $db (the new server predates it)"
	done
fi
echo "pg_upgrade: $(grep -c '^filter' "$work/before.txt") filters, $(awk -F'|' '$1 == "answers" { n += $3 } END { print n }' "$work/before.txt") value answers recorded before"
stop

t0=$SECONDS
if ! as_owner "$new_bin/pg_upgrade" -b "$old_bin" -B "$new_bin" -d "$work/old" -D "$work/new" \
	-U postgres -p "$port" -P "$port" --socketdir="$work/sock" > "$work/run/pg_upgrade.log" 2>&1; then
	tail -40 "$work/run/pg_upgrade.log"
	find "$work/new" -name '*.txt' -path '*pg_upgrade_output.d*' -exec tail -20 {} + 2>/dev/null
	echo "pg_upgrade: FAILED (pg_upgrade itself)"; KEEP=1; exit 1
fi
echo "pg_upgrade: upgraded in $((SECONDS - t0)) s"

start "$new_bin" "$work/new"
(cd "$top" && "$new_bin/psql" -X -q -v ON_ERROR_STOP=1 -d cf_upgrade -At -f test/pg/stored_answers.sql) > "$work/after.txt" || exit 1
ext_after=$("$new_bin/psql" -X -d cf_upgrade -At -c "SELECT extversion FROM pg_extension WHERE extname = 'cuckoo'")
server=$("$new_bin/psql" -X -d cf_upgrade -At -c "SHOW server_version")
stop
fail=0
if awk -F'|' '$1 == "answers" && $5 != 0 { bad = 1 } END { exit !bad }' "$work/before.txt" "$work/after.txt"; then
	echo "FAIL: false negatives"; fail=1
fi
if ! diff -u "$work/before.txt" "$work/after.txt"; then
	echo "FAIL: answers differ after pg_upgrade"; fail=1
fi
if [ "$ext_before" != "$ext_after" ]; then
	echo "FAIL: the extension was at $ext_before, is at $ext_after"; fail=1
fi
if [ "$fail" -ne 0 ]; then KEEP=1; echo "pg_upgrade: FAILED (files kept in $work)"; exit 1; fi
echo "pg_upgrade: every one of $(wc -l < "$work/before.txt") answer lines identical on $server (extension $ext_after)"
