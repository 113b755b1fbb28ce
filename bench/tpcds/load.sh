#!/usr/bin/env bash
# load.sh - loads TPC-DS data made by the kit's dsdgen into a kept PostgreSQL
# cluster of PG_CONFIG's server, with the cuckoo extension installed and the
# library preloaded (session_preload_libraries = 'cuckoo', so the join
# pre-filter's planner hook is there in every session).  The kit is NOT part of
# this repository: see bench/tpcds/README.md for how to fetch and build it.
#
#   PG_CONFIG=... bash bench/tpcds/load.sh --kit KIT --data DATA --dir DIR [--port N]
#                                          [--conf 'name=value' ...]
#   PG_CONFIG=... bash bench/tpcds/load.sh --dir DIR --start | --stop
#
#   --kit DIR    the tpcds-kit checkout (its tools/tpcds.sql and tools/tpcds_ri.sql
#                give the schema, primary keys and the foreign-key columns)
#   --data DIR   dsdgen's *.dat files (with or without "-terminate n": a trailing
#                '|' is stripped while loading when the file has one)
#   --dir DIR    where the cluster lives: DIR/data (PGDATA), DIR/sock (its unix
#                socket, no TCP), DIR/log; an existing DIR/data is refused (use
#                --start, or remove DIR to reload)
#   --port N     the port number of the socket (default 5447)
#   --conf S     an extra server setting written to postgresql.conf (repeatable)
#   --indexes M  fk (default), date-item or none: which indexes besides the keys
#   --reindex    on a loaded, running cluster: switch its indexes to --indexes M
#                (needs --kit), then ANALYZE
#   --start / --stop   start or stop an already loaded cluster
#
# What is built (the "keys + FK indexes" of issue 47's targets): every table of
# tools/tpcds.sql with its primary key; a B-tree index on every column that
# tools/tpcds_ri.sql declares a foreign key on (the date and item keys of the
# fact tables among them; the constraints themselves are not created); an index
# on date_dim(d_date); then VACUUM ANALYZE.  The database is "tpcds".
# --indexes date-item keeps only the date and item key indexes (the "keys +
# date/item indexes" of 1.4's run in the issue).
#
# Server settings (postgresql.conf, besides --conf): shared_buffers = 1GB,
# fsync = off, jit = off (JIT compiles in the hundreds of ms swing with the
# machine's load and would be measured instead of the joins; --conf jit=on puts
# it back), max_parallel_workers_per_gather left at PostgreSQL's default (2).
# As root the server runs as the postgres user.
set -euo pipefail
PG_CONFIG=${PG_CONFIG:-pg_config}
bindir=$("$PG_CONFIG" --bindir)
kit="" data="" dir="" port=5447 action=load indexes=fk
confs=()
while [ $# -gt 0 ]; do
	case "$1" in
	--kit) kit=$2; shift 2 ;;
	--data) data=$2; shift 2 ;;
	--dir) dir=$2; shift 2 ;;
	--port) port=$2; shift 2 ;;
	--conf) confs+=("$2"); shift 2 ;;
	--indexes) indexes=$2; shift 2 ;;
	--reindex) action=reindex; shift ;;
	--start) action=start; shift ;;
	--stop) action=stop; shift ;;
	*) echo "load.sh: unknown argument $1" >&2; exit 2 ;;
	esac
done
[ -n "$dir" ] || { echo "load.sh: --dir is required" >&2; exit 2; }
export LC_ALL=C.UTF-8 LANG=C.UTF-8

if [ "$(id -u)" -eq 0 ]; then
	as_owner() { (cd / && runuser -u postgres -- "$@"); }
	owner=postgres
else
	as_owner() { "$@"; }
	owner=$(id -un)
fi

start() {
	as_owner "$bindir/pg_ctl" -D "$dir/data" -l "$dir/log/server.log" -w -t 300 start > /dev/null
	echo "load.sh: server running: PGHOST=$dir/sock PGPORT=$port PGDATABASE=tpcds PGUSER=postgres"
}
# index_sql KIT MODE: the CREATE INDEX statements of MODE, one a line:
#   fk         every column tools/tpcds_ri.sql declares a foreign key on, and date_dim(d_date)
#   date-item  only those of the date keys (*date_sk) and item keys (*item_sk), and date_dim(d_date)
#   none       none (the primary keys only)
index_sql() {
	local re='.'
	case $2 in
	fk) ;;
	date-item) re='(date|item)_sk$' ;;
	none) return 0 ;;
	*) echo "load.sh: --indexes is fk, date-item or none, not $2" >&2; exit 2 ;;
	esac
	# commented lines of tpcds_ri.sql skipped
	grep -i '^ *alter table .* foreign key' "$1/tools/tpcds_ri.sql" |
		sed -E 's/^ *alter table +([a-z_]+) +add +constraint +([a-z0-9_]+) +foreign key *\(([a-z_]+)\).*/\1 \3/I' |
		sort -u | while read -r t c; do
			[[ $c =~ $re ]] && echo "CREATE INDEX IF NOT EXISTS ${t}_${c}_idx ON $t ($c);"
		done
	echo "CREATE INDEX IF NOT EXISTS date_dim_d_date_idx ON date_dim (d_date);"
}
# make_indexes KIT MODE: drops this script's indexes (*_idx) that MODE has not, creates
# the missing ones, ANALYZE
make_indexes() {
	index_sql "$1" "$2" > "$dir/log/indexes-$2.sql"
	local keep
	keep=$(sed -E 's/.* EXISTS ([a-z0-9_]+) ON .*/\1/' "$dir/log/indexes-$2.sql" | sort)
	for i in $(psql -X -A -t -c "SELECT indexrelid::regclass FROM pg_index JOIN pg_class c ON c.oid = indexrelid WHERE c.relname LIKE '%\\_idx' AND c.relnamespace = 'public'::regnamespace ORDER BY 1"); do
		grep -qx "$i" <<< "$keep" || psql -X -q -v ON_ERROR_STOP=1 -c "DROP INDEX $i"
	done
	echo "load.sh: indexes $2: $(wc -l < "$dir/log/indexes-$2.sql") besides the primary keys"
	PGOPTIONS="-c client_min_messages=warning" psql -X -q -v ON_ERROR_STOP=1 -f "$dir/log/indexes-$2.sql"
}

case $action in
start) start; exit 0 ;;
stop) as_owner "$bindir/pg_ctl" -D "$dir/data" -m fast -w stop; exit 0 ;;
reindex)
	[ -f "$kit/tools/tpcds_ri.sql" ] || { echo "load.sh: --reindex needs --kit" >&2; exit 2; }
	export PGHOST=$dir/sock PGPORT=$port PGUSER=postgres PGDATABASE=tpcds
	make_indexes "$kit" "$indexes"
	psql -X -q -v ON_ERROR_STOP=1 -c "ANALYZE"
	exit 0 ;;
esac

[ -n "$kit" ] && [ -n "$data" ] || { echo "load.sh: --kit and --data are required" >&2; exit 2; }
[ -f "$kit/tools/tpcds.sql" ] || { echo "load.sh: no $kit/tools/tpcds.sql" >&2; exit 1; }
[ -f "$data/store_sales.dat" ] || { echo "load.sh: no $data/store_sales.dat (run dsdgen)" >&2; exit 1; }
[ -e "$dir/data" ] && { echo "load.sh: $dir/data exists: --start it, or remove $dir to reload" >&2; exit 1; }

mkdir -p "$dir/data" "$dir/sock" "$dir/log"
chmod 755 "$dir"
chown "$owner" "$dir/data" "$dir/sock" "$dir/log"
as_owner "$bindir/initdb" -D "$dir/data" -U postgres -A trust -E UTF8 --locale=C.UTF-8 --no-sync > "$dir/log/initdb.log"
{
	echo "port = $port"
	echo "listen_addresses = ''"
	echo "unix_socket_directories = '$dir/sock'"
	echo "session_preload_libraries = 'cuckoo'"
	echo "shared_buffers = 1GB"
	echo "fsync = off"
	echo "synchronous_commit = off"
	echo "jit = off"
	echo "max_wal_size = 4GB"
	echo "maintenance_work_mem = 512MB"
	for c in "${confs[@]+"${confs[@]}"}"; do echo "$c"; done
} >> "$dir/data/postgresql.conf"
start
export PGHOST=$dir/sock PGPORT=$port PGUSER=postgres
psql -X -q -v ON_ERROR_STOP=1 -d postgres -c "CREATE DATABASE tpcds"
export PGDATABASE=tpcds
psql -X -q -v ON_ERROR_STOP=1 -c "CREATE EXTENSION cuckoo"
psql -X -q -v ON_ERROR_STOP=1 -f "$kit/tools/tpcds.sql"

t0=$(date +%s)
tables=$(psql -X -A -t -c "SELECT relname FROM pg_class WHERE relkind = 'r' AND relnamespace = 'public'::regnamespace ORDER BY 1")
for t in $tables; do
	f="$data/$t.dat"
	[ -f "$f" ] || { echo "load.sh: no $f, $t left empty"; continue; }
	# dsdgen writes Latin-1 (customer.dat has some non-ASCII names).  Without
	# "-terminate n" every line ends in the delimiter, which COPY would read as
	# one more column: stripped then (seen from the first line's field count)
	ncols=$(psql -X -A -t -c "SELECT count(*) FROM pg_attribute WHERE attrelid = '$t'::regclass AND attnum > 0 AND NOT attisdropped")
	nf=$(head -1 "$f" | awk -F'|' '{print NF}')
	strip='s/^//'
	[ "$nf" -eq $((ncols + 1)) ] && strip='s/|$//'
	sed "$strip" "$f" | psql -X -q -v ON_ERROR_STOP=1 \
		-c "\\copy $t FROM STDIN WITH (FORMAT text, DELIMITER '|', NULL '', ENCODING 'LATIN1')"
	echo "load.sh: $t $(psql -X -A -t -c "SELECT count(*) FROM $t") rows"
done

make_indexes "$kit" "$indexes"
psql -X -q -v ON_ERROR_STOP=1 -c "VACUUM ANALYZE"
echo "load.sh: loaded in $(( $(date +%s) - t0 )) s; $(psql -X -A -t -c "SELECT pg_size_pretty(pg_database_size('tpcds'))")"
