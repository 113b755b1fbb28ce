#!/usr/bin/env python3
"""bench.py - the batch lookup rate from Python (Filter.contains_many over a
list of ints) against the C core's (cf_hash_int64 + cf_contains_many, in
test/lib/bench_lookup.c) on the same filter and the same keys, one run each
(best of 5).  Needs the module on PYTHONPATH (cd python && python3 setup.py
build_ext --inplace; PYTHONPATH=python) and a C compiler.

    PYTHONPATH=python python3 test/python/bench.py [N]
"""
import os
import random
import struct
import subprocess
import sys
import tempfile
import time

import cuckoo

TOP = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..'))
n = int(sys.argv[1]) if len(sys.argv) > 1 else 1000000
rnd = random.Random(43)
f = cuckoo.Filter.from_values(range(n))
keys = [rnd.randrange(2 * n) for _ in range(n)]       # about half of them present
best = 1e30
for _ in range(5):
    t0 = time.perf_counter()
    answers = f.contains_many(keys)
    best = min(best, time.perf_counter() - t0)
py_found = sum(answers)
with tempfile.TemporaryDirectory() as d:
    open(os.path.join(d, 'f'), 'wb').write(f.to_bytes())
    open(os.path.join(d, 'k'), 'wb').write(struct.pack('<%dq' % n, *keys))
    exe = os.path.join(d, 'bench_lookup')
    srcs = [os.path.join(TOP, 'src', 'core', s) for s in sorted(os.listdir(os.path.join(TOP, 'src', 'core')))
            if s.endswith('.c')]
    subprocess.run(['cc', '-O2', '-std=c99', '-I' + os.path.join(TOP, 'src', 'core'), '-o', exe,
                    os.path.join(TOP, 'test', 'lib', 'bench_lookup.c')] + srcs + ['-lm'], check=True)
    out = subprocess.run([exe, os.path.join(d, 'f'), os.path.join(d, 'k')], check=True,
                         capture_output=True, text=True).stdout.split()
c_n, c_found, c_secs = int(out[0]), int(out[1]), float(out[2])
if c_found != py_found:
    print('bench: the C core found %d keys, Python %d' % (c_found, py_found))
    sys.exit(1)
print('bench: %d int keys, a filter of %d values (%d bytes), %d found' % (n, n, len(f.to_bytes()), py_found))
print('bench: Python contains_many  %6.1f M lookups/s (%.3f s)' % (n / best / 1e6, best))
print('bench: C cf_contains_many    %6.1f M lookups/s (%.3f s)' % (c_n / c_secs / 1e6, c_secs))
print('bench: Python at %.0f%% of the C core' % (100.0 * (n / best) / (c_n / c_secs)))
