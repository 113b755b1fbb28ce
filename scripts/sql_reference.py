#!/usr/bin/env python3
"""sql_reference.py - docs/sql-reference.md, the one place to read every SQL
object's current definition, generated from the catalog of a fresh
`CREATE EXTENSION cuckoo` (whatever chain of scripts defined it: 1.0, then
each update script in turn).

  python3 scripts/sql_reference.py --write docs/sql-reference.md
  python3 scripts/sql_reference.py --check docs/sql-reference.md

Runs psql against the server PGHOST/PGPORT/PGDATABASE name (test/pg/
tmpcluster.sh sets them; test/pg/sql_reference.sh runs it there), creates
the extension in a scratch database and reads the extension's members from
pg_depend: functions (their SQL name, the C symbol they bind, language,
volatility, strictness, parallel safety, comment and pg_get_functiondef's
definition), aggregates (their support functions and state), casts,
operators, types and operator classes.  Every member must land in one of
those sections (else it fails: a new kind of object needs its section).
--check exits 1 and prints a diff when the file differs from what the
catalog gives, so the reference cannot go stale; python3's standard
library only.
"""
import difflib
import json
import subprocess
import sys

DB = 'cuckoo_sql_reference'


def psql(sql, db='postgres'):
    r = subprocess.run(['psql', '-X', '-q', '-A', '-t', '-v', 'ON_ERROR_STOP=1', '-d', db, '-c', sql],
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit('sql_reference: psql failed: %s\n%s' % (r.stderr.strip(), sql))
    out = r.stdout
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def members_of(catalog):
    return ("SELECT d.objid FROM pg_depend d JOIN pg_extension e ON e.oid = d.refobjid "
            "WHERE e.extname = 'cuckoo' AND d.deptype = 'e' AND d.classid = '%s'::regclass" % catalog)


VOLATILITY = {'i': 'immutable', 's': 'stable', 'v': 'volatile'}
PARALLEL = {'s': 'safe', 'r': 'restricted', 'u': 'unsafe'}


def cell(s):
    return '' if s is None else str(s).replace('|', '\\|').replace('\n', ' ')


def generate():
    psql('DROP DATABASE IF EXISTS %s' % DB)
    psql('CREATE DATABASE %s' % DB)
    try:
        return render(DB)
    finally:
        psql('DROP DATABASE IF EXISTS %s' % DB)


def render(db):
    psql('CREATE EXTENSION cuckoo', db)
    version = psql("SELECT to_json(extversion) FROM pg_extension WHERE extname = 'cuckoo'", db)[0]
    everything = psql("SELECT to_json(o) FROM (SELECT pg_describe_object(d.classid, d.objid, d.objsubid) o "
                      "FROM pg_depend d JOIN pg_extension e ON e.oid = d.refobjid "
                      "WHERE e.extname = 'cuckoo' AND d.deptype = 'e' ORDER BY 1) x", db)
    funcs = psql("""
        SELECT row_to_json(x) FROM (
          SELECT p.oid, p.proname AS name, pg_get_function_identity_arguments(p.oid) AS args,
                 pg_get_function_result(p.oid) AS result, p.prokind AS kind, l.lanname AS lang,
                 p.prosrc AS symbol, p.provolatile AS volatility, p.proisstrict AS strict,
                 p.proparallel AS parallel, obj_description(p.oid, 'pg_proc') AS comment,
                 CASE WHEN p.prokind <> 'a' THEN pg_get_functiondef(p.oid) END AS def,
                 pg_describe_object('pg_proc'::regclass, p.oid, 0) AS described
          FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang
          WHERE p.oid IN (%s)
          ORDER BY p.proname, pg_get_function_identity_arguments(p.oid)) x""" % members_of('pg_proc'), db)
    aggs = {r['oid']: r for r in psql("""
        SELECT row_to_json(x) FROM (
          SELECT a.aggfnoid::oid AS oid, a.aggkind AS kind, a.aggtransfn::regprocedure::text AS sfunc,
                 a.aggtranstype::regtype::text AS stype, a.aggtransspace AS sspace,
                 NULLIF(a.aggfinalfn, 0)::regprocedure::text AS finalfunc, a.aggfinalextra AS finalextra,
                 a.aggfinalmodify AS finalmodify,
                 NULLIF(a.aggcombinefn, 0)::regprocedure::text AS combinefunc,
                 NULLIF(a.aggserialfn, 0)::regprocedure::text AS serialfunc,
                 NULLIF(a.aggdeserialfn, 0)::regprocedure::text AS deserialfunc,
                 a.agginitval AS initcond
          FROM pg_aggregate a WHERE a.aggfnoid IN (%s)) x""" % members_of('pg_proc'), db)}
    casts = psql("""
        SELECT row_to_json(x) FROM (
          SELECT c.castsource::regtype::text AS source, c.casttarget::regtype::text AS target,
                 NULLIF(c.castfunc, 0)::regprocedure::text AS func, c.castcontext AS context,
                 c.castmethod AS method, obj_description(c.oid, 'pg_cast') AS comment,
                 pg_describe_object('pg_cast'::regclass, c.oid, 0) AS described
          FROM pg_cast c WHERE c.oid IN (%s) ORDER BY 1, 2) x""" % members_of('pg_cast'), db)
    ops = psql("""
        SELECT row_to_json(x) FROM (
          SELECT o.oprname AS name, NULLIF(o.oprleft, 0)::regtype::text AS lefttype,
                 NULLIF(o.oprright, 0)::regtype::text AS righttype, o.oprresult::regtype::text AS result,
                 o.oprcode::regprocedure::text AS func,
                 NULLIF(o.oprcom, 0)::regoperator::text AS commutator,
                 NULLIF(o.oprnegate, 0)::regoperator::text AS negator,
                 NULLIF(o.oprrest, 0)::regproc::text AS restrict, NULLIF(o.oprjoin, 0)::regproc::text AS joinsel,
                 o.oprcanhash AS hashes, o.oprcanmerge AS merges,
                 obj_description(o.oid, 'pg_operator') AS comment,
                 pg_describe_object('pg_operator'::regclass, o.oid, 0) AS described
          FROM pg_operator o WHERE o.oid IN (%s) ORDER BY 1, 2, 3) x""" % members_of('pg_operator'), db)
    types = psql("""
        SELECT row_to_json(x) FROM (
          SELECT t.oid::regtype::text AS name, t.typtype AS kind, t.typinput::regproc::text AS input,
                 t.typoutput::regproc::text AS output, NULLIF(t.typreceive, 0)::regproc::text AS receive,
                 NULLIF(t.typsend, 0)::regproc::text AS send, t.typlen AS len, t.typstorage AS storage,
                 t.typalign AS align, obj_description(t.oid, 'pg_type') AS comment,
                 pg_describe_object('pg_type'::regclass, t.oid, 0) AS described,
                 (SELECT string_agg(a.attname || ' ' || format_type(a.atttypid, a.atttypmod), ', ' ORDER BY a.attnum)
                    FROM pg_attribute a WHERE a.attrelid = t.typrelid AND a.attnum > 0 AND NOT a.attisdropped)
                   AS columns
          FROM pg_type t WHERE t.oid IN (%s) ORDER BY 1) x""" % members_of('pg_type'), db)
    opcs = psql("""
        SELECT row_to_json(x) FROM (
          SELECT c.opcname AS name, am.amname AS method, c.opcintype::regtype::text AS type,
                 c.opcdefault AS is_default, obj_description(c.oid, 'pg_opclass') AS comment,
                 pg_describe_object('pg_opclass'::regclass, c.oid, 0) AS described,
                 (SELECT string_agg(format('operator %%s %%s', ao.amopstrategy, ao.amopopr::regoperator), ', '
                                    ORDER BY ao.amopstrategy)
                    FROM pg_amop ao WHERE ao.amopfamily = c.opcfamily) AS operators,
                 (SELECT string_agg(format('function %%s %%s', ap.amprocnum, ap.amproc::regprocedure), ', '
                                    ORDER BY ap.amprocnum)
                    FROM pg_amproc ap WHERE ap.amprocfamily = c.opcfamily) AS functions
          FROM pg_opclass c JOIN pg_am am ON am.oid = c.opcmethod
          WHERE c.oid IN (%s) ORDER BY 1, 2) x""" % members_of('pg_opclass'), db)
    families = psql("SELECT to_json(o) FROM (SELECT pg_describe_object('pg_opfamily'::regclass, f.oid, 0) o "
                    "FROM pg_opfamily f WHERE f.oid IN (%s) ORDER BY 1) x" % members_of('pg_opfamily'), db)

    shown = set()
    out = []
    w = out.append
    w('# SQL reference (generated)')
    w('')
    w('Every SQL object of cuckoo %s as a fresh `CREATE EXTENSION cuckoo` defines it: its current' % version)
    w('definition, whichever of `cuckoo--1.0.sql` and the update scripts after it wrote it last.')
    w('Generated from the catalog by `scripts/sql_reference.py` (`bash test/pg/sql_reference.sh')
    w('--write`); do not edit by hand: the quick run checks it against a fresh install. The guide')
    w('with examples and the rules the functions share are in [reference.md](reference.md).')
    w('')
    w('SQL entry points bind C symbols by name in the scripts (`AS \'MODULE_PATHNAME\', \'symbol\'`);')
    w('the frozen 1.0-1.4 scripts fix the names they bound (a `cuckoo.so` without them could not run')
    w('`CREATE EXTENSION cuckoo VERSION \'1.0\'` nor an update), so the C symbol of each SQL function')
    w('is listed here: new entry points are named `cf_*` after their SQL names.')
    w('')
    w('%d objects: %d functions and aggregates, %d casts, %d operators, %d types, %d operator '
      'classes, %d operator families.' % (len(everything), len(funcs), len(casts), len(ops), len(types),
                                            len(opcs), len(families)))
    w('')
    w('## Functions')
    w('')
    w('| SQL function | returns | C symbol | volatility | strict | parallel |')
    w('|---|---|---|---|---|---|')
    for f in funcs:
        shown.add(f['described'])
        sym = 'aggregate' if f['kind'] == 'a' else (
            '`%s`' % f['symbol'] if f['lang'] == 'c' else '%s' % f['lang'])
        w('| `%s(%s)` | `%s` | %s | %s | %s | %s |' % (
            cell(f['name']), cell(f['args']), cell(f['result']), cell(sym),
            VOLATILITY[f['volatility']], 'yes' if f['strict'] else 'no', PARALLEL[f['parallel']]))
    w('')
    w('## Definitions')
    w('')
    for f in funcs:
        w('### %s(%s)' % (f['name'], f['args']))
        w('')
        w(f['comment'] or '(no comment)')
        w('')
        w('```sql')
        if f['kind'] == 'a':
            a = aggs[f['oid']]
            w('CREATE AGGREGATE %s(%s) (' % (f['name'], f['args']))
            parts = ['    SFUNC = %s' % a['sfunc'], '    STYPE = %s' % a['stype']]
            if a['sspace']:
                parts.append('    SSPACE = %s' % a['sspace'])
            if a['finalfunc']:
                parts.append('    FINALFUNC = %s' % a['finalfunc'])
            if a['finalextra']:
                parts.append('    FINALFUNC_EXTRA')
            if a['finalfunc']:
                parts.append('    FINALFUNC_MODIFY = %s' % {'r': 'READ_ONLY', 's': 'SHAREABLE',
                                                            'w': 'READ_WRITE'}[a['finalmodify']])
            for k in ('combinefunc', 'serialfunc', 'deserialfunc'):
                if a[k]:
                    parts.append('    %s = %s' % (k.upper(), a[k]))
            if a['initcond'] is not None:
                parts.append("    INITCOND = '%s'" % a['initcond'])
            parts.append('    PARALLEL = %s' % PARALLEL[f['parallel']].upper())
            w(',\n'.join(parts))
            w(');')
        else:
            w(f['def'].rstrip())
        w('```')
        w('')
    w('## Casts')
    w('')
    w('| cast | function | context | comment |')
    w('|---|---|---|---|')
    for c in casts:
        shown.add(c['described'])
        w('| `%s` → `%s` | %s | %s | %s |' % (
            cell(c['source']), cell(c['target']),
            '`%s`' % cell(c['func']) if c['func'] else {'b': 'binary coercible', 'i': 'I/O'}.get(c['method'], ''),
            {'e': 'explicit', 'a': 'assignment', 'i': 'implicit'}[c['context']], cell(c['comment'])))
    w('')
    w('## Operators')
    w('')
    w('| operator | returns | function | commutator | negator | selectivity | comment |')
    w('|---|---|---|---|---|---|---|')
    for o in ops:
        shown.add(o['described'])
        w('| `%s %s %s` | `%s` | `%s` | %s | %s | %s | %s |' % (
            cell(o['lefttype'] or ''), cell(o['name']), cell(o['righttype'] or ''), cell(o['result']),
            cell(o['func']), cell(o['commutator'] or ''), cell(o['negator'] or ''),
            cell(', '.join(x for x in (o['restrict'], o['joinsel']) if x)), cell(o['comment'])))
    w('')
    w('## Types')
    w('')
    for t in types:
        shown.add(t['described'])
        w('### %s' % t['name'])
        w('')
        w(t['comment'] or '(no comment)')
        w('')
        if t['kind'] == 'c':
            w('A composite type: %s.' % t['columns'])
        else:
            w('Base type: input `%s`, output `%s`, receive `%s`, send `%s`; length %s, storage `%s`, '
              'alignment `%s`.' % (t['input'], t['output'], t['receive'], t['send'], t['len'],
                                   t['storage'], t['align']))
        w('')
    w('## Operator classes')
    w('')
    for c in opcs:
        shown.add(c['described'])
        w('- `%s` (%s, `%s`%s): %s; %s.%s' % (
            c['name'], c['method'], c['type'], ', default' if c['is_default'] else '',
            c['operators'] or 'no operators', c['functions'] or 'no functions',
            ' ' + c['comment'] if c['comment'] else ''))
    for fam in families:
        shown.add(fam)
    w('')
    missing = [m for m in everything if m not in shown]
    if missing:
        raise SystemExit('sql_reference: members of the extension no section shows: ' + '; '.join(missing))
    return '\n'.join(out) + '\n'


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ('--write', '--check'):
        raise SystemExit(__doc__)
    text = generate()
    path = sys.argv[2]
    if sys.argv[1] == '--write':
        open(path, 'w').write(text)
        print('sql_reference: %s written (%d lines)' % (path, text.count('\n')))
        return
    old = open(path).read()
    if old != text:
        sys.stdout.writelines(difflib.unified_diff(old.splitlines(True), text.splitlines(True),
                                                   path, 'the catalog of a fresh install', n=1))
        print('sql_reference: %s is not what the catalog gives: run bash test/pg/sql_reference.sh --write'
              % path)
        sys.exit(1)
    print('sql_reference: %s matches the catalog of a fresh CREATE EXTENSION cuckoo' % path)


if __name__ == '__main__':
    main()
