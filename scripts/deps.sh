#!/usr/bin/env bash
# deps.sh - installs, from Debian's packages, everything cuckoo builds,
# tests and benchmarks with.  Idempotent; needs root (or sudo).
set -euo pipefail
PKGS=(build-essential postgresql-15 postgresql-server-dev-15 postgresql-common
      libxxhash-dev postgresql-15-hll libbloom-dev valgrind clang libclang-rt-14-dev)
missing=()
for p in "${PKGS[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
	echo "deps: installing ${missing[*]}"
	$SUDO apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
