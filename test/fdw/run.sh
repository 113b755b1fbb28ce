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
#
# What the test checks (docs/scaling-out.md marks each claim it backs with a check mark):
#   1.  cf_contains / @> with the filter as a constant, a scalar subquery, a PREPARE
#       parameter (custom and generic plans), on bigint and text columns, is in the
#       Remote SQL of every foreign scan; the rows the shards send (EXPLAIN ANALYZE
#       on the coordinator, pg_stat_statements on the shards) drop from all to the
#       matches plus false positives, and equal what the coordinator would keep
#   1b. a LATIN1 shard and a UTF8 coordinator agree on filters of non-ASCII text
#   2.  cf_agg on a foreign partition is pushed whole; per-partition filters merged
#       with cf_union_agg have no false negatives and, built at fpr / partitions,
#       a false-positive rate within 2x of a single-node filter
#   3.  filters cross nodes unchanged through postgres_fdw (text) and COPY (text and
#       binary); UPDATE ... cf_add, cf_union_agg and a cf_contains join run on a shard
#
# Knobs: FDW_ROWS (300000), FDW_MEASURE_BIG (2000000), FDW_MEASURE_SMALL (50000),
# FDW_STATEMENT_TIMEOUT (120s), PG_CONFIG.
set -uo pipefail

PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
PGBIN=$("$PG_CONFIG" --bindir 2>/dev/null || echo /usr/lib/postgresql/15/bin)
MODE=test KEEP=0
for a in "$@"; do
	case $a in
		--measure) MODE=measure ;;
		--keep) KEEP=1 ;;
		-h|--help) sed -n '2,28p' "$0"; exit 0 ;;
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
# check NAME COMMAND...: PASS when the command succeeds
check() { local name=$1; shift; if "$@"; then ok "$name"; else bad "$name"; fi; }
die()  { bad "$*"; finish; }
finish() {
	if [ "$fail" -gt 0 ] && [ -d "${TMP:-}" ]; then
		local l
		for l in "$TMP"/*.log; do
			[ -f "$l" ] && grep -E 'terminated by signal|PANIC|TRAP|server process .* was terminated' "$l" |
				head -5 | sed "s|^|  $(basename "$l"): |"
		done
	fi
	echo; echo "fdw: $pass passed, $fail failed"
	[ "$fail" -eq 0 ] && exit 0 || exit 1
}

# ---- run things as the cluster owner ----
if [ "$(id -u)" -eq 0 ]; then
	OWNER=postgres
	RUNUSER=$(command -v runuser || echo /usr/sbin/runuser)
	id postgres >/dev/null 2>&1 || { echo "run.sh: no postgres user (is postgresql-15 installed?)"; exit 1; }
	as_owner() { "$RUNUSER" -u postgres -- "$@"; }
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
# (this file is UTF-8: the client says so, whatever the database encoding)
psql_on() {
	local n=$1; shift
	as_owner env PGCONNECT_TIMEOUT=10 PGOPTIONS="-c statement_timeout=$STMT_TIMEOUT" \
		PGCLIENTENCODING=UTF8 timeout 300 "$PGBIN/psql" -X -q -At -v ON_ERROR_STOP=1 \
		-h "$TMP" -p "${PORT[$n]}" -U postgres -d "${PGDB_OVERRIDE:-cuckoo_fdw}" "$@"
}
# one value from a query
val() {
	local n=$1; shift
	psql_on "$n" -c "$*" 2>"$TMP/val.err" | tail -n 1
	[ -s "$TMP/val.err" ] && sed 's/^/  psql: /' "$TMP/val.err" | head -10 >&2
	return 0
}

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
		shared_preload_libraries = 'pg_stat_statements'
		pg_stat_statements.track_utility = on
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
		psql_on "$s" -c "CREATE EXTENSION cuckoo" -c "CREATE EXTENSION pg_stat_statements" || return 1
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
		-- (with do_analyze) the rows they received from the shards
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
		           -- rows received = rows returned + rows a local Filter removed
		           (((n->>'Actual Rows')::numeric + coalesce((n->>'Rows Removed by Filter')::numeric, 0))
		            * (n->>'Actual Loops')::numeric)::bigint
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

# kv NODE: runs the SQL on stdin in one session; every output line "name|value"
# becomes R[name]=value.  psql errors go to $TMP/errors.log and print once.
declare -A R
kv() {
	local n=$1 line k v out
	R=()
	out=$(psql_on "$n" -F '|' 2>"$TMP/kv.err")
	local rc=$?
	if [ -s "$TMP/kv.err" ]; then
		sed 's/^/  psql: /' "$TMP/kv.err" | head -20
		cat "$TMP/kv.err" >>"$TMP/errors.log"
	fi
	while IFS= read -r line; do
		k=${line%%|*}; v=${line#*|}
		[ "$k" != "$line" ] && R[$k]=$v
	done <<<"$out"
	return $rc
}
# r NAME: R[NAME] or "missing"
r() { echo "${R[$1]:-missing}"; }
isnum() { [[ $1 =~ ^-?[0-9]+$ ]]; }
# all "EXPR" ...: every numeric comparison holds (awk, so floats are fine); a
# non-numeric operand (an error's "missing") makes it false
all() {
	local e w words
	for e in "$@"; do
		read -ra words <<<"$e"
		for w in "${words[@]}"; do
			[[ $w =~ ^(-?[0-9]+(\.[0-9]+)?(e-?[0-9]+)?|[-+*/()<>=!&|]+)$ ]] || return 1
		done
		awk "BEGIN { exit !($e) }" </dev/null 2>/dev/null || return 1
	done
}

have_fn() { [ "$(val coord "SELECT count(*) FROM pg_proc WHERE proname = '$1'")" != 0 ]; }

# ======================================================================
# the test
# ======================================================================
run_tests() {
	local N=$N_ROWS
	setup_servers || die "CREATE EXTENSION cuckoo / postgres_fdw and the foreign servers"
	ok "cuckoo on the coordinator and both shards; servers with extensions 'cuckoo', fetch_size 10000"
	setup_fdw items || die "hash-partitioned table items with $NPART postgres_fdw partitions"

	local t0=$SECONDS
	psql_on coord -c "INSERT INTO items SELECT g, g * 10, md5(g::text) FROM generate_series(1, $N) g" ||
		die "load $N rows through the coordinator"
	psql_on shard1 -c "ANALYZE"; psql_on shard2 -c "ANALYZE"; psql_on coord -c "ANALYZE items"
	local c1 c2
	c1=$(val shard1 "SELECT (SELECT count(*) FROM items_p0) + (SELECT count(*) FROM items_p2)")
	c2=$(val shard2 "SELECT (SELECT count(*) FROM items_p1) + (SELECT count(*) FROM items_p3)")
	check "load: $N rows routed by the coordinator to the shards ($c1 on shard1, $c2 on shard2, $((SECONDS - t0)) s)" \
		all "$c1 + $c2 == $N" "$c1 > 0" "$c2 > 0"

	# the keys a query looks for: 1500 that are in items (key = id * 10) and 1500 that are not
	psql_on coord <<-EOF || die "the local table wanted"
		CREATE TABLE wanted (key bigint NOT NULL);
		INSERT INTO wanted SELECT (1 + (i * 197) % $N) * 10 FROM generate_series(1, 1500) i;
		INSERT INTO wanted SELECT i * 10 + 5 FROM generate_series(1, 1500) i;
		ANALYZE wanted;
		-- built with cf_create/cf_add only, so this part does not need the aggregates
		CREATE TABLE filt (f cuckoofilter);
		DO \$\$
		DECLARE f cuckoofilter := cf_create(3000, 0.001); k bigint;
		BEGIN
		  FOR k IN SELECT key FROM wanted LOOP f := cf_add(f, k); END LOOP;
		  INSERT INTO filt VALUES (f);
		END \$\$;
		-- the same 1500 present rows, by their text column (payload = md5(id::text))
		CREATE TABLE filt_text (f cuckoofilter);
		DO \$\$
		DECLARE f cuckoofilter := cf_create(3000, 0.001); k bigint;
		BEGIN
		  FOR k IN SELECT key / 10 FROM wanted WHERE key % 10 = 0 LOOP f := cf_add(f, md5(k::text)); END LOOP;
		  INSERT INTO filt_text VALUES (f);
		END \$\$;
	EOF
	test_pushdown "$N"
	test_encodings
	test_aggregates "$N"
	test_roundtrip "$N"
}

# shard_rows QUERY: runs QUERY on the coordinator and counts, on the shards, the
# rows their postgres_fdw cursors sent (pg_stat_statements' FETCH statements)
shard_rows() {
	local s total=0 n
	for s in shard1 shard2; do val "$s" "SELECT pg_stat_statements_reset()" >/dev/null; done
	psql_on coord -c "$1" >/dev/null || { echo "error"; return; }
	for s in shard1 shard2; do
		n=$(val "$s" "SELECT coalesce(sum(rows), 0) FROM pg_stat_statements WHERE query ILIKE 'FETCH %'")
		isnum "$n" || { echo "error"; return; }
		total=$((total + n))
	done
	echo "$total"
}

# Q TEXT: TEXT as a dollar-quoted SQL literal
Q() { printf '$q$%s$q$' "$1"; }
# plan NODE QUERY [setup SQL]: EXPLAIN (VERBOSE, COSTS OFF), long lines cut, indented
plan() {
	printf '%s\n' "${3:-}" "SELECT plan_text($(Q "$2"));" | psql_on "$1" 2>&1 |
		cut -c1-160 | sed '/^$/d; s/^/    | /'
}

# 1. cf_contains(filter, key) is evaluated on the shards, whatever the filter is
test_pushdown() {
	local N=$1 F all=$NPART/$NPART
	F=$(val coord "SELECT f::text FROM filt")
	[ -n "$F" ] || { bad "1. a filter of the 3000 wanted keys (cf_create/cf_add)"; return; }
	local QALL="SELECT key FROM items"
	local QCONST="SELECT key FROM items WHERE cf_contains('$F'::cuckoofilter, key)"
	local QOP="SELECT key FROM items WHERE '$F'::cuckoofilter @> key"
	local QSUB="SELECT key FROM items WHERE cf_contains((SELECT f FROM filt), key)"
	local QLOCAL="SELECT key FROM (SELECT key FROM items OFFSET 0) s WHERE cf_contains((SELECT f FROM filt), key)"
	local QEXEC="EXECUTE byfilter('$F')"
	local QTEXT="SELECT key FROM items WHERE cf_contains((SELECT f FROM filt_text), payload)"
	# control: the same partition through a server without extensions 'cuckoo'
	local QNOEXT="SELECT key FROM p0_noext WHERE cf_contains((SELECT f FROM filt), key)"
	local QP0="SELECT key FROM items_p0 WHERE cf_contains((SELECT f FROM filt), key)"
	psql_on coord <<-EOF || bad "1. control server shard1_noext"
		CREATE SERVER shard1_noext FOREIGN DATA WRAPPER postgres_fdw
		  OPTIONS (host '$TMP', port '${PORT[shard1]}', dbname 'cuckoo_fdw', fetch_size '10000');
		CREATE USER MAPPING FOR postgres SERVER shard1_noext OPTIONS (user 'postgres');
		CREATE FOREIGN TABLE p0_noext (id bigint, key bigint, payload text)
		  SERVER shard1_noext OPTIONS (table_name 'items_p0');
	EOF
	kv coord <<-EOF
		SELECT 'all', fdw_fetched($(Q "$QALL"));
		SELECT 'local_shipped', fdw_shipped($(Q "$QLOCAL"), 'cf_contains');
		SELECT 'local', count(*) FROM ($QLOCAL) s;
		SELECT 'hits', count(*) FROM ($QCONST) s JOIN wanted USING (key);
		SELECT 'const_shipped', fdw_shipped($(Q "$QCONST"), 'cf_contains\(''');
		SELECT 'const_fetched', fdw_fetched($(Q "$QCONST"));
		SELECT 'op_shipped', fdw_shipped($(Q "$QOP"), '''::public\.cuckoofilter OPERATOR\(public\.@>\) key');
		SELECT 'op_fetched', fdw_fetched($(Q "$QOP"));
		SELECT 'sub_shipped', fdw_shipped($(Q "$QSUB"), 'cf_contains\(\\\$1');
		SELECT 'sub_fetched', fdw_fetched($(Q "$QSUB"));
		SELECT 'text_shipped', fdw_shipped($(Q "$QTEXT"), 'cf_contains\(\\\$1::public\.cuckoofilter, payload\)');
		SELECT 'text_fetched', fdw_fetched($(Q "$QTEXT"));
		SELECT 'text_local', count(*) FROM (SELECT payload FROM items OFFSET 0) s
		  WHERE cf_contains((SELECT f FROM filt_text), payload);
		SELECT 'noext_shipped', fdw_shipped($(Q "$QNOEXT"), 'cf_contains');
		SELECT 'noext_fetched', fdw_fetched($(Q "$QNOEXT"));
		SELECT 'noext_result', count(*) FROM ($QNOEXT) s;
		SELECT 'p0_result', count(*) FROM ($QP0) s;
		PREPARE byfilter(cuckoofilter) AS SELECT key FROM items WHERE cf_contains(\$1, key);
		SELECT 'custom_shipped', fdw_shipped($(Q "$QEXEC"), 'cf_contains\(''');
		SELECT 'custom_fetched', fdw_fetched($(Q "$QEXEC"));
		SET plan_cache_mode = force_generic_plan;
		SELECT 'generic_shipped', fdw_shipped($(Q "$QEXEC"), 'cf_contains\(\\\$1::public\.cuckoofilter');
		SELECT 'generic_fetched', fdw_fetched($(Q "$QEXEC"));
	EOF
	local got=$(r const_fetched) loc=$(r local) sall sconst
	sall=$(shard_rows "$QALL")
	sconst=$(shard_rows "$QCONST")
	echo "  rows fetched from the shards: $(r all) without a filter, $got with it" \
	     "($(r hits) true matches, filter evaluated on the coordinator keeps $loc)"
	check "1. without a filter every row is fetched ($(r all) of $N)" all "$(r all) == $N"
	check "1. the shards' own count (pg_stat_statements, rows of postgres_fdw's FETCHes) agrees: $sall without, $sconst with the filter" \
		all "$sall == $(r all)" "$sconst == $got"
	check "1. baseline: cf_contains over an OFFSET 0 subquery stays on the coordinator ($(r local_shipped) scans ship it)" \
		eq "$(r local_shipped)" "0/$NPART"
	check "1. constant filter: cf_contains in the Remote SQL of $(r const_shipped) foreign scans" \
		eq "$(r const_shipped)" "$all"
	check "1. @> operator with a constant filter: in the Remote SQL of $(r op_shipped) foreign scans" \
		eq "$(r op_shipped)" "$all"
	check "1. filter from a scalar subquery (InitPlan param): cf_contains(\$1, key) in $(r sub_shipped) Remote SQLs" \
		eq "$(r sub_shipped)" "$all"
	check "1. PREPARE/EXECUTE with a cuckoofilter parameter (custom plan): shipped in $(r custom_shipped)" \
		eq "$(r custom_shipped)" "$all"
	check "1. same with plan_cache_mode = force_generic_plan: cf_contains(\$1::cuckoofilter, key) in $(r generic_shipped)" \
		eq "$(r generic_shipped)" "$all"
	check "1. the shards keep exactly the rows the coordinator would ($loc): const $got, @> $(r op_fetched), subquery $(r sub_fetched), custom $(r custom_fetched), generic $(r generic_fetched)" \
		all "$got == $loc" "$(r op_fetched) == $loc" "$(r sub_fetched) == $loc" \
		    "$(r custom_fetched) == $loc" "$(r generic_fetched) == $loc"
	local msg="1. a text column (collatable): cf_contains(\$1, payload) in $(r text_shipped) Remote SQLs, $(r text_fetched) rows fetched for 1500 matches, as many as on the coordinator ($(r text_local))"
	if [ "$(r text_shipped)" = "$all" ] && all "$(r text_fetched) >= 1500" "$(r text_fetched) <= 1500 + 0.01 * $N" \
		"$(r text_fetched) == $(r text_local)"; then
		ok "$msg"; else bad "$msg"; fi
	msg="1. control: without extensions 'cuckoo' on the server nothing is shipped ($(r noext_shipped)), all $(r noext_fetched) rows of the partition are fetched, same answer ($(r noext_result) = $(r p0_result))"
	if [ "$(r noext_shipped)" = 0/1 ] && all "$(r noext_fetched) > 10 * $(r noext_result)" "$(r noext_result) == $(r p0_result)"; then
		ok "$msg"; else bad "$msg"; fi
	check "1. no false negatives: all 1500 wanted keys present in items come back ($(r hits))" \
		all "$(r hits) == 1500"
	check "1. the filter cuts the rows fetched from the shards: $got instead of $(r all) (at most 1500 + 1% of $N)" \
		all "$got * 10 < $(r all)" "$got <= 1500 + 0.01 * $N"
	[ "$(r const_shipped)" = "$all" ] || { echo "  EXPLAIN of the constant-filter query:"; plan coord "$QCONST" | sed -n '1,12p'; }
	[ "$(r text_shipped)" = "$all" ] || { echo "  EXPLAIN of the text-column query:"; plan coord "$QTEXT" | sed -n '1,12p'; }
	echo "  EXPLAIN (VERBOSE, COSTS OFF) of the filter from a subquery, and of the generic plan:"
	plan coord "$QSUB" | sed -n '1,12p'
	plan coord "$QEXEC" "PREPARE byfilter(cuckoofilter) AS SELECT key FROM items WHERE cf_contains(\$1, key);
	                    SET plan_cache_mode = force_generic_plan;" | sed -n '1,6p'
}
eq() { [ "$1" = "$2" ]; }

# 1b. a shard whose database encoding differs from the coordinator's (LATIN1 vs
#     UTF8): a filter of non-ASCII text built on the coordinator is evaluated
#     there, and one built there is used on the coordinator.  Text is hashed as
#     UTF-8 whatever the database encoding, so both must work.
test_encodings() {
	local words="('café'), ('naïve'), ('plain')" u l
	psql_on shard2 -c "CREATE DATABASE cuckoo_latin1 TEMPLATE template0 ENCODING 'LATIN1' LC_COLLATE 'C' LC_CTYPE 'C'" ||
		{ bad "1b. a LATIN1 database on shard2"; return; }
	PGDB_OVERRIDE=cuckoo_latin1 psql_on shard2 -c "CREATE EXTENSION cuckoo" \
		-c "CREATE TABLE words (w text)" -c "INSERT INTO words VALUES $words" \
		-c "CREATE TABLE wf AS SELECT cf_add(cf_add(cf_add(cf_create(10), 'café'::text), 'naïve'::text), 'plain'::text) AS f" ||
		{ bad "1b. LATIN1 table"; return; }
	psql_on shard1 -c "CREATE TABLE words (w text)" -c "INSERT INTO words VALUES $words" || { bad "1b. UTF8 table"; return; }
	kv coord <<-EOF
		CREATE SERVER shard2_latin1 FOREIGN DATA WRAPPER postgres_fdw
		  OPTIONS (host '$TMP', port '${PORT[shard2]}', dbname 'cuckoo_latin1', extensions 'cuckoo');
		CREATE USER MAPPING FOR postgres SERVER shard2_latin1 OPTIONS (user 'postgres');
		CREATE FOREIGN TABLE words_latin1 (w text) SERVER shard2_latin1 OPTIONS (table_name 'words');
		CREATE FOREIGN TABLE words_utf8 (w text) SERVER shard1 OPTIONS (table_name 'words');
		CREATE FOREIGN TABLE wf_latin1 (f cuckoofilter) SERVER shard2_latin1 OPTIONS (table_name 'wf');
		CREATE TABLE wfilt AS
		  SELECT cf_add(cf_add(cf_add(cf_create(10), 'café'::text), 'naïve'::text), 'plain'::text) AS f;
		SELECT 'shipped', fdw_shipped('SELECT w FROM words_latin1 WHERE cf_contains((SELECT f FROM wfilt), w)', 'cf_contains');
		SELECT 'utf8', string_agg(w, ',' ORDER BY w) FROM words_utf8 WHERE cf_contains((SELECT f FROM wfilt), w);
		SELECT 'latin1', string_agg(w, ',' ORDER BY w) FROM words_latin1 WHERE cf_contains((SELECT f FROM wfilt), w);
		SELECT 'latin1_local', string_agg(w, ',' ORDER BY w) FROM (SELECT w FROM words_latin1 OFFSET 0) s
		  WHERE cf_contains((SELECT f FROM wfilt), w);
		SELECT 'same_bytes', (SELECT f::text FROM wf_latin1) = (SELECT f::text FROM wfilt);
		SELECT 'back', string_agg(w, ',' ORDER BY w) FROM (VALUES $words) v(w)
		  WHERE cf_contains((SELECT f FROM wf_latin1), w);
	EOF
	u=$(r utf8) l=$(r latin1)
	check "1b. non-ASCII text on a UTF8 shard: all of café, naïve, plain found ($u)" eq "$u" "café,naïve,plain"
	msg="1b. a UTF8 coordinator's filter pushed to a LATIN1 shard ($(r shipped)) finds café, naïve, plain there: [$l] (evaluated on the coordinator: [$(r latin1_local)])"
	if [ "$(r shipped)" = 1/1 ] && [ "$l" = "café,naïve,plain" ]; then ok "$msg"; else bad "$msg"; fi
	check "1b. the same filter built on the LATIN1 shard is byte-identical to the coordinator's ($(r same_bytes)) and finds all three on the coordinator ($(r back))" \
		eq "$(r same_bytes) $(r back)" "t café,naïve,plain"
}

# 2. cf_agg per partition, each pushed whole to its shard, merged with cf_union_agg
#    on the coordinator, answers like one filter built over all the rows on one node
test_aggregates() {
	local N=$1 r
	local miss=""
	have_fn cf_agg || miss="cf_agg"
	have_fn cf_union_agg || miss="${miss:+$miss and }cf_union_agg"
	if [ -n "$miss" ]; then
		bad "2. per-shard cf_agg merged with cf_union_agg: not run, $miss not in the extension yet"
		return
	fi
	local parts=()
	for ((r = 0; r < NPART; r++)); do parts+=("SELECT cf_agg(key, 0.01) AS f FROM items_p$r"); done
	local QP0="${parts[0]}"
	local QMERGE="SELECT cf_union_agg(f) AS f FROM ($(IFS=$'\n'; printf '%s UNION ALL ' "${parts[@]}" | sed 's/ UNION ALL $//')) s"
	local QSINGLE="SELECT cf_agg(key, 0.01) AS f FROM items"
	local PROBES=200000
	kv coord <<-EOF
		SELECT 'p0_shipped', fdw_shipped($(Q "$QP0"), 'SELECT public\.cf_agg\(key, 0\.01');
		SELECT 'merge_shipped', fdw_shipped($(Q "$QMERGE"), 'SELECT public\.cf_agg\(key, 0\.01');
		SELECT 'merge_fetched', fdw_fetched($(Q "$QMERGE"));
		SELECT 'single_shipped', fdw_shipped($(Q "$QSINGLE"), 'cf_agg');
		SET enable_partitionwise_aggregate = on;
		SELECT 'partial_shipped', fdw_shipped($(Q "$QSINGLE"), 'cf_agg');
		SELECT 'grouped_shipped', fdw_shipped('SELECT id % 1000 AS g, cf_agg(key) FROM items GROUP BY id', 'cf_agg\(key\).* GROUP BY ');
		RESET enable_partitionwise_aggregate;
		CREATE TABLE merged AS $QMERGE;
		CREATE TABLE single AS $QSINGLE;
		-- the helper of docs/scaling-out.md: the same merge, each partition's
		-- filter at fpr / (number of partitions) so that the merged one meets fpr
		CREATE FUNCTION cf_agg_partitions(tbl regclass, col name, fpr float8 DEFAULT 0.01)
		RETURNS cuckoofilter LANGUAGE plpgsql STABLE AS \$\$
		DECLARE
		  q text;
		  f cuckoofilter;
		BEGIN
		  SELECT string_agg(format('SELECT cf_agg(%I, %L::float8) AS f FROM %s',
		                           col, fpr / n, inhrelid::regclass), ' UNION ALL ')
		    INTO q
		    FROM pg_inherits,
		         LATERAL (SELECT count(*) AS n FROM pg_inherits WHERE inhparent = tbl) c
		    WHERE inhparent = tbl;
		  IF q IS NULL THEN
		    RAISE EXCEPTION '% has no partitions', tbl;
		  END IF;
		  EXECUTE format('SELECT cf_union_agg(f) FROM (%s) s', q) INTO f;
		  RETURN f;
		END \$\$;
		CREATE TABLE mergedk AS SELECT cf_agg_partitions('items', 'key', 0.01) AS f;
		SELECT 'mergedk_info', i::text FROM mergedk, cf_info(f) i;
		SELECT 'mergedk_miss', count(*) FROM items WHERE NOT cf_contains((SELECT f FROM mergedk), key);
		SELECT 'mergedk_fp', count(*) FROM generate_series(1, $PROBES) g WHERE cf_contains((SELECT f FROM mergedk), g * 10 + 5);
		SELECT 'merged_subfilters', (cf_info(f)).subfilters FROM merged;
		SELECT 'merged_efpr', (cf_info(f)).fpr FROM merged;
		SELECT 'merged_info', i::text FROM merged, cf_info(f) i;
		SELECT 'single_info', i::text FROM single, cf_info(f) i;
		SELECT 'miss_shipped', fdw_shipped('SELECT key FROM items WHERE NOT cf_contains((SELECT f FROM merged), key)', 'cf_contains');
		SELECT 'merged_miss', count(*) FROM items WHERE NOT cf_contains((SELECT f FROM merged), key);
		SELECT 'single_miss', count(*) FROM items WHERE NOT cf_contains((SELECT f FROM single), key);
		SELECT 'merged_fp', count(*) FROM generate_series(1, $PROBES) g WHERE cf_contains((SELECT f FROM merged), g * 10 + 5);
		SELECT 'single_fp', count(*) FROM generate_series(1, $PROBES) g WHERE cf_contains((SELECT f FROM single), g * 10 + 5);
	EOF
	echo "  merged filter (cf_info): $(r merged_info)"
	echo "  single-node filter:      $(r single_info)"
	check "2. cf_agg(key, 0.01) on a foreign partition is pushed whole: in the Remote SQL ($(r p0_shipped))" \
		eq "$(r p0_shipped)" "1/1"
	plan coord "$QP0"
	if [ "$(r merge_shipped)" = "$NPART/$NPART" ] && all "$(r merge_fetched) == $NPART"; then
		ok "2. merge query: every partition builds its filter on its shard ($(r merge_shipped) Remote SQLs with cf_agg), $(r merge_fetched) rows (the filters) fetched"
	else
		bad "2. merge query: cf_agg in $(r merge_shipped) Remote SQLs, $(r merge_fetched) rows fetched (want $NPART/$NPART, $NPART)"
	fi
	check "2. reference filter: cf_agg over the partitioned table runs on the coordinator ($(r single_shipped) shipped)" \
		eq "$(r single_shipped)" "0/$NPART"
	[ "$(r merge_shipped)" = "$NPART/$NPART" ] || plan coord "$QMERGE" | sed -n '1,30p'
	check "2. GROUP BY the partition key with enable_partitionwise_aggregate: cf_agg ... GROUP BY pushed to $(r grouped_shipped) partitions" \
		eq "$(r grouped_shipped)" "$NPART/$NPART"
	echo "  with enable_partitionwise_aggregate the partial cf_agg is shipped by $(r partial_shipped) scans" \
	     "(postgres_fdw does not push partial aggregates)"
	check "2. merged filter: 0 of $N keys missing ($(r merged_miss)), single-node: $(r single_miss)" \
		all "$(r merged_miss) == 0" "$(r single_miss) == 0"
	check "2. the merged filter is itself pushed back down (NOT cf_contains: $(r miss_shipped))" \
		eq "$(r miss_shipped)" "$NPART/$NPART"
	echo "  cf_agg_partitions():     $(r mergedk_info)"
	local fm=$(r merged_fp) fs=$(r single_fp) fk=$(r mergedk_fp) P=$PROBES
	pct() { awk -v a="$1" -v b="$P" 'BEGIN { if (a ~ /^[0-9]+$/) printf "%.2f%%", 100 * a / b; else print a }'; }
	local ef=$(r merged_efpr)
	check "2. per-shard filters merged answer like a single-node one: cf_agg_partitions(items, key, 0.01) (cf_agg(key, 0.01 / $NPART) per partition): $(r mergedk_miss) keys missing, $fk false positives on $P absent keys ($(pct "$fk")), single-node cf_agg(key, 0.01) $fs ($(pct "$fs")): <= 2x single + 0.1%" \
		all "$(r mergedk_miss) == 0" "$fk <= 2 * $fs + 0.001 * $P"
	# the same merge at the single-node rate: the parts' tables are full and of
	# different sizes, so cf_union cannot fold them; the union keeps each as a
	# sub-filter and their rates add up.  Check that cf_info says so honestly.
	all "$fm > 2 * $fs + 0.001 * $P" &&
		echo "  NOTE: four cf_agg(key, 0.01) merged without dividing the rate: $fm false positives ($(pct "$fm")), $(awk -v a="$fm" -v b="$fs" 'BEGIN { if (b > 0) printf "%.1f", a / b }')x the single-node filter: build the parts at fpr / parts"
	check "2. four cf_agg(key, 0.01) merged: $(r merged_subfilters) sub-filters, measured false-positive rate $(pct "$fm") matches cf_info's expected $(awk -v e="$ef" 'BEGIN { printf "%.2f%%", 100 * e }' 2>/dev/null) (within 25% + 0.1%)" \
		all "$fm <= 1.25 * $ef * $P + 0.001 * $P" "$fm >= 0.75 * $ef * $P - 0.001 * $P"
}

# 3. filters travel between nodes unchanged, as text (postgres_fdw, COPY) and binary (COPY)
test_roundtrip() {
	local N=$1 agg=0 msg
	have_fn cf_agg && agg=1
	psql_on shard1 <<-EOF || { bad "3. a table of filters on shard1"; return; }
		CREATE TABLE filters (name text PRIMARY KEY, f cuckoofilter NOT NULL);
		INSERT INTO filters VALUES ('empty', cf_create(1000, 0.01));
		INSERT INTO filters VALUES ('mixed', cf_add(cf_add(cf_add(cf_set_kind(cf_create(10, 0.05), 'any'), 42::bigint), 'x'::text), 2.5::float8));
		DO \$\$                       -- made small, grown to several sub-filters
		DECLARE f cuckoofilter := cf_create(100, 0.01);
		BEGIN
		  FOR i IN 1..5000 LOOP f := cf_add(f, i::bigint); END LOOP;
		  INSERT INTO filters VALUES ('grown', f);
		END \$\$;
		$( ((agg)) && echo "INSERT INTO filters SELECT 'p0', cf_agg(key) FROM items_p0;" )
	EOF
	psql_on shard2 -c "CREATE TABLE filters (name text PRIMARY KEY, f cuckoofilter NOT NULL)"
	psql_on coord <<-EOF || { bad "3. foreign table filters_s1 and writes through it"; return; }
		CREATE FOREIGN TABLE filters_s1 (name text, f cuckoofilter) SERVER shard1 OPTIONS (table_name 'filters');
		INSERT INTO filters_s1 SELECT 'coord', f FROM filt;
		$( ((agg)) && echo "INSERT INTO filters_s1 SELECT 'merged', f FROM merged;" )
		CREATE TABLE filters_fdw AS SELECT * FROM filters_s1;
		CREATE TABLE filters_bin (LIKE filters_fdw);
		CREATE TABLE filters_txt (LIKE filters_fdw);
	EOF
	# filters kept on a shard are maintained and merged there
	local UPD="UPDATE filters_s1 SET f = cf_add(f, 9999999::bigint) WHERE name = 'grown'"
	local UAGG="SELECT cf_union_agg(f) FROM filters_s1 WHERE name IN ('p0', 'merged')"
	# a join of two foreign tables on the same server, the filter in the join clause
	local JOINQ="SELECT i.key FROM items_p0 i JOIN filters_s1 fl ON cf_contains(fl.f, i.key) WHERE fl.name = 'coord'"
	kv coord <<-EOF
		SELECT 'upd_shipped', fdw_shipped($(Q "$UPD"), 'UPDATE public\.filters SET f = public\.cf_add\(f, ');
		$UPD;
		SELECT 'upd_done', cf_contains(f, 9999999::bigint) FROM filters_s1 WHERE name = 'grown';
		SELECT 'join_shipped', fdw_shipped($(Q "$JOINQ"), 'JOIN public\.filters .*cf_contains\(');
		SELECT 'join_fetched', fdw_fetched($(Q "$JOINQ"));
		SELECT 'join_result', count(*) FROM ($JOINQ) s;
		$( ((agg)) && echo "SELECT 'uagg_shipped', fdw_shipped($(Q "$UAGG"), 'SELECT public\.cf_union_agg\(f\)');
		SELECT 'uagg_items', (cf_info(u)).items = (SELECT sum((cf_info(f)).items) FROM filters_fdw WHERE name IN ('p0', 'merged'))
		FROM ($UAGG) s(u);" )
		TRUNCATE filters_fdw;
		INSERT INTO filters_fdw SELECT * FROM filters_s1;
	EOF
	check "3. UPDATE ... SET f = cf_add(f, v) on a foreign table is a direct Foreign Update run on the shard ($(r upd_shipped)), and it took ($(r upd_done))" \
		eq "$(r upd_shipped) $(r upd_done)" "1/1 t"
	msg="3. a join of two foreign tables on one server with cf_contains(fl.f, i.key) as join clause runs there ($(r join_shipped)): $(r join_fetched) rows fetched"
	if [ "$(r join_shipped)" = 1/1 ] && all "$(r join_fetched) == $(r join_result)" "$(r join_fetched) < 5000"; then
		ok "$msg"; else bad "$msg"; plan coord "$JOINQ"; fi
	if ((agg)); then
		check "3. cf_union_agg over a foreign table is pushed whole ($(r uagg_shipped)), items add up ($(r uagg_items))" \
			eq "$(r uagg_shipped) $(r uagg_items)" "1/1 t"
	fi

	# binary: shard1 -> shard2 and shard1 -> coordinator; text: shard2 -> coordinator
	local out="COPY (SELECT name, f FROM filters ORDER BY name) TO STDOUT"
	psql_on shard1 -c "$out (FORMAT binary)" | tee "$TMP/shard1.bin" |
		psql_on shard2 -c "COPY filters FROM STDIN (FORMAT binary)"
	psql_on coord -c "COPY filters_bin FROM STDIN (FORMAT binary)" <"$TMP/shard1.bin"
	psql_on shard2 -c "$out (FORMAT binary)" >"$TMP/shard2.bin"
	psql_on shard2 -c "$out" | psql_on coord -c "COPY filters_txt FROM STDIN"

	local digest="SELECT count(*) || ' filters ' || string_agg(name || ':' || md5(f::text), ' ' ORDER BY name) FROM"
	local answers="SELECT string_agg(name || ':' || (SELECT count(*) FROM generate_series(1, 20000) g WHERE cf_contains(f, g::bigint * 5)), ' ' ORDER BY name) FROM"
	local d1 d2 dfdw dbin dtxt dc a1 a2 ac
	d1=$(val shard1 "$digest filters")
	d2=$(val shard2 "$digest filters")
	dfdw=$(val coord "$digest filters_fdw")
	dbin=$(val coord "$digest filters_bin")
	dtxt=$(val coord "$digest filters_txt")
	dc=$(val coord "SELECT md5(f::text) FROM filt")
	a1=$(val shard1 "$answers filters")
	a2=$(val shard2 "$answers filters")
	ac=$(val coord "$answers filters_bin")
	echo "  shard1: ${d1:0:120}..."
	local want=$((4 + 2 * agg))
	check "3. shard1 holds $want filters (empty, mixed types, grown, written via postgres_fdw$( ((agg)) && echo ", cf_agg-built, merged"))" \
		eq "${d1%% *}" "$want"
	check "3. text via postgres_fdw: the coordinator reads shard1's filters unchanged (md5 of ::text)" \
		eq "$dfdw" "$d1"
	check "3. text via postgres_fdw INSERT: the coordinator's filter arrives on shard1 unchanged" \
		grep -q "coord:$dc" <<<"$d1"
	check "3. binary COPY shard1 -> shard2: same ::text on both" eq "$d2" "$d1"
	check "3. binary COPY shard1 -> coordinator: same ::text" eq "$dbin" "$d1"
	check "3. binary COPY out of shard2 is byte-identical to shard1's ($(stat -c %s "$TMP/shard1.bin" 2>/dev/null) bytes)" \
		cmp -s "$TMP/shard1.bin" "$TMP/shard2.bin"
	check "3. text COPY shard2 -> coordinator: same ::text" eq "$dtxt" "$d1"
	if [ -n "$a1" ] && [ "$a1" = "$a2" ] && [ "$a1" = "$ac" ]; then
		ok "3. the copies answer cf_contains identically on shard1, shard2 and the coordinator"
	else
		bad "3. cf_contains answers differ: shard1 [$a1] shard2 [$a2] coordinator [$ac]"
	fi
}

# ======================================================================
# --measure: a semi-join of a sharded table with a local table, with and
# without a cf_agg filter of the local keys pushed to the shards
# ======================================================================
run_measure() {
	local B=$M_BIG S=$M_SMALL t0 fpr
	setup_servers || die "CREATE EXTENSION cuckoo / postgres_fdw and the foreign servers"
	have_fn cf_agg || die "cf_agg is not in the extension"
	setup_fdw big || die "the sharded table big"
	t0=$SECONDS
	psql_on coord -c "INSERT INTO big SELECT g, g * 10, md5(g::text) FROM generate_series(1, $B) g" ||
		die "load $B rows"
	psql_on shard1 -c "VACUUM ANALYZE"; psql_on shard2 -c "VACUUM ANALYZE"
	echo "measure: loaded $B rows into big ($NPART postgres_fdw partitions on 2 shards) in $((SECONDS - t0)) s"
	psql_on coord <<-EOF || die "the local table small and the timing function"
		ANALYZE big;
		-- $S distinct keys, every one of them in big (key = id * 10)
		CREATE TABLE small AS SELECT (1 + (i::bigint * 7919) % $B) * 10 AS key FROM generate_series(1, $S) i;
		ANALYZE small;
		-- median wall time of n runs of q, in ms
		CREATE FUNCTION median_ms(q text, n int) RETURNS numeric LANGUAGE plpgsql AS \$\$
		DECLARE t timestamptz; ms numeric[] := '{}';
		BEGIN
		  FOR i IN 1..n LOOP
		    t := clock_timestamp();
		    EXECUTE q;
		    ms := ms || round(extract(epoch FROM clock_timestamp() - t)::numeric * 1000, 1);
		  END LOOP;
		  RETURN (SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY x) FROM unnest(ms) x);
		END \$\$;
	EOF
	local SEL="SELECT count(*), sum(length(b.payload)) FROM big b"
	local JOIN="b.key IN (SELECT key FROM small)"
	declare -A QS=(
		[plain]="$SEL WHERE $JOIN"
		[cf_0.01]="$SEL WHERE cf_contains((SELECT cf_agg(key, 0.01) FROM small), b.key) AND $JOIN"
		[cf_0.001]="$SEL WHERE cf_contains((SELECT cf_agg(key, 0.001) FROM small), b.key) AND $JOIN"
		[array]="$SEL WHERE b.key = ANY ((SELECT array_agg(key) FROM small)::bigint[]) AND $JOIN"
	)
	declare -A MS ROWS
	printf '%-10s %12s %10s %10s %10s %8s\n' query rows_shipped result median_ms filter_B reduction
	local base_rows="" k
	for k in plain cf_0.01 cf_0.001 array; do
		kv coord <<-EOF
			SELECT 'fetched', fdw_fetched($(Q "${QS[$k]}"));
			SELECT 'shipped', fdw_shipped($(Q "${QS[$k]}"), 'cf_contains|= ANY');
			SELECT 'result', count FROM (${QS[$k]}) s;
			SELECT 'ms', median_ms($(Q "${QS[$k]}"), 3);
			SELECT 'bytes', $(case $k in
				cf_*) echo "(SELECT (cf_info(cf_agg(key, ${k#cf_}))).bytes FROM small)" ;;
				array) echo "(SELECT pg_column_size(array_agg(key)) FROM small)" ;;
				*) echo 0 ;;
			esac);
		EOF
		[ "$k" = plain ] && base_rows=$(r fetched)
		MS[$k]=$(r ms) ROWS[$k]=$(r fetched)
		local sr; sr=$(shard_rows "${QS[$k]}")
		printf '%-10s %12s %10s %10s %10s %8s\n' "$k" "$(r fetched)" "$(r result)" "$(r ms)" "$(r bytes)" \
			"$(awk -v a="$base_rows" -v b="$(r fetched)" 'BEGIN { if (b > 0) printf "%.1fx", a / b; else print "-" }')"
		if [ "$k" != plain ]; then
			check "measure $k: condition shipped to the shards ($(r shipped)), $(r result) rows found, shards sent $sr rows" \
				all "$(r result) == $S" "$sr == $(r fetched)"
		else
			check "measure plain: $(r result) rows found, shards sent $sr rows" all "$(r result) == $S" "$sr == $(r fetched)"
		fi
	done
	echo "  plain join plan:"; plan coord "${QS[plain]}" | sed -n '1,20p'
	echo "  with the filter:";  plan coord "${QS[cf_0.01]}" | sed -n '1,24p'
	awk -v b="$B" -v s="$S" -v r0="${ROWS[plain]}" -v r1="${ROWS[cf_0.01]}" -v m0="${MS[plain]}" -v m1="${MS[cf_0.01]}" \
		'BEGIN { if (r1 > 0 && m1 > 0) printf "measure: semi-join of %d sharded rows with %d local keys: plain %d rows shipped, %.0f ms; cf_agg(key, 0.01) filter pushed: %d rows, %.0f ms (filter built in the query): %.1fx fewer rows, %.1fx faster\n", b, s, r0, m0, r1, m1, r0 / r1, m0 / m1 }'
}

# ---- main ----
if [ "$MODE" = measure ]; then run_measure; else run_tests; fi
finish
