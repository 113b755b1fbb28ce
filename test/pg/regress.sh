#!/usr/bin/env bash
# regress.sh - runs the extension's pg_regress suite (make installcheck)
# against a throw-away PostgreSQL cluster; expects `make install` done.
#
# The cluster: test/pg/tmpcluster.sh creates it in a private temporary
# directory (UTF8, locale C.UTF-8, whatever the caller's LANG; as root the
# server runs as the postgres user), runs the suite with PGHOST/PGPORT/
# PGUSER set, and drops it.  It works for any major, a Debian package or a
# build of our own (PG_CONFIG).  Only clients write files: pg_regress
# writes results/ and the tests' \copy files go there, so the server never
# needs write access to it.
#
# The output: make runs in a private directory as a VPATH build of this
# tree, so results/, regression.out and regression.diffs never clash with a
# concurrent run in the same checkout.  On failure regression.diffs is
# printed and the directory is kept.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}

out=$(mktemp -d -t cuckoo-regress.XXXXXX)
status=0
(cd "$out" && PG_CONFIG="$PG_CONFIG" bash "$top/test/pg/tmpcluster.sh" \
	make -s -f "$top/Makefile" VPATH="$top" installcheck PG_CONFIG="$PG_CONFIG" "$@") || status=$?

if [ "$status" -ne 0 ]; then
	echo "regress: pg_regress failed (exit $status); output kept in $out"
	if [ -s "$out/regression.diffs" ]; then
		echo "=== regression.diffs"
		cat "$out/regression.diffs"
	fi
	exit 1
fi
rm -rf "$out"
echo "regress: all pg_regress tests passed"
