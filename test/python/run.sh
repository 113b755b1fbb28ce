#!/usr/bin/env bash
# run.sh - the Python module's proof (issue 43): builds python/ into a
# temporary directory with Debian's python3 (python3-dev, python3-setuptools),
# then runs test/python/test_agree.py (psycopg2: python3-psycopg2) against a
# throw-away cluster of the server $PG_CONFIG belongs to, where cuckoo must
# be installed (make install), after test/python/test_golden.py (1.0's
# golden filters, no server), and test/python/test_docs.py (every python
# block of docs/python.md) in the same cluster.  CUCKOO_PY_N: values per type (100000).
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
# libcuckoo itself, for test_integrity.py (ctypes)
make -s -f "$top/src/core/lib.mk" lib CF_LIB_DIR="$tmp/libcuckoo" > "$tmp/lib.log" 2>&1 ||
	{ cat "$tmp/lib.log"; echo "python: libcuckoo does not build"; exit 1; }
# the proof, then the recipes of docs/python.md, then the same verdicts on
# damaged bytes from SQL, libcuckoo and Python (issue 48), in one throw-away cluster
PYTHONPATH=$lib PYTHONUNBUFFERED=1 CUCKOO_LIB="$tmp/libcuckoo/libcuckoo.so" \
	bash "$top/test/pg/tmpcluster.sh" bash -c '"$0" "$1" && "$0" "$2" && "$0" "$3"' \
	"$py" "$top/test/python/test_agree.py" "$top/test/python/test_docs.py" "$top/test/python/test_integrity.py"
