#!/usr/bin/env bash
# test.sh - sets up (Debian packages) and runs every cuckoo test suite.
# Ends with "N passed, M failed"; exits non-zero if anything failed.
set -uo pipefail
cd "$(dirname "$0")/.."
export PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
FUZZ_SECONDS=${FUZZ_SECONDS:-60}

if ! bash scripts/deps.sh; then
	echo "test: could not install dependencies"
	echo "0 passed, 1 failed"
	exit 1
fi

pass=0; fail=0; failed=()
run() {
	local name=$1; shift
	echo "=== $name"
	local t0=$SECONDS
	if "$@"; then
		pass=$((pass + 1)); echo "--- ok: $name ($((SECONDS - t0)) s)"
	else
		fail=$((fail + 1)); failed+=("$name"); echo "--- FAILED: $name ($((SECONDS - t0)) s)"
	fi
}

# the plain-C core, on its own
run "core: unit and model tests" make -s -C test/core check
run "core: tests under ASan+UBSan" make -s -C test/core check-asan
run "core: tests under valgrind" make -s -C test/core check-valgrind
run "core: fuzz targets, ${FUZZ_SECONDS}s each" make -s -C test/core fuzz FUZZ_SECONDS="$FUZZ_SECONDS"

# the README's SQL: every example is in the cuckoo_readme regression test
run "docs: every sql block of README.md is in sql/cuckoo_readme.sql" bash test/readme_sql.sh

# the PostgreSQL extension
run "extension: build with -Wall -Wextra -Werror" \
	make -s PG_CONFIG="$PG_CONFIG" COPT="-Wall -Wextra -Werror -Wno-unused-parameter -Wno-sign-compare -Wno-missing-field-initializers"
run "extension: install" make -s PG_CONFIG="$PG_CONFIG" install
run "extension: pg_regress suite" bash test/pg/regress.sh
run "extension: pg_dump and restore keep every answer" bash test/pg/dump_restore.sh
run "extension: logical replication with REPLICA IDENTITY FULL" bash test/pg/replica_identity.sh
# the backend under valgrind with a UBSan build of the extension (the full suite
# takes ~10 minutes: bash test/pg/sanitize.sh with no arguments)
run "extension: pg_regress under valgrind + UBSan" bash test/pg/sanitize.sh \
	cuckoo_basic cuckoo_types cuckoo_input cuckoo_plpgsql cuckoo_golden cuckoo_golden_v2 cuckoo_agg \
	cuckoo_lifecycle cuckoo_planner cuckoo_encoding cuckoo_sets cuckoo_typed cuckoo_deletes cuckoo_batch cuckoo_readme cuckoo_values
run "extension: sharded with postgres_fdw (coordinator + 2 shards)" bash test/fdw/run.sh

echo
for n in "${failed[@]}"; do echo "failed: $n"; done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
