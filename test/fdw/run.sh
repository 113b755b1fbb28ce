#!/usr/bin/env bash
# run.sh - cuckoo on a sharded table: a coordinator and two shards of PostgreSQL 15,
# postgres_fdw foreign partitions, filters pushed to the shards and merged back.
#
#   test/fdw/run.sh            the test: PASS/FAIL lines, then "fdw: N passed, M failed"
#   test/fdw/run.sh --measure  the semi-join measurement quoted in docs/scaling-out.md
#   test/fdw/run.sh --keep     leave the clusters running (prints how to reach them)
#
# Needs the extension installed (make install) and postgresql-15 (postgres_fdw is in it).
# Run as root (the clusters run as "postgres" through runuser) or as any other user
# (the clusters then run as that user).  Everything lives in one fresh temp directory,
# the servers listen on unix sockets there only, and a trap stops and removes them.
set -uo pipefail

PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
PGBIN=$("$PG_CONFIG" --bindir 2>/dev/null || echo /usr/lib/postgresql/15/bin)
MODE=test KEEP=0
for a in "$@"; do
	case $a in
		--measure) MODE=measure ;;
		--keep) KEEP=1 ;;
		-h|--help) sed -n '2,11p' "$0"; exit 0 ;;
		*) echo "run.sh: unknown argument $a" >&2; exit 2 ;;
	esac
done

# sizes: the test finishes well under a minute on 2 cores; --measure is bigger
N_ROWS=${FDW_ROWS:-300000}          # rows in the sharded table (test)
M_BIG=${FDW_MEASURE_BIG:-2000000}   # sharded table (--measure)
M_SMALL=${FDW_MEASURE_SMALL:-50000} # local table (--measure)
NPART=4                             # hash partitions, two on each shard
STMT_TIMEOUT=${FDW_STATEMENT_TIMEOUT:-120s}

pass=0 fail=0
ok()   { pass=$((pass + 1)); echo "PASS: $*"; }
bad()  { fail=$((fail + 1)); echo "FAIL: $*"; }
# check NAME CONDITION-STRING-FOR-[[ ]] [detail shown on failure]
check() { if eval "[[ $2 ]]"; then ok "$1"; else bad "$1${3:+ ($3)}"; fi; }
die()  { bad "$*"; finish; }
finish() {
	echo; echo "fdw: $pass passed, $fail failed"
	[ "$fail" -eq 0 ] && exit 0 || exit 1
}

# ---- run things as the cluster owner ----
if [ "$(id -u)" -eq 0 ]; then
	OWNER=postgres
	as_owner() { runuser -u postgres -- "$@"; }
else
	OWNER=$(id -un)
	as_owner() { "$@"; }
fi

TMP=$(mktemp -d /tmp/cuckoo-fdw.XXXXXXXX) || { echo "run.sh: mktemp failed"; exit 1; }
chown "$OWNER" "$TMP" 2>/dev/null
chmod 700 "$TMP"
cd "$TMP" || exit 1

NODES=(coord shard1 shard2)
declare -A PORT
STARTED=()

cleanup() {
	local rc=$?
	if [ "$KEEP" -eq 1 ]; then
		echo "kept: ${TMP} (psql -h ${TMP} -p ${PORT[coord]:-?} cuckoo_fdw); stop with:"
		for n in "${STARTED[@]}"; do echo "  $PGBIN/pg_ctl -D $TMP/$n stop -m immediate"; done
		return $rc
	fi
	for n in "${STARTED[@]}"; do
		as_owner timeout 30 "$PGBIN/pg_ctl" -D "$TMP/$n" stop -m immediate -w >/dev/null 2>&1 ||
			{ [ -f "$TMP/$n/postmaster.pid" ] && kill -9 "$(head -1 "$TMP/$n/postmaster.pid")" 2>/dev/null; }
	done
	cd / && rm -rf "$TMP"
	return $rc
}
trap cleanup EXIT
trap 'echo "run.sh: interrupted"; exit 130' INT TERM HUP

# A port nobody listens on (TCP 127.0.0.1, though we only use unix sockets) and
# not yet handed out here.  Bounded: 200 tries.
free_port() {
	local p i used
	for ((i = 0; i < 200; i++)); do
		p=$((20000 + (RANDOM * 32768 + RANDOM) % 40000))
		used=0
		for q in "${PORT[@]}"; do [ "$q" = "$p" ] && used=1; done
		[ $used -eq 1 ] && continue
		[ -e "$TMP/.s.PGSQL.$p" ] && continue
		(exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null && continue
		echo "$p"; return 0
	done
	return 1
}

# psql NODE [psql args]: SQL from stdin or -c; unaligned, tuples only, stops on error
export PGCONNECT_TIMEOUT=10
psql_on() {
	local n=$1; shift
	as_owner env PGCONNECT_TIMEOUT=10 PGOPTIONS="-c statement_timeout=$STMT_TIMEOUT" \
		timeout 300 "$PGBIN/psql" -X -q -At -v ON_ERROR_STOP=1 \
		-h "$TMP" -p "${PORT[$n]}" -U postgres -d cuckoo_fdw "$@"
}
# one value from a query
val() { local n=$1; shift; psql_on "$n" -c "$*" 2>>"$TMP/errors.log" | tail -n 1; }

# ---- the three clusters ----
start_node() {
	local n=$1 dir=$TMP/$1 p
	p=$(free_port) || { echo "no free port"; return 1; }
	PORT[$n]=$p
	as_owner "$PGBIN/initdb" -D "$dir" -U postgres -A trust -E UTF8 --locale=C \
		--no-sync --no-instructions >"$TMP/$n.initdb.log" 2>&1 ||
		{ cat "$TMP/$n.initdb.log"; return 1; }
	as_owner tee -a "$dir/postgresql.conf" >/dev/null <<-EOF
		port = $p
		listen_addresses = ''
		unix_socket_directories = '$TMP'
		max_connections = 30
		shared_buffers = 128MB
		work_mem = 64MB
		maintenance_work_mem = 128MB
		fsync = off
		synchronous_commit = off
		full_page_writes = off
		max_wal_size = 2GB
		max_parallel_workers_per_gather = 0
		statement_timeout = '$STMT_TIMEOUT'
		idle_in_transaction_session_timeout = '300s'
		log_min_messages = warning
		logging_collector = off
	EOF
	STARTED+=("$n")
	as_owner timeout 60 "$PGBIN/pg_ctl" -D "$dir" -l "$TMP/$n.log" -w -t 50 start >/dev/null ||
		{ echo "--- $n.log"; cat "$TMP/$n.log"; return 1; }
	as_owner env PGCONNECT_TIMEOUT=10 timeout 60 "$PGBIN/psql" -X -q -h "$TMP" -p "$p" -U postgres \
		-d postgres -c "CREATE DATABASE cuckoo_fdw" >/dev/null
}

# ---- schema: the same table on the coordinator (partitioned) and the shards ----
# partition r lives on shard1 when r is even, on shard2 when it is odd
shard_of() { if (( $1 % 2 == 0 )); then echo shard1; else echo shard2; fi; }

setup_fdw() {    # setup_fdw TABLE: the sharded table TABLE(id, key, payload)
	local t=$1 r s
	for s in shard1 shard2; do
		for ((r = 0; r < NPART; r++)); do
			[ "$(shard_of $r)" = "$s" ] || continue
			echo "CREATE TABLE ${t}_p$r (id bigint NOT NULL, key bigint NOT NULL, payload text);"
		done | psql_on "$s" || return 1
	done
	{
		echo "CREATE TABLE $t (id bigint NOT NULL, key bigint NOT NULL, payload text) PARTITION BY HASH (id);"
		for ((r = 0; r < NPART; r++)); do
			echo "CREATE FOREIGN TABLE ${t}_p$r PARTITION OF $t
			        FOR VALUES WITH (MODULUS $NPART, REMAINDER $r)
			        SERVER $(shard_of $r) OPTIONS (table_name '${t}_p$r');"
		done
	} | psql_on coord
}

setup_servers() {
	local s
	for s in shard1 shard2; do
		psql_on "$s" -c "CREATE EXTENSION cuckoo" || return 1
	done
	psql_on coord <<-EOF || return 1
		CREATE EXTENSION cuckoo;
		CREATE EXTENSION postgres_fdw;
		CREATE SERVER shard1 FOREIGN DATA WRAPPER postgres_fdw
		  OPTIONS (host '$TMP', port '${PORT[shard1]}', dbname 'cuckoo_fdw',
		           extensions 'cuckoo', fetch_size '10000', batch_size '1000',
		           async_capable 'true');
		CREATE SERVER shard2 FOREIGN DATA WRAPPER postgres_fdw
		  OPTIONS (host '$TMP', port '${PORT[shard2]}', dbname 'cuckoo_fdw',
		           extensions 'cuckoo', fetch_size '10000', batch_size '1000',
		           async_capable 'true');
		CREATE USER MAPPING FOR postgres SERVER shard1 OPTIONS (user 'postgres');
		CREATE USER MAPPING FOR postgres SERVER shard2 OPTIONS (user 'postgres');

		-- the Foreign Scan nodes of a query's plan: relation, Remote SQL and
		-- (with analyze) the rows they fetched from the shards
		CREATE FUNCTION fdw_scans(q text, do_analyze boolean DEFAULT true)
		RETURNS TABLE (relation text, remote_sql text, fetched bigint)
		LANGUAGE plpgsql AS \$\$
		DECLARE
		  plan jsonb;
		BEGIN
		  EXECUTE format('EXPLAIN (VERBOSE, COSTS OFF, FORMAT JSON%s) %s',
		                 CASE WHEN do_analyze THEN ', ANALYZE, TIMING OFF, SUMMARY OFF' ELSE '' END, q)
		    INTO plan;
		  RETURN QUERY
		    SELECT coalesce(n->>'Relation Name', n->>'Relations'),
		           n->>'Remote SQL',
		           ((n->>'Actual Rows')::numeric * (n->>'Actual Loops')::numeric)::bigint
		    FROM jsonb_path_query(plan, 'strict \$.** ? (@."Node Type" == "Foreign Scan")') AS n;
		END \$\$;

		-- rows fetched by all Foreign Scans of q
		CREATE FUNCTION fdw_fetched(q text) RETURNS bigint
		LANGUAGE sql AS \$\$ SELECT sum(fetched)::bigint FROM fdw_scans(q) \$\$;

		-- how many Foreign Scans of q have Remote SQL matching the regexp pat,
		-- out of how many ("k/n")
		CREATE FUNCTION fdw_shipped(q text, pat text) RETURNS text
		LANGUAGE sql AS \$\$
		  SELECT count(*) FILTER (WHERE remote_sql ~ pat) || '/' || count(*)
		  FROM fdw_scans(q, false) \$\$;

		-- the plan of q as text, for failure messages
		CREATE FUNCTION plan_text(q text) RETURNS text
		LANGUAGE plpgsql AS \$\$
		DECLARE r text; res text := '';
		BEGIN
		  FOR r IN EXECUTE 'EXPLAIN (VERBOSE, COSTS OFF) ' || q LOOP
		    res := res || left(r, 300) || E'\n';
		  END LOOP;
		  RETURN res;
		END \$\$;
	EOF
}

# ---- bring everything up ----
for n in "${NODES[@]}"; do
	start_node "$n" || die "start cluster $n"
done
echo "clusters: coord :${PORT[coord]}, shard1 :${PORT[shard1]}, shard2 :${PORT[shard2]} (unix sockets in $TMP)"
