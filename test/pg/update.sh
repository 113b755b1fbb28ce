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

new=$(psql -At -d postgres -c "SELECT default_version FROM pg_available_extensions WHERE name = 'cuckoo'")
if [ -z "$new" ]; then echo "update: the cuckoo extension is not installed"; exit 1; fi
if [ "$new" = 1.0 ]; then
	echo "update: the default version is 1.0: there is no update to test"
	exit 1
fi

# update_from OLD: a database created at OLD, filled, updated to $new
update_from() {
	local old=$1 tag=${1//./_}
	psql -d postgres -c "CREATE DATABASE cf_update_$tag" -c "CREATE DATABASE cf_fresh_$tag" || return 1
	psql -d cf_update_$tag -c "CREATE EXTENSION cuckoo VERSION '$old'" -f test/pg/stored_filters.sql > /dev/null ||
		{ echo "update: could not store the filters under $old"; return 1; }
	psql -d cf_fresh_$tag -c "CREATE EXTENSION cuckoo" -f test/pg/stored_filters.sql > /dev/null ||
		{ echo "update: could not store the filters under $new"; return 1; }

	psql -d cf_update_$tag -At -f test/pg/stored_answers.sql > "$work/$tag-before.txt" || return 1
	echo "update: $(grep -c '^filter' "$work/$tag-before.txt") filters, $(awk -F'|' '$1 == "answers" { n += $3 } END { print n }' "$work/$tag-before.txt") value answers recorded under $old"
	if awk -F'|' '$1 == "answers" && $5 != 0 { bad = 1 } END { exit !bad }' "$work/$tag-before.txt"; then
		echo "FAIL: false negatives before the update"
		grep '^answers' "$work/$tag-before.txt" | awk -F'|' '$5 != 0'
		fail=1
	fi

	# the update, and the answers in the same session right after it
	psql -d cf_update_$tag -At -c "ALTER EXTENSION cuckoo UPDATE" -f test/pg/stored_answers.sql > "$work/$tag-same_session.txt" ||
		{ echo "FAIL: ALTER EXTENSION cuckoo UPDATE failed"; return 1; }
	version=$(psql -d cf_update_$tag -At -c "SELECT extversion FROM pg_extension WHERE extname = 'cuckoo'")
	if [ "$version" != "$new" ]; then
		echo "FAIL: the extension is at '$version' after the update, not '$new'"
		fail=1
	else
		echo "ok   ALTER EXTENSION cuckoo UPDATE: $old -> $version"
	fi
	psql -d cf_update_$tag -At -f test/pg/stored_answers.sql > "$work/$tag-after.txt" || return 1
	for f in same_session after; do
		if diff -u "$work/$tag-before.txt" "$work/$tag-$f.txt" > "$work/$tag-$f.diff"; then
			echo "ok   $f: $(wc -l < "$work/$tag-$f.txt") answer lines identical after the update"
		else
			echo "FAIL $f: answers differ after the update"
			head -50 "$work/$tag-$f.diff"
			fail=1
		fi
	done

	# the updated extension's objects are those of a fresh install at $new
	objects="SELECT pg_describe_object(classid, objid, 0) FROM pg_depend
	          WHERE refclassid = 'pg_extension'::regclass AND deptype = 'e'
	            AND refobjid = (SELECT oid FROM pg_extension WHERE extname = 'cuckoo') ORDER BY 1"
	psql -d cf_update_$tag -At -c "$objects" > "$work/$tag-objects_updated.txt"
	psql -d cf_fresh_$tag -At -c "$objects" > "$work/$tag-objects_fresh.txt"
	if diff -u "$work/$tag-objects_fresh.txt" "$work/$tag-objects_updated.txt"; then
		echo "ok   the updated extension has the $(wc -l < "$work/$tag-objects_fresh.txt") objects of a fresh $new install"
	else
		echo "FAIL: the updated extension's objects differ from a fresh $new install"
		fail=1
	fi

	# filters built the same way under $new: byte-identical (determinism across versions)
	psql -d cf_fresh_$tag -At -f test/pg/stored_answers.sql > "$work/$tag-fresh.txt" || return 1
	if diff -u "$work/$tag-before.txt" "$work/$tag-fresh.txt" > "$work/$tag-fresh.diff"; then
		echo "ok   the same filters built under $new are identical to those built under $old"
	else
		echo "FAIL: filters built under $new differ from those built under $old"
		head -50 "$work/$tag-fresh.diff"
		fail=1
	fi

	[ "$fail" -eq 0 ] && echo "update: $old -> $new keeps every stored filter and every answer"
}

# every released version the default one can be reached from
for old in 1.0 1.1 1.2; do
	[ "$old" = "$new" ] && continue
	update_from "$old" || fail=1
done
if [ "$fail" -ne 0 ]; then
	KEEP=1; echo "update: FAILED (files kept in $work)"; exit 1
fi
