#!/usr/bin/env bash
# diff_core.sh - the differential run of two revisions of the core: builds
# bench/diff_core.c (this checkout's) against each side's src/core and
# compares what they print (filter bytes, lookup paths, answers, statistics,
# errors over every geometry, encoding and bucket size).
#
# Usage: bash bench/diff_core.sh BASE [HEAD]   (HEAD: the work tree if left out)
# Exits 0 and prints "identical" when both sides print the same lines.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
base=$1
head=${2:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
CC=${CC:-cc}
OPT=${OPT:--O2}

side() {	# side NAME REV: tree of REV (or the work tree) built and run
	local dir=$tmp/$1
	mkdir -p "$dir"
	if [ -n "$2" ]; then
		git -C "$top" archive "$2" src/core | tar -x -C "$dir"
	else
		cp -r "$top/src" "$dir/"
	fi
	$CC $OPT -std=gnu99 -I"$dir/src/core" -o "$dir/diff_core" "$top/bench/diff_core.c" \
		"$dir"/src/core/*.c -lm
	"$dir/diff_core" > "$tmp/$1.out"
}

side base "$base"
side head "$head"
echo "$(wc -l < "$tmp/base.out") lines each side"
if cmp -s "$tmp/base.out" "$tmp/head.out"; then
	echo identical
else
	diff "$tmp/base.out" "$tmp/head.out" | head -40
	exit 1
fi
