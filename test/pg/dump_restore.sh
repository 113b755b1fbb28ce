#!/usr/bin/env bash
# dump_restore.sh - pg_dump (plain, custom, directory -j2) and restore of a
# database full of cuckoo filters into fresh databases; every answer must
# be identical afterwards.  Expects `make install` done.  Exits non-zero on
# any difference.
#
# The source database holds filters of several geometries, NULLs, grown and
# union filters, cf_agg output, a large (out-of-line, compressed) filter, and
# objects that depend on the extension's functions in ways that stress the
# restore order: a generated column, a CHECK constraint, an expression
# index, a view, a materialized view (refreshed, so cf_agg runs during the
# restore), a domain, and the extension in a schema of its own.  Filters of
# values of user-defined types (enum, composite, their arrays, a domain) are
# restored into a database where those types get other OIDs: their hashes
# must not depend on OIDs.
#
# It runs in a throw-away cluster: test/pg/tmpcluster.sh, as test/pg/regress.sh.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
bindir=$("$PG_CONFIG" --bindir)

if [ -z "${CUCKOO_DUMP_RESTORE_INNER:-}" ]; then
	CUCKOO_DUMP_RESTORE_INNER=1 PG_CONFIG="$PG_CONFIG" exec bash "$top/test/pg/tmpcluster.sh" bash "$0" "$@"
fi

work=$(mktemp -d -t cuckoo-dump.XXXXXX)
chmod 755 "$work"
trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
psql() { "$bindir/psql" -X -q -v ON_ERROR_STOP=1 "$@"; }
fail=0

# setup: every step must succeed (a step whose failure went unseen would
# leave both sides of a comparison empty, and empty equals empty)
setup() {	# setup WHAT COMMAND...: runs COMMAND, exits the test if it fails
	local what=$1; shift
	if ! "$@"; then echo "dump_restore: FAILED: could not $what" >&2; exit 1; fi
}
setup "create cf_src" psql -d postgres -c 'CREATE DATABASE cf_src'
psql -d cf_src <<'EOF'
CREATE SCHEMA cf;
CREATE EXTENSION cuckoo SCHEMA cf;
SET search_path = public, cf;

-- the values every filter was given: filter name, value, copies added
CREATE TABLE cf_values (fname text, v text, copies int);
INSERT INTO cf_values SELECT 'b2_fpr0.1', 'a' || i, 1 FROM generate_series(1, 150) i;
INSERT INTO cf_values SELECT 'b4_fpr0.01', 'b' || i, 1 FROM generate_series(1, 900) i;
INSERT INTO cf_values SELECT 'b8_fpr0.001', 'c' || i, 1 FROM generate_series(1, 2000) i;
INSERT INTO cf_values SELECT 'b4_fpr1e-6', 'd' || i, 1 FROM generate_series(1, 300) i;
INSERT INTO cf_values SELECT 'grown', 'e' || i, 1 FROM generate_series(1, 3000) i;
INSERT INTO cf_values SELECT 'dups', 'f' || (i % 7), 3 FROM generate_series(1, 7) i;
INSERT INTO cf_values SELECT 'union', 'b' || i, 1 FROM generate_series(1, 900) i;
INSERT INTO cf_values SELECT 'union', 'u' || i, 1 FROM generate_series(1, 500) i;
INSERT INTO cf_values SELECT 'agg', 'g' || i, 1 FROM generate_series(1, 5000) i;
INSERT INTO cf_values SELECT 'large', 'h' || i, 1 FROM generate_series(1, 200000) i;

CREATE FUNCTION build(f cuckoofilter, name text) RETURNS cuckoofilter LANGUAGE plpgsql AS $$
DECLARE x record;
BEGIN
	FOR x IN SELECT v, copies FROM cf_values WHERE fname = name ORDER BY v LOOP
		FOR k IN 1 .. x.copies LOOP f := cf_add(f, x.v); END LOOP;
	END LOOP;
	RETURN f;
END $$;

CREATE DOMAIN small_filter AS cuckoofilter CHECK ((cf_info(VALUE)).bytes < 100000);
CREATE TABLE filters (
	name text PRIMARY KEY,
	f cuckoofilter CHECK (f IS NULL OR (cf_info(f)).bucket_size IN (2, 4, 8)),
	items bigint GENERATED ALWAYS AS ((cf_info(f)).items) STORED,
	small small_filter
);
CREATE INDEX filters_has_b1 ON filters ((f @> 'b1'::text));
INSERT INTO filters (name, f) VALUES
	('b2_fpr0.1',   build(cf_create(200, 0.1, 2), 'b2_fpr0.1')),
	('b4_fpr0.01',  build(cf_create(1000), 'b4_fpr0.01')),
	('b8_fpr0.001', build(cf_create(2100, 0.001, 8, 100, 0), 'b8_fpr0.001')),
	('b4_fpr1e-6',  build(cf_create(300, 1e-6), 'b4_fpr1e-6')),
	('grown',       build(cf_create(100, 0.01, 4, 500, 2), 'grown')),
	('dups',        build(cf_create(10), 'dups')),
	('empty',       cf_create(10)),
	('null',        NULL);
INSERT INTO filters (name, f)
	SELECT 'union', cf_union((SELECT f FROM filters WHERE name = 'b4_fpr0.01'),
	                         build(cf_create(2000), 'union'));
INSERT INTO filters (name, f) SELECT 'agg', cf_agg(v) FROM cf_values WHERE fname = 'agg';
-- about 270 kB that does not compress: stored out of line
INSERT INTO filters (name, f) SELECT 'large', cf_agg(v, 0.001) FROM cf_values WHERE fname = 'large';
-- 2.4 MB of zeros: compressed in line
INSERT INTO filters (name, f) VALUES ('large_empty', cf_create(1000000, 0.001, 8));
UPDATE filters SET small = f WHERE (cf_info(f)).bytes < 100000;

CREATE VIEW filter_answers AS
SELECT name, f @> 'b1'::text AS has_b1, (cf_info(f)).subfilters FROM filters;
CREATE MATERIALIZED VIEW agg_by_prefix AS
SELECT left(v, 1) AS prefix, cf_agg(v) AS f FROM cf_values GROUP BY 1;
EOF
[ $? -eq 0 ] || { echo "dump_restore: could not build the source database"; exit 1; }

# What must survive: every filter's text, cf_info, send bytes and header
# checks; every value's answer; the dependent objects' answers.
snapshot() {
	psql -d "$1" -At <<'EOF'
SET search_path = public, cf;
SELECT 'filter', name, md5(f::text), md5(cuckoofilter_send(f)), (cf_info(f))::text, items,
       small::text IS NOT DISTINCT FROM f::text
  FROM filters ORDER BY name;
SELECT 'values', x.fname, count(*), count(*) FILTER (WHERE f @> x.v),
       count(*) FILTER (WHERE cf_count(f, x.v) >= x.copies)
  FROM cf_values x JOIN filters ON name = x.fname GROUP BY x.fname ORDER BY x.fname;
SELECT 'probes', name, count(*) FILTER (WHERE f @> ('probe' || i))
  FROM filters, generate_series(1, 1000) i GROUP BY name ORDER BY name;
SELECT 'view', name, has_b1, subfilters FROM filter_answers ORDER BY name;
SELECT 'matview', prefix, md5(f::text) FROM agg_by_prefix ORDER BY prefix;
SET enable_seqscan = off;
SELECT 'index', count(*) FROM filters WHERE f @> 'b1'::text;
EOF
}
snapshot cf_src > "$work/src.txt" || { echo "dump_restore: snapshot of the source failed"; exit 1; }
# the source snapshot must be complete: 12 filters (one NULL), 9 value
# sets of at least 7 values each, a non-empty digest of every filter but
# the NULL one and of every materialized view row, and the index answer
# (b4_fpr0.01 and union hold b1)
src_ok=$(awk -F'|' '
	$1 == "filter" { nf++; if ($2 != "null" && ($3 == "" || $4 == "" || $5 == "")) bad = bad " empty filter " $2 }
	$1 == "values" { nv++; if ($3 < 7 || $4 == "" || $5 == "") bad = bad " values " $2 }
	$1 == "probes" { np++; if ($3 == "") bad = bad " probes " $2 }
	$1 == "matview" { nm++; if ($3 == "") bad = bad " matview " $2 }
	$1 == "index" { ni++; if ($2 != 2) bad = bad " index answer " $2 }
	END { if (nf != 12 || nv != 9 || np != 12 || nm < 5 || ni != 1)
	          bad = bad " lines: " nf " filters, " nv " value sets, " np " probes, " nm " matview rows, " ni " index"
	      print bad == "" ? "ok" : bad }' "$work/src.txt")
if [ "$src_ok" != ok ]; then
	echo "dump_restore: FAILED: the source snapshot is incomplete:$src_ok"
	exit 1
fi
# the source itself must be right: every added value present
if awk -F'|' '$1 == "values" && ($3 != $4 || $3 != $5) { bad = 1 } END { exit !bad }' "$work/src.txt"; then
	echo "dump_restore: the source database already has false negatives"
	grep '^values' "$work/src.txt"
	fail=1
fi

check() {
	local name=$1
	if ! snapshot "$name" > "$work/$name.txt"; then
		echo "FAIL $name: snapshot failed"
		fail=1
	elif ! diff -u "$work/src.txt" "$work/$name.txt"; then
		echo "FAIL $name: answers differ after restore"
		fail=1
	else
		echo "ok   $name: $(wc -l < "$work/$name.txt") answers identical"
	fi
}

t0=$SECONDS
# plain SQL
"$bindir/pg_dump" -d cf_src -Fp -f "$work/plain.sql" || fail=1
setup "create cf_plain" psql -d postgres -c 'CREATE DATABASE cf_plain'
psql -d cf_plain -f "$work/plain.sql" > /dev/null || { echo "FAIL plain: restore failed"; fail=1; }
check cf_plain
# custom format, restored with pg_restore
"$bindir/pg_dump" -d cf_src -Fc -f "$work/custom.dump" || fail=1
setup "create cf_custom" psql -d postgres -c 'CREATE DATABASE cf_custom'
"$bindir/pg_restore" --exit-on-error -d cf_custom "$work/custom.dump" || { echo "FAIL custom: pg_restore failed"; fail=1; }
check cf_custom
# directory format, dumped and restored with two jobs
"$bindir/pg_dump" -d cf_src -Fd -j 2 -f "$work/dir.dump" || fail=1
setup "create cf_dir" psql -d postgres -c 'CREATE DATABASE cf_dir'
"$bindir/pg_restore" --exit-on-error -j 2 -d cf_dir "$work/dir.dump" || { echo "FAIL dir: pg_restore failed"; fail=1; }
check cf_dir
# data only, into a database whose schema was restored first (the COPY path alone)
setup "create cf_data" psql -d postgres -c 'CREATE DATABASE cf_data'
"$bindir/pg_restore" --exit-on-error --schema-only -d cf_data "$work/custom.dump" || fail=1
"$bindir/pg_restore" --exit-on-error --data-only -d cf_data "$work/custom.dump" || { echo "FAIL data-only: pg_restore failed"; fail=1; }
psql -d cf_data -c 'REFRESH MATERIALIZED VIEW agg_by_prefix' || fail=1
check cf_data
echo "dump_restore: dumps and restores took $((SECONDS - t0)) s"

# Values of user-defined types get new OIDs in a restored database, so their
# hash must not depend on OIDs (it once did: array_send and record_send embed
# them).  The target database shifts every OID by creating a type first.
setup "create the filters of user-defined types" psql -d cf_src <<'EOF2' > /dev/null
SET search_path = public, cf;
CREATE TYPE mood AS ENUM ('sad', 'ok');
CREATE TYPE moody AS (m mood, n int);
CREATE DOMAIN mood_d AS mood;
CREATE TABLE user_types (name text, f cuckoofilter);
INSERT INTO user_types VALUES
	('enum',            cf_add(cf_create(10), 'ok'::mood)),
	('enum[]',          cf_add(cf_create(10), ARRAY['ok']::mood[])),
	('composite',       cf_add(cf_create(10), ROW('ok', 1)::moody)),
	('composite[]',     cf_add(cf_create(10), ARRAY[ROW('ok', 1)::moody])),
	('domain over enum', cf_add(cf_create(10), 'ok'::mood_d));
EOF2
setup "create cf_oid" psql -d postgres -c 'CREATE DATABASE cf_oid'
setup "shift cf_oid's OIDs" psql -d cf_oid -c 'CREATE TYPE shift_oids AS (x int)'
if ! "$bindir/pg_dump" -d cf_src -f "$work/oid.sql" || ! psql -d cf_oid -f "$work/oid.sql" > "$work/oid.log" 2>&1; then
	echo "FAIL user-defined types: the dump or its restore into cf_oid failed"
	tail -5 "$work/oid.log"
	fail=1
fi
user_types_query="SET search_path = public, cf;
SELECT name, CASE name
	WHEN 'enum' THEN f @> 'ok'::mood
	WHEN 'enum[]' THEN f @> ARRAY['ok']::mood[]
	WHEN 'composite' THEN f @> ROW('ok', 1)::moody
	WHEN 'composite[]' THEN f @> ARRAY[ROW('ok', 1)::moody]
	WHEN 'domain over enum' THEN f @> 'ok'::mood_d END
  FROM user_types ORDER BY name"
# the answer of every filter: present ('t'), in both databases; an error, a
# missing row, NULL ('') or 'f' fails
user_types_want=$'composite|t\ncomposite[]|t\ndomain over enum|t\nenum|t\nenum[]|t'
psql -d cf_src -At -c "$user_types_query" > "$work/user_src.txt" || echo "(query failed in cf_src)" >> "$work/user_src.txt"
psql -d cf_oid -At -c "$user_types_query" > "$work/user_oid.txt" || echo "(query failed in cf_oid)" >> "$work/user_oid.txt"
if [ "$(cat "$work/user_src.txt")" != "$user_types_want" ] || [ "$(cat "$work/user_oid.txt")" != "$user_types_want" ]; then
	echo "FAIL user-defined types: a value is absent after restore into a database with other OIDs"
	echo "--- expected"; echo "$user_types_want"
	echo "--- cf_src"; cat "$work/user_src.txt"
	echo "--- cf_oid"; cat "$work/user_oid.txt"
	fail=1
else
	echo "ok   cf_oid: enum, enum[], composite, composite[] and domain values present after restore"
fi

# Text is hashed as UTF-8 whatever the database encoding, so a filter of
# non-ASCII text restored from a LATIN1 database into a UTF8 one still
# answers true for the values it holds.
setup "create cf_latin1" psql -d postgres -c "CREATE DATABASE cf_latin1 TEMPLATE template0 ENCODING 'LATIN1' LC_COLLATE 'C' LC_CTYPE 'C'"
setup "create cf_utf8" psql -d postgres -c "CREATE DATABASE cf_utf8 TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'"
setup "fill cf_latin1" env PGCLIENTENCODING=UTF8 "$bindir/psql" -X -q -v ON_ERROR_STOP=1 -d cf_latin1 -c "CREATE EXTENSION cuckoo;
	CREATE TABLE enc AS SELECT cf_add(cf_create(10), 'café'::text) AS f"
setup "dump cf_latin1" "$bindir/pg_dump" -d cf_latin1 -f "$work/latin1.sql"
setup "restore cf_latin1 into cf_utf8" env PGCLIENTENCODING=UTF8 "$bindir/psql" -X -q -v ON_ERROR_STOP=1 \
	-d cf_utf8 -o /dev/null -f "$work/latin1.sql"
before=$(PGCLIENTENCODING=UTF8 psql -d cf_latin1 -At -c "SELECT f @> 'café'::text FROM enc")
after=$(PGCLIENTENCODING=UTF8 psql -d cf_utf8 -At -c "SELECT f @> 'café'::text FROM enc")
if [ "$before" = "t" ] && [ "$after" = "t" ]; then
	echo "ok   encodings: non-ASCII text found after a LATIN1 -> UTF8 restore"
else
	echo "FAIL encodings: a filter of non-ASCII text answers '$before' in LATIN1 and '$after' after a restore into UTF8"
	fail=1
fi

if [ "$fail" -ne 0 ]; then
	echo "dump_restore: FAILED"
	exit 1
fi
echo "dump_restore: plain, custom, directory (-j 2) and data-only restores give identical answers"
