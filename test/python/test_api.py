#!/usr/bin/env python3
"""test_api.py - the Python module's ergonomics (issue 49), no server: every
method's signature in help() (__text_signature__), cuckoo.__version__ = the
extension's version, a str or bytes where an iterable of values is expected
refused with TypeError, every wrong type's message saying what is expected,
and `import cuckoo` at the top of a built tree (beside the server's cuckoo.so)
loading the Python module.  Run by test/python/run.sh with the built module
on PYTHONPATH."""
import inspect
import os
import re
import shutil
import subprocess
import sys
import tempfile
import uuid

import cuckoo

TOP = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..'))
failed = []


def check(what, ok):
    if not ok:
        failed.append(what)
        print('api: FAILED: %s' % what)


# the version: the extension's (cuckoo.control's default_version, as SemVer)
dv = re.search(r"^default_version\s*=\s*'([^']+)'", open(os.path.join(TOP, 'cuckoo.control')).read(), re.M).group(1)
check('cuckoo.__version__ %r is the extension\'s %s' % (cuckoo.__version__, dv),
      cuckoo.__version__ == dv + '.0' * (2 - dv.count('.')))

# signatures: every public callable has one, and these exact ones
sigs = {
    cuckoo.Filter: "(capacity, fpr=0.01, bucket_size=4, max_kicks=500, expansion=2, encoding='packed')",
    cuckoo.Filter.from_bytes: '(b, /)',
    cuckoo.Filter.from_text: '(s, /)',
    cuckoo.Filter.from_values: "(values, fpr=0.01, capacity=None, encoding='packed')",
    cuckoo.Filter.add: '(self, value, /)',
    cuckoo.Filter.contains: '(self, value, /)',
    cuckoo.Filter.contains_many: '(self, values, /)',
    cuckoo.Filter.to_bytes: '(self, /)',
    cuckoo.hash: '(value, hashing=2)',
    cuckoo.kind_of: '(value, /)',
    cuckoo.seen: '(base, delta, item, /)',
    cuckoo.unseen: '(base, delta, candidates, /)',
}
for fn, want in sigs.items():
    try:
        got = str(inspect.signature(fn))
    except ValueError as e:
        got = 'no signature (%s)' % e
    check('signature of %s: %s, not %s' % (getattr(fn, '__qualname__', fn), got, want), got == want)
for name, fn in inspect.getmembers(cuckoo.Filter):
    if name.startswith('__') or not callable(fn):
        continue
    try:
        inspect.signature(fn)
    except ValueError:
        check('Filter.%s has a signature' % name, False)
    check('Filter.%s has a docstring after its signature' % name, bool((fn.__doc__ or '').strip()))
check('help(cuckoo.Filter) shows add(self, value, /)', 'add(self, value, /)' in
      __import__('pydoc').render_doc(cuckoo.Filter, renderer=__import__('pydoc').plaintext))

# wrong types: TypeError, and a message that says what is expected
f = cuckoo.Filter.from_values(range(100))
u = cuckoo.Filter.from_values([uuid.UUID(int=i) for i in range(10)])
cases = [
    ("f.contains_many('abc')", lambda: f.contains_many('abc'), 'contains_many: an iterable of values is expected'),
    ("f.contains_many(b'abc')", lambda: f.contains_many(b'abc'), 'not one bytes'),
    ("f.count_many('abc')", lambda: f.count_many('abc'), 'count_many: an iterable of values is expected'),
    ("f.add_many('abc')", lambda: f.add_many('abc'), 'add_many: an iterable of values is expected'),
    ("f.add_unique_many(bytearray(b'a'))", lambda: f.add_unique_many(bytearray(b'a')), 'not one bytearray'),
    ("f.delete_many('abc')", lambda: f.delete_many('abc'), 'delete_many: an iterable of values is expected'),
    ("f.contains_many(7)", lambda: f.contains_many(7), 'an iterable of values is expected (a list, tuple, set, generator ...), not int'),
    ("Filter.from_values('abc')", lambda: cuckoo.Filter.from_values('abc'), 'Filter.from_values: an iterable'),
    ("unseen(None, None, 'abc')", lambda: cuckoo.unseen(None, None, 'abc'), "unseen's candidates: an iterable"),
    ("seen(None, 'abc', 1)", lambda: cuckoo.seen(None, 'abc', 1), 'delta (a list of items or None): an iterable'),
    ("mark_all(None, None, 'abc')", lambda: cuckoo.mark_all(None, None, 'abc'), 'mark_all: an iterable of items'),
    ("Filter.from_text(b'...')", lambda: cuckoo.Filter.from_text(f.to_text().encode()),
     "Filter.from_text takes the filter's text form (a str, base64), not bytes: Filter.from_bytes takes its bytes"),
    ("Filter.from_text(3)", lambda: cuckoo.Filter.from_text(3), "Filter.from_text takes the filter's text form (a str, base64), not int"),
    ("Filter.from_bytes('...')", lambda: cuckoo.Filter.from_bytes(f.to_text()), 'not a str: Filter.from_text takes its text form'),
    ("Filter.from_bytes(3)", lambda: cuckoo.Filter.from_bytes(3), "Filter.from_bytes takes the filter's bytes (bytes, bytearray, memoryview), not int"),
    ("uuid filter .contains(str)", lambda: u.contains(str(uuid.UUID(int=3))), 'give uuid.UUID(s)'),
    ("number filter .contains(str)", lambda: f.contains('3'), 'cuckoo filter holds number values, not text'),
    ("hash(object())", lambda: cuckoo.hash(object()), 'cuckoo filters cannot hash values of Python type object'),
]
for what, call, want in cases:
    try:
        call()
        check('%s raises TypeError' % what, False)
    except TypeError as e:
        check('%s: the message %r says %r' % (what, str(e), want), want in str(e))
# the same calls with what they expect still work
check('contains_many([...])', f.contains_many([1, 2, None]) == [True, True, None])
check('contains_many(a generator)', f.contains_many(x for x in (1, 2)) == [True, True])
check('from_text(to_text())', cuckoo.Filter.from_text(f.to_text()) == f)
check('from_bytes(memoryview)', cuckoo.Filter.from_bytes(memoryview(f.to_bytes())) == f)
check('a uuid filter finds uuid.UUID(s)', u.contains(uuid.UUID(str(uuid.UUID(int=3)))) is True)

# `import cuckoo` where a directory holds the server's cuckoo.so: at the
# tree's top (when built) and, always, in a copy of the top's stand-in beside
# a cuckoo.so that cannot be loaded as a Python module
env = dict(os.environ)
probe = 'import cuckoo; print(cuckoo.Filter.from_values([1]).contains(1), cuckoo.__version__)'
places = []
tmp = tempfile.mkdtemp()
try:
    shutil.copytree(os.path.join(TOP, 'cuckoo'), os.path.join(tmp, 'cuckoo'))
    with open(os.path.join(tmp, 'cuckoo.so'), 'wb') as fh:
        fh.write(b'not a Python module: the server\'s cuckoo.so stands here')
    places.append(tmp)
    if os.path.isfile(os.path.join(TOP, 'cuckoo.so')):
        places.append(TOP)
    else:
        print('api: no cuckoo.so at the top of the tree (not built): the copy alone is checked')
    for d in places:
        r = subprocess.run([sys.executable, '-c', probe], cwd=d, env=env, capture_output=True, text=True)
        check('import cuckoo in %s (beside a cuckoo.so) loads the Python module: %s%s'
              % (d, r.stdout.strip(), r.stderr.strip()[-300:]),
              r.returncode == 0 and r.stdout.strip() == 'True ' + cuckoo.__version__)
    # and without the module on the path, the stand-in says what to do
    env2 = dict(env, PYTHONPATH='')
    r = subprocess.run([sys.executable, '-c', 'import cuckoo'], cwd=tmp, env=env2, capture_output=True, text=True)
    check('import cuckoo with no module installed says how to install it: %s' % r.stderr.strip()[-300:],
          r.returncode != 0 and 'python3 -m pip install ./python' in r.stderr)
finally:
    shutil.rmtree(tmp)

print('api: %d signatures, %d wrong-type messages, import beside cuckoo.so in %d places: %s'
      % (len(sigs), len(cases), len(places), 'FAILED' if failed else 'ok'))
sys.exit(1 if failed else 0)
