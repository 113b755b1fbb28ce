#!/usr/bin/env bash
# deps.sh - installs, from Debian's packages, everything cuckoo builds,
# tests and benchmarks with.  Idempotent; needs root (or sudo).
#
# Usage: bash scripts/deps.sh [quick | full]
#   quick  what the demo, the build and the quick test run need (a compiler,
#          the PostgreSQL 15 server and its headers, xxhash, python3; the
#          Python module's build and tests: python3-dev, python3-setuptools,
#          python3-psycopg2, python3-psycopg, and python3-pip, python3-wheel
#          for the offline pip install; pkgconf: make check-lib builds
#          docs/python.md's C example as the page says, with pkg-config)
#   full   (the default) also what the complete test run and the benchmarks
#          use: valgrind, clang's fuzzer and sanitizer runtime, hll, libbloom,
#          and the Debian packages' build and test (test/deb/run.sh):
#          debhelper, dh-python, postgresql-server-dev-all, python3-all-dev,
#          dpkg-dev, fakeroot, lintian, debootstrap
#
# Installing postgresql-15 makes Debian create and start a cluster, 15/main,
# that nothing here uses: when this script is what installed the server, it
# drops that fresh, empty cluster again (the tests and the demo run
# throw-away clusters of their own).  A 15/main that existed before is left
# alone.
set -euo pipefail
export LC_ALL=C.UTF-8 LANG=C.UTF-8 LANGUAGE= DEBIAN_FRONTEND=noninteractive
PKGS=(build-essential postgresql-15 postgresql-server-dev-15 postgresql-common
      libxxhash-dev python3 python3-dev python3-setuptools python3-psycopg2
      python3-psycopg python3-pip python3-wheel pkgconf)
case ${1:-full} in
	quick) ;;
	full) PKGS+=(postgresql-15-hll libbloom-dev valgrind clang libclang-rt-14-dev
			debhelper dh-python postgresql-server-dev-all python3-all-dev dpkg-dev fakeroot
			lintian debootstrap) ;;
	*) echo "usage: deps.sh [quick | full]" >&2; exit 2 ;;
esac
missing=()
for p in "${PKGS[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
	had_main=no
	[ -d /etc/postgresql/15/main ] && had_main=yes
	echo "deps: installing ${missing[*]}"
	log=$(mktemp -t cuckoo-deps.XXXXXX)
	if ! { $SUDO apt-get update -qq &&
		$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
			"${missing[@]}"; } > "$log" 2>&1; then
		tail -30 "$log"; rm -f "$log"
		echo "deps: apt-get failed"
		exit 1
	fi
	rm -f "$log"
	if [ "$had_main" = no ] && [ -d /etc/postgresql/15/main ]; then
		echo "deps: dropping the 15/main cluster the postgresql-15 package just created (unused)"
		$SUDO pg_dropcluster --stop 15 main || true
	fi
fi
