#!/usr/bin/env bash
# regress.sh - runs the extension's pg_regress suite (make installcheck)
# against a throw-away PostgreSQL 15 cluster; expects `make install` done.
#
# pg_virtualenv creates the cluster, runs the suite with PGHOST/PGPORT/PGUSER
# set and drops the cluster.  As root it would use the fixed cluster name
# 15/regress under /etc/postgresql, which collides with any other suite
# running at the same time; -t puts the cluster in a private temporary
# directory instead (the server still runs as the postgres user).  The
# clients (pg_regress, psql's \copy) run as the caller and write results/
# here, so nothing needs to be made writable for the server.
set -uo pipefail
cd "$(dirname "$0")/../.."
PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
PG_VERSION=$("$PG_CONFIG" --version | sed -E 's/^PostgreSQL ([0-9]+).*/\1/')

rm -rf results regression.diffs regression.out
status=0
pg_virtualenv -t -v "$PG_VERSION" \
	make -s installcheck PG_CONFIG="$PG_CONFIG" || status=$?

if [ "$status" -ne 0 ]; then
	echo "regress: pg_regress failed (exit $status)"
	if [ -f regression.diffs ]; then
		echo "=== regression.diffs"
		cat regression.diffs
	fi
	exit 1
fi
echo "regress: all pg_regress tests passed"
