#!/usr/bin/env python3
"""test_agree.py - the Python module and the server agree, value for value
and byte for byte (issue 43's proof).  Run by test/python/run.sh against a
throw-away cluster (PGHOST/PGPORT set, the extension installed), with the
module built and on PYTHONPATH.

For each type (bigint, numeric, float8, text, bytea, uuid, date, timestamp,
timestamptz; boolean with its two values), from the same N values (the
equality audit's edge values among them, NULLs too), it checks:
  - cf_hash(v) on the server = cuckoo.hash(v), for every value and probe;
  - the bytes are identical: one cf_add per value in order (Filter(1000) and
    add_many), cf_agg (Filter.from_values), cf_union of the two halves (|);
  - every cf_contains and cf_count answer agrees both ways: the server's
    filter read in Python (f::bytea, from_bytes), and the Python-built filter
    read by the server after COPY ... (FORMAT binary) and COPY text input,
    over the values and half as many values never added, plus cross-type probes;
  - deletes agree: cf_delete of every 7th value, in order, gives the same bytes;
  - the seen recipe (bigint items): cf_seen / cf_unseen answers and the
    marks (cf_mark_all_*, cf_unsee_*) give the same columns;
  - malformed bytes raise a Python exception, never crash: the core's fuzz
    corpus (test/core/corpus/*) and single-byte mutations of valid filters
    through from_bytes and from_text.
Prints one line per type with its agreement counts; exits 1 on a mismatch.
"""
import datetime
import decimal
import glob
import io
import os
import random
import struct
import sys
import time
import uuid

import psycopg2

import cuckoo

N = int(os.environ.get('CUCKOO_PY_N', '100000'))
TOP = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..'))
D = decimal.Decimal
UTC = datetime.timezone.utc
failures = []


def fail(msg):
    failures.append(msg)
    print('  FAIL ' + msg)


# ---- values: the audit's edge values, then random ones ----

def text_value(rnd):
    alphabet = 'abcxyz ABC019-_éüß日本語🎉\\'
    n = rnd.choice((3, 4, 5, 8, 13))
    s = ''.join(rnd.choice(alphabet) for _ in range(n))
    if rnd.random() < 0.1:
        s += ' ' * rnd.randint(1, 3)
    return s


def random_datetime(rnd, aware):
    d = datetime.datetime(1, 1, 1) + datetime.timedelta(
        microseconds=rnd.randrange(0, (datetime.datetime(9999, 12, 30) - datetime.datetime(1, 1, 2)) //
                                   datetime.timedelta(microseconds=1)))
    d += datetime.timedelta(days=1)
    if rnd.random() < 0.5:
        d = d.replace(microsecond=0)
    if aware:
        off = rnd.choice((0, 0, 60, -300, 330, 345, -720, 840))
        d = d.replace(tzinfo=datetime.timezone(datetime.timedelta(minutes=off)))
    return d


TWO53 = 2 ** 53
TYPES = {
    'bigint': dict(
        edges=[0, 1, -1, 16777217, TWO53 - 1, TWO53, TWO53 + 1, TWO53 + 3, -TWO53 - 1,
               4611686018427387903, 9223372036854775807, 9223372036854775296, -9223372036854775808],
        gen=lambda r: r.choice((r.randint(-10 ** 6, 10 ** 6), r.randint(-2 ** 63, 2 ** 63 - 1),
                                TWO53 + r.randint(-10 ** 6, 10 ** 6))),
        lit=str,
        cross=[(9007199254740992.0, '9007199254740992::float8'), (D('1.00'), '1.00::numeric'),
               (1.0, '1::float8'), (-0.0, "'-0'::float8"), (2 ** 63, '9223372036854775808::numeric'),
               (9223372036854775807.0, '9223372036854775807::float8'), (D('16777217.0'), '16777217.0::numeric'),
               (float(TWO53 + 2), '9007199254740994::float8')]),
    'numeric': dict(
        edges=[D('0'), D('-0'), D('0.000'), D('1'), D('1.0'), D('1.00'), D('1.5'), D('1.50'), D('0.1'),
               D('NaN'), D('Infinity'), D('-Infinity'), D('16777217'), D('9007199254740992'),
               D('9007199254740993'), D('9007199254740993.5'), D('9223372036854775807'),
               D('9223372036854775808'), D('9223372036854775807.5'), D('1e300'),
               D('0.1000000000000000055511151231257827'), D('-123.4500'), D('100000000000000000000000000001')],
        gen=lambda r: r.choice((D(r.randint(-10 ** 6, 10 ** 6)) / D(10) ** r.randint(0, 4),
                                D(r.randint(-10 ** 25, 10 ** 25)), (D(r.randint(0, 10 ** 7)) / 100).quantize(D('0.000')),
                                D(r.randint(-2 ** 63, 2 ** 63)))),
        lit=str,
        cross=[(1, '1::bigint'), (1.5, '1.5::float8'), (9007199254740992.0, '9007199254740992::float8'),
               (float('nan'), "'NaN'::float8"), (float('inf'), "'Infinity'::float8"), (10 ** 30, '10::numeric^30'),
               (TWO53 + 1, '9007199254740993::bigint'), (0.1, '0.1::float8')]),
    'float8': dict(
        edges=[0.0, -0.0, 1.0, 1.5, 0.1, 16777217.0, float('nan'), float('inf'), float('-inf'),
               9007199254740991.0, float(TWO53), 9007199254740994.0, 9007199254740996.0, -float(TWO53),
               4611686018427387904.0, 9223372036854775807.0, -9223372036854775808.0, 1e300,
               0.10000000149011612, 5e-324],
        # (an integral float beyond 2^53 has up to 1,025 alternates: a few of them)
        gen=lambda r: (float(r.randint(-2 ** 63, 2 ** 63)) if r.random() < 0.01 else
                       r.choice((r.uniform(-1e6, 1e6), float(r.randint(-10 ** 6, 10 ** 6)),
                                 r.uniform(-1, 1) * 10 ** r.randint(-300, 300)))),
        lit=repr,
        cross=[(TWO53 + 1, '9007199254740993::bigint'), (D('1.5'), '1.5::numeric'), (1, '1::bigint'),
               (D('-0'), "'-0'::numeric"), (9223372036854775807, '9223372036854775807::bigint'),
               (D('NaN'), "'NaN'::numeric")]),
    'text': dict(
        edges=['', ' ', 'a', 'abc', 'abc ', 'abc  ', 'ABC', ' abc', 'Alice', 'alice', 'é', 'é', '\u0080',
               '日本語', '🎉', 'back\\slash', 'tab\there', 'new\nline'],
        gen=text_value,
        lit=str,
        cross=[('abc ', "'abc '::varchar"), ('abc', "'abc'::char(5)"), ('abc', "'abc'::name")]),
    'bytea': dict(
        edges=[b'', b'\x00', b'abc', b'\xff' * 20, b'\\'],
        gen=lambda r: bytes(r.getrandbits(8) for _ in range(r.randint(3, 24))),
        lit=lambda b: '\\x' + b.hex(),
        cross=[]),
    'uuid': dict(
        edges=[uuid.UUID('a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'), uuid.UUID(int=0), uuid.UUID(int=2 ** 128 - 1)],
        gen=lambda r: uuid.UUID(int=r.getrandbits(128)),
        lit=str,
        cross=[]),
    'date': dict(
        edges=[datetime.date(2024, 1, 1), datetime.date(2023, 12, 31), datetime.date(2000, 1, 1),
               datetime.date(1970, 1, 1), datetime.date(1, 1, 1), datetime.date(9999, 12, 31)],
        gen=lambda r: datetime.date.fromordinal(r.randint(1, datetime.date(9999, 12, 31).toordinal())),
        lit=lambda d: d.isoformat(),
        cross=[(datetime.datetime(2024, 1, 1), "'2024-01-01 00:00'::timestamp")]),
    'timestamp': dict(
        edges=[datetime.datetime(2024, 1, 1), datetime.datetime(2024, 1, 1, 9), datetime.datetime(2023, 12, 31, 15),
               datetime.datetime(2024, 1, 1, 0, 0, 0, 1), datetime.datetime(1, 1, 1),
               datetime.datetime(9999, 12, 31, 23, 59, 59, 999999)],
        gen=lambda r: random_datetime(r, False),
        lit=lambda d: d.isoformat(),
        cross=[(datetime.date(2024, 1, 1), "'2024-01-01'::date")]),
    'timestamptz': dict(
        edges=[datetime.datetime(2024, 1, 1, tzinfo=UTC),
               datetime.datetime(2024, 1, 1, 9, tzinfo=datetime.timezone(datetime.timedelta(hours=9))),
               datetime.datetime(2000, 1, 1, tzinfo=UTC),
               datetime.datetime(1, 1, 1, 12, tzinfo=datetime.timezone(datetime.timedelta(hours=5)))],
        gen=lambda r: random_datetime(r, True),
        lit=lambda d: d.isoformat(),
        cross=[]),
}


def copy_text_field(s):
    return s.replace('\\', '\\\\').replace('\t', '\\t').replace('\n', '\\n').replace('\r', '\\r')


def load(cur, table, sqltype, values, lit):
    cur.execute('DROP TABLE IF EXISTS %s; CREATE TABLE %s (i int, v %s)' % (table, table, sqltype))
    buf = io.StringIO()
    for i, v in enumerate(values):
        buf.write('%d\t%s\n' % (i, '\\N' if v is None else copy_text_field(lit(v))))
    buf.seek(0)
    cur.copy_expert('COPY %s FROM STDIN' % table, buf)


def server_bytes(cur, sql):
    cur.execute(sql)
    r = cur.fetchone()[0]
    return None if r is None else bytes(r)


def copy_binary(cur, table, blobs):
    """COPY table (f) FROM STDIN (FORMAT binary): the filters' bytes as cuckoofilter_recv takes them"""
    out = io.BytesIO()
    out.write(b'PGCOPY\n\xff\r\n\x00' + struct.pack('!ii', 0, 0))
    for b in blobs:
        out.write(struct.pack('!hi', 1, len(b)) + b)
    out.write(struct.pack('!h', -1))
    out.seek(0)
    cur.copy_expert('COPY %s (f) FROM STDIN (FORMAT binary)' % table, out)


def phase(what, t0=[None]):
    if os.environ.get('CUCKOO_PY_TIMING'):
        now = time.time()
        if t0[0] is not None:
            print('    %.2f s  %s' % (now - t0[0], what))
        t0[0] = now


def check_type(conn, name, spec, rnd):
    t0 = time.time()
    cur = conn.cursor()
    values = list(spec['edges']) + [None, None]
    while len(values) < N:
        values.append(spec['gen'](rnd))
    rnd.shuffle(values)
    absent = []
    while len(absent) < N // 2:
        absent.append(spec['gen'](rnd))
    probes = values + absent
    counts = {}
    load(cur, 'vals', name, values, spec['lit'])
    load(cur, 'probes', name, probes, spec['lit'])

    phase('cf_hash of every value and probe')
    # cf_hash of every value and probe
    cur.execute('SELECT cf_hash(v) FROM probes ORDER BY i')
    sh = [r[0] for r in cur.fetchall()]
    ph = [cuckoo.hash(v) for v in probes]
    bad = [i for i in range(len(probes)) if sh[i] != ph[i]]
    if bad:
        fail('%s: cf_hash differs for %d values, e.g. %r: server %s, Python %s'
             % (name, len(bad), probes[bad[0]], sh[bad[0]], ph[bad[0]]))
    counts['cf_hash'] = len(probes) - len(bad)

    phase('the bytes: cf_add in order')
    # the bytes: cf_add in order, cf_agg, cf_union of the halves
    py_add = cuckoo.Filter(1000)
    py_add.add_many(values)
    py_agg = cuckoo.Filter.from_values(values)
    s_add = server_bytes(cur, 'SELECT add_in_order(v ORDER BY i)::bytea FROM vals')
    s_agg = server_bytes(cur, 'SELECT cf_agg(v)::bytea FROM vals')
    evens = [v for i, v in enumerate(values) if i % 2 == 0]
    odds = [v for i, v in enumerate(values) if i % 2 == 1]
    odd_f = cuckoo.Filter(1000)
    odd_f.add_many(odds)
    py_union = cuckoo.Filter.from_values(evens) | odd_f
    s_union = server_bytes(cur, 'SELECT cf_union((SELECT cf_agg(v) FROM vals WHERE i % 2 = 0), '
                                '(SELECT add_in_order(v ORDER BY i) FROM vals WHERE i % 2 = 1))::bytea')
    for what, s, p in (('cf_add in order', s_add, py_add), ('cf_agg', s_agg, py_agg), ('cf_union', s_union, py_union)):
        if s != p.to_bytes():
            fail('%s: %s bytes differ (server %d bytes, Python %d)' % (name, what, len(s or b''), len(p.to_bytes())))
    counts['bytes'] = 3

    phase("the server's filter read in Python")
    # the server's filter read in Python: contains and count of every probe
    server_f = cuckoo.Filter.from_bytes(s_add)
    cur.execute('SELECT cf_contains(f, p.v), cf_count(f, p.v) FROM probes p, '
                '(SELECT add_in_order(v ORDER BY i) AS f FROM vals) s ORDER BY p.i')
    rows = cur.fetchall()
    pc = server_f.contains_many(probes)
    pn = server_f.count_many(probes)
    bad = [i for i in range(len(probes)) if rows[i][0] != pc[i] or rows[i][1] != pn[i]]
    if bad:
        fail('%s: %d contains/count answers differ on the server-built filter, e.g. %r: server %s, Python %s'
             % (name, len(bad), probes[bad[0]], rows[bad[0]], (pc[bad[0]], pn[bad[0]])))
    if any(pc[i] is False for i in range(len(values)) if values[i] is not None):
        fail('%s: a false negative in Python' % name)
    counts['read in Python'] = 2 * (len(probes) - len(bad))

    phase('the Python-built filters read by the server')
    # the Python-built filters read by the server: COPY binary and text input
    cur.execute('DROP TABLE IF EXISTS pyf; CREATE TABLE pyf (n serial, f cuckoofilter)')
    copy_binary(cur, 'pyf', [py_add.to_bytes(), py_union.to_bytes()])
    cur.copy_expert('COPY pyf (f) FROM STDIN', io.StringIO(py_agg.to_text() + '\n'))
    cur.execute('SELECT n, f::bytea FROM pyf ORDER BY n')
    stored = [bytes(r[1]) for r in cur.fetchall()]
    if stored != [py_add.to_bytes(), py_union.to_bytes(), py_agg.to_bytes()]:
        fail('%s: the filters COPY loaded are not the bytes Python wrote' % name)
    # (the add-in-order filter's bytes are the server's own, checked above)
    cur.execute('SELECT cf_contains(a.f, p.v), cf_count(a.f, p.v), cf_contains(u.f, p.v) '
                'FROM probes p, pyf a, pyf u WHERE a.n = 3 AND u.n = 2 ORDER BY p.i')
    rows = cur.fetchall()
    ac = py_agg.contains_many(probes)
    an = py_agg.count_many(probes)
    uc = py_union.contains_many(probes)
    bad = [i for i in range(len(probes)) if rows[i] != (ac[i], an[i], uc[i])]
    if bad:
        fail('%s: %d answers differ on the Python-built filters, e.g. %r: server %s, Python %s'
             % (name, len(bad), probes[bad[0]], rows[bad[0]], (ac[bad[0]], an[bad[0]], uc[bad[0]])))
    agree = 3 * (len(probes) - len(bad))
    counts['read by the server'] = agree

    phase('cross-type probes')
    # cross-type probes (the audit's pairs SQL calls equal)
    agree = 0
    for pv, lit in spec['cross']:
        cur.execute('SELECT cf_contains(f, %s), cf_count(f, %s) FROM pyf WHERE n = 3' % (lit, lit))
        s = cur.fetchone()
        p = (py_agg.contains(pv), py_agg.count(pv))
        if tuple(s) != p:
            fail('%s: probe %r (%s): server %s, Python %s' % (name, pv, lit, s, p))
        else:
            agree += 1
    counts['cross-type probes'] = agree

    phase('deletes: every 7th')
    # deletes: every 7th value, in order
    py_del = py_add.copy()
    py_del.delete_many(values[::7])
    s_del = server_bytes(cur, 'SELECT del_every_7th_%s(add_in_order(v ORDER BY i))::bytea FROM vals' % name)
    if s_del != py_del.to_bytes():
        fail('%s: the bytes after deletes differ' % name)
    counts['deletes'] = len([v for v in values[::7] if v is not None])
    print('  %-12s %s' % (name, ', '.join('%s %d' % kv for kv in counts.items())))
    return counts


def check_bool(conn):
    cur = conn.cursor()
    values = [True, False, None, True, False, True]
    load(cur, 'vals', 'boolean', values, lambda b: 't' if b else 'f')
    f = cuckoo.Filter(1000)
    f.add_many(values)
    ok = server_bytes(cur, 'SELECT add_in_order(v ORDER BY i)::bytea FROM vals') == f.to_bytes()
    ok &= server_bytes(cur, 'SELECT cf_agg(v)::bytea FROM vals') == cuckoo.Filter.from_values(values).to_bytes()
    cur.execute('SELECT cf_hash(true), cf_hash(false), cf_count(add_in_order(v ORDER BY i), true) FROM vals')
    s = cur.fetchone()
    ok &= tuple(s) == (cuckoo.hash(True), cuckoo.hash(False), f.count(True))
    if not ok:
        fail('boolean: bytes, hashes or counts differ')
    print('  %-12s bytes 2, cf_hash 2, count 1' % 'boolean')


def check_refusals(conn):
    cur = conn.cursor()
    f = cuckoo.Filter.from_values(range(100))
    cur.execute('SELECT 1')
    for v in ('1', b'1', uuid.UUID(int=1), datetime.date(2024, 1, 1), True):
        try:
            f.contains(v)
            fail('a number filter answered for %r' % (v,))
        except TypeError as e:
            if 'number' not in str(e):
                fail('the refusal does not name the kind: %s' % e)
    tz = cuckoo.Filter.from_values([datetime.datetime(2024, 1, 1, tzinfo=UTC)])
    for v in (datetime.datetime(2024, 1, 1), datetime.date(2024, 1, 1)):
        try:
            tz.contains(v)
            fail('a timestamptz filter answered for %r' % (v,))
        except TypeError:
            pass
    for v in (object(), [1], {'a': 1}, 1j):
        try:
            cuckoo.hash(v)
            fail('hashed a %s' % type(v).__name__)
        except TypeError:
            pass
    # the server refuses the same: a text probe of a number filter
    try:
        cur.execute("SELECT cf_contains(cf_agg(x), 'a'::text) FROM generate_series(1, 100) x")
        fail('the server answered a text probe of a number filter')
    except psycopg2.Error:
        conn.rollback()
    print('  refusals     TypeError naming the kind, as the server refuses')


def check_seen(conn, rnd):
    """the seen recipe: marks, unsees and checks in Python against the server's, bigint items"""
    cur = conn.cursor()
    base, delta = None, None
    sbase, sdelta = None, None
    marked = []
    agree = 0
    for step in range(400):
        page = [rnd.randint(1, 3000) for _ in range(rnd.randint(1, 12))]
        base, delta = cuckoo.mark_all(base, delta, page)
        cur.execute('SELECT cf_mark_all_base(%s::cuckoofilter, %s::bigint[], %s::bigint[])::bytea, '
                    'cf_mark_all_delta(%s::cuckoofilter, %s::bigint[], %s::bigint[])',
                    (sbase, sdelta, page, sbase, sdelta, page))
        b, sdelta = cur.fetchone()
        sbase = None if b is None else psycopg2.extensions.AsIs("'\\x%s'::bytea::cuckoofilter" % bytes(b).hex())
        marked += page
        if step % 10 == 0 and marked:
            x = rnd.choice(marked)
            marked.remove(x)
            base, delta = cuckoo.unsee(base, delta, x)
            cur.execute('SELECT cf_unsee_base(%s::cuckoofilter, %s::bigint[], %s::bigint)::bytea, '
                        'cf_unsee_delta(%s::cuckoofilter, %s::bigint[], %s::bigint)',
                        (sbase, sdelta, x, sbase, sdelta, x))
            b, sdelta = cur.fetchone()
            sbase = None if b is None else psycopg2.extensions.AsIs("'\\x%s'::bytea::cuckoofilter" % bytes(b).hex())
        pb = None if base is None else (base.to_bytes() if isinstance(base, cuckoo.Filter) else bytes(base))
        cur.execute('SELECT %s::cuckoofilter::bytea' % (sbase if sbase is not None else 'NULL'))
        sb = cur.fetchone()[0]
        if (None if sb is None else bytes(sb)) != pb or list(sdelta or []) != list(delta or []):
            fail('seen: the columns differ after step %d: delta %s / %s' % (step, sdelta, delta))
            return
        cands = [rnd.randint(1, 4000) for _ in range(50)] + [None]
        cur.execute('SELECT cf_unseen(%s::cuckoofilter, %s::bigint[], %s::bigint[]), '
                    'cf_seen(%s::cuckoofilter, %s::bigint[], %s::bigint)',
                    (sbase, sdelta, cands, sbase, sdelta, cands[0]))
        su, ss = cur.fetchone()
        pu = cuckoo.unseen(base, delta, cands)
        ps = cuckoo.seen(base, delta, cands[0])
        if su != pu or ss != ps:
            fail('seen: cf_unseen / cf_seen differ at step %d: %s / %s' % (step, (su, ss), (pu, ps)))
            return
        if set(pu) & set(marked):
            fail('seen: a marked item was reported unseen')
        agree += len(cands) + 1
    print('  %-12s 400 marks (pages), 40 unsees: the same columns; %d cf_unseen / cf_seen answers agree'
          % ('seen', agree))


def check_malformed(rnd):
    files = sorted(glob.glob(os.path.join(TOP, 'test', 'core', 'corpus', '*', '*')))
    valid = refused = 0
    for path in files:
        data = open(path, 'rb').read()
        for attempt in (lambda: cuckoo.Filter.from_bytes(data),
                        lambda: cuckoo.Filter.from_text(data.decode('latin-1'))):
            try:
                f = attempt()
                f.contains_many(range(100))
                f.count(1)
                valid += 1
            except (ValueError, TypeError):
                refused += 1
    # single-byte changes of valid filters of each layout
    base = [cuckoo.Filter.from_values(range(n)).to_bytes() for n in (1, 10, 300, 5000)]
    g = cuckoo.Filter(100)
    g.add_many(range(150))
    base.append(g.to_bytes())
    g.add_many(range(3000))
    base.append(g.to_bytes())
    for b in base:
        for _ in range(400):
            m = bytearray(b)
            i = rnd.randrange(len(m))
            m[i] ^= 1 << rnd.randrange(8)
            if rnd.random() < 0.2:
                m = m[:rnd.randrange(len(m))]
            try:
                f = cuckoo.Filter.from_bytes(bytes(m))
                f.contains_many(range(50))
                f.add(7)
                f.delete(7)
                valid += 1
            except (ValueError, TypeError, cuckoo.Error):
                refused += 1
    print('  malformed    %d corpus files and %d mutations: %d refused with an exception, %d valid, no crash'
          % (len(files), len(base) * 400, refused, valid))
    if len(files) < 50:
        fail('the fuzz corpus has only %d files' % len(files))


def main():
    t0 = time.time()
    rnd = random.Random(43)
    conn = psycopg2.connect('')
    conn.autocommit = True
    cur = conn.cursor()
    cur.execute("SET client_min_messages = warning; CREATE EXTENSION IF NOT EXISTS cuckoo; "
                "SET TimeZone = 'UTC'; "
                "DROP AGGREGATE IF EXISTS add_in_order(anyelement); "
                "CREATE AGGREGATE add_in_order(anyelement) (sfunc = cf_add, stype = cuckoofilter)")
    print('python: %d values and %d probes (the values, and others) per type (CUCKOO_PY_N)' % (N, N + N // 2))
    for name in TYPES:
        cur.execute("""CREATE OR REPLACE FUNCTION del_every_7th_%s(f cuckoofilter) RETURNS cuckoofilter
            LANGUAGE plpgsql AS $$ DECLARE r record; BEGIN
              FOR r IN SELECT v FROM vals WHERE i %% 7 = 0 ORDER BY i LOOP f := cf_delete(f, r.v); END LOOP;
              RETURN f; END $$""" % name)
    only = os.environ.get('CUCKOO_PY_TYPES')
    for name, spec in TYPES.items():
        if only is None or name in only.split(','):
            check_type(conn, name, spec, rnd)
    check_bool(conn)
    check_refusals(conn)
    check_seen(conn, rnd)
    check_malformed(rnd)
    print('python: %s in %.1f s' % ('FAILED (%d)' % len(failures) if failures else 'ok', time.time() - t0))
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
