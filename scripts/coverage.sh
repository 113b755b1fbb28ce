#!/usr/bin/env bash
# coverage.sh - line and branch coverage of src/core and src/pg (gcc
# --coverage, reported with gcovr) for the quick run's tests and for the
# complete run's.
#
#   bash scripts/coverage.sh           both: the quick run, then the complete run
#   bash scripts/coverage.sh quick     the quick run's tests only
#
# The quick run's tests: the core unit and model tests (make check) and, on
# PostgreSQL 15, the whole pg_regress suite, the update test and the
# dump/restore test.  The complete run adds, on the same counters: the core
# model soak (SOAK_SECONDS, 120), the core tests at valgrind's workload
# (CF_TEST_SCALE=0.02), test/pg/plpgsql_model.sql, the streaming standby,
# postgres_fdw sharding and the concurrency test.  Not counted: the fuzzers
# (clang's own instrumentation), logical replication (its clusters run the
# system's PostgreSQL) and PostgreSQL 17/18.
#
# Nothing outside a private temporary directory is written: the sources are
# copied there (test/pg/copytree.sh) and built with --coverage, and so is
# PostgreSQL 15's tree (as test/pg/sanitize.sh does: the copy's pg_config
# installs the instrumented cuckoo.so into the copy).  Installs gcovr from
# Debian when it is missing.  Prints a table per run (per file: lines and
# branches taken) and the functions that no test reached; KEEP=1 keeps the
# directory (with an HTML report of each run).
#   PG_CONFIG     the PostgreSQL 15 to copy (Debian's package by default)
#   CUCKOO_SRC    measure the sources in this directory instead of this
#                 checkout (say a worktree of an older commit), with this
#                 script and this checkout's test drivers
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
what=${1:-both}
case $what in quick | both) ;; *) echo "usage: bash scripts/coverage.sh [quick]"; exit 2 ;; esac
export LC_ALL=C.UTF-8 LANG=C.UTF-8 LANGUAGE=
PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
SOAK_SECONDS=${SOAK_SECONDS:-120}
SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
t0=$SECONDS

if ! command -v gcovr > /dev/null; then
	echo "coverage: installing gcovr (Debian)"
	{ $SUDO apt-get update -qq && $SUDO env DEBIAN_FRONTEND=noninteractive \
		apt-get install -y -qq --no-install-recommends gcovr; } > /dev/null 2>&1 ||
		{ echo "coverage: could not install gcovr"; exit 1; }
fi

work=$(mktemp -d -t cuckoo-coverage.XXXXXX)
chmod 755 "$work"
cleanup() { if [ -z "${KEEP:-}" ]; then rm -rf "$work"; else echo "coverage: kept $work"; fi; }
trap cleanup EXIT

# 1. the sources, instrumented
src=$work/src
bash "$top/test/pg/copytree.sh" "${CUCKOO_SRC:-$top}" "$src" || exit 1
# the test drivers of this checkout (they do not change what is measured)
mkdir -p "$src/test/pg" && cp "$top"/test/pg/*.sh "$top"/test/pg/*.sql "$src/test/pg/"

# 2. a private copy of PostgreSQL 15 (as test/pg/sanitize.sh)
libdir=$("$PG_CONFIG" --bindir | sed 's|/bin$||')
sharedir=$("$PG_CONFIG" --sharedir)
incdir=$(dirname "$("$PG_CONFIG" --includedir-server)")
inst=$work/inst
mkdir -p "$inst$(dirname "$libdir")" "$inst$(dirname "$sharedir")" "$inst$(dirname "$incdir")"
cp -a "$libdir" "$inst$(dirname "$libdir")/"
cp -a "$sharedir" "$inst$(dirname "$sharedir")/"
ln -s "$incdir" "$inst$incdir"
rm -f "$inst$libdir/lib/cuckoo.so" "$inst$sharedir"/extension/cuckoo*
pgc=$inst$libdir/bin/pg_config
if ! make -s -C "$src" PG_CONFIG="$pgc" with_llvm=no COPT="--coverage -O0 -g" install > "$work/build.log" 2>&1; then
	cat "$work/build.log"; echo "coverage: the instrumented build failed"; exit 1
fi
# the backends (user postgres) write their counters next to the objects
chmod -R a+rwX "$src"
echo "coverage: instrumented build installed ($((SECONDS - t0)) s)"

report() {	# report NAME: the table and the functions no test reached
	local name=$1
	echo
	echo "=== coverage of the $name run"
	(cd "$src" && gcovr -r . -f 'src/core/' -f 'src/pg/' --exclude-unreachable-branches \
		--json-summary "$work/$name.json" --json "$work/$name.functions.json" \
		--html-details "$work/$name.html" > /dev/null 2>&1)
	python3 - "$work/$name.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
print("  %-28s %6s %6s %7s %6s %6s %7s" % ("file", "lines", "taken", "%", "branch", "taken", "%"))
def pct(a, b):
    return "%6.1f%%" % (100.0 * a / b) if b else "      -"
tot = {}
for f in sorted(d["files"], key=lambda f: f["filename"]):
    print("  %-28s %6d %6d %7s %6d %6d %7s" % (f["filename"], f["line_total"], f["line_covered"],
          pct(f["line_covered"], f["line_total"]), f["branch_total"], f["branch_covered"],
          pct(f["branch_covered"], f["branch_total"])))
    d2 = f["filename"].split("/")[1]
    t = tot.setdefault(d2, [0, 0, 0, 0])
    t[0] += f["line_total"]; t[1] += f["line_covered"]; t[2] += f["branch_total"]; t[3] += f["branch_covered"]
for k, t in sorted(tot.items()):
    print("  %-28s %6d %6d %7s %6d %6d %7s" % ("src/" + k + " (all)", t[0], t[1], pct(t[1], t[0]), t[2], t[3], pct(t[3], t[2])))
EOF
	echo "  functions no test reached (xxHash's, from its header, left out):"
	python3 - "$work/$name.functions.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
for f in sorted(d["files"], key=lambda f: f["file"]):
    names = sorted({(g["lineno"], g["name"]) for g in f.get("functions", [])
                    if g["execution_count"] == 0 and not g["name"].startswith("XXH")})
    seen = {g["name"] for g in f.get("functions", []) if g["execution_count"] > 0}
    names = [n for n in names if n[1] not in seen]
    if names:
        print("    %s: %s" % (f["file"], ", ".join("%s (line %d)" % (n, l) for l, n in names)))
EOF
}

# 3. the quick run's tests
status=0
make -s -C "$src/test/core" build/test_core CC="gcc --coverage" > "$work/core-build.log" 2>&1 ||
	{ cat "$work/core-build.log"; echo "coverage: core build failed"; exit 1; }
(cd "$src/test/core" && ./build/test_core > "$work/core.log" 2>&1) || { tail -20 "$work/core.log"; status=1; }
echo "coverage: core tests done ($((SECONDS - t0)) s)"
for t in regress update dump_restore; do
	PG_CONFIG="$pgc" bash "$src/test/pg/$t.sh" > "$work/$t.log" 2>&1 || { tail -30 "$work/$t.log"; status=1; }
	echo "coverage: test/pg/$t.sh done ($((SECONDS - t0)) s)"
done
report quick

# 4. the complete run's further tests, on the same counters
if [ "$what" = both ]; then
	(cd "$src/test/core" && CF_TEST_SECONDS=$SOAK_SECONDS ./build/test_core soak > "$work/soak.log" 2>&1 &&
		CF_TEST_SCALE=0.02 ./build/test_core > "$work/core-reduced.log" 2>&1) || status=1
	echo "coverage: core soak and reduced workload done ($((SECONDS - t0)) s)"
	# (not test/pg/replica_identity.sh: it makes its clusters with Debian's
	# pg_createcluster, which runs the system's PostgreSQL, not this copy)
	for t in test/pg/streaming.sh test/fdw/run.sh test/pg/seen_concurrency.sh; do
		if [ -f "$src/$t" ]; then
			PG_CONFIG="$pgc" timeout 600 bash "$src/$t" > "$work/$(basename "$t").log" 2>&1 ||
				{ tail -20 "$work/$(basename "$t").log"; status=1; }
			echo "coverage: $t done ($((SECONDS - t0)) s)"
		fi
	done
	# PL/pgSQL variables (expanded objects), as test/pg/sanitize.sh runs them
	PG_CONFIG="$pgc" bash "$src/test/pg/tmpcluster.sh" bash -c \
		'psql -X -q -At -v ON_ERROR_STOP=1 -v runs=40 -v steps=300 -d postgres -c "CREATE EXTENSION cuckoo" -f "$0"' \
		"$src/test/pg/plpgsql_model.sql" > "$work/plpgsql_model.log" 2>&1 || { tail -20 "$work/plpgsql_model.log"; status=1; }
	report complete
fi
echo
echo "coverage: $((SECONDS - t0)) s in all"
[ "$status" -eq 0 ] || echo "coverage: some tests failed (the figures count what ran)"
exit "$status"
