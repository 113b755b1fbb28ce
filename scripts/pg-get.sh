#!/usr/bin/env bash
# pg-get.sh - makes one PostgreSQL major available for the tests and prints
# how to reach it (one line, on stdout):
#   "config <path of pg_config>"  a PostgreSQL built on this machine, or the
#                                  system's Debian package (15)
#   "chroot <directory>"          a Debian chroot of a newer suite holding
#                                  that suite's postgresql-NN packages
# Progress goes to stderr.  Needs root (or sudo) for anything it installs.
#
# Debian 12 packages only PostgreSQL 15.  A newer major comes from a newer
# Debian suite (18 from sid, 17 from trixie), in this order:
#   1. its source package, fetched with an apt configuration of our own (the
#      machine's apt sources are never changed: a sources list with deb-src
#      lines for that suite, written under the cache, on the same archive
#      and keyring as the machine's own bookworm lines, read at run time);
#      the upstream tarball inside it is built with ./configure --prefix
#      (about 3 minutes of make -j2) and installed under
#      $CUCKOO_PG_CACHE/<version>, keyed by the exact upstream version;
#   2. where the suite's source files cannot be downloaded (the archive can
#      carry a suite's binaries and not yet its sources), a minimal
#      debootstrap chroot of the suite, $CUCKOO_PG_CACHE/chroot-<suite>,
#      with postgresql-NN and postgresql-server-dev-NN installed in it.
# Both are kept: a second run finds them and takes seconds.  A cached build
# is used as it is when the archive cannot be reached.
#
# Usage: bash scripts/pg-get.sh MAJOR
#        bash scripts/pg-get.sh --archive   prints the archive URL and keyring
#   CUCKOO_PG_CACHE  where builds and chroots live (/var/cache/cuckoo-pg)
#   CUCKOO_PG_VIA    "source" or "chroot" to force one way (default: try
#                    source, then chroot)
set -uo pipefail
major=${1:?usage: pg-get.sh MAJOR | --archive}
cache=${CUCKOO_PG_CACHE:-/var/cache/cuckoo-pg}
via=${CUCKOO_PG_VIA:-}
SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
export LC_ALL=C.UTF-8 LANG=C.UTF-8 LANGUAGE= DEBIAN_FRONTEND=noninteractive
say() { echo "pg-get $major: $*" >&2; }

case $major in
	--archive) ;;
	15) if [ -x /usr/lib/postgresql/15/bin/pg_config ]; then
			echo "config /usr/lib/postgresql/15/bin/pg_config"; exit 0
		fi
		say "PostgreSQL 15 is not installed (scripts/deps.sh installs it)"; exit 1 ;;
	18) suite=sid ;;
	17) suite=trixie ;;
	*)	say "no Debian suite is known to carry PostgreSQL $major"; exit 1 ;;
esac

$SUDO mkdir -p "$cache"
apt_pkgs() {	# installs missing host packages
	local missing=() p
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	say "installing ${missing[*]}"
	$SUDO apt-get update -qq >&2 &&
		$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" > /dev/null
}

# The archive and keyring the machine's own Debian lines use (deb822
# .sources or one-line .list), read at run time.
archive_and_keyring() {
	local f uri="" key=""
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		# the first stanza naming a bookworm suite of the main archive
		read -r uri key < <(awk '
			/^[ \t]*$/ { if (u && s) { print u, k; exit } u = ""; s = 0; k = ""; next }
			/^URIs:/ { u = $2 }
			/^Suites:/ { for (i = 2; i <= NF; i++) if ($i == "bookworm") s = 1 }
			/^Signed-By:/ { k = $2 }
			END { if (u && s) print u, k }' "$f")
		[ -n "$uri" ] && break
	done
	if [ -z "$uri" ]; then
		for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
			[ -f "$f" ] || continue
			uri=$(awk '$1 == "deb" { for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:\/\//) {
				if ($(i + 1) == "bookworm") { print $i; exit } } }' "$f")
			key=$(awk '$1 == "deb" && /signed-by=/ { match($0, /signed-by=[^] ]+/);
				print substr($0, RSTART + 10, RLENGTH - 10); exit }' "$f")
			[ -n "$uri" ] && break
		done
	fi
	[ -n "$uri" ] || uri=http://deb.debian.org/debian
	[ -n "$key" ] || key=/usr/share/keyrings/debian-archive-keyring.gpg
	echo "$uri $key"
}
read -r ARCHIVE KEYRING < <(archive_and_keyring)
# how a major built from source is configured: as Debian's packages are where
# the tests can tell (ICU collations, lz4 compression), without what they
# need not (readline, LLVM); recorded in .built, so a change rebuilds
CONFIGURE_OPTS="--without-readline --without-llvm --with-icu --with-lz4 --enable-debug"
# The archive can be a frozen snapshot: sid's Release file then is past its
# Valid-Until date, and apt refuses it ("Release file ... is expired") on a
# machine not configured otherwise.  Signatures are still checked.
NO_EXPIRY=(-o Acquire::Check-Valid-Until=false -o Acquire::Check-Date=false)
if [ "$major" = --archive ]; then echo "$ARCHIVE $KEYRING"; exit 0; fi

# --- 1. the source package --------------------------------------------
from_source() {
	local apt=$cache/apt
	$SUDO mkdir -p "$apt/state/lists/partial" "$apt/cache/archives/partial" "$cache/src"
	printf 'deb-src [signed-by=%s] %s %s main\n' "$KEYRING" "$ARCHIVE" "$suite" |
		$SUDO tee "$apt/sources-$suite.list" > /dev/null
	local O=(-o "Dir::Etc::sourcelist=$apt/sources-$suite.list" -o Dir::Etc::sourceparts=-
		-o "Dir::State=$apt/state" -o "Dir::State::status=/var/lib/dpkg/status"
		-o "Dir::Cache=$apt/cache" -o APT::Sandbox::User=root "${NO_EXPIRY[@]}")
	local version=""
	if $SUDO apt-get "${O[@]}" -qq update >&2; then
		# the upstream version: the .orig tarball's name
		version=$(apt-cache "${O[@]}" showsrc "postgresql-$major" 2>/dev/null |
			sed -nE "s/^ [0-9a-f]{32} [0-9]+ postgresql-${major}_([0-9.]+)\.orig\.tar\.(bz2|gz|xz)\$/\1/p" |
			sort -V | tail -1)
	fi
	if [ -z "$version" ]; then
		# offline or not listed: any cached build of this major
		version=$(ls "$cache" 2>/dev/null | grep -E "^${major}\.[0-9]+\$" | sort -V | tail -1)
		[ -n "$version" ] && [ -f "$cache/$version/.built" ] || { say "no source package of postgresql-$major in $suite"; return 1; }
		say "the archive has no source list; using the cached build $version"
	fi
	local prefix=$cache/$version
	# a build with other configure options (an older run of this script) is redone
	if [ -f "$prefix/.built" ] && [ -x "$prefix/bin/pg_config" ] &&
		[ "$(cat "$prefix/.built")" = "$CONFIGURE_OPTS" ]; then
		# the libraries it was built against (ICU, zlib) may be missing here
		if ldd "$prefix/bin/postgres" 2>/dev/null | grep -q 'not found'; then
			apt_pkgs libicu-dev zlib1g-dev liblz4-dev || return 1
		fi
		say "PostgreSQL $version: cached in $prefix"
		echo "config $prefix/bin/pg_config"; return 0
	fi
	local dl=$cache/src/$version
	$SUDO mkdir -p "$dl"
	local tarball
	tarball=$(ls "$dl"/postgresql-${major}_"$version".orig.tar.* 2>/dev/null | head -1)
	if [ -z "$tarball" ]; then
		say "downloading the source package postgresql-$major ($version) from $suite"
		if ! (cd "$dl" && $SUDO apt-get "${O[@]}" -qq --download-only source "postgresql-$major") \
			> "$cache/apt-source-$major.log" 2>&1; then
			say "the source files of postgresql-$major could not be downloaded from $suite:"
			grep -m1 '^E:' "$cache/apt-source-$major.log" >&2
			return 1
		fi
		tarball=$(ls "$dl"/postgresql-${major}_"$version".orig.tar.* 2>/dev/null | head -1)
		[ -n "$tarball" ] || { say "no upstream tarball in the source package"; return 1; }
	fi
	apt_pkgs build-essential pkg-config libicu-dev zlib1g-dev liblz4-dev bzip2 xz-utils bison flex perl || return 1
	local build=$cache/build-$version
	$SUDO rm -rf "$build" "$prefix"
	$SUDO mkdir -p "$build"
	$SUDO tar -xf "$tarball" -C "$build" --strip-components=1 || return 1
	say "building PostgreSQL $version into $prefix (about 3 minutes on 2 cores)"
	local t0=$SECONDS log=$build/build.log
	(
		cd "$build" &&
		# shellcheck disable=SC2086
		$SUDO ./configure --prefix="$prefix" $CONFIGURE_OPTS CFLAGS="-O2" > "$log" 2>&1 &&
		$SUDO make -j2 -s >> "$log" 2>&1 &&
		$SUDO make -s install >> "$log" 2>&1
	) &
	local pid=$!
	while kill -0 "$pid" 2> /dev/null; do
		sleep 30
		kill -0 "$pid" 2> /dev/null && say "still building ($((SECONDS - t0)) s)"
	done
	if ! wait "$pid"; then
		tail -40 "$log" >&2
		say "the build of PostgreSQL $version failed; log in $log"
		return 1
	fi
	echo "$CONFIGURE_OPTS" | $SUDO tee "$prefix/.built" > /dev/null
	$SUDO rm -rf "$build"
	say "PostgreSQL $version built in $((SECONDS - t0)) s"
	echo "config $prefix/bin/pg_config"
}

# --- 2. a chroot of the suite with its binary packages ----------------
from_chroot() {
	local root=$cache/chroot-$suite
	local pkgs=(postgresql-$major postgresql-server-dev-$major make gcc libc6-dev libxxhash-dev)
	if [ "$(cat "$root/.ready-$major" 2>/dev/null)" = "${pkgs[*]}" ]; then
		say "chroot $root with postgresql-$major: cached"
		echo "chroot $root"; return 0
	fi
	apt_pkgs debootstrap || return 1
	local t0=$SECONDS
	if [ ! -f "$root/.debootstrapped" ]; then
		say "debootstrap --variant=minbase $suite into $root"
		$SUDO rm -rf "$root"
		if ! $SUDO debootstrap --variant=minbase --keyring="$KEYRING" "$suite" "$root" "$ARCHIVE" \
			> "$cache/debootstrap-$suite.log" 2>&1; then
			tail -20 "$cache/debootstrap-$suite.log" >&2
			say "debootstrap of $suite failed"; return 1
		fi
		$SUDO touch "$root/.debootstrapped"
	fi
	# no service starts in the chroot, and no 'main' cluster is created
	printf '#!/bin/sh\nexit 101\n' | $SUDO tee "$root/usr/sbin/policy-rc.d" > /dev/null
	$SUDO chmod 755 "$root/usr/sbin/policy-rc.d"
	$SUDO mkdir -p "$root/etc/postgresql-common"
	echo 'create_main_cluster = false' | $SUDO tee "$root/etc/postgresql-common/createcluster.conf" > /dev/null
	say "installing postgresql-$major, postgresql-server-dev-$major and a compiler in the chroot"
	if ! $SUDO chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive \
		sh -c "apt-get -qq ${NO_EXPIRY[*]} update && apt-get install -y -qq --no-install-recommends ${pkgs[*]}" \
		> "$cache/chroot-$suite-apt.log" 2>&1; then
		tail -20 "$cache/chroot-$suite-apt.log" >&2
		say "could not install postgresql-$major in the $suite chroot"; return 1
	fi
	echo "${pkgs[*]}" | $SUDO tee "$root/.ready-$major" > /dev/null
	say "chroot ready in $((SECONDS - t0)) s"
	echo "chroot $root"
}

case $via in
	source) from_source ;;
	chroot) from_chroot ;;
	*) from_source || { say "falling back to the $suite binary packages in a chroot"; from_chroot; } ;;
esac
