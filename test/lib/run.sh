#!/usr/bin/env bash
# run.sh LIBDIR - links test/lib/open_bytes.c against the static and the
# shared libcuckoo in LIBDIR (make lib), runs both, and checks that the
# shared library exports exactly the functions and variables cuckoo.h
# declares (no core internal: cfi_*, the geometries, ...).
set -euo pipefail
lib=$1
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc=${CC:-cc}
$cc -std=c99 -Wall -Wextra -Werror -I"$top/src/core" -o "$tmp/static" "$top/test/lib/open_bytes.c" "$lib/libcuckoo.a" -lm
"$tmp/static" "$top"
$cc -std=c99 -Wall -Wextra -Werror -I"$top/src/core" -o "$tmp/shared" "$top/test/lib/open_bytes.c" -L"$lib" -lcuckoo
LD_LIBRARY_PATH=$lib "$tmp/shared" "$top"
# the exported symbols: only cf_* names that cuckoo.h declares
nm -D --defined-only "$lib/libcuckoo.so" | awk '{print $3}' | sort > "$tmp/exported"
sed 's/^\([a-z_0-9]*\);$/\1/;t;d' "$lib/libcuckoo.map" | sort > "$tmp/declared"
if ! diff "$tmp/declared" "$tmp/exported" > "$tmp/diff"; then
	echo "lib: libcuckoo.so exports other symbols than cuckoo.h declares:"; cat "$tmp/diff"; exit 1
fi
if grep -qv '^cf_' "$tmp/exported" || grep -q '^cfi_' "$tmp/exported"; then
	echo "lib: libcuckoo.so exports a name that is not the public cf_ API"; exit 1
fi
echo "lib: libcuckoo.so exports $(wc -l < "$tmp/exported") symbols, all declared in cuckoo.h, no core internal"
