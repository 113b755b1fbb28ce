#!/usr/bin/env bash
# growth_sql.sh - issue 25's growth figures measured in SQL, for one or more
# builds of the extension side by side (e.g. before and after a change):
#  1. space sweep: bits per item of a filter grown from the default
#     (cf_add_all_unique(NULL, 1..n) at 1%, from cf_create(1000, 0.001) at
#     0.1%) against cf_agg(v, fpr) of the same values, at STEPS log-spaced
#     sizes 1,000..MAXN, plus the sizes where the grown table is full (load
#     >= 0.9); measured FPR (ABSENT absent keys) and false negatives;
#  2. per-user scenario: USERS users x ITEMS items added one at a time from
#     cf_add(NULL, v) (REAL_USERS of them also by real single-item upserts,
#     checked byte-identical) against cf_agg(v, 0.01) per user;
#  3. cf_union_agg over 20,000 per-user filters of 1, 5 and 50 items and over
#     100 users of 1,000..3,000 items, then cf_delete_all of a third of the
#     values: sub-filters, FPR, false negatives, retained deletes;
#  4. lookups: SELECT count(*) FROM keys WHERE cf_contains(f, k) over LKEYS
#     present and LKEYS absent keys, f grown from the default to 16,000
#     items against cf_agg of the same items, REPS interleaved repetitions.
#
# Usage: bash bench/growth_sql.sh [LABEL=PG_CONFIG ...] > report.md
#   Each LABEL=PG_CONFIG names a PostgreSQL whose extension directory holds
#   the build to measure (default: this=$PG_CONFIG).  Each runs in its own
#   throw-away cluster (test/pg/tmpcluster.sh), one after the other; the
#   report (markdown, on stdout) puts them side by side.  Progress on stderr.
#   Environment: MAXN (1000000), STEPS (41), ABSENT (100000), USERS (20),
#   ITEMS (20000), REAL_USERS (1), LKEYS (1000000), REPS (5), KEEP=1 keeps the
#   CSVs (their directory is printed).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)

P() { psql -X -q -v ON_ERROR_STOP=1 "$@"; }
# md TITLE QUERY: the query's result as a markdown table
md() {
	[ -z "$1" ] || printf '\n%s\n' "$1"
	echo
	P -A -F '|' -P footer=off -c "$2" | awk '
		{ l = $0; gsub(/\|/, " | ", l); print "| " l " |" }
		NR == 1 { s = "|"; for (i = 0; i <= gsub(/\|/, "|"); i++) s = s "---|"; print s }'
}

# growth_sql.sh --report DIR: run inside a throw-away cluster
report() {
	local work=$1 label t cols ord=0 f cells
	P <<'SQL'
CREATE TABLE sides (ord int, side text, seconds int);
CREATE TABLE meta (label text, extversion text, server text, started timestamptz, side text);
CREATE TABLE params (maxn int, steps int, absent int, users int, items int, real_users int, lkeys int, reps int, side text);
CREATE TABLE sweep (fpr float8, kind text, n int,
	g_bytes bigint, g_items bigint, g_sub int, g_load float8, g_buckets bigint, g_fbits int, g_fp bigint, g_fn bigint,
	a_bytes bigint, a_items bigint, a_sub int, a_load float8, a_fbits int, a_fp bigint, a_fn bigint,
	nabsent int, g_ms float8, side text);
CREATE TABLE peruser (method text, users bigint, items int, avg_bytes numeric, avg_stored numeric, avg_sub numeric,
	max_sub int, avg_load float8, fbits int, fp numeric, tested bigint, fn numeric, side text);
CREATE TABLE upsert_check (users_upserted bigint, identical_to_grown bigint, side text);
CREATE TABLE unions (name text, parts int, values_in bigint, error text, union_ms float8,
	sub int, items bigint, bytes bigint, load float8, fbits int, fp bigint, fn bigint,
	del_error text, deleted bigint, del_items bigint, del_deletes bigint, retained bigint,
	del_fn bigint, del_still_present bigint, del_fp bigint, exp_fpr float8, side text);
CREATE TABLE lookup_runs (rep int, filter text, keys text, ms float8, hits bigint, side text);
CREATE TABLE lfilter_info (name text, items bigint, bytes bigint, subfilters int, load_factor float8,
	fingerprint_bits int, side text);
SQL
	while read -r label; do
		ord=$((ord + 1))
		P -c "INSERT INTO sides VALUES ($ord, '$label', $(cut -d' ' -f2 "$work/$label/seconds"))"
		for t in meta params sweep peruser upsert_check unions lookup_runs lfilter_info; do
			cols=$(P -At -c "SELECT string_agg(quote_ident(attname), ', ' ORDER BY attnum) FROM pg_attribute
				WHERE attrelid = '$t'::regclass AND attnum > 0 AND NOT attisdropped AND attname <> 'side'")
			P -c "COPY $t ($cols) FROM '$work/$label/$t.csv' CSV" -c "UPDATE $t SET side = '$label' WHERE side IS NULL"
		done
	done < "$work/labels"
	P -c "CREATE FUNCTION ord(text) RETURNS int LANGUAGE sql AS 'SELECT ord FROM sides WHERE side = \$1'"

	echo "## Runs"
	md "" "SELECT s.side, m.extversion, s.seconds, p.maxn, p.steps, p.absent, p.users, p.items, p.real_users, p.lkeys, p.reps, m.server
		FROM sides s JOIN meta m USING (side) JOIN params p USING (side) ORDER BY s.ord"

	echo
	echo "## 1. Space: grown from the default against cf_agg of the same values"
	md "Summary (ratio = grown bytes / cf_agg bytes; full = the sizes where the grown table is at load >= 0.9):" "
	WITH s AS (SELECT side, fpr, kind, n, g_bytes::float8 / a_bytes AS r, g_fp::float8 / nabsent AS gf,
	                  a_fp::float8 / nabsent AS af, g_fn, a_fn, g_sub FROM sweep)
	SELECT side, fpr * 100 AS \"target %\", count(*) FILTER (WHERE kind = 'sweep') AS sizes, max(n) AS max_n,
	       round(exp(avg(ln(r)) FILTER (WHERE kind = 'sweep'))::numeric, 2) AS geomean_ratio,
	       round(max(r) FILTER (WHERE kind = 'sweep')::numeric, 2) AS worst_ratio,
	       (array_agg(n ORDER BY r DESC) FILTER (WHERE kind = 'sweep'))[1] AS worst_at_n,
	       round(((array_agg(r ORDER BY n DESC) FILTER (WHERE kind = 'sweep'))[1])::numeric, 2) AS ratio_at_max_n,
	       count(*) FILTER (WHERE kind = 'full') AS full_sizes,
	       round(exp(avg(ln(r)) FILTER (WHERE kind = 'full'))::numeric, 2) AS full_geomean,
	       round(max(r) FILTER (WHERE kind = 'full')::numeric, 2) AS full_worst,
	       round(max(100 * gf)::numeric, 3) AS \"max grown FPR %\",
	       round(max(gf / fpr)::numeric, 2) AS \"max grown FPR / target\",
	       round(max(100 * af)::numeric, 3) AS \"max cf_agg FPR %\",
	       max(g_sub) AS max_subfilters, sum(g_fn + a_fn) AS false_negatives
	  FROM s GROUP BY side, fpr ORDER BY fpr DESC, ord(side)"
	for f in 0.01 0.001; do
		cells=""
		while read -r label; do
			cells="$cells,
			round(max(g_bytes * 8.0 / n) FILTER (WHERE side = '$label'), 2) AS \"$label grown bits/item\",
			round(max(g_bytes::numeric / a_bytes) FILTER (WHERE side = '$label'), 2) AS \"$label ratio\",
			max(g_sub) FILTER (WHERE side = '$label') AS \"$label sub\",
			round(max(g_load) FILTER (WHERE side = '$label')::numeric, 2) AS \"$label load\",
			max(g_fbits) FILTER (WHERE side = '$label') AS \"$label fbits\",
			round(max(100.0 * g_fp / nabsent) FILTER (WHERE side = '$label'), 3) AS \"$label grown FPR %\""
		done < "$work/labels"
		md "Per size at target $f (cf_agg columns from the first build; n_agg_builds = distinct cf_agg sizes across builds, 1 = identical):" "
		SELECT n $cells,
		       round(min(a_bytes * 8.0 / n) FILTER (WHERE ord(side) = 1), 2) AS \"cf_agg bits/item\",
		       round(min(100.0 * a_fp / nabsent) FILTER (WHERE ord(side) = 1), 3) AS \"cf_agg FPR %\",
		       count(DISTINCT a_bytes) AS n_agg_builds
		  FROM sweep WHERE kind = 'sweep' AND fpr = $f GROUP BY n ORDER BY n"
	done
	md "Where the grown table is full (the largest of 0.95, 0.93, 0.91 x its slots that still fits it):" "
	SELECT side, fpr * 100 AS \"target %\", n, g_items AS items, g_sub AS sub, round(g_load::numeric, 3) AS load,
	       round(g_bytes * 8.0 / n, 2) AS \"grown bits/item\", round(a_bytes * 8.0 / n, 2) AS \"cf_agg bits/item\",
	       round(g_bytes::numeric / a_bytes, 2) AS ratio, round(100.0 * g_fp / nabsent, 3) AS \"grown FPR %\"
	  FROM sweep WHERE kind = 'full' ORDER BY ord(side), fpr DESC, n"

	echo
	echo "## 2. Per-user filters: single-item adds from cf_add(NULL, v) against cf_agg per user"
	md "" "SELECT side, method, users, items, round(avg_bytes) AS bytes_per_user, round(avg_stored) AS stored_per_user,
	       round(avg_bytes * 8 / items, 1) AS bits_per_item, round(avg_sub, 1) AS avg_subfilters, max_sub,
	       round(avg_load::numeric, 2) AS avg_load, fbits, round(100 * fp / tested, 3) AS \"FPR %\", tested AS absent_tested,
	       fn AS false_negatives
	  FROM peruser ORDER BY ord(side), method DESC"
	md "Real single-item upserts (INSERT ... ON CONFLICT DO UPDATE SET f = cf_add(t.f, v), round robin) against the grown rows above:" "
	SELECT side, users_upserted, identical_to_grown FROM upsert_check ORDER BY ord(side)"

	echo
	echo "## 3. cf_union_agg of per-user filters, then cf_delete_all of a third of the values"
	md "" "SELECT u.side, name, parts, values_in, coalesce(error, '') AS error, round(union_ms) AS ms, sub AS subfilters,
	       u.items, bytes, round(bytes * 8.0 / values_in, 1) AS bits_per_value, round(load::numeric, 2) AS load, fbits,
	       round(100.0 * fp / p.absent, 3) AS \"FPR %\", round(100 * exp_fpr::numeric, 3) AS \"cf_info fpr %\",
	       fn AS false_negatives
	  FROM unions u JOIN params p USING (side) ORDER BY ord(u.side), name DESC"
	md "Deletes after the union (the values v % 3 = 0; false negatives among the others):" "
	SELECT u.side, name, deleted, del_items AS items_after, del_deletes AS deletes, retained,
	       round(100.0 * retained / deleted, 1) AS \"retained %\", del_fn AS false_negatives,
	       del_still_present AS deleted_still_present, round(100.0 * del_fp / p.absent, 3) AS \"FPR % after\",
	       coalesce(del_error, '') AS error
	  FROM unions u JOIN params p USING (side) WHERE error IS NULL ORDER BY ord(u.side), name DESC"

	echo
	echo "## 4. Lookups: SELECT count(*) FROM keys WHERE cf_contains(f, k)"
	md "The filters:" "SELECT side, name, items, bytes, subfilters, round(load_factor::numeric, 3) AS load, fingerprint_bits
	  FROM lfilter_info ORDER BY ord(side), name DESC"
	md "Milliseconds per query (median of the reps) and the grown / cf_agg ratio of each rep (min, median, max):" "
	WITH r AS (SELECT side, keys, rep, max(ms) FILTER (WHERE filter = 'grown') AS g, max(ms) FILTER (WHERE filter = 'agg') AS a,
	                  max(hits) FILTER (WHERE filter = 'grown') AS gh, max(hits) FILTER (WHERE filter = 'agg') AS ah
	             FROM lookup_runs GROUP BY side, keys, rep)
	SELECT side, keys, count(*) AS reps, round(percentile_cont(0.5) WITHIN GROUP (ORDER BY g)::numeric) AS grown_ms,
	       round(percentile_cont(0.5) WITHIN GROUP (ORDER BY a)::numeric) AS agg_ms,
	       round(min(g / a)::numeric, 2) AS min_ratio, round(percentile_cont(0.5) WITHIN GROUP (ORDER BY g / a)::numeric, 2) AS median_ratio,
	       round(max(g / a)::numeric, 2) AS max_ratio, min(gh) AS grown_hits, min(ah) AS agg_hits
	  FROM r GROUP BY side, keys ORDER BY ord(side), keys DESC"
	md "Every run (ms):" "SELECT side, rep, keys, string_agg(filter || ' ' || round(ms::numeric), ', ' ORDER BY filter DESC) AS ms
	  FROM lookup_runs GROUP BY side, rep, keys ORDER BY ord(side), keys DESC, rep"
}
if [ "${1:-}" = --report ]; then
	report "$2"
	exit
fi
MAXN=${MAXN:-1000000} STEPS=${STEPS:-41} ABSENT=${ABSENT:-100000}
USERS=${USERS:-20} ITEMS=${ITEMS:-20000} REAL_USERS=${REAL_USERS:-1}
LKEYS=${LKEYS:-1000000} REPS=${REPS:-5}
[ $# -gt 0 ] || set -- "this=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}"

work=$(mktemp -d -t growth-sql.XXXXXX)
chmod 755 "$work"
# psql reads its file as it runs: a copy, so that editing the script cannot change a run
cp "$top/bench/sql/growth_sql.sql" "$work/growth_sql.sql"
[ "${KEEP:-0}" = 1 ] || trap 'rm -rf "$work"' EXIT
labels=()
for side in "$@"; do
	label=${side%%=*} pgc=${side#*=}
	if [ "$label" = "$side" ] || [ ! -x "$pgc" ]; then
		echo "growth_sql: want LABEL=PG_CONFIG, got $side" >&2
		exit 2
	fi
	labels+=("$label")
	mkdir -p "$work/$label"
	chmod 755 "$work/$label"
	echo "growth_sql: $label ($pgc)" >&2
	t0=$(date +%s)
	# shellcheck disable=SC2016
	PG_CONFIG=$pgc bash "$top/test/pg/tmpcluster.sh" bash -c '
		set -euo pipefail
		psql -X -q -o /dev/null -v ON_ERROR_STOP=1 -v label="$1" -v maxn="$3" -v steps="$4" -v absent="$5" \
			-v users="$6" -v items="$7" -v real_users="$8" -v lkeys="$9" -v reps="${10}" \
			-f "${11}" >&2
		for t in meta params sweep peruser upsert_check unions lookup_runs \
			"lfilter_info:SELECT name, items, bytes, subfilters, load_factor, fingerprint_bits FROM cf_g25.lfilter_info"; do
			q=${t#*:}; [ "$q" != "$t" ] || q="SELECT * FROM cf_g25.$t"
			psql -X -q -v ON_ERROR_STOP=1 -c "COPY ($q) TO STDOUT CSV" > "$2/${t%%:*}.csv"
		done
		chmod 644 "$2"/*.csv' \
		_ "$label" "$work/$label" "$MAXN" "$STEPS" "$ABSENT" "$USERS" "$ITEMS" "$REAL_USERS" "$LKEYS" "$REPS" \
		"$work/growth_sql.sql"
	echo "$label $(($(date +%s) - t0))" > "$work/$label/seconds"
	echo "growth_sql: $label took $(($(date +%s) - t0)) s" >&2
done

# the report: the CSVs loaded into a throw-away cluster (of the first
# PG_CONFIG; no extension needed), queried, printed as markdown tables
first=${1#*=}
printf '%s\n' "${labels[@]}" > "$work/labels"
PG_CONFIG=$first bash "$top/test/pg/tmpcluster.sh" bash "$top/bench/growth_sql.sh" --report "$work"
[ "${KEEP:-0}" != 1 ] || echo "growth_sql: CSVs kept in $work" >&2
