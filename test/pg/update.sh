#!/usr/bin/env bash
# update.sh - ALTER EXTENSION cuckoo UPDATE keeps stored data: a database
# whose extension was created at VERSION '1.0' stores filters of every kind
# (test/pg/stored_filters.sql: the golden filters 1.0 wrote, grown, cf_agg,
# union, deleted, empty, large out-of-line ones, text and int values), then
# is updated to the default version; every answer (test/pg/stored_answers.sql:
# text, send bytes, cf_info, cf_contains / cf_count / @> of every value) and
# the stored bytes must be identical afterwards, in the same session and in
# a new one.  The same filters built through the default version's SQL
# functions must be byte-identical too (one library: this compares the SQL
# wrappers).
#
# Then the released code: the previous release's sources (git commit
# $RELEASE_COMMIT of this checkout's history, extension 1.4) are built into a
# private copy of the server's installation, a cluster is created there and
# the same filters are stored under 1.4 by the released library; the
# cluster is then started with this build's installation (the same data
# directory: what a package upgrade does), and the answers must be those the
# released library gave, before and after ALTER EXTENSION cuckoo UPDATE,
# and the filters the released library wrote byte-identical to those this
# build writes.  The released build does not change between runs: it is
# kept in $CUCKOO_RELEASE_CACHE (default /var/cache/cuckoo-pg/release, or
# a directory under $TMPDIR when that cannot be written), keyed by the
# commit and the server's version and installation directory, and only the
# first run builds it.  Without that commit (a shallow clone) this part
# prints a SKIP line and is not run.  CUCKOO_RELEASE_VERSIONS (default "1.4")
# lists the versions stored by the released library ("1.0 1.1 1.2 1.3 1.4" for
# all).
#
# Every setup step's exit code is checked, and every answers file must be
# complete (its filter and answer lines all there, no NULL answer): an empty
# file fails.  Expects `make install` done.  Runs in a throw-away cluster
# (test/pg/tmpcluster.sh).  Exits non-zero on any difference.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
if [ -z "${CUCKOO_UPDATE_INNER:-}" ]; then
	CUCKOO_UPDATE_INNER=1 PG_CONFIG="$PG_CONFIG" exec bash "$top/test/pg/tmpcluster.sh" bash "$0" "$@"
fi

RELEASE_COMMIT=048351e	# cuckoo 1.4, the previous release
RELEASE_VERSION=1.4
work=$(mktemp -d -t cuckoo-update.XXXXXX)
chmod 755 "$work"
rel_started=""
cleanup() {
	[ -n "$rel_started" ] && as_owner "$rel_started/pg_ctl" -D "$work/rel-data" -m immediate -w stop > /dev/null 2>&1
	[ -n "${KEEP:-}" ] || rm -rf "$work"
}
trap cleanup EXIT
psql() { command psql -X -q -v ON_ERROR_STOP=1 "$@"; }
if [ "$(id -u)" -eq 0 ]; then
	owner=postgres
	as_owner() { (cd / && runuser -u postgres -- "$@"); }
else
	owner=$(id -un)
	as_owner() { "$@"; }
fi
fail=0
cd "$top" || exit 1

# check_answers FILE WHAT: FILE (stored_answers.sql's output) is complete:
# 49 filter lines (the 38 golden ones and 11 built), an answers line for
# every value set with values, a digest, no miss and no NULL answer
check_answers() {
	local problems
	problems=$(awk -F'|' '
		$1 == "filter" { nf++; if ($2 != "null" && ($4 == "" || $5 == "" || $6 == "")) bad = bad " empty filter " $2 }
		$1 == "answers" { na++; n += $3
		                  if ($3 < 10 || $4 == "" || $5 != 0 || $6 != 0) bad = bad " answers " $2 "(" $3 " values, " $5 " missed, " $6 " NULL)" }
		END { if (nf != 49 || na != 48 || n < 50000) bad = bad " " nf + 0 " filter lines, " na + 0 " answer lines, " n + 0 " answers"
		      print bad }' "$1")
	if [ -n "$problems" ]; then
		echo "FAIL: the answers $2 are incomplete or wrong:$problems"
		return 1
	fi
}

# same_answers A B WHAT: the answer files A and B are identical (prints ok
# with B's line count, or FAIL and the first lines of the difference)
same_answers() {
	if diff -u "$1" "$2" > "$2.diff"; then
		echo "ok   $3: $(wc -l < "$2") answer lines identical"
	else
		echo "FAIL $3: they differ"
		head -40 "$2.diff"
		return 1
	fi
}

new=$(psql -At -d postgres -c "SELECT default_version FROM pg_available_extensions WHERE name = 'cuckoo'")
if [ -z "$new" ]; then echo "update: the cuckoo extension is not installed"; exit 1; fi
if [ "$new" = 1.0 ]; then
	echo "update: the default version is 1.0: there is no update to test"
	exit 1
fi

# update_from OLD: a database created at OLD, filled, updated to $new
update_from() {
	local old=$1 tag=${1//./_}
	psql -d postgres -c "CREATE DATABASE cf_update_$tag" -c "CREATE DATABASE cf_fresh_$tag" ||
		{ echo "FAIL: could not create the databases for $old"; return 1; }
	psql -d cf_update_$tag -c "CREATE EXTENSION cuckoo VERSION '$old'" -f test/pg/stored_filters.sql > /dev/null ||
		{ echo "update: could not store the filters under $old"; return 1; }
	psql -d cf_fresh_$tag -c "CREATE EXTENSION cuckoo" -f test/pg/stored_filters.sql > /dev/null ||
		{ echo "update: could not store the filters under $new"; return 1; }

	psql -d cf_update_$tag -At -f test/pg/stored_answers.sql > "$work/$tag-before.txt" ||
		{ echo "FAIL: could not record the answers under $old"; return 1; }
	echo "update: $(grep -c '^filter' "$work/$tag-before.txt") filters, $(awk -F'|' '$1 == "answers" { n += $3 } END { print n }' "$work/$tag-before.txt") value answers recorded under $old"
	check_answers "$work/$tag-before.txt" "recorded under $old" || fail=1

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
	psql -d cf_update_$tag -At -f test/pg/stored_answers.sql > "$work/$tag-after.txt" ||
		{ echo "FAIL: could not record the answers after the update"; return 1; }
	for f in same_session after; do
		same_answers "$work/$tag-before.txt" "$work/$tag-$f.txt" "$f: answers after the update" || fail=1
	done

	# the updated extension's objects are those of a fresh install at $new
	objects="SELECT pg_describe_object(classid, objid, 0) FROM pg_depend
	          WHERE refclassid = 'pg_extension'::regclass AND deptype = 'e'
	            AND refobjid = (SELECT oid FROM pg_extension WHERE extname = 'cuckoo') ORDER BY 1"
	if ! psql -d cf_update_$tag -At -c "$objects" > "$work/$tag-objects_updated.txt" ||
	   ! psql -d cf_fresh_$tag -At -c "$objects" > "$work/$tag-objects_fresh.txt"; then
		echo "FAIL: could not list the extension's objects"
		fail=1
	elif [ "$(wc -l < "$work/$tag-objects_fresh.txt")" -lt 100 ]; then
		echo "FAIL: a fresh $new install lists $(wc -l < "$work/$tag-objects_fresh.txt") objects (fewer than 100)"
		fail=1
	elif diff -u "$work/$tag-objects_fresh.txt" "$work/$tag-objects_updated.txt"; then
		echo "ok   the updated extension has the $(wc -l < "$work/$tag-objects_fresh.txt") objects of a fresh $new install"
	else
		echo "FAIL: the updated extension's objects differ from a fresh $new install"
		fail=1
	fi

	# filters built the same way through the $new SQL functions, by the same
	# library: byte-identical (the wrappers; the released library is compared below)
	psql -d cf_fresh_$tag -At -f test/pg/stored_answers.sql > "$work/$tag-fresh.txt" ||
		{ echo "FAIL: could not record the answers of a fresh $new install"; return 1; }
	if diff -u "$work/$tag-before.txt" "$work/$tag-fresh.txt" > "$work/$tag-fresh.diff"; then
		echo "ok   the same filters built through the $new SQL functions are identical to those built through $old's (one library)"
	else
		echo "FAIL: filters built through the $new SQL functions differ from those built through $old's"
		head -50 "$work/$tag-fresh.diff"
		fail=1
	fi

	[ "$fail" -eq 0 ] && echo "update: $old -> $new keeps every stored filter and every answer"
}

# every released version the default one can be reached from, side by
# side (each in databases of its own; the server does the work: 2 cores)
upd_pids=(); upd_olds=()
for old in 1.0 1.1 1.2 1.3 1.4; do
	[ "$old" = "$new" ] && continue
	( update_from "$old" ) > "$work/update-$old.log" 2>&1 &
	upd_pids+=("$!"); upd_olds+=("$old")
done
for i in "${!upd_pids[@]}"; do
	wait "${upd_pids[i]}" || fail=1
	cat "$work/update-${upd_olds[i]}.log"
done

# Filters this release writes differently from the previous one, by design,
# each with its reason; the byte comparison leaves out their lines (their
# answers are still checked complete, without a false negative, by
# check_answers), and fails when one of them no longer differs.  1.3 listed
# text, int8, union, bpchar (the list's size cliff, text hashed without
# trailing blanks); 1.4 none.  1.5 (issue 48) writes format version 3:
# every filter this build writes differs from 1.4's in byte 1 (the version),
# byte 11 and each descriptor's byte 15 (the check bytes), nothing else:
# every filter of stored_filters.sql that the build writes (the golden ones
# are loaded, not written) and every kind of the materialized view of cf_agg.
REWRITTEN=('text' 'int8' 'grown' 'dups' 'empty' 'agg text' 'agg int4' 'deleted' 'union' 'large'
	'bool' 'bpchar' 'bytea' 'date' 'float4' 'float8' 'inet' 'int2' 'int4' 'name' 'numeric' 'timestamp' 'timestamptz' 'uuid' 'varchar')
drop_rewritten() {
	local re
	if [ ${#REWRITTEN[@]} -eq 0 ]; then cat; return; fi
	re=$(IFS='|'; echo "${REWRITTEN[*]}")
	grep -Ev "^(filter|answers|matview)\|($re)\|"
}

# The released code.  rel_server BINDIR: starts the release cluster's data
# directory with BINDIR's server; rel_stop stops it.
rel_port=$((20000 + RANDOM % 20000))
rel_server() {
	as_owner "$1/pg_ctl" -D "$work/rel-data" -l "$work/rel-log/server.log" -w -t 120 \
		-o "-p $rel_port -k $work/rel-sock -c listen_addresses= -c fsync=off" start > /dev/null ||
		{ cat "$work/rel-log/server.log"; return 1; }
	rel_started=$1
}
rel_stop() {
	as_owner "$rel_started/pg_ctl" -D "$work/rel-data" -m fast -w stop > /dev/null && rel_started=""
}
rpsql() { psql -h "$work/rel-sock" -p "$rel_port" -U postgres "$@"; }
released() {
	local t0=$SECONDS
	if ! git -C "$top" rev-parse -q --verify "$RELEASE_COMMIT^{commit}" > /dev/null 2>&1; then
		echo "SKIP the released $RELEASE_VERSION code: commit $RELEASE_COMMIT is not in this checkout's history (a shallow clone? git fetch --unshallow)"
		return 0
	fi
	# a private copy of the server's installation, with the release built into it
	local libdir pkglibdir sharedir incdir inst=$work/rel-inst
	libdir=$("$PG_CONFIG" --bindir | sed 's|/bin$||')
	pkglibdir=$("$PG_CONFIG" --pkglibdir)
	sharedir=$("$PG_CONFIG" --sharedir)
	incdir=$(dirname "$("$PG_CONFIG" --includedir-server)")
	mkdir -p "$inst$(dirname "$libdir")" "$inst$(dirname "$sharedir")" "$inst$(dirname "$incdir")" "$work/rel-src"
	cp -a "$libdir" "$inst$(dirname "$libdir")/" && cp -a "$sharedir" "$inst$(dirname "$sharedir")/" &&
		ln -s "$incdir" "$inst$incdir" || { echo "FAIL: could not copy the server's installation"; return 1; }
	rm -f "$inst$pkglibdir/cuckoo.so" "$inst$sharedir"/extension/cuckoo*
	local rel_bin=$inst$libdir/bin new_bin
	new_bin=$("$PG_CONFIG" --bindir)
	# the released build, cached: keyed by the commit, the server's version
	# and where it is installed (a build links against that server's headers)
	local key cache
	key=$(git -C "$top" rev-parse "$RELEASE_COMMIT")-$(printf '%s %s' "$("$PG_CONFIG" --version)" "$libdir" | md5sum | cut -c1-12)
	cache=${CUCKOO_RELEASE_CACHE:-/var/cache/cuckoo-pg/release}
	mkdir -p "$cache" 2> /dev/null && [ -w "$cache" ] || cache=${TMPDIR:-/tmp}/cuckoo-release-cache-$(id -u)
	mkdir -p "$cache" || { echo "FAIL: no directory for the release cache"; return 1; }
	if [ -s "$cache/$key/cuckoo.so" ] && [ -s "$cache/$key/extension/cuckoo.control" ]; then
		echo "update: the released $RELEASE_VERSION build from the cache ($cache/$key)"
	else
		rm -rf "$cache/$key.tmp"
		mkdir -p "$cache/$key.tmp/extension"
		if ! git -C "$top" archive "$RELEASE_COMMIT" | tar -x -C "$work/rel-src" ||
		   ! make -s -j2 -C "$work/rel-src" PG_CONFIG="$rel_bin/pg_config" with_llvm=no > "$work/rel-build.log" 2>&1 ||
		   ! make -s -C "$work/rel-src" PG_CONFIG="$rel_bin/pg_config" with_llvm=no install >> "$work/rel-build.log" 2>&1 ||
		   ! cp "$inst$pkglibdir/cuckoo.so" "$cache/$key.tmp/" ||
		   ! cp "$inst$sharedir"/extension/cuckoo* "$cache/$key.tmp/extension/"; then
			echo "FAIL: could not build the released code ($RELEASE_COMMIT)"
			tail -20 "$work/rel-build.log"
			rm -rf "$cache/$key.tmp"
			return 1
		fi
		rm -rf "$cache/$key" && mv "$cache/$key.tmp" "$cache/$key"
		echo "update: the released $RELEASE_VERSION code built and cached ($cache/$key)"
	fi
	cp "$cache/$key/cuckoo.so" "$inst$pkglibdir/" && cp "$cache/$key"/extension/cuckoo* "$inst$sharedir/extension/" ||
		{ echo "FAIL: could not install the released build from $cache/$key"; return 1; }
	local relv
	relv=$(sed -n "s/^default_version = '\(.*\)'/\1/p" "$inst$sharedir/extension/cuckoo.control")
	if [ "$relv" != "$RELEASE_VERSION" ]; then
		echo "FAIL: commit $RELEASE_COMMIT installs version '$relv', not $RELEASE_VERSION"
		return 1
	fi
	mkdir -p "$work/rel-data" "$work/rel-sock" "$work/rel-log"
	chown "$owner" "$work/rel-data" "$work/rel-sock" "$work/rel-log" 2> /dev/null
	as_owner "$rel_bin/initdb" -D "$work/rel-data" -U postgres -A trust -E UTF8 --locale=C.UTF-8 --no-sync \
		> "$work/rel-initdb.log" 2>&1 || { cat "$work/rel-initdb.log"; echo "FAIL: initdb failed"; return 1; }
	rel_server "$rel_bin" || { echo "FAIL: the released server did not start"; return 1; }

	# the released library stores the filters under each version
	local old tag versions=${CUCKOO_RELEASE_VERSIONS:-$RELEASE_VERSION}
	for old in $versions; do
		tag=rel_${old//./_}
		if ! rpsql -d postgres -c "CREATE DATABASE cf_$tag" ||
		   ! rpsql -d cf_$tag -c "CREATE EXTENSION cuckoo VERSION '$old'" -f test/pg/stored_filters.sql > /dev/null ||
		   ! rpsql -d cf_$tag -At -f test/pg/stored_answers.sql > "$work/$tag-released.txt"; then
			echo "FAIL: the released library could not store the filters under $old"
			return 1
		fi
		check_answers "$work/$tag-released.txt" "the released library gave under $old" || fail=1
	done
	rel_stop || { echo "FAIL: the released server did not stop"; return 1; }

	# the same data directory under this build's installation
	rel_server "$new_bin" || { echo "FAIL: this build's server did not start on the released data"; return 1; }
	for old in $versions; do
		tag=rel_${old//./_}
		rpsql -d cf_$tag -At -f test/pg/stored_answers.sql > "$work/$tag-newlib.txt" ||
			echo "(stored_answers.sql failed)" >> "$work/$tag-newlib.txt"
		rpsql -d cf_$tag -At -c "ALTER EXTENSION cuckoo UPDATE" -f test/pg/stored_answers.sql > "$work/$tag-updated.txt" ||
			echo "(ALTER EXTENSION cuckoo UPDATE or stored_answers.sql failed)" >> "$work/$tag-updated.txt"
		for f in newlib updated; do
			same_answers "$work/$tag-released.txt" "$work/$tag-$f.txt" \
				"released $old data read by this build ($f): answers, against the released library's" || fail=1
		done
		# the filters this build writes under $old (update_from's) and those the release wrote
		if [ ! -s "$work/${old//./_}-before.txt" ]; then
			echo "FAIL: no filters of this build under $old to compare with the released ones"
			fail=1
		elif diff -u <(drop_rewritten < "$work/$tag-released.txt") <(drop_rewritten < "$work/${old//./_}-before.txt") > "$work/$tag-bytes.diff"; then
			echo "ok   the filters this build writes under $old are byte-identical to those the released library wrote${REWRITTEN[*]:+, but for those this release writes differently by design: ${REWRITTEN[*]}}"
			if [ ${#REWRITTEN[@]} -gt 0 ] && diff -q "$work/$tag-released.txt" "$work/${old//./_}-before.txt" > /dev/null; then
				echo "FAIL: REWRITTEN names filters this build writes as the release did: the list is out of date"
				fail=1
			fi
		else
			echo "FAIL: the filters this build writes under $old differ from those the released library wrote"
			head -30 "$work/$tag-bytes.diff"
			fail=1
		fi
	done
	rel_stop
	echo "update: the released $RELEASE_VERSION code ($RELEASE_COMMIT) compared in $((SECONDS - t0)) s"
}
released || fail=1
if [ "$fail" -ne 0 ]; then
	KEEP=1; echo "update: FAILED (files kept in $work)"; exit 1
fi
