#!/usr/bin/env bash
# test.sh - sets up (Debian packages) and runs cuckoo's test suites.
# Ends with "N passed, M failed"; exits non-zero if anything failed.
#
#   bash scripts/test.sh          the quick run (the default; a few minutes):
#                                 the installed PostgreSQL 15, a clean -Werror
#                                 build, the whole pg_regress suite, the core
#                                 unit and model tests, the 1.0/1.1/1.2 -> 1.3
#                                 update test, dump/restore, the release and
#                                 README checks
#   bash scripts/test.sh --full   the complete run, what CI runs (.ci/run):
#   CUCKOO_TESTS=full             the quick run on every major of PG_VERSIONS,
#                                 plus the core under ASan+UBSan and valgrind,
#                                 the core fuzz targets, the backend under
#                                 valgrind + UBSan, logical replication, a
#                                 physical streaming standby, postgres_fdw
#                                 sharding, and pg_upgrade 15 -> newest
#
#   PG_VERSIONS   the majors to test (quick: "15"; full: "15 17 18", what CI
#                 tests).  15 is Debian 12's own package; 17 and 18 come from
#                 newer Debian suites (scripts/pg-get.sh: a source build, or a
#                 chroot of the suite's packages), cached in
#                 /var/cache/cuckoo-pg, so only the first run pays for them.
#   PG_CONFIG     a PostgreSQL 15 to test instead of Debian's package (say a
#                 private relocated copy, so that `make install` does not
#                 write into the system's server); the newer majors ignore it
#   FUZZ_SECONDS  seconds per core fuzz target in the full run (60)
#   CORE_TESTS=0  skips the plain-C core suites (they do not depend on the
#                 major: for a run of the PostgreSQL suites alone)
# The plain-C core and the heavy 15-only suites run once; every major gets a
# clean -Werror build, the whole pg_regress suite, the update test and the
# dump/restore test.  In the full run, when 15 and a newer self-built major
# are both tested, a pg_upgrade from 15 to the newest of them must keep every
# stored filter's answers.
#
# The run does not depend on the caller's environment: it sets its own
# locale (C.UTF-8, which always exists), and every cluster it starts is a
# throw-away one (UTF8, in a temporary directory, stopped and removed).
set -uo pipefail
cd "$(dirname "$0")/.."
export LC_ALL=C.UTF-8 LANG=C.UTF-8 LANGUAGE=
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:$PATH
mode=${CUCKOO_TESTS:-quick}
for arg in "$@"; do
	case $arg in
		--full) mode=full ;;
		--quick) mode=quick ;;
		*) echo "usage: bash scripts/test.sh [--full | --quick]"; echo "0 passed, 1 failed"; exit 2 ;;
	esac
done
case $mode in
	quick) PG_VERSIONS=${PG_VERSIONS:-15} ;;
	full) PG_VERSIONS=${PG_VERSIONS:-15 17 18} ;;
	*) echo "test: CUCKOO_TESTS is \"quick\" or \"full\", not \"$mode\""; echo "0 passed, 1 failed"; exit 2 ;;
esac
full() { [ "$mode" = full ]; }
FUZZ_SECONDS=${FUZZ_SECONDS:-60}
# a PostgreSQL 15 of the caller's (PG_CONFIG) instead of Debian's
pg15_config=""
if [ -n "${PG_CONFIG:-}" ] && "$PG_CONFIG" --version 2> /dev/null | grep -q '^PostgreSQL 15\.'; then
	pg15_config=$PG_CONFIG
fi
unset PG_CONFIG
echo "test: the $mode run, PostgreSQL $PG_VERSIONS"
top=$(pwd)
t_start=$SECONDS
SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo	# chroots need root

if ! bash scripts/deps.sh "$mode"; then
	echo "test: could not install dependencies"
	echo "0 passed, 1 failed"
	exit 1
fi

work=$(mktemp -d -t cuckoo-test.XXXXXX)
chmod 755 "$work"
chroot_dirs=()
cleanup() {
	local d
	for d in "${chroot_dirs[@]}"; do $SUDO rm -rf "$d"; done
	rm -rf "$work"
}
trap cleanup EXIT

pass=0; fail=0; failed=()
# run NAME COMMAND...: one step; a line every minute while it runs
run() {
	local name=$1; shift
	echo "=== $name"
	local t0=$SECONDS
	(
		trap 'kill "$sp" 2> /dev/null; exit 0' TERM
		while :; do
			sleep 60 & sp=$!; wait "$sp"
			echo "... $name: still running ($((SECONDS - t0)) s)"
		done
	) &
	local ticker=$!
	"$@"
	local status=$?
	kill "$ticker" 2> /dev/null; wait "$ticker" 2> /dev/null
	if [ "$status" -eq 0 ]; then
		pass=$((pass + 1)); echo "--- ok: $name ($((SECONDS - t0)) s)"
	else
		fail=$((fail + 1)); failed+=("$name"); echo "--- FAILED: $name ($((SECONDS - t0)) s)"
	fi
	return "$status"
}

run "release files: META.json, LICENSE, CHANGELOG.md, supported versions" python3 test/release/check.py

# the README's SQL: every example is in the cuckoo_readme regression test
run "docs: every sql block of README.md is in sql/cuckoo_readme.sql" bash test/readme_sql.sh

# the plain-C core, on its own
if [ "${CORE_TESTS:-1}" != 0 ]; then
	run "core: layering (includes acyclic, calls in the Makefile's order, no circle)" python3 test/layering.py
	run "core: unit and model tests" make -s -C test/core check
	if full; then
		run "core: tests under ASan+UBSan" make -s -C test/core check-asan
		run "core: tests under valgrind" make -s -C test/core check-valgrind
		run "core: fuzz targets, ${FUZZ_SECONDS}s each" make -s -C test/core fuzz FUZZ_SECONDS="$FUZZ_SECONDS"
	fi
fi

# in_major MAJOR COMMAND...: runs COMMAND from the top of the tree with
# PG_CONFIG set for that major: here, or inside its Debian chroot on a copy
# of the tree (scripts/pg-get.sh said which)
declare -A how where
in_major() {
	local major=$1; shift
	if [ "${how[$major]}" = config ]; then
		PG_CONFIG=${where[$major]} "$@"
	else
		local root=${where[$major]}
		$SUDO chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
			LC_ALL=C.UTF-8 LANG=C.UTF-8 CI="${CI:-}" \
			PG_CONFIG="/usr/lib/postgresql/$major/bin/pg_config" \
			bash -c 'cd "$0" && exec "$@"' "${chroot_src[$major]}" "$@"
	fi
}
declare -A chroot_src
builddir() {	# where MAJOR's clean build lives (inside its chroot, if any)
	if [ "${how[$1]}" = config ]; then echo "$work/build-$1"; else echo "/tmp/cuckoo-build-$1-$$"; fi
}

upgrade_to=""
for major in $PG_VERSIONS; do
	get() {
		local out
		if [ "$major" = 15 ] && [ -n "$pg15_config" ]; then
			out="config $pg15_config"
		else
			out=$(bash scripts/pg-get.sh "$major") || return 1
		fi
		how[$major]=${out%% *}; where[$major]=${out#* }
		if [ "${how[$major]}" = chroot ]; then
			# a copy of this tree inside the chroot, removed at the end
			local d
			d=$($SUDO mktemp -d "${where[$major]}/tmp/cuckoo-src.XXXXXX") || return 1
			chroot_dirs+=("$d" "${where[$major]}$(builddir "$major")")
			$SUDO chmod 755 "$d"
			$SUDO bash test/pg/copytree.sh "$top" "$d" || return 1
			chroot_src[$major]=${d#"${where[$major]}"}
			echo "PostgreSQL $major: Debian's packages in the chroot ${where[$major]}"
		else
			echo "PostgreSQL $major: $("${where[$major]}" --version), ${where[$major]}"
		fi
	}
	if ! run "PG $major: get PostgreSQL $major" get; then
		continue
	fi
	b=$(builddir "$major")
	run "PG $major: build with -Wall -Wextra -Werror (clean copy)" in_major "$major" bash test/pg/build.sh "$b" &&
	run "PG $major: install" in_major "$major" bash test/pg/build.sh "$b" install || continue
	if [ "${how[$major]}" != chroot ]; then
		run "PG $major: cuckoo.so exports no core symbol" python3 test/layering.py "$b/cuckoo.so"
	fi
	run "PG $major: pg_regress suite" in_major "$major" bash test/pg/regress.sh
	run "PG $major: ALTER EXTENSION UPDATE 1.0, 1.1 and 1.2 -> 1.3 keep stored filters" in_major "$major" bash test/pg/update.sh
	run "PG $major: pg_dump and restore keep every answer" in_major "$major" bash test/pg/dump_restore.sh
	if ! full; then
		continue
	elif [ "$major" = 15 ]; then
		# the backend under valgrind with a UBSan build of the extension (the
		# full suite takes ~10 minutes: bash test/pg/sanitize.sh with no arguments)
		run "PG 15: pg_regress under valgrind + UBSan" in_major 15 bash test/pg/sanitize.sh \
			cuckoo_basic cuckoo_types cuckoo_input cuckoo_plpgsql cuckoo_golden cuckoo_golden_v2 cuckoo_agg \
			cuckoo_lifecycle cuckoo_planner cuckoo_encoding cuckoo_sets cuckoo_typed cuckoo_deletes \
			cuckoo_batch cuckoo_readme cuckoo_values cuckoo_aggstate_types cuckoo_equality_cross \
			cuckoo_equality_audit
		run "PG 15: logical replication with REPLICA IDENTITY FULL" in_major 15 bash test/pg/replica_identity.sh
		run "PG 15: physical streaming standby answers as the primary" in_major 15 bash test/pg/streaming.sh
		run "PG 15: sharded with postgres_fdw (coordinator + 2 shards)" in_major 15 bash test/fdw/run.sh
	elif [ "${how[$major]}" = config ]; then
		upgrade_to=$major
	fi
done

# pg_upgrade from 15 to the newest major built here
if full && [ -n "$upgrade_to" ] && [ "${how[15]:-}" = config ]; then
	run "pg_upgrade 15 -> $upgrade_to keeps every stored filter's answers" \
		env PG_CONFIG_OLD="${where[15]}" PG_CONFIG_NEW="${where[$upgrade_to]}" bash test/pg/pg_upgrade.sh
fi

echo
for n in "${failed[@]}"; do echo "failed: $n"; done
echo "test: the $mode run, PG_VERSIONS=\"$PG_VERSIONS\", $((SECONDS - t_start)) s in all"
full || echo "test: the complete run (every major, sanitizers, valgrind, fuzzers, replication, pg_upgrade, postgres_fdw): bash scripts/test.sh --full"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
