#!/usr/bin/env python3
"""test_golden.py - the Python module reads the frozen filters cuckoo 1.0
wrote (test/golden: format version 1, value hashing 1) and gives, for every
value of a type it hashes, the cf_contains and cf_count answers 1.0 recorded
(values.txt).  No server needed; run by test/python/run.sh."""
import datetime
import os
import sys
import uuid

import cuckoo

TOP = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..'))
G = os.path.join(TOP, 'test', 'golden')


def value(typ, lit):
    if typ in ('int2', 'int4', 'int8'):
        return int(lit)
    if typ == 'float8':
        return float(lit.replace('Infinity', 'inf'))
    if typ == 'text':
        return lit
    if typ == 'bytea':
        return bytes.fromhex(lit[2:])           # \x...
    if typ == 'uuid':
        return uuid.UUID(lit)
    if typ == 'date':
        return datetime.date.fromisoformat(lit)
    if typ == 'timestamp':
        return datetime.datetime.fromisoformat(lit)
    if typ == 'timestamptz':
        return datetime.datetime.fromisoformat(lit + ':00' if lit[-3] in '+-' else lit)
    if typ == 'bool':
        return lit == 'true'
    return None                                 # numeric (text-hashed in 1.0), float4, inet, ...


filters = {}
for line in open(os.path.join(G, 'filters.txt')):
    name, text = line.rstrip('\n').split('\t')
    filters[name] = cuckoo.Filter.from_text(text)
checked = skipped = 0
bad = []
for line in open(os.path.join(G, 'values.txt')):
    name, typ, lit, _copies, contains, count = line.rstrip('\n').split('\t')
    v = value(typ, lit.replace('\\\\', '\\'))
    if v is None:
        skipped += 1
        continue
    f = filters[name]
    got = (f.contains(v), f.count(v))
    if got != (contains == 't', int(count)):
        bad.append('%s %s %r: 1.0 said %s %s, Python %s' % (name, typ, lit, contains, count, got))
    checked += 1
for b in bad[:10]:
    print('  FAIL golden ' + b)
print('golden: %d filters of cuckoo 1.0 (format 1, hashing 1) opened; %d recorded answers agree, '
      '%d differ, %d values of types the module does not hash skipped'
      % (len(filters), checked - len(bad), len(bad), skipped))
sys.exit(1 if bad or checked < 10000 else 0)
