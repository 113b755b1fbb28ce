#!/usr/bin/env bash
# test.sh - sets up (Debian packages) and runs cuckoo's test suites.
# Ends with "N passed, M failed"; exits non-zero if anything failed.
#
#   bash scripts/test.sh          the quick run (the default; about two
#                                 minutes on an idle 2-core machine): the
#                                 installed PostgreSQL 15, a clean -Werror
#                                 build, the whole pg_regress suite, the core
#                                 unit and model tests (in the background,
#                                 beside the PostgreSQL steps), the
#                                 1.0/1.1/1.2/1.3/1.4 -> 1.5 update test
#                                 (the released 1.3 build cached),
#                                 dump/restore, the release and README checks,
#                                 a short join pre-filter differential test,
#                                 the TPC-DS driver's self-test (test/tpcds),
#                                 libcuckoo (make check-lib) and the Python
#                                 module against the server (test/python,
#                                 25,000 values a type; 100,000 in --full;
#                                 with the psycopg adapters and an offline
#                                 pip install), every sql example of the
#                                 README and docs/ (test/docs_sql.py)
#   bash scripts/test.sh --full   the complete run, what CI runs (.ci/run):
#   CUCKOO_TESTS=full             the quick run on every major of PG_VERSIONS,
#                                 plus the core model soak, the core under
#                                 ASan+UBSan and valgrind, the core fuzz
#                                 targets, the whole pg_regress suite with the
#                                 backend under valgrind + UBSan (in the
#                                 background from the start: the longest
#                                 step), logical replication, a physical
#                                 streaming standby, postgres_fdw sharding,
#                                 the join pre-filter differential test at
#                                 full size (test/prefilter),
#                                 concurrent pgbench clients
#                                 (seen_concurrency.sh), the Debian packages
#                                 built and installed in a fresh Debian 12
#                                 (test/deb/run.sh), and pg_upgrade
#                                 15 -> newest (or a SKIP line with the reason)
#
# Ends with a table of the steps (wall seconds, cpu seconds of the step's own
# processes, ok / FAILED / SKIP) and "N passed, M failed" (", K skipped"
# when a step could not run here: it says why in its SKIP line); before the
# table, each failed step's last 80 lines of output again (a background
# step that passed prints only its last 60 lines), so that the end of a run,
# which is what CI keeps in view, says why it failed.
#   PG_VERSIONS   the majors to test (quick: "15"; full: "15 17 18", what CI
#                 tests).  15 is Debian 12's own package; 17 and 18 come from
#                 newer Debian suites (scripts/pg-get.sh: a source build, or a
#                 chroot of the suite's packages), cached in
#                 /var/cache/cuckoo-pg, so only the first run pays for them.
#   PG_CONFIG     a PostgreSQL 15 to test instead of Debian's package (say a
#                 private relocated copy, so that `make install` does not
#                 write into the system's server); the newer majors ignore it
#   FUZZ_SECONDS  seconds per core fuzz target in the full run (60)
#   SOAK_SECONDS  seconds of the core model soak in the full run (120)
#   SEEN_SECONDS  seconds of pgbench in seen_concurrency.sh (20)
#   DIFFTEST_SECONDS  seconds of generated queries in the join pre-filter's
#                 differential test (quick: 25; full: 240, and on until
#                 5,000 queries have run); DIFFTEST_SEED replays a run
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
SOAK_SECONDS=${SOAK_SECONDS:-120}
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
chroot_dirs=(); bg_pids=()
cleanup() {
	local d p
	for p in "${bg_pids[@]}"; do [ -n "$p" ] && kill "$p" 2> /dev/null; done
	for d in "${chroot_dirs[@]}"; do $SUDO rm -rf "$d"; done
	rm -rf "$work"
}
trap cleanup EXIT

pass=0; fail=0; skipped=0; failed=(); failed_logs=()
# the final table: one row per step, in the order the steps started
rows_name=(); rows_secs=(); rows_cpu=(); rows_state=()
# cpu_of FILE: user + system seconds of the children in the output of the
# `times` builtin (run in this shell, not in a $(...) subshell): this
# shell's waited-for children, i.e. a step's clients, compilers and test
# binaries, not the servers pg_ctl detaches, whose backends do the work of
# pg_regress
cpu_of() {
	awk 'NR == 2 { t = 0; for (i = 1; i <= 2; i++) { split($i, a, /[ms]/); t += a[1] * 60 + a[2] }
		printf "%.1f", t }' "$1" 2> /dev/null
}
# ticker NAME T0: a line every minute while a step runs
ticker() {
	local name=$1 t0=$2
	trap 'kill "$sp" 2> /dev/null; exit 0' TERM
	while :; do
		sleep 60 & sp=$!; wait "$sp"
		echo "... $name: still running ($((SECONDS - t0)) s)"
	done
}
# record NAME SECONDS CPU STATE [ROW]: counts a step and fills its row
record() {
	local name=$1 secs=$2 cpu=$3 state=$4 row=${5:-}
	case $state in
		ok) pass=$((pass + 1)) ;;
		FAILED) fail=$((fail + 1)); failed+=("$name") ;;
		SKIP) skipped=$((skipped + 1)) ;;
	esac
	if [ -z "$row" ]; then
		rows_name+=("$name"); rows_secs+=("$secs"); rows_cpu+=("$cpu"); rows_state+=("$state")
	else
		rows_secs[row]=$secs; rows_cpu[row]=$cpu; rows_state[row]=$state
	fi
}
# run NAME COMMAND...: one step, in this shell (a step may set variables)
run() {
	local name=$1; shift
	echo "=== $name"
	local t0=$SECONDS
	times > "$work/times0"
	ticker "$name" "$t0" &
	local tick=$!
	# its output also kept, so that a failed step's last lines can close the
	# run (CI shows a run's end); in this shell (a step may set variables)
	local log="$work/step-${#rows_name[@]}.log"
	"$@" > >(tee "$log") 2>&1
	local status=$?
	kill "$tick" 2> /dev/null; wait "$tick" 2> /dev/null
	local secs=$((SECONDS - t0)) cpu
	times > "$work/times1"
	cpu=$(awk -v a="$(cpu_of "$work/times1")" -v b="$(cpu_of "$work/times0")" 'BEGIN { printf "%.0f", a - b }')
	if [ "$status" -eq 0 ]; then
		record "$name" "$secs" "$cpu" ok; echo "--- ok: $name ($secs s, $cpu s cpu)"
	elif [ "$status" -eq 77 ]; then
		# a step that found it cannot run here (its output says why)
		record "$name" "$secs" "$cpu" SKIP; echo "--- SKIP: $name (its output says why)"
		return 0
	else
		failed_logs+=("$log")
		record "$name" "$secs" "$cpu" FAILED; echo "--- FAILED: $name ($secs s, $cpu s cpu)"
	fi
	return "$status"
}
# skip NAME REASON: a step that cannot run here; printed and counted
skip() {
	echo "=== $1"
	echo "--- SKIP: $1: $2"
	record "$1" 0 0 SKIP
}
# run_bg NAME COMMAND...: one step in the background, beside the steps that
# follow (the machine has 2 cores); its output is kept and printed, and it
# is counted, by join_bg.  The command must not need this shell's variables
# set by other steps.
bg_rows=(); bg_names=()
run_bg() {
	local name=$1; shift
	local n=${#bg_pids[@]}
	echo "=== $name (started in the background; its output follows when it ends)"
	(
		t0=$SECONDS
		"$@" > "$work/bg-$n.log" 2>&1
		status=$?
		times > "$work/bg-$n.times"
		echo "$status $((SECONDS - t0))" > "$work/bg-$n.rc"
	) &
	bg_pids+=("$!"); bg_names+=("$name"); bg_rows+=("${#rows_name[@]}")
	rows_name+=("$name"); rows_secs+=(""); rows_cpu+=(""); rows_state+=(running)
}
join_bg() {
	local i status secs cpu
	for i in "${!bg_pids[@]}"; do
		[ -n "${bg_pids[i]}" ] || continue
		wait "${bg_pids[i]}"
		read -r status secs < "$work/bg-$i.rc" 2> /dev/null || { status=1; secs=0; }
		if [ "$status" -eq 0 ] && [ "$(wc -l < "$work/bg-$i.log")" -gt 60 ]; then
			# a step that passed: its last lines (the whole log of a failed one)
			echo "=== ${bg_names[i]} (background step: the last 60 of its $(wc -l < "$work/bg-$i.log") lines of output)"
			tail -n 60 "$work/bg-$i.log"
		else
			echo "=== ${bg_names[i]} (background step: its output)"
			cat "$work/bg-$i.log"
		fi
		cpu=$(awk -v a="$(cpu_of "$work/bg-$i.times")" 'BEGIN { printf "%.0f", a }')
		if [ "$status" -eq 0 ]; then
			record "${bg_names[i]}" "$secs" "${cpu:-0}" ok "${bg_rows[i]}"; echo "--- ok: ${bg_names[i]} ($secs s)"
		else
			failed_logs+=("$work/bg-$i.log")
			record "${bg_names[i]}" "$secs" "${cpu:-0}" FAILED "${bg_rows[i]}"; echo "--- FAILED: ${bg_names[i]} ($secs s)"
		fi
		bg_pids[i]=""
	done
}

run "release files: META.json, LICENSE, CHANGELOG.md, supported versions" python3 test/release/check.py

# the README's SQL: every example is in the cuckoo_readme regression test
run "docs: every sql block of README.md is in sql/cuckoo_readme.sql" bash test/readme_sql.sh
run "docs: every relative link and anchor points somewhere" python3 test/docs_links.py

# The longest single-threaded steps run in the background beside the others
# (2 cores): the backend under valgrind + UBSan (full run), and the core
# unit and model tests (quick run).
if full && [[ " $PG_VERSIONS " == *" 15 "* ]]; then
	# every pg_regress file, then test/pg/plpgsql_model.sql, with the server
	# and its backends under valgrind; it builds its own copy of PostgreSQL 15
	run_bg "PG 15: the whole pg_regress suite under valgrind + UBSan" \
		env PG_CONFIG="${pg15_config:-/usr/lib/postgresql/15/bin/pg_config}" bash test/pg/sanitize.sh
fi

# the plain-C core, on its own
if [ "${CORE_TESTS:-1}" != 0 ]; then
	run "core: layering (includes acyclic, calls in the Makefile's order, no circle)" python3 test/layering.py
	run "core: libcuckoo builds, links, opens filters, exports only cuckoo.h, runs docs/python.md's C example (make check-lib)" \
		make -s -f src/core/lib.mk check-lib CF_LIB_DIR="$work/lib"
	if full; then
		run "core: unit and model tests" make -s -C test/core check
		run "core: one flipped bit (issue 48): every header and descriptor flip, 10,000 table flips per filter" \
			env CF_TEST_FULL=1 make -s -C test/core check ARGS=integrity
		run "core: model soak, ${SOAK_SECONDS} s of random geometries and seeds" \
			make -s -C test/core soak SOAK_SECONDS="$SOAK_SECONDS"
		run "core: tests under ASan+UBSan" make -s -C test/core check-asan
		run "core: tests under valgrind" make -s -C test/core check-valgrind
		run "core: fuzz targets, ${FUZZ_SECONDS}s each" make -s -C test/core fuzz FUZZ_SECONDS="$FUZZ_SECONDS"
	else
		run_bg "core: unit and model tests" make -s -C test/core check
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
	# docs/sql-reference.md, generated from the catalog, against a fresh
	# install's (PostgreSQL 15's definitions: pg_get_functiondef's text differs
	# between majors)
	if [ "$major" = 15 ]; then
		run "PG 15: docs/sql-reference.md is the catalog of a fresh CREATE EXTENSION" \
			in_major 15 bash test/pg/sql_reference.sh
	fi
	run "PG $major: ALTER EXTENSION UPDATE 1.0, 1.1, 1.2, 1.3 and 1.4 -> 1.5 keep stored filters" in_major "$major" bash test/pg/update.sh
	run "PG $major: pg_dump and restore keep every answer" in_major "$major" bash test/pg/dump_restore.sh
	# the README's first command ends in this: the demo must run as written
	run "PG $major: the demo (demo/demo.sql) runs" in_major "$major" \
		bash test/pg/tmpcluster.sh psql -X -q -v ON_ERROR_STOP=1 -o /dev/null -f demo/demo.sql
	# every ```sql example of README.md and docs/*.md, in order, one fresh
	# database per file (blocks marked norun / fails are listed)
	if [ "$major" = 15 ] && [ "${how[$major]}" = config ]; then
		run "PG 15: every sql example of README.md and docs/*.md runs as written (test/docs_sql.py)" \
			in_major 15 bash test/pg/tmpcluster.sh python3 test/docs_sql.py
	fi
	# the join pre-filter's differential test (issue 40): queries with
	# cuckoo.join_prefilter off and on, the same rows (exit 77, a SKIP: the
	# build has no such setting); a short run here, a longer one in the full run
	if [ "$major" = 15 ] && [ "${how[$major]}" = config ]; then
		if full; then
			difftest_secs=${DIFFTEST_SECONDS:-240} difftest_min=5000
		else
			difftest_secs=${DIFFTEST_SECONDS:-25} difftest_min=0
		fi
		run "PG 15: join pre-filter differential test (${difftest_secs} s, at least $difftest_min generated queries, off = on)" \
			in_major 15 env DIFFTEST_SECONDS="$difftest_secs" DIFFTEST_MIN_QUERIES="$difftest_min" \
			bash test/prefilter/run.sh
	fi
	# the TPC-DS instrument (bench/tpcds/run.py) without the kit: its SQL fixes,
	# its filter counting, and whole runs on a small schema (about 12 s)
	if [ "$major" = 15 ] && [ "${how[$major]}" = config ]; then
		run "PG 15: bench/tpcds/run.py times, compares and counts filters (test/tpcds)" \
			in_major 15 bash test/tpcds/run.sh
	fi
	# the Python module (python/) against the server: the same bytes, hashes and
	# answers; 100,000 values per type in the full run (CI), 25,000 in the quick one
	if [ "$major" = 15 ] && [ "${how[$major]}" = config ]; then
		if full; then py_n=${CUCKOO_PY_N:-100000}; else py_n=${CUCKOO_PY_N:-25000}; fi
		run "PG 15: the Python module agrees with the server, $py_n values a type (test/python)" \
			in_major 15 env CUCKOO_PY_N="$py_n" bash test/python/run.sh
	fi
	if ! full; then
		continue
	elif [ "$major" = 15 ]; then
		run "PG 15: logical replication with REPLICA IDENTITY FULL" in_major 15 bash test/pg/replica_identity.sh
		run "PG 15: physical streaming standby answers as the primary" in_major 15 bash test/pg/streaming.sh
		run "PG 15: sharded with postgres_fdw (coordinator + 2 shards)" in_major 15 bash test/fdw/run.sh
		# pgbench clients marking and unseeing at once (SECONDS_RUN each),
		# bounded by timeout in case a client hangs
		run "PG 15: concurrent mark / unsee lose no marked item (pgbench)" \
			in_major 15 timeout 600 env SECONDS_RUN="${SEEN_SECONDS:-20}" bash test/pg/seen_concurrency.sh
		# the news-feed workload at a small scale (bench/seen): 0 false negatives
		run "PG 15: the seen workload (bench/seen, small scale) loses no marked item" \
			in_major 15 timeout 600 bash test/pg/seen_bench_small.sh
	elif [ "${how[$major]}" = config ]; then
		upgrade_to=$major
	fi
done

# the Debian packages (debian/): built, lintian, installed into a fresh
# minimal Debian 12 chroot (cached base), CREATE EXTENSION, installcheck, the
# Python module, a C program linked with pkg-config, apt remove --purge
if full; then
	run "Debian packages: dpkg-buildpackage, lintian, apt install in a fresh Debian 12, installcheck, Python, C (pkg-config), purge (test/deb/run.sh)" \
		bash test/deb/run.sh
fi

# pg_upgrade from 15 to the newest major built here
if full; then
	upgrade="pg_upgrade 15 -> newest major keeps every stored filter's answers"
	if [ "${how[15]:-}" != config ]; then
		skip "$upgrade" "PostgreSQL 15 was not tested in this run (PG_VERSIONS=\"$PG_VERSIONS\") or could not be had"
	elif [ -z "$upgrade_to" ]; then
		skip "$upgrade" "no major newer than 15 was built from source here (pg_upgrade needs both binaries on one host; a major in a Debian chroot cannot be an upgrade target)"
	else
		run "pg_upgrade 15 -> $upgrade_to keeps every stored filter's answers" \
			env PG_CONFIG_OLD="${where[15]}" PG_CONFIG_NEW="${where[$upgrade_to]}" bash test/pg/pg_upgrade.sh
	fi
fi

join_bg
# each failed step's last lines again, where a reader of the run's end sees them
for i in "${!failed[@]}"; do
	echo
	echo "=== FAILED: ${failed[i]}: the last 80 lines of its output"
	tail -n 80 "${failed_logs[i]}" 2> /dev/null
done
echo
echo "test: the $mode run, PG_VERSIONS=\"$PG_VERSIONS\", $((SECONDS - t_start)) s in all, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "test: the steps (seconds of wall time; cpu = the step's own processes, not the servers'):"
printf '  %6s %6s  %-6s  %s\n' seconds cpu result step
for i in "${!rows_name[@]}"; do
	printf '  %6s %6s  %-6s  %s\n' "${rows_secs[i]}" "${rows_cpu[i]}" "${rows_state[i]}" "${rows_name[i]}"
done
for n in "${failed[@]}"; do echo "failed: $n"; done
full || echo "test: the complete run (every major, sanitizers, valgrind, fuzzers, replication, pg_upgrade, postgres_fdw): bash scripts/test.sh --full"
if [ "$skipped" -gt 0 ]; then
	echo "$pass passed, $fail failed, $skipped skipped"
else
	echo "$pass passed, $fail failed"
fi
[ "$fail" -eq 0 ]
