#!/usr/bin/env python3
"""test_docs.py - runs every ```python block of docs/python.md, in order, each
in a fresh namespace and a fresh database, against the cluster of PGHOST /
PGPORT (test/python/run.sh), with the module on PYTHONPATH.  A block passes
when it runs to its end (they assert what they show)."""
import os
import re
import sys
import traceback

import psycopg2

TOP = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..'))
text = open(os.path.join(TOP, 'docs', 'python.md')).read()
blocks = re.findall(r'^```python\n(.*?)^```', text, re.S | re.M)
failed = 0
admin = psycopg2.connect('')
admin.autocommit = True
for k, code in enumerate(blocks):
    db = 'docs_python_%d' % k
    cur = admin.cursor()
    cur.execute('DROP DATABASE IF EXISTS %s' % db)
    cur.execute('CREATE DATABASE %s' % db)
    c = psycopg2.connect(dbname=db)
    c.autocommit = True
    c.cursor().execute('CREATE EXTENSION IF NOT EXISTS cuckoo')
    c.close()
    os.environ['PGDATABASE'] = db
    try:
        exec(compile(code, 'docs/python.md block %d' % (k + 1), 'exec'), {'__name__': '__docs__'})
    except Exception:
        failed += 1
        print('docs: block %d of docs/python.md fails:' % (k + 1))
        traceback.print_exc()
print('docs: %d python blocks of docs/python.md run: %s' % (len(blocks), 'FAILED' if failed else 'ok'))
sys.exit(1 if failed or len(blocks) < 2 else 0)
