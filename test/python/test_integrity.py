#!/usr/bin/env python3
"""test_integrity.py - issue 48: the SQL input, libcuckoo and Python run the
same validation and refuse the same bytes.

Mutations (CUCKOO_MUT_N, 10,000) of the fuzz corpora (test/core/corpus/
fuzz_bytes, fuzz_text) and of filters this build writes (version 3, every
geometry and encoding), plus every single-bit flip of the header and
descriptors of those filters, go through:
  - SQL, in one session: b::cuckoofilter (the binary input's validation:
    accepted, or its SQLSTATE) and cf_verify(b);
  - libcuckoo (build/lib/libcuckoo.so through ctypes, CUCKOO_LIB):
    cf_validate and cf_verify;
  - Python: Filter.from_bytes and Filter.verify_bytes.
Every verdict must agree (accepted by all or refused by all; refused as
data_corrupted, XX001, exactly where the core's message says "cuckoo filter
is corrupt"), nothing may crash, and every accepted value must be a filter
the three read alike (the same bytes back).
"""
import ctypes
import glob
import os
import random
import sys

import psycopg2

import cuckoo

TOP = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..'))
N = int(os.environ.get('CUCKOO_MUT_N', '10000'))


def seeds():
    out = []
    for d in ('fuzz_bytes', 'fuzz_text'):
        for p in sorted(glob.glob(os.path.join(TOP, 'test', 'core', 'corpus', d, '*'))):
            b = open(p, 'rb').read()
            if d == 'fuzz_text':
                try:
                    b = cuckoo.Filter.from_text(b.decode('ascii')).to_bytes()
                except Exception:
                    continue
            out.append(b)
    made = []
    for enc in ('packed', 'semisorted'):
        for cap, n, exp in ((1000, 150, 2), (100, 3000, 2), (5000, 4000, 0), (100, 2000, 1)):
            try:
                f = cuckoo.Filter(cap, 0.01, encoding=enc, expansion=exp)
            except TypeError:
                f = cuckoo.Filter(cap, 0.01)
            for i in range(n):
                f.add(i * 7919)
            made.append(f.to_bytes())
    return out + made, made


def mutate(rnd, b):
    b = bytearray(b)
    k = rnd.randrange(6)
    if not b:
        return bytes([rnd.randrange(256)])
    if k == 0:                              # one bit
        i = rnd.randrange(len(b) * 8)
        b[i // 8] ^= 1 << (i % 8)
    elif k == 1:                            # one bit of the header and descriptors
        i = rnd.randrange(min(len(b), 72) * 8)
        b[i // 8] ^= 1 << (i % 8)
    elif k == 2:                            # a byte set
        b[rnd.randrange(len(b))] = rnd.randrange(256)
    elif k == 3:                            # truncated
        del b[rnd.randrange(len(b)):]
    elif k == 4:                            # extended
        b += bytes(rnd.randrange(256) for _ in range(rnd.randrange(1, 9)))
    else:                                   # a few bytes anywhere
        for _ in range(rnd.randrange(2, 6)):
            b[rnd.randrange(len(b))] = rnd.randrange(256)
    return bytes(b)


class Lib:
    """libcuckoo's own cf_validate and cf_verify, through ctypes"""

    def __init__(self, path):
        self.lib = ctypes.CDLL(path)
        self.lib.cf_validate.restype = ctypes.c_bool
        self.lib.cf_validate.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p, ctypes.c_size_t]
        self.lib.cf_verify.restype = ctypes.c_bool
        self.lib.cf_verify.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_void_p]
        self.res = ctypes.create_string_buffer(64 * 1024)   # > sizeof(cf_verify_result)
        self.err = ctypes.create_string_buffer(512)

    def validate(self, b):
        ok = self.lib.cf_validate(b, len(b), self.err, len(self.err))
        return ok, self.err.value.decode('utf-8', 'replace')

    def verify(self, b):
        return self.lib.cf_verify(b, len(b), self.res)


def main():
    rnd = random.Random(48)
    base, made = seeds()
    blobs = []
    for b in made:                          # every header and descriptor bit of what we write
        hl = 40 + 16 * b[5]
        for i in range(hl * 8):
            c = bytearray(b)
            c[i // 8] ^= 1 << (i % 8)
            blobs.append(bytes(c))
    nflips = len(blobs)
    while len(blobs) < nflips + N:
        blobs.append(mutate(rnd, rnd.choice(base)))
    lib = Lib(os.environ['CUCKOO_LIB'])

    conn = psycopg2.connect('')
    conn.autocommit = True
    cur = conn.cursor()
    cur.execute('CREATE EXTENSION IF NOT EXISTS cuckoo')
    cur.execute("""CREATE FUNCTION pg_temp.verdict(b bytea) RETURNS text LANGUAGE plpgsql AS $$
                   BEGIN PERFORM b::cuckoofilter; RETURN 'ok';
                   EXCEPTION WHEN others THEN RETURN SQLSTATE; END $$""")
    cur.execute('CREATE TEMP TABLE mut (i int, b bytea)')
    from io import StringIO
    buf = StringIO()
    for i, b in enumerate(blobs):
        buf.write('%d\t\\\\x%s\n' % (i, b.hex()))
    buf.seek(0)
    cur.copy_expert('COPY mut (i, b) FROM STDIN', buf)
    cur.execute('SELECT i, pg_temp.verdict(b), (cf_verify(b)).ok, '
                "CASE WHEN pg_temp.verdict(b) = 'ok' THEN cuckoofilter_send(b::cuckoofilter) END "
                'FROM mut ORDER BY i')
    rows = cur.fetchall()
    assert len(rows) == len(blobs)
    bad = 0
    accepted = corrupt = 0
    for (i, state, sql_ok, back), b in zip(rows, blobs):
        lib_ok, lib_err = lib.validate(b)
        lib_vok = lib.verify(b)
        try:
            f = cuckoo.Filter.from_bytes(b)
            py_ok, py_err = True, ''
        except ValueError as e:
            f, py_ok, py_err = None, False, str(e)
        py_v = cuckoo.Filter.verify_bytes(b)
        verdicts = (state == 'ok', sql_ok, lib_ok, lib_vok, py_ok, py_v['ok'])
        why = None
        if len(set(verdicts)) != 1:
            why = 'verdicts differ (sql input, sql cf_verify, lib validate, lib verify, python, python verify): %r' % (verdicts,)
        elif lib_ok:
            accepted += 1
            if bytes(back) != b or f.to_bytes() != b:
                why = 'accepted bytes not read back alike'
        else:
            is_corrupt = lib_err.startswith('cuckoo filter is corrupt: ')
            corrupt += is_corrupt
            if (state == 'XX001') != is_corrupt or ('cuckoo filter is corrupt: ' in py_err) != is_corrupt:
                why = 'refused differently: SQL %s, libcuckoo %r, Python %r' % (state, lib_err, py_err)
            elif py_v['problems'][:1] != [lib_err]:
                why = 'cf_verify first problem %r, cf_validate %r' % (py_v['problems'][:1], lib_err)
        if why:
            bad += 1
            if bad <= 10:
                print('  FAIL mutation %d (%d bytes): %s' % (i, len(b), why))
    print('integrity: %d header and descriptor flips of %d filters written by this build, %d mutations of %d seeds '
          '(the fuzz corpora and those filters): %d accepted, %d refused (%d as corrupt, XX001); '
          'SQL input and cf_verify, libcuckoo cf_validate and cf_verify, Python from_bytes and verify agree on %d of %d'
          % (nflips, len(made), N, len(base), accepted, len(blobs) - accepted, corrupt, len(blobs) - bad, len(blobs)))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
