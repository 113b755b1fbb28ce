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
# the example program of docs/python.md ("The C library"): built as the
# page says against the library installed under a temporary prefix (the
# installed cuckoo.h alone, pkg-config, the run path), run without
# LD_LIBRARY_PATH, and its output compared with the page's
command -v pkg-config > /dev/null ||
	{ echo "lib: pkg-config is missing (Debian: pkgconf; bash scripts/deps.sh quick installs it)"; exit 1; }
prefix=$tmp/prefix
make -s -f "$top/src/core/lib.mk" install-lib PREFIX="$prefix" CF_LIB_DIR="$lib" > /dev/null
python3 - "$top/docs/python.md" "$tmp" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
sec = text[text.index('## The C library'):]
blocks = re.findall(r'```(\w*)\n(.*?)```', sec, re.S)
code = [b for lang, b in blocks if lang == 'c']
out = [b for lang, b in blocks if lang == '']
assert len(code) == 1 and len(out) == 1, 'docs/python.md: one c block and one output block expected'
open(sys.argv[2] + '/demo.c', 'w').write(code[0])
open(sys.argv[2] + '/demo.expected', 'w').write(out[0])
PY
(
	cd "$tmp"
	export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
	unset LD_LIBRARY_PATH
	$cc -std=c99 -Wall -Wextra -Werror -o demo demo.c $(pkg-config --cflags --libs cuckoo) \
		-Wl,-rpath,"$(pkg-config --variable=libdir cuckoo)"
	./demo > demo.out
)
if ! diff "$tmp/demo.expected" "$tmp/demo.out"; then
	echo "lib: docs/python.md's example program printed other lines than the page shows"; exit 1
fi
echo "lib: docs/python.md's example program builds against the installed library and prints what the page shows"
