#!/usr/bin/env bash
# interleave.sh - times SQL statements against a running server, interleaved:
# repetition 1 runs every statement once, in order, then repetition 2 ...,
# after one untimed warm-up round, so that a machine that speeds up or slows
# down moves all of them alike.  Prints min / median / max wall ms (psql's
# \timing) of each statement and of the per-repetition ratios asked for.
#
# Usage: PSQL="psql -h ... -p ... -U ..." REPS=5 RATIOS="a/b c/b" \
#          bash bench/interleave.sh < statements
#   statements: one per line, "label|workers|SQL" (workers: the value of
#   max_parallel_workers_per_gather for it); blank lines and # comments skipped
#   RATIOS: label pairs "x/y"; per repetition time(x) / time(y)
#   CPU=1: time the backend's CPU (/proc/PID/schedstat, the server on this
#   machine) instead of psql's wall clock: on a loaded shared machine the wall
#   clock also counts the time the scheduler gives other processes
set -euo pipefail
PSQL=${PSQL:-psql}
REPS=${REPS:-5}
RATIOS=${RATIOS:-}
CPU=${CPU:-0}
labels=()
script=$(mktemp)
cpush=$(mktemp)
trap 'rm -f "$script" "$cpush"' EXIT
echo 'echo "@c $(cut -d" " -f1 "/proc/$BPID/schedstat")"' >"$cpush"
stmts=()
while IFS= read -r line; do
	case $line in '' | '#'*) continue ;; esac
	stmts+=("$line")
done
emit() {	# $1: marker prefix
	local s label w sql
	for s in "${stmts[@]}"; do
		label=${s%%|*}; s=${s#*|}; w=${s%%|*}; sql=${s#*|}
		echo '\timing off'
		echo "SET max_parallel_workers_per_gather = $w;"
		echo "\\echo @@ $1$label"
		if [ "$CPU" = 1 ]; then echo "\\! sh $cpush"; fi
		echo '\timing on'
		echo "$sql;"
		if [ "$CPU" = 1 ]; then echo "\\! sh $cpush"; fi
	done
}
{
	echo '\set QUIET on'
	echo 'SELECT pg_backend_pid() AS bpid \gset'
	echo '\setenv BPID :bpid'
	emit warm-
	for _ in $(seq "$REPS"); do emit ""; done
	echo '\timing off'
} >"$script"
for s in "${stmts[@]}"; do labels+=("${s%%|*}"); done
$PSQL -X -q -At -v ON_ERROR_STOP=1 -f "$script" | awk -v labels="${labels[*]}" -v ratios="$RATIOS" -v cpu="$CPU" '
	/^@@ / { k = $2; c0 = ""; next }
	/^@c / { if (c0 == "") c0 = $2; else if (k !~ /^warm-/) t[k, ++n[k]] = ($2 - c0) / 1e6; next }
	/^Time: / { if (cpu != 1 && k !~ /^warm-/) t[k, ++n[k]] = $2 }
	function stats(a, m,   i, j, x) {	# sorts a[1..m]; sets MIN MED MAX
		for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (a[j] < a[i]) { x = a[i]; a[i] = a[j]; a[j] = x }
		MIN = a[1]; MAX = a[m]; MED = (m % 2) ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
	}
	END {
		nl = split(labels, L, " ")
		printf "%-28s %10s %10s %10s\n", cpu == 1 ? "statement (CPU ms)" : "statement (wall ms)", "min", "median", "max"
		for (i = 1; i <= nl; i++) {
			m = n[L[i]]; for (r = 1; r <= m; r++) v[r] = t[L[i], r]
			stats(v, m); printf "%-28s %10.1f %10.1f %10.1f\n", L[i], MIN, MED, MAX
		}
		nr = split(ratios, R, " ")
		if (nr) printf "%-28s %10s %10s %10s\n", "ratio (per repetition)", "min", "median", "max"
		for (i = 1; i <= nr; i++) {
			split(R[i], ab, "/"); m = n[ab[1]]
			for (r = 1; r <= m; r++) v[r] = t[ab[1], r] / t[ab[2], r]
			stats(v, m); printf "%-28s %10.2f %10.2f %10.2f\n", R[i], MIN, MED, MAX
		}
	}'
