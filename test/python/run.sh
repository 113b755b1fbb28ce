#!/usr/bin/env bash
# run.sh - the Python module's proof (issue 43): builds python/ into a
# temporary directory with Debian's python3 (python3-dev, python3-setuptools),
# then runs test/python/test_agree.py (psycopg2: python3-psycopg2) against a
# throw-away cluster of the server $PG_CONFIG belongs to, where cuckoo must
# be installed (make install), after test/python/test_golden.py (1.0's
# golden filters, no server), test/python/test_api.py (signatures, version,
# wrong types, import beside cuckoo.so; no server) and an offline pip install
# of python/ into a temporary target; then test/python/test_adapters.py (the
# psycopg2 and psycopg 3 adapters: python3-psycopg) and test/python/test_docs.py
# (every python block of docs/python.md) in the same cluster.  CUCKOO_PY_N: values per type (100000).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
py=${PYTHON:-/usr/bin/python3}
tmp=$(mktemp -d -t cuckoo-python.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp"
(cd "$top/python" && "$py" setup.py -q build --build-base "$tmp/build" > "$tmp/build.log" 2>&1) ||
	{ cat "$tmp/build.log"; echo "python: the module does not build"; exit 1; }
lib=$(ls -d "$tmp"/build/lib*)
# the frozen filters of cuckoo 1.0 (no server)
PYTHONPATH=$lib "$py" "$top/test/python/test_golden.py"
# signatures, __version__, wrong types' messages, import beside cuckoo.so (no server)
PYTHONPATH=$lib "$py" "$top/test/python/test_api.py"
# docs/python.md's offline install: pip, no index, no build isolation (Debian:
# python3-pip, python3-wheel), into a target directory, used from elsewhere
# (from a copy of python/ and src/core: pip builds in the source tree)
t0=$SECONDS
# with the objects just built beside them (times kept: setuptools then links
# the module again without compiling the core a second time)
mkdir -p "$tmp/src/src"
cp -a "$top/src/core" "$tmp/src/src/core"
(cd "$top/python" && tar -cf - --exclude=build --exclude='*.egg-info' --exclude='*.so' --exclude=__pycache__ .) |
	(mkdir -p "$tmp/src/python" && cd "$tmp/src/python" && tar -xf -)
cp -a "$tmp/build" "$tmp/src/python/build"
if ! "$py" -m pip install -q --no-index --no-build-isolation --target "$tmp/pip" "$tmp/src/python" > "$tmp/pip.log" 2>&1; then
	cat "$tmp/pip.log"; echo "python: python3 -m pip install --no-index --no-build-isolation ./python fails"; exit 1
fi
(cd "$tmp" && PYTHONPATH=$tmp/pip "$py" -c 'import cuckoo, cuckoo.psycopg, cuckoo.psycopg2, sys
f = cuckoo.Filter.from_values(range(100))
assert cuckoo.__file__.startswith(sys.argv[1]) and f.contains(99) and cuckoo.Filter.from_bytes(f.to_bytes()) == f
print("python: pip install --no-index --no-build-isolation ./python: ok (%s)" % cuckoo.__file__)' "$tmp/pip") ||
	{ echo "python: the module pip installed does not work"; exit 1; }
echo "python: the pip install took $((SECONDS - t0)) s"
# libcuckoo itself, for test_integrity.py (ctypes)
make -s -f "$top/src/core/lib.mk" lib CF_LIB_DIR="$tmp/libcuckoo" > "$tmp/lib.log" 2>&1 ||
	{ cat "$tmp/lib.log"; echo "python: libcuckoo does not build"; exit 1; }
# the proof, the psycopg2 and psycopg 3 adapters, the recipes of docs/python.md,
# then the same verdicts on damaged bytes from SQL, libcuckoo and Python
# (issue 48), in one throw-away cluster
PYTHONPATH=$lib PYTHONUNBUFFERED=1 CUCKOO_LIB="$tmp/libcuckoo/libcuckoo.so" \
	bash "$top/test/pg/tmpcluster.sh" bash -c '"$0" "$1" && "$0" "$2" && "$0" "$3" && "$0" "$4"' \
	"$py" "$top/test/python/test_agree.py" "$top/test/python/test_adapters.py" "$top/test/python/test_docs.py" \
	"$top/test/python/test_integrity.py"
