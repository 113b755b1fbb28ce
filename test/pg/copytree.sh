#!/usr/bin/env bash
# copytree.sh - copies the source tree SRC to DEST without anything a build
# or a test run leaves behind (objects, libraries, bitcode, results), so a
# build in DEST starts clean whatever SRC holds.  Needs no git: a fresh
# machine, or a tarball of the sources, has none.
# Usage: bash test/pg/copytree.sh SRC DEST
set -euo pipefail
src=${1:?usage: copytree.sh SRC DEST}
dest=${2:?usage: copytree.sh SRC DEST}
mkdir -p "$dest"
tar -C "$src" -cf - \
	--exclude=.git --exclude='*.o' --exclude='*.so' --exclude='*.bc' --exclude='*.a' \
	--exclude='*.dSYM' --exclude=./results --exclude=./regression.diffs \
	--exclude=./regression.out --exclude=./log --exclude=./tmp_check \
	--exclude=./test/core/build --exclude=./bench/build --exclude=./fuzz-out \
	--exclude='crash-*' --exclude='leak-*' --exclude='timeout-*' --exclude='oom-*' . |
	tar -C "$dest" -xf -
