#!/usr/bin/env bash
# run.sh - the Debian packages (issue 49), as a user on Debian 12 gets them:
#   1. builds them from a copy of the tree (dpkg-buildpackage -us -uc -b, in a
#      scratch directory: it writes into the parent directory): one
#      postgresql-NN-cuckoo per major `pg_buildext supported-versions` gives
#      (debian/pgversions), libcuckoo2, libcuckoo-dev, python3-cuckoo;
#   2. lintian on them: no error (warnings are listed);
#   3. installs them (apt install ./*.deb) into a fresh minimal Debian 12: a
#      debootstrap --variant=minbase bookworm, made once and cached under
#      $CUCKOO_PG_CACHE (/var/cache/cuckoo-pg/deb-bookworm-base), copied for
#      each run (the downloaded .debs are cached beside it too);
#   4. there: a cluster (pg_createcluster), CREATE EXTENSION cuckoo, the whole
#      regression suite through pg_regress against the packaged extension
#      (installcheck: the tests the Makefile lists for this server), the
#      Python module (import cuckoo: a filter built in Python has cf_agg's
#      bytes), a C program (test/lib/open_bytes.c) linked with
#      `pkg-config --cflags --libs cuckoo`, shared and --static, and run;
#   5. apt remove --purge of the packages: none is left installed and no file
#      their dpkg -L listed is left (nor __pycache__ under the module).
# Needs root, the full dependency set (scripts/deps.sh full: debhelper,
# dh-python, postgresql-server-dev-all, python3-all-dev, lintian, debootstrap)
# and Debian's archive.  Ends with "deb: ok" or exits non-zero.
#   KEEP=1  keeps the scratch directory and the chroot (paths printed)
set -uo pipefail
export LC_ALL=C.UTF-8 LANG=C.UTF-8 LANGUAGE= DEBIAN_FRONTEND=noninteractive
top=$(cd "$(dirname "$0")/../.." && pwd)
cache=${CUCKOO_PG_CACHE:-/var/cache/cuckoo-pg}
[ "$(id -u)" -eq 0 ] || { echo "deb: needs root (debootstrap, chroot)"; exit 1; }
need=(debhelper dh-python postgresql-server-dev-all python3-all-dev python3-setuptools libxxhash-dev
      lintian debootstrap dpkg-dev fakeroot)
missing=()
for p in "${need[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	echo "deb: missing ${missing[*]} (bash scripts/deps.sh full installs them)"; exit 1
fi
t_all=$SECONDS
work=$(mktemp -d /var/tmp/cuckoo-deb.XXXXXX)
chmod 755 "$work"
root="$work/root"
mounts=()
cleanup() {
	local i
	for i in $(seq $((${#mounts[@]} - 1)) -1 0); do umount -l "${mounts[$i]}" 2> /dev/null; done
	if [ -n "${KEEP:-}" ]; then echo "deb: kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
fail() { echo "deb: FAILED: $*"; exit 1; }

# 1. the packages
t0=$SECONDS
bash "$top/test/pg/copytree.sh" "$top" "$work/src/cuckoo" || fail "copying the tree"
rm -rf "$work/src/cuckoo/cuckoo.so" "$work/src/cuckoo/python/build"
versions=$(cd "$work/src/cuckoo" && pg_buildext supported-versions) || fail "pg_buildext supported-versions"
echo "deb: PostgreSQL majors supported here: $versions"
# PG_UPDATECONTROL: debian/control gets a package for every major supported here
if ! (cd "$work/src/cuckoo" && PG_UPDATECONTROL=yes DEB_BUILD_OPTIONS="nocheck parallel=2" nice dpkg-buildpackage -us -uc -b) \
	> "$work/build.log" 2>&1; then
	tail -40 "$work/build.log"; fail "dpkg-buildpackage -us -uc -b"
fi
want="libcuckoo2 libcuckoo-dev python3-cuckoo"
for v in $versions; do want="postgresql-$v-cuckoo $want"; done
debs=()
for p in $want; do
	d=$(ls "$work/src/${p}_"*.deb 2> /dev/null) || fail "no package $p was built"
	debs+=("$d")
done
got=$(cd "$work/src" && ls *.deb | grep -v -- '-dbgsym_' | sed 's/_.*//' | sort | tr '\n' ' ')
[ "$got" = "$(echo $want | tr ' ' '\n' | sort | tr '\n' ' ')" ] || fail "built $got, expected $want"
echo "deb: built ${#debs[@]} packages in $((SECONDS - t0)) s: $got"
for d in "${debs[@]}"; do echo "  $(basename "$d") $(du -k "$d" | cut -f1) kB"; done

# 2. lintian: no error
t0=$SECONDS
lintian --tag-display-limit 0 "$work/src/"cuckoo_*.changes > "$work/lintian.log" 2>&1
grep -v '^running with root' "$work/lintian.log" | sed 's/^/  lintian: /'
if grep -q '^E: ' "$work/lintian.log"; then fail "lintian reports errors"; fi
echo "deb: lintian: $(grep -c '^E: ' "$work/lintian.log") errors, $(grep -c '^W: ' "$work/lintian.log") warnings ($((SECONDS - t0)) s)"

# 3. a fresh minimal Debian 12 (the base made once, then copied)
t0=$SECONDS
base="$cache/deb-bookworm-base"
if [ ! -f "$base/.ready" ]; then
	read -r archive keyring < <(bash "$top/scripts/pg-get.sh" --archive)
	echo "deb: debootstrap --variant=minbase bookworm into $base (once; cached)"
	mkdir -p "$cache"; rm -rf "$base"
	debootstrap --variant=minbase --keyring="$keyring" bookworm "$base" "$archive" > "$work/debootstrap.log" 2>&1 ||
		{ tail -20 "$work/debootstrap.log"; fail "debootstrap"; }
	# the apt sources of a real Debian 12 installation: this machine's Debian
	# lines (bookworm, -updates, -security), as scripts/fresh-chroot.sh does
	copied=0
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] && grep -qE "$archive|debian-security" "$f" || continue
		[ "$copied" -eq 0 ] && : > "$base/etc/apt/sources.list"
		mkdir -p "$base$(dirname "$f")"; cp "$f" "$base$f"; copied=$((copied + 1))
	done
	# no service starts in the chroot, and installing postgresql-15 makes no cluster
	printf '#!/bin/sh\nexit 101\n' > "$base/usr/sbin/policy-rc.d"; chmod 755 "$base/usr/sbin/policy-rc.d"
	mkdir -p "$base/etc/postgresql-common"
	echo 'create_main_cluster = false' > "$base/etc/postgresql-common/createcluster.conf"
	touch "$base/.ready"
fi
cp -a "$base" "$root" || fail "copying the base chroot"
rm -f "$root/.ready"
cp /etc/resolv.conf "$root/etc/resolv.conf" 2> /dev/null || true
mount -t proc proc "$root/proc" && mounts+=("$root/proc")
mount -t tmpfs tmpfs "$root/dev/shm" && mounts+=("$root/dev/shm")
mkdir -p "$cache/deb-apt-archives/partial" "$root/var/cache/apt/archives"
mount --bind "$cache/deb-apt-archives" "$root/var/cache/apt/archives" && mounts+=("$root/var/cache/apt/archives")
mkdir -p "$root/root/debs"
cp "${debs[@]}" "$root/root/debs/"
bash "$top/test/pg/copytree.sh" "$top" "$root/root/cuckoo" || fail "copying the tree into the chroot"
in_root() { chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LC_ALL=C.UTF-8 LANG=C.UTF-8 \
	DEBIAN_FRONTEND=noninteractive "$@"; }
echo "deb: fresh chroot ready ($((SECONDS - t0)) s)"

# before: what is installed
in_root dpkg-query -W -f='${Package}\n' | sort > "$work/pkgs-before"
t0=$SECONDS
names=$(for d in "${debs[@]}"; do dpkg-deb -f "$d" Package; done | tr '\n' ' ')
if ! in_root sh -c "apt-get -qq update && cd /root/debs && apt-get install -y -qq --no-install-recommends ./*.deb" \
	> "$work/install.log" 2>&1; then
	tail -30 "$work/install.log"; fail "apt install ./*.deb"
fi
echo "deb: apt install ./*.deb: $names($((SECONDS - t0)) s)"
for p in $names; do in_root dpkg -L "$p"; done | sort -u > "$work/files"
echo "deb: the packages hold $(wc -l < "$work/files") paths"
# what the tests use beyond the packages: a C compiler for the C program
t0=$SECONDS
in_root apt-get install -y -qq --no-install-recommends gcc libc6-dev pkg-config > "$work/install2.log" 2>&1 ||
	{ tail -30 "$work/install2.log"; fail "installing gcc, libc6-dev, pkg-config"; }
echo "deb: gcc, libc6-dev, pkg-config installed ($((SECONDS - t0)) s)"

# 4. the tests, in the chroot
# the regression tests the Makefile lists for Debian's PostgreSQL 15 (the same
# conditions: contrib's postgres_fdw and file_fdw are in postgresql-15)
tests=$(make -s -C "$top" -f Makefile -f - PG_CONFIG=/usr/lib/postgresql/15/bin/pg_config print-regress <<'MK'
print-regress:
	@echo $(REGRESS)
MK
) || fail "listing the regression tests"
cat > "$root/root/tests.sh" <<SH
set -eu
cd /root/cuckoo
pg_createcluster 15 cftest -p 5499 -- -E UTF8 --locale=C.UTF-8 > /dev/null
pg_ctlcluster 15 cftest start -o "-c listen_addresses=''"
export PGHOST=/var/run/postgresql PGPORT=5499 PGUSER=postgres
psql() { runuser -u postgres -- /usr/bin/psql -X -v ON_ERROR_STOP=1 "\$@"; }
psql -q -c 'CREATE EXTENSION cuckoo' -c "SELECT 'deb: CREATE EXTENSION cuckoo ' || extversion FROM pg_extension WHERE extname = 'cuckoo'" -At
# installcheck: the whole regression suite against the packaged extension
chown -R postgres /root/cuckoo; chmod 755 /root
out=\$(mktemp -d); chown postgres "\$out"
if ! (cd "\$out" && runuser -u postgres -- /usr/lib/postgresql/15/lib/pgxs/src/test/regress/pg_regress \
	--inputdir=/root/cuckoo --bindir=/usr/lib/postgresql/15/bin --host=\$PGHOST --port=\$PGPORT \
	--load-extension=cuckoo --dbname=contrib_regression $tests); then
	cat "\$out/regression.diffs" 2> /dev/null | head -200
	echo "deb: installcheck FAILED"; exit 1
fi
# the Python module: cf_agg's very bytes
py=\$(python3 -c 'import cuckoo; print(cuckoo.__file__, cuckoo.__version__); print(cuckoo.Filter.from_values(range(1000)).to_text())')
echo "deb: python3: import cuckoo: \$(echo "\$py" | head -1)"
sv=\$(psql -At -c 'SELECT cf_agg(x)::text FROM generate_series(0, 999) x')
[ "\$(echo "\$py" | tail -1)" = "\$sv" ] || { echo "deb: the Python module's filter is not cf_agg's"; exit 1; }
echo "deb: python3: Filter.from_values(range(1000)) = cf_agg over the same values"
# the C library: pkg-config, shared and static
cd /tmp
echo "deb: pkg-config --cflags --libs cuckoo: \$(pkg-config --cflags --libs cuckoo)"
gcc -std=c99 -Wall -Wextra -Werror -o open_bytes /root/cuckoo/test/lib/open_bytes.c \$(pkg-config --cflags --libs cuckoo)
./open_bytes /root/cuckoo
ldd ./open_bytes | grep -qE 'libcuckoo[.]so[.]2 => (/usr)?/lib/' || { echo "deb: open_bytes does not load the packaged libcuckoo.so.2"; exit 1; }
gcc -std=c99 -Wall -Wextra -Werror -static -o open_bytes_static /root/cuckoo/test/lib/open_bytes.c \$(pkg-config --static --cflags --libs cuckoo)
./open_bytes_static /root/cuckoo
echo "deb: a C program linked with pkg-config (shared and static) runs"
pg_dropcluster --stop 15 cftest
SH
t0=$SECONDS
in_root bash /root/tests.sh || fail "the tests against the installed packages"
echo "deb: installcheck, Python, C in the chroot ($((SECONDS - t0)) s)"

# 5. remove them: nothing left
t0=$SECONDS
in_root apt-get remove --purge -y -qq $names > "$work/remove.log" 2>&1 || { tail -20 "$work/remove.log"; fail "apt remove --purge"; }
left=$(in_root dpkg-query -W -f='${Package} ${Status}\n' $names 2> /dev/null | grep -v 'not-installed' || true)
[ -z "$left" ] || fail "packages left after apt remove --purge: $left"
leftfiles=$(while read -r f; do
	[ -e "$root$f" ] || [ -L "$root$f" ] || continue
	[ -d "$root$f" ] && [ ! -L "$root$f" ] && continue	# shared directories (/usr/lib ...) stay
	echo "$f"
done < "$work/files")
[ -z "$leftfiles" ] || fail "files of the packages left after apt remove --purge: $leftfiles"
# directories only these packages made
for d in /usr/lib/python3/dist-packages/cuckoo /usr/lib/postgresql/15/lib/bitcode/cuckoo \
	/usr/include/postgresql/15/server/extension/cuckoo /usr/share/doc/libcuckoo2 /usr/share/doc/python3-cuckoo; do
	[ ! -e "$root$d" ] || fail "$d is left after apt remove --purge: $(find "$root$d" | head -5)"
done
echo "deb: apt remove --purge $names: no package, no file of theirs left ($((SECONDS - t0)) s)"
echo "deb: ok ($((SECONDS - t_all)) s in all)"
