#!/usr/bin/env bash
# update.sh - ALTER EXTENSION cuckoo UPDATE keeps stored data: a database
# whose extension was created at VERSION '1.0' stores filters of every kind
# (test/pg/stored_filters.sql: the golden filters 1.0 wrote, grown, cf_agg,
# union, deleted, empty, large out-of-line ones, text and int values), then
# is updated to the default version; every answer (test/pg/stored_answers.sql:
# text, send bytes, cf_info, cf_contains / cf_count / @> of every value) and
# the stored bytes must be identical afterwards, in the same session and in
# a new one.  The same filters built in a database created directly at the
# default version must be byte-identical too.  Expects `make install` done.
# Runs in a throw-away cluster (test/pg/tmpcluster.sh).  Exits non-zero on
# any difference.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
if [ -z "${CUCKOO_UPDATE_INNER:-}" ]; then
	CUCKOO_UPDATE_INNER=1 PG_CONFIG="$PG_CONFIG" exec bash "$top/test/pg/tmpcluster.sh" bash "$0" "$@"
fi

work=$(mktemp -d -t cuckoo-update.XXXXXX)
trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
psql() { command psql -X -q -v ON_ERROR_STOP=1 "$@"; }
fail=0
cd "$top" || exit 1

old=1.0
new=$(psql -At -d postgres -c "SELECT default_version FROM pg_available_extensions WHERE name = 'cuckoo'")
if [ -z "$new" ]; then echo "update: the cuckoo extension is not installed"; exit 1; fi
if [ "$new" = "$old" ]; then
	echo "update: the default version is $old: there is no update to test"
	exit 1
fi

psql -d postgres -c 'CREATE DATABASE cf_update' -c 'CREATE DATABASE cf_fresh' || exit 1
psql -d cf_update -c "CREATE EXTENSION cuckoo VERSION '$old'" -f test/pg/stored_filters.sql > /dev/null ||
	{ echo "update: could not store the filters under $old"; exit 1; }
psql -d cf_fresh -c "CREATE EXTENSION cuckoo" -f test/pg/stored_filters.sql > /dev/null ||
	{ echo "update: could not store the filters under $new"; exit 1; }

psql -d cf_update -At -f test/pg/stored_answers.sql > "$work/before.txt" || exit 1
echo "update: $(grep -c '^filter' "$work/before.txt") filters, $(awk -F'|' '$1 == "answers" { n += $3 } END { print n }' "$work/before.txt") value answers recorded under $old"
if awk -F'|' '$1 == "answers" && $5 != 0 { bad = 1 } END { exit !bad }' "$work/before.txt"; then
	echo "FAIL: false negatives before the update"
	grep '^answers' "$work/before.txt" | awk -F'|' '$5 != 0'
	fail=1
fi

# the update, and the answers in the same session right after it
psql -d cf_update -At -c "ALTER EXTENSION cuckoo UPDATE" -f test/pg/stored_answers.sql > "$work/same_session.txt" ||
	{ echo "FAIL: ALTER EXTENSION cuckoo UPDATE failed"; exit 1; }
version=$(psql -d cf_update -At -c "SELECT extversion FROM pg_extension WHERE extname = 'cuckoo'")
if [ "$version" != "$new" ]; then
	echo "FAIL: the extension is at '$version' after the update, not '$new'"
	fail=1
else
	echo "ok   ALTER EXTENSION cuckoo UPDATE: $old -> $version"
fi
psql -d cf_update -At -f test/pg/stored_answers.sql > "$work/after.txt" || exit 1
for f in same_session after; do
	if diff -u "$work/before.txt" "$work/$f.txt" > "$work/$f.diff"; then
		echo "ok   $f: $(wc -l < "$work/$f.txt") answer lines identical after the update"
	else
		echo "FAIL $f: answers differ after the update"
		head -50 "$work/$f.diff"
		fail=1
	fi
done

# the updated extension's objects are those of a fresh install at $new
objects="SELECT pg_describe_object(classid, objid, 0) FROM pg_depend
          WHERE refclassid = 'pg_extension'::regclass AND deptype = 'e'
            AND refobjid = (SELECT oid FROM pg_extension WHERE extname = 'cuckoo') ORDER BY 1"
psql -d cf_update -At -c "$objects" > "$work/objects_updated.txt"
psql -d cf_fresh -At -c "$objects" > "$work/objects_fresh.txt"
if diff -u "$work/objects_fresh.txt" "$work/objects_updated.txt"; then
	echo "ok   the updated extension has the $(wc -l < "$work/objects_fresh.txt") objects of a fresh $new install"
else
	echo "FAIL: the updated extension's objects differ from a fresh $new install"
	fail=1
fi

# filters built the same way under $new: byte-identical (determinism across versions)
psql -d cf_fresh -At -f test/pg/stored_answers.sql > "$work/fresh.txt" || exit 1
if diff -u "$work/before.txt" "$work/fresh.txt" > "$work/fresh.diff"; then
	echo "ok   the same filters built under $new are identical to those built under $old"
else
	echo "FAIL: filters built under $new differ from those built under $old"
	head -50 "$work/fresh.diff"
	fail=1
fi

if [ "$fail" -ne 0 ]; then
	KEEP=1; echo "update: FAILED (files kept in $work)"; exit 1
fi
echo "update: $old -> $new keeps every stored filter and every answer"
