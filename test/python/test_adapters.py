#!/usr/bin/env python3
"""test_adapters.py - cuckoo.psycopg2.register and cuckoo.psycopg.register
(issue 49) against the live server of PGHOST / PGPORT (test/python/run.sh):
with each driver, a Filter stored by INSERT ... VALUES (%s) (no cast in the
SQL) and read back by SELECT is a cuckoo.Filter with the very bytes; NULL
stays None; arrays of filters go in and come back; a Filter parameter is a
cuckoofilter for the server (pg_typeof, cf_contains(%s, ...), f = %s); psycopg
3 sends it in binary and reads it from text and binary results; the type is
found when the extension's schema is not on search_path; a database without
the extension gets a LookupError that says so."""
import sys
import uuid

import psycopg
import psycopg2
import psycopg2.extensions
from psycopg.adapt import PyFormat
from psycopg.pq import Format

import cuckoo
import cuckoo.psycopg
import cuckoo.psycopg2

failed = []
checks = 0


def check(what, ok):
    global checks
    checks += 1
    if not ok:
        failed.append(what)
        print('adapters: FAILED: %s' % what)


admin = psycopg2.connect('')
admin.autocommit = True
acur = admin.cursor()
for db in ('adapters_cf', 'adapters_schema', 'adapters_none'):
    acur.execute('DROP DATABASE IF EXISTS %s' % db)
    acur.execute('CREATE DATABASE %s' % db)
c = psycopg2.connect(dbname='adapters_cf')
c.autocommit = True
c.cursor().execute('CREATE EXTENSION cuckoo')
c.cursor().execute('CREATE TABLE t (id int, f cuckoofilter, fs cuckoofilter[])')
c.close()

f = cuckoo.Filter.from_values(range(5000))
g = cuckoo.Filter.from_values(['a', 'b', 'c'])
u = cuckoo.Filter.from_values([uuid.UUID(int=i) for i in range(10)])
empty = cuckoo.Filter(10)
filters = [f, g, u, empty]


def same(a, b):
    return isinstance(a, cuckoo.Filter) and a.to_bytes() == b.to_bytes()


def rows_agree(driver, rows):
    check('%s: %d rows back' % (driver, len(rows)), len(rows) == len(filters) + 1)
    for (i, got, arr), want in zip(rows, filters):
        check('%s: row %d is a cuckoo.Filter with equal bytes (%r)' % (driver, i, type(got)), same(got, want))
        check('%s: row %d array of filters' % (driver, i),
              isinstance(arr, list) and len(arr) == 3 and same(arr[0], want) and arr[1] is None and same(arr[2], g))
    check('%s: NULL stays None' % driver, rows[-1][1] is None and rows[-1][2] is None)


# psycopg2: a connection, then a cursor
c2 = psycopg2.connect(dbname='adapters_cf')
oid = cuckoo.psycopg2.register(c2)
cur = c2.cursor()
cur.execute("SELECT 'cuckoofilter'::regtype::oid")
check('psycopg2: register returns the type OID', oid == cur.fetchone()[0])
for i, x in enumerate(filters):
    cur.execute('INSERT INTO t (id, f, fs) VALUES (%s, %s, %s)', (i, x, [x, None, g]))
cur.execute('INSERT INTO t (id, f, fs) VALUES (%s, %s, %s)', (99, None, None))
c2.commit()
cur.execute('SELECT id, f, fs FROM t ORDER BY id')
rows_agree('psycopg2', cur.fetchall())
cur.execute('SELECT pg_typeof(%s)::text, cf_contains(%s, 4999::bigint), cf_contains(%s, 5000000::bigint), '
            'f = %s FROM t WHERE id = 0', (f, f, f, f))
check('psycopg2: a Filter parameter is a cuckoofilter', cur.fetchone() == ('cuckoofilter', True, False, True))
cur.execute('SELECT f::bytea FROM t WHERE id = 0')
check('psycopg2: the stored bytes are the Filter\'s', bytes(cur.fetchone()[0]) == f.to_bytes())
c2.rollback()
# a cursor's registration: only that cursor reads Filters
c2b = psycopg2.connect(dbname='adapters_cf')
cur_b = c2b.cursor()
cuckoo.psycopg2.register(cur_b)
cur_b.execute('SELECT f FROM t WHERE id = 1')
check('psycopg2: register(cursor): that cursor reads a Filter', same(cur_b.fetchone()[0], g))
other = c2b.cursor()
other.execute('SELECT f FROM t WHERE id = 1')
check('psycopg2: register(cursor) leaves other cursors alone', isinstance(other.fetchone()[0], str))
c2b.close()
try:
    cuckoo.psycopg2.register(object())
    check('psycopg2: register(object()) raises TypeError', False)
except TypeError as e:
    check('psycopg2: register(object()) says what it takes', 'psycopg2 connection or cursor' in str(e))

# psycopg 3
c3 = psycopg.connect(dbname='adapters_cf', autocommit=True)
c3.execute('DELETE FROM t')
oid3 = cuckoo.psycopg.register(c3)
check('psycopg: register returns the type OID', oid3 == oid)
check('psycopg: %s sends a Filter in binary',
      c3.adapters.get_dumper(cuckoo.Filter, PyFormat.AUTO).format == Format.BINARY)
for i, x in enumerate(filters):
    c3.execute('INSERT INTO t (id, f, fs) VALUES (%s, %s, %s)', (i, x, [x, None, g]))
c3.execute('INSERT INTO t (id, f, fs) VALUES (%s, %s, %s)', (99, None, None))
rows_agree('psycopg text results', c3.execute('SELECT id, f, fs FROM t ORDER BY id').fetchall())
with c3.cursor(binary=True) as bc:
    rows_agree('psycopg binary results', bc.execute('SELECT id, f, fs FROM t ORDER BY id').fetchall())
row = c3.execute('SELECT pg_typeof(%s)::text, cf_contains(%s, 4999::bigint), cf_contains(%s, 5000000::bigint), '
                 'f = %s FROM t WHERE id = 0', (f, f, f, f)).fetchone()
check('psycopg: a Filter parameter is a cuckoofilter', row == ('cuckoofilter', True, False, True))
check('psycopg: the stored bytes are the Filter\'s',
      bytes(c3.execute('SELECT f::bytea FROM t WHERE id = 0').fetchone()[0]) == f.to_bytes())
check('psycopg: a text-format parameter (%t) works too',
      c3.execute('SELECT %t = f FROM t WHERE id = 0', (f,)).fetchone()[0] is True)
# a connection without registration gets the text form, as before
plain = psycopg.connect(dbname='adapters_cf')
check('psycopg: an unregistered connection is unchanged',
      isinstance(plain.execute('SELECT f FROM t WHERE id = 0').fetchone()[0], str))
plain.close()

# the extension in a schema off search_path: the adapters name the type in full
for drv in ('psycopg2', 'psycopg'):
    a = psycopg2.connect(dbname='adapters_schema')
    a.autocommit = True
    a.cursor().execute('CREATE SCHEMA IF NOT EXISTS ext; CREATE EXTENSION IF NOT EXISTS cuckoo SCHEMA ext; '
                       'CREATE TABLE IF NOT EXISTS s (f ext.cuckoofilter); TRUNCATE s')
    a.close()
    if drv == 'psycopg2':
        x = psycopg2.connect(dbname='adapters_schema', options='-c search_path=public')
        cuckoo.psycopg2.register(x)
        xc = x.cursor()
        xc.execute('INSERT INTO s VALUES (%s)', (f,))
        xc.execute('SELECT f FROM s')
        got = xc.fetchone()[0]
        x.rollback()
    else:
        x = psycopg.connect(dbname='adapters_schema', options='-c search_path=public')
        cuckoo.psycopg.register(x)
        x.execute('INSERT INTO s VALUES (%s)', (f,))
        got = x.execute('SELECT f FROM s').fetchone()[0]
        x.rollback()
    x.close()
    check('%s: the extension in a schema off search_path' % drv, same(got, f))

# a database without the extension
for drv, mod, connect in (('psycopg2', cuckoo.psycopg2, lambda: psycopg2.connect(dbname='adapters_none')),
                          ('psycopg', cuckoo.psycopg, lambda: psycopg.connect(dbname='adapters_none'))):
    x = connect()
    try:
        mod.register(x)
        check('%s: register without the extension raises LookupError' % drv, False)
    except LookupError as e:
        check('%s: register without the extension says CREATE EXTENSION' % drv, 'CREATE EXTENSION cuckoo' in str(e))
    x.close()

print('adapters: %d checks, psycopg2 %s and psycopg %s: %s'
      % (checks, psycopg2.__version__.split()[0], psycopg.__version__, 'FAILED' if failed else 'ok'))
sys.exit(1 if failed else 0)
