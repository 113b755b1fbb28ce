#!/usr/bin/env bash
# tmpcluster.sh - runs a command against a throw-away PostgreSQL cluster of
# the server that $PG_CONFIG belongs to (any major, a Debian package or a
# build of our own), then stops and removes the cluster.
#
# The cluster does not depend on the caller's environment: it is created
# with -E UTF8 under the C.UTF-8 locale (glibc always has it, generated or
# not), whatever LANG says, listens on a unix socket in a private temporary
# directory only (no TCP port to collide on), and trusts local connections.
# As root the server runs as the postgres user (PostgreSQL refuses root);
# as anyone else it runs as the caller.  The command gets PGHOST, PGPORT,
# PGUSER=postgres and PGDATABASE=postgres, and the server's bin directory
# first in PATH.  Its exit status is this script's.
#
# Usage: PG_CONFIG=... bash test/pg/tmpcluster.sh COMMAND [ARG...]
#   TMPCLUSTER_OPTS  extra "-c name=value" settings for the server
set -uo pipefail
PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
bindir=$("$PG_CONFIG" --bindir) || exit 1
[ $# -gt 0 ] || { echo "usage: tmpcluster.sh COMMAND [ARG...]" >&2; exit 2; }
export LC_ALL=C.UTF-8 LANG=C.UTF-8 LANGUAGE=

if [ "$(id -u)" -eq 0 ]; then
	owner=postgres
	id postgres > /dev/null 2>&1 || { echo "tmpcluster: no postgres user to run the server" >&2; exit 1; }
	as_owner() { (cd / && runuser -u postgres -- "$@"); }
else
	owner=$(id -un)
	as_owner() { "$@"; }
fi

dir=$(mktemp -d -t cuckoo-cluster.XXXXXX) || exit 1
chmod 755 "$dir"
mkdir -p "$dir/data" "$dir/sock" "$dir/log"
chown "$owner" "$dir/data" "$dir/sock" "$dir/log"
started=""
cleanup() {
	[ -n "$started" ] && as_owner "$bindir/pg_ctl" -D "$dir/data" -m immediate -w stop > /dev/null 2>&1
	rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if ! as_owner "$bindir/initdb" -D "$dir/data" -U postgres -A trust -E UTF8 --locale=C.UTF-8 \
	--no-sync > "$dir/initdb.log" 2>&1; then
	cat "$dir/initdb.log" >&2
	echo "tmpcluster: initdb failed" >&2
	exit 1
fi
port=$((20000 + RANDOM % 20000))
if ! as_owner "$bindir/pg_ctl" -D "$dir/data" -l "$dir/log/server.log" -w -t 120 \
	-o "-p $port -k $dir/sock -c listen_addresses= -c fsync=off ${TMPCLUSTER_OPTS:-}" \
	start > /dev/null; then
	cat "$dir/log/server.log" >&2
	echo "tmpcluster: the server did not start" >&2
	exit 1
fi
started=1
export PGHOST=$dir/sock PGPORT=$port PGUSER=postgres PGDATABASE=postgres
# the server's log, for a command that reports what the server said (a crash)
export TMPCLUSTER_LOG=$dir/log/server.log
export PATH=$bindir:$PATH
"$@"
status=$?
if grep -qE 'terminated by signal|PANIC' "$dir/log/server.log"; then
	grep -E 'terminated by signal|PANIC' "$dir/log/server.log" >&2
	echo "tmpcluster: the server log shows a crash" >&2
	status=1
fi
exit "$status"
