#!/usr/bin/env bash
# build.sh - builds the extension for $PG_CONFIG's server from a clean copy
# of this tree in DIR, with -Wall -Wextra -Werror (less the three warnings
# PostgreSQL's own headers raise under -Wextra), and with `install` as a
# second argument installs that build.  A clean copy because PGXS does not
# rebuild objects when the flags or the server change: a -Werror build over
# existing objects would check nothing, and objects built for one major
# would be linked for another.
# Usage: bash test/pg/build.sh DIR          copy and build
#        bash test/pg/build.sh DIR install  install DIR's build (sudo if needed)
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
dir=${1:?usage: build.sh DIR [install]}
WFLAGS="-Wall -Wextra -Werror -Wno-unused-parameter -Wno-sign-compare -Wno-missing-field-initializers"

if [ "${2:-}" = install ]; then
	SUDO=""
	if [ "$(id -u)" -ne 0 ] && [ ! -w "$("$PG_CONFIG" --pkglibdir)" ]; then SUDO=sudo; fi
	$SUDO make -s -C "$dir" PG_CONFIG="$PG_CONFIG" install
	exit
fi
rm -rf "$dir"
bash "$top/test/pg/copytree.sh" "$top" "$dir" || exit 1
echo "build: $("$PG_CONFIG" --version), a clean copy in $dir"
make -s -C "$dir" PG_CONFIG="$PG_CONFIG" COPT="$WFLAGS"
