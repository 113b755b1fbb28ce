#!/usr/bin/env bash
# fresh-chroot.sh - runs the README's two commands, bash scripts/demo.sh and
# bash scripts/test.sh, on a truly fresh Debian 12: a debootstrap
# --variant=minbase chroot of bookworm (no git, no compiler, no PostgreSQL,
# no LANG), with a copy of this tree (without .git) in /root/cuckoo, each
# command under a bare `env -i`.  The chroot is removed afterwards.
# Each command's time is printed: on a fresh machine, the test command's
# time includes installing the Debian packages it needs.
# Ends with "N passed, M failed" (the two commands); needs root.
#
#   FRESH_CMDS    the commands to run (default "demo test"; "test" times
#                 the test command alone)
#   FRESH_FULL=1  runs the complete test run (test.sh --full) instead of the
#                 quick one
#   PG_VERSIONS   passed to test.sh when set (test.sh's default otherwise:
#                 15 for the quick run; "15 17 18" for the full one, which
#                 builds and fetches the newer majors inside the chroot too)
#   FRESH_LANG    a LANG to set for both commands (say fr_FR.UTF-8, which a
#                 minbase system has not generated): they must not care
#   FRESH_CACHE=1 shares this machine's /var/cache/cuckoo-pg (built majors,
#                 chroots of newer suites) with the chroot
#   KEEP=1        keeps the chroot (its path is printed)
set -uo pipefail
cd "$(dirname "$0")/.."
top=$(pwd)
export LC_ALL=C.UTF-8 LANG=C.UTF-8 LANGUAGE= DEBIAN_FRONTEND=noninteractive
[ "$(id -u)" -eq 0 ] || { echo "fresh-chroot: needs root"; exit 1; }
if ! dpkg-query -W -f='${Status}' debootstrap 2>/dev/null | grep -q 'ok installed'; then
	apt-get update -qq && apt-get install -y -qq --no-install-recommends debootstrap > /dev/null || exit 1
fi
read -r archive keyring < <(bash scripts/pg-get.sh --archive)
root=$(mktemp -d /var/tmp/cuckoo-fresh.XXXXXX)
chmod 755 "$root"
mounts=()
cleanup() {
	local i
	for i in $(seq $((${#mounts[@]} - 1)) -1 0); do umount -l "${mounts[$i]}" 2> /dev/null; done
	if [ -n "${KEEP:-}" ]; then echo "fresh-chroot: kept $root"; else rm -rf "$root"; fi
}
trap cleanup EXIT
t0=$SECONDS
echo "fresh-chroot: debootstrap --variant=minbase bookworm into $root"
if ! debootstrap --variant=minbase --keyring="$keyring" bookworm "$root" "$archive" > "$root.log" 2>&1; then
	tail -20 "$root.log"; rm -f "$root.log"; echo "0 passed, 2 failed"; exit 1
fi
rm -f "$root.log"
echo "fresh-chroot: bookworm minbase ready ($((SECONDS - t0)) s)"
cp /etc/resolv.conf "$root/etc/resolv.conf" 2> /dev/null || true
# the apt sources of a real Debian 12 installation: this machine's Debian
# lines (bookworm, -updates, -security), not debootstrap's bare "bookworm main"
# (an old point release of postgresql-15 answers some errors differently)
copied=0
for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
	[ -f "$f" ] && grep -qE "$archive|debian-security" "$f" || continue
	[ "$copied" -eq 0 ] && : > "$root/etc/apt/sources.list"	# debootstrap's line goes
	mkdir -p "$root$(dirname "$f")"
	cp "$f" "$root$f"
	copied=$((copied + 1))
done
mount -t proc proc "$root/proc" && mounts+=("$root/proc")
mount -t tmpfs tmpfs "$root/dev/shm" && mounts+=("$root/dev/shm")
mkdir -p "$root/dev/pts" && mount -t devpts -o newinstance devpts "$root/dev/pts" && mounts+=("$root/dev/pts")
if [ -n "${FRESH_CACHE:-}" ]; then
	mkdir -p /var/cache/cuckoo-pg "$root/var/cache/cuckoo-pg"
	mount --bind /var/cache/cuckoo-pg "$root/var/cache/cuckoo-pg" && mounts+=("$root/var/cache/cuckoo-pg")
fi
bash test/pg/copytree.sh "$top" "$root/root/cuckoo" || exit 1

pass=0 fail=0
for cmd in ${FRESH_CMDS:-demo test}; do
	echo "=== fresh chroot: bash scripts/$cmd.sh"
	t1=$SECONDS
	envs=(PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root)
	[ -n "${FRESH_LANG:-}" ] && envs+=(LANG="$FRESH_LANG")
	args=""
	[ "$cmd" = test ] && [ -n "${PG_VERSIONS:-}" ] && envs+=(PG_VERSIONS="$PG_VERSIONS")
	[ "$cmd" = test ] && [ -n "${FRESH_FULL:-}" ] && args=--full
	chroot "$root" env -i "${envs[@]}" bash -c "cd /root/cuckoo && bash scripts/$cmd.sh $args" < /dev/null
	status=$?
	left=$(for p in /proc/[0-9]*; do [ "$(readlink "$p/root")" = "$root" ] && cat "$p/comm"; done 2> /dev/null | sort | uniq -c)
	if [ -n "$left" ]; then
		echo "fresh-chroot: processes left running in the chroot after $cmd.sh:"; echo "$left"
		for p in /proc/[0-9]*; do [ "$(readlink "$p/root")" = "$root" ] && kill -9 "${p#/proc/}"; done 2> /dev/null
		status=1
	fi
	if [ "$status" -eq 0 ]; then
		pass=$((pass + 1)); echo "--- ok: fresh chroot: $cmd.sh $args ($((SECONDS - t1)) s)"
	else
		fail=$((fail + 1)); echo "--- FAILED: fresh chroot: $cmd.sh $args ($((SECONDS - t1)) s)"
	fi
done
echo "fresh-chroot: $((SECONDS - t0)) s in all"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
