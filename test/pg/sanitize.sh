#!/usr/bin/env bash
# sanitize.sh - runs the whole pg_regress suite against a server whose
# backends run under valgrind (memcheck), with the extension built with
# UndefinedBehaviorSanitizer; fails on any valgrind error in the extension's
# code, any UBSan report, any server crash, or a failing test.
#
# Why not AddressSanitizer: the server binary is not ASan-built, so the ASan
# runtime would have to be LD_PRELOADed into it, and on Debian 12 (glibc
# 2.36, gcc 12 libasan.so.8 or clang 14's runtime alike) every PostgreSQL
# binary then deadlocks before main (libp11-kit's constructor, pulled in
# through libldap -> libgnutls, leaves glibc's locale lock held once the
# runtime initializes inside it; `LD_PRELOAD=libasan.so.8 postgres -V`
# never returns).  The core library is ASan-tested on its own (test/core
# check-asan); here valgrind watches the extension inside a real server.
# Without a USE_VALGRIND build of PostgreSQL, memcheck cannot see overruns
# inside palloc chunks, but it does see every read or write outside malloc'd
# blocks (every palloc of 8 kB or more is its own block, so every table of a
# non-trivial filter is), uses of uninitialised memory, and bad frees.
# PostgreSQL itself has known, harmless memcheck reports (padding written to
# disk, ld.so's over-read while loading a library, shared invalidation
# messages read back); any other invalid
# read/write/free or use of uninitialised memory fails the run, with or
# without a frame in the extension's sources.
#
# Nothing outside a private temporary directory is touched:
#   * PostgreSQL's own tree (/usr/lib/postgresql/N, /usr/share/postgresql/N)
#     is copied there.  PostgreSQL finds its share and lib directories
#     relative to the running binary, so the copy's postgres and pg_config
#     use the copy, and `make install` with the copy's pg_config installs the
#     instrumented cuckoo.so there, never over the normal build.
#   * The sources, without any build output, are copied there and
#     built with COPT="-fsanitize=undefined -g -O1 ..." (PGXS adds COPT to
#     the compile and link flags); bitcode is skipped (with_llvm=no).
#
# Usage: bash test/pg/sanitize.sh [test ...]
#   As root or as a user that can run initdb.  With test names, runs only
#   those pg_regress tests (default: the Makefile's REGRESS list, all 26
#   files, what the complete run runs: 950 s at load 2-3, the longest
#   golden_split, bulk, agg and golden_v2; "cuckoo_basic cuckoo_types
#   cuckoo_input cuckoo_plpgsql cuckoo_golden" takes about 1); test/pg/plpgsql_model.sql then runs with
#   MODEL_RUNS (default 40) runs of 300 steps.  KEEP=1 keeps the temporary directory
#   (valgrind logs, server log, regression.diffs); CUCKOO_SRC=dir builds the
#   sources in dir instead of this checkout (to check the harness itself).
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
PG_VERSION=$("$PG_CONFIG" --version | sed -E 's/^PostgreSQL ([0-9]+).*/\1/')
SAN_FLAGS="-fsanitize=undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer -g -O1"
t0=$SECONDS

if ! command -v valgrind > /dev/null; then
	echo "sanitize: valgrind is not installed"
	exit 1
fi

work=$(mktemp -d -t cuckoo-sanitize.XXXXXX)
chmod 755 "$work"
pgpid=""
cleanup() {
	if [ -n "$pgpid" ]; then
		$RUN "$inst_bin/pg_ctl" -D "$work/data" -m immediate stop > /dev/null 2>&1
	fi
	if [ -z "${KEEP:-}" ]; then rm -rf "$work"; else echo "sanitize: kept $work"; fi
}
trap cleanup EXIT

# the server must not run as root
if [ "$(id -u)" -eq 0 ]; then RUN="runuser -u postgres --"; else RUN=""; fi

# 1. a private copy of PostgreSQL
libdir=$("$PG_CONFIG" --bindir | sed 's|/bin$||')	# /usr/lib/postgresql/15
sharedir=$("$PG_CONFIG" --sharedir)				# /usr/share/postgresql/15
incdir=$(dirname "$("$PG_CONFIG" --includedir-server)")	# /usr/include/postgresql/15
inst=$work/inst
mkdir -p "$inst$(dirname "$libdir")" "$inst$(dirname "$sharedir")" "$inst$(dirname "$incdir")"
cp -a "$libdir" "$inst$(dirname "$libdir")/"
cp -a "$sharedir" "$inst$(dirname "$sharedir")/"
ln -s "$incdir" "$inst$incdir"
rm -f "$inst$libdir/lib/cuckoo.so" "$inst$sharedir"/extension/cuckoo*
inst_bin=$inst$libdir/bin
inst_pg_config=$inst_bin/pg_config
if [ "$("$inst_pg_config" --pkglibdir)" != "$inst$libdir/lib" ]; then
	echo "sanitize: the copied pg_config does not relocate ($("$inst_pg_config" --pkglibdir))"
	exit 1
fi

# 2. the sources, built with the sanitizers and installed into the copy
mkdir -p "$work/src"
src=${CUCKOO_SRC:-$top}
# a clean copy (test/pg/copytree.sh, no git needed): never objects built
# without the sanitizers
bash "$top/test/pg/copytree.sh" "$src" "$work/src" || exit 1
if ! make -s -C "$work/src" PG_CONFIG="$inst_pg_config" with_llvm=no COPT="$SAN_FLAGS" install > "$work/build.log" 2>&1; then
	cat "$work/build.log"
	echo "sanitize: build failed"
	exit 1
fi
if [ "$(nm -D "$inst$libdir/lib/cuckoo.so" | grep -c __ubsan_handle)" -eq 0 ]; then
	echo "sanitize: the installed cuckoo.so is not instrumented"
	exit 1
fi
echo "sanitize: UBSan build installed into $inst ($((SECONDS - t0)) s)"

# 3. a cluster on the copy; the postmaster and every backend under valgrind
mkdir -p "$work/data" "$work/vg" "$work/sock"
chown -R "$( [ -n "$RUN" ] && echo postgres || id -un )" "$work/data" "$work/vg" "$work/sock"
$RUN "$inst_bin/initdb" -D "$work/data" -A trust -U postgres -E UTF8 --locale=C.UTF-8 --no-sync > "$work/initdb.log" 2>&1 || {
	cat "$work/initdb.log"; echo "sanitize: initdb failed"; exit 1; }
port=$((20000 + RANDOM % 20000))
$RUN env UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1" \
	valgrind --quiet --trace-children=yes --leak-check=no --error-limit=no --num-callers=40 \
	--log-file="$work/vg/%p.log" \
	"$inst_bin/postgres" -D "$work/data" -p "$port" -k "$work/sock" -c listen_addresses= \
	-c fsync=off -c max_parallel_workers_per_gather=2 > "$work/server.log" 2>&1 &
for i in $(seq 120); do
	"$inst_bin/pg_isready" -q -h "$work/sock" -p "$port" && break
	sleep 1
done
if ! "$inst_bin/pg_isready" -q -h "$work/sock" -p "$port"; then
	cat "$work/server.log"
	echo "sanitize: the server did not start"
	exit 1
fi
pgpid=started

# 4. the whole suite, as test/pg/regress.sh runs it
export PGHOST=$work/sock PGPORT=$port PGUSER=postgres
t1=$SECONDS
if [ $# -gt 0 ]; then
	make -s -C "$work/src" PG_CONFIG="$inst_pg_config" installcheck REGRESS="$*" > "$work/regress.log" 2>&1
else
	make -s -C "$work/src" PG_CONFIG="$inst_pg_config" installcheck > "$work/regress.log" 2>&1
fi
status=$?
cat "$work/regress.log" | grep -E '^(test|ok|not ok| *[0-9]+ of)|tests? (passed|failed)' || true
echo "sanitize: pg_regress took $((SECONDS - t1)) s"
# random operations on PL/pgSQL variables (expanded objects), also watched
t1=$SECONDS
model=$("$inst_bin/psql" -X -q -At -v ON_ERROR_STOP=1 -v runs="${MODEL_RUNS:-40}" -v steps=300 \
	-d postgres -c 'CREATE EXTENSION IF NOT EXISTS cuckoo' -f "$work/src/test/pg/plpgsql_model.sql" 2>&1)
mstatus=$?
echo "sanitize: plpgsql_model (runs|failed|first problem): $model ($((SECONDS - t1)) s)"
if [ "$mstatus" -ne 0 ] || ! printf '%s\n' "$model" | grep -qE '^[0-9]+\|0\|$'; then
	echo "sanitize: plpgsql_model failed"
	status=1
fi
$RUN "$inst_bin/pg_ctl" -D "$work/data" -m fast stop > /dev/null
pgpid=""

# 5. the verdict
fail=0
if [ "$status" -ne 0 ]; then
	echo "sanitize: pg_regress or plpgsql_model failed"
	[ -f "$work/src/regression.diffs" ] && head -200 "$work/src/regression.diffs"
	fail=1
fi
# valgrind error blocks (blank-line separated) with a frame in our sources,
# but for ld.so's known over-read while loading a library (below): the
# extension's ExecutorStart hook (the run-time join filters) is on the stack
# of every query, so a library PostgreSQL loads during one (llvmjit.so, when
# a plan is costly enough to be JIT-compiled) has our frame under ld.so's
ours=$(cat "$work"/vg/*.log 2>/dev/null | awk -v RS='==[0-9]+== \n' '/cuckoo[a-z_]*\.c:|cuckoo\.so/ && !/dl-load\.c|_dl_map_object|_dl_open/' )
if [ -n "$ours" ]; then
	echo "sanitize: valgrind reports in the extension's code:"
	printf '%s\n' "$ours" | head -300
	fail=1
fi
# memory errors anywhere (a bad write in the extension can surface in
# PostgreSQL's code), except ld.so's known over-read while loading a library
# and the reading of shared invalidation messages: PostgreSQL marks their
# bytes defined with VALGRIND_MAKE_MEM_DEFINED (inval.c), which is a no-op in
# a build without USE_VALGRIND such as Debian's, so memcheck reports their
# use (seen: smgrclosenode <- ReceiveSharedInvalidMessages during a TRUNCATE)
bad=$(cat "$work"/vg/*.log 2>/dev/null | awk -v RS='==[0-9]+== \n' \
	'/Invalid (read|write)|Invalid free|Mismatched free|Conditional jump|Use of uninitialised value/ && !/dl-load\.c|_dl_map_object|_dl_open/ && !(/Conditional jump|Use of uninitialised value/ && /ReceiveSharedInvalidMessages/)')
if [ -n "$bad" ] && [ -z "$ours" ]; then
	echo "sanitize: valgrind memory errors outside the extension's frames:"
	printf '%s\n' "$bad" | head -300
	fail=1
fi
others=$(cat "$work"/vg/*.log 2>/dev/null | grep -c '^==[0-9]*== [A-Z][a-z]' || true)
echo "sanitize: $others valgrind report lines in all (PostgreSQL's known harmless ones are not counted)"
if grep -E 'terminated by signal|runtime error:|was terminated' "$work/server.log"; then
	echo "sanitize: the server log shows a crash or a sanitizer report"
	fail=1
fi
echo "sanitize: total $((SECONDS - t0)) s"
if [ "$fail" -ne 0 ]; then
	KEEP=1
	echo "sanitize: FAILED"
	exit 1
fi
echo "sanitize: the pg_regress tests passed under valgrind + UBSan with no memory error or UB report"
