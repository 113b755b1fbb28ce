#!/usr/bin/env bash
# verify_bench.sh - issue 48's cost: cf_contains per row (a constant filter
# over N_ROWS rows, a filter column over N_COL rows) and cf_verify of a
# filter of N_VERIFY items against reading it once (cf_items of its bytes
# made a new filter: a detoast and a full cf_validate... see below), BASE
# (a commit, default e0ae89b: main before issue 48) and HEAD (this
# checkout's installed build, PG_CONFIG) interleaved: BASE HEAD BASE HEAD
# ..., each run a throw-away cluster of its side, the same data, each query
# the best of 3; BASE against BASE is the A/A noise.
#
# Usage: PG_CONFIG=... bash bench/verify_bench.sh [BASE] [REPS]
# Environment: N_ROWS (10000000), N_COL (1000000), N_VERIFY (10000000).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
BASE=${1:-e0ae89b}
REPS=${2:-2}
N_ROWS=${N_ROWS:-10000000}
N_COL=${N_COL:-1000000}
N_VERIFY=${N_VERIFY:-10000000}
work=$(mktemp -d -t cuckoo-verify-bench.XXXXXX)
chmod 755 "$work"

# BASE: its sources built into a private copy of this server's installation
prefix=$(cd "$("$PG_CONFIG" --bindir)/../../../../.." && pwd)
cp -a "$prefix" "$work/pgA"
pgA="$work/pgA${PG_CONFIG#"$prefix"}"
mkdir "$work/A"
git -C "$top" archive "$BASE" | tar -x -C "$work/A"
make -s -C "$work/A" PG_CONFIG="$pgA" -j2 > /dev/null 2>&1
make -s -C "$work/A" PG_CONFIG="$pgA" install > /dev/null

cat > "$work/bench.sql" <<SQL
\\set QUIET on
\\set ON_ERROR_STOP 0
CREATE EXTENSION IF NOT EXISTS cuckoo;
SET max_parallel_workers_per_gather = 0;
SET jit = off;
CREATE TABLE t AS SELECT i::bigint AS id FROM generate_series(1, $N_ROWS) i;
CREATE TABLE c1 AS SELECT cf_agg(i * 2) AS f FROM generate_series(1::bigint, 1000000) i;
CREATE TABLE col AS SELECT i::bigint AS id, cf_add_all(cf_create(10), ARRAY[i % 97, i % 89, i % 83]::bigint[]) AS f
  FROM generate_series(1, $N_COL) i;
CREATE TABLE big AS SELECT cf_agg(i) AS f FROM generate_series(1::bigint, $N_VERIFY) i;
VACUUM ANALYZE t; VACUUM ANALYZE col;
\\timing on
\\echo const
SELECT count(*) FROM t WHERE cf_contains((SELECT f FROM c1), id);
SELECT count(*) FROM t WHERE cf_contains((SELECT f FROM c1), id);
SELECT count(*) FROM t WHERE cf_contains((SELECT f FROM c1), id);
\\echo column
SELECT count(*) FROM col WHERE cf_contains(f, id % 97);
SELECT count(*) FROM col WHERE cf_contains(f, id % 97);
SELECT count(*) FROM col WHERE cf_contains(f, id % 97);
\\echo read
SELECT octet_length(f::bytea::cuckoofilter::bytea) FROM big;
SELECT octet_length(f::bytea::cuckoofilter::bytea) FROM big;
SELECT octet_length(f::bytea::cuckoofilter::bytea) FROM big;
\\echo detoast
SELECT octet_length(f::bytea) FROM big;
SELECT octet_length(f::bytea) FROM big;
SELECT octet_length(f::bytea) FROM big;
\\echo verify
SELECT (cf_verify(f)).ok FROM big;
SELECT (cf_verify(f)).ok FROM big;
SELECT (cf_verify(f)).ok FROM big;
SQL
chmod 644 "$work/bench.sql"

run() {	# SIDE PG_CONFIG REP
	PG_CONFIG="$2" bash "$top/test/pg/tmpcluster.sh" psql -X -q -f "$work/bench.sql" 2>&1 |
		awk -v side="$1" -v rep="$3" '
			/^(const|column|read|detoast|verify)$/ { m = $1; next }
			/^Time:/ { t = $2; if (!(m in best) || t < best[m]) best[m] = t }
			END { for (k in best) printf "%s %s %s %.1f\n", side, rep, k, best[k] }'
}
for r in $(seq 1 "$REPS"); do
	if [ $((r % 2)) = 1 ]; then
		run A "$pgA" "$r"; run B "$PG_CONFIG" "$r"
	else
		run B "$PG_CONFIG" "$r"; run A "$pgA" "$r"
	fi
done | tee "$work/raw.txt"
echo "raw: $work/raw.txt (ms, best of 3; A = $BASE, B = this build)"
