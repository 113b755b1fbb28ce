#!/usr/bin/env python3
"""layering.py - checks the layering the Makefile and CONTRIBUTING state.

  python3 test/layering.py [path/to/cuckoo.so]

1. The include graph of src/core and src/pg with its subfolders ("..." includes) has no cycle,
   and no src/core file includes a PostgreSQL header (or a src/pg one).
2. Calls between the core objects follow CORE_OBJS in the Makefile: each
   object uses (nm: its undefined symbols) only objects listed before it.
   The objects are compiled into a temporary directory (cc -c).
3. No circle of core units (a unit: cuckoo_x.c with its cuckoo_x.h; a
   header without a .c is a unit of its own): a unit's includes, its
   object's calls and its header's inline code's calls (the header compiled
   with -fkeep-inline-functions, then nm) point only to units below it.
4. With a built cuckoo.so: no symbol of the core is exported (nm -D), while
   _PG_init, Pg_magic_func and the pg_finfo_* records are.
5. The glue (src/pg, comments and strings aside) reads no sub-filter: no
   cf_stage, stages[...], sub-filter field (geom, enc, table, nitems, ...),
   nor any geometry CF_GEOM_*: it asks for a filter by what it does
   (geometry = CF_GROWING or CF_BUILT_AT_ONCE), and asks the core
   (cf_is_list, cf_list_hashes, cf_encoding_of, ...).  The Python module
   names no CF_GEOM_* either.
6. The callers outside the server (python/cuckoo/*.c, test/lib/*.c) include
   no core header but the public cuckoo.h.
7. Every variant in its own room (src/core, comments and strings aside): a
   geometry is named (CF_GEOM_*) only in the geometry modules
   (GEOMETRY_FILES: cuckoo_geom_*.c, the registry cuckoo_geometries.c and
   the modules' private files), where cuckoo.h or cuckoo_geom.h defines it
   (tested there neither), and in
   cuckoo_format.c's version-1 rule (its tables are legacy); the registry
   is the one place a geometry byte meets its table (a table set at a
   byte, [CF_GEOM_*] =, and cfi_geometries, read by cf_open alone), the
   format layer finds a table only through it (cfi_geometry_at), and the
   one place that reads what a caller asks for (p->geometry): the
   geometry of a new filter is chosen there; no 'below' links, no
   cfi_geom_top or cfi_top_over; an encoding (compared with a CF_ENC_*)
   only in the codec modules (CODEC_FILES); cuckoo_lookup.c names no
   geometry's code; there is no shared kitchen (cuckoo_internal.h); no
   core file has over 1,000 lines.
8. The glue's rooms (src/pg's folders, GLUE_ROOMS) run one way: a file
   includes headers of its own room, of a room below it, or of the core,
   never of a room above it or of a sibling room; every src/pg file is in a
   known room (a new folder must be placed in GLUE_ROOMS).
Prints what it checked; exits 1 on the first kind of failure it finds.
"""
import glob
import os
import re
import subprocess
import sys
import tempfile

TOP = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
CC = os.environ.get('CC', 'cc')
failures = []


def fail(msg):
    failures.append(msg)
    print('  FAIL ' + msg)


def core_objs():
    text = open(os.path.join(TOP, 'Makefile')).read().replace('\\\n', ' ')
    m = re.search(r'^CORE_OBJS\s*=(.*)$', text, re.M)
    return [os.path.basename(o)[:-2] for o in m.group(1).split()]


# the glue's rooms, from the bottom: the stored filter, value hashing, the
# type and its functions, then three siblings on one floor (aggregates, the
# seen recipes, the join filters), and src/pg itself (what loading cuckoo.so
# sets up) on top
GLUE_ROOMS = [('src/pg/store',), ('src/pg/values',), ('src/pg/funcs',),
              ('src/pg/agg', 'src/pg/seen', 'src/pg/prefilter'), ('src/pg',)]


def glue_floor(path):
    d = os.path.dirname(path)
    for i, floor in enumerate(GLUE_ROOMS):
        if d in floor:
            return i
    return None


def check_glue_rooms(graph):
    """rule 8: includes between the glue's rooms run downward only"""
    n = 0
    for path, incs in sorted(graph.items()):
        if not path.startswith('src/pg/'):
            continue
        f = glue_floor(path)
        if f is None:
            fail('%s is in no room of the glue (test/layering.py GLUE_ROOMS)' % path)
            continue
        for inc in incs:
            if not inc.startswith('src/pg'):
                continue
            g = glue_floor(inc)
            if g is None:
                continue
            n += 1
            if g > f or (g == f and os.path.dirname(inc) != os.path.dirname(path)):
                fail('%s includes %s, a header of a room above it or beside it' % (path, inc))
    print('glue rooms: %s; %d includes between glue files, none running up or sideways'
          % (' < '.join('/'.join(os.path.basename(d) for d in fl) for fl in GLUE_ROOMS), n))


def glue_dirs():
    """src/pg and its subfolders (src/pg/prefilter: the join filters' room)"""
    top = os.path.join(TOP, 'src/pg')
    return ['src/pg'] + ['src/pg/' + n for n in sorted(os.listdir(top))
                         if os.path.isdir(os.path.join(top, n))]


def includes():
    graph = {}
    for d in ['src/core'] + glue_dirs():
        for name in sorted(os.listdir(os.path.join(TOP, d))):
            if not name.endswith(('.c', '.h')):
                continue
            path = d + '/' + name
            src = open(os.path.join(TOP, path)).read()
            graph[path] = []
            for kind, inc in re.findall(r'^\s*#\s*include\s+([<"])([^>"]+)[>"]', src, re.M):
                quoted = kind == '"'
                if d == 'src/core' and (inc in ('postgres.h', 'fmgr.h', 'c.h') or
                                        inc.split('/')[0] in ('utils', 'access', 'catalog', 'nodes', 'lib')):
                    fail('%s includes the PostgreSQL header %s' % (path, inc))
                if not quoted:
                    continue
                for cand in [d + '/' + inc, 'src/core/' + inc] + [g + '/' + inc for g in glue_dirs()]:
                    if os.path.exists(os.path.join(TOP, cand)):
                        if d == 'src/core' and cand.startswith('src/pg/'):
                            fail('%s includes the glue header %s' % (path, cand))
                        graph[path].append(cand)
                        break
    return graph


def find_cycle(graph):
    state, stack = {}, []

    def visit(n):
        state[n] = 1
        stack.append(n)
        for m in graph.get(n, []):
            if state.get(m) == 1:
                return stack[stack.index(m):] + [m]
            if m not in state:
                c = visit(m)
                if c:
                    return c
        stack.pop()
        state[n] = 2
        return None

    for n in sorted(graph):
        if n not in state:
            c = visit(n)
            if c:
                return c
    return None


def nm(path, *args):
    out = subprocess.run(['nm'] + list(args) + [path], check=True, capture_output=True, text=True).stdout
    return [line.split() for line in out.splitlines() if line.strip()]


# what the glue must not read of a filter (5.): its sub-filters
GLUE_READS = [
    (re.compile(r'\bcf_stage\b'), 'the sub-filter type cf_stage'),
    (re.compile(r'\bstages\s*\['), 'a sub-filter (stages[...])'),
    (re.compile(r'(->|\.)\s*(geom|enc|table|table_bytes|nitems|nbuckets|level|basebits|base_nbuckets|'
                r'extbits|nstash|stash|desc|engine)\b'), 'a sub-filter field'),
    (re.compile(r'\bCF_GEOM_\w+'), 'a geometry (ask by what the filter does: CF_GROWING, CF_BUILT_AT_ONCE)'),
]


# the files that own the variants (7.): each geometry's module (cuckoo_geom_NAME.c: a new
# one needs no line here), its private files, and the registry
REGISTRY = 'cuckoo_geometries.c'
GEOMETRY_FILES = {REGISTRY, 'cuckoo_chain.h', 'cuckoo_split.c', 'cuckoo_split.h', 'cuckoo_list.h'} | {
    os.path.basename(p) for p in glob.glob(os.path.join(TOP, 'src/core/cuckoo_geom_*.c'))}
# where else a geometry may be named: its definition (cuckoo.h: the ones a library caller
# may ask for by number; cuckoo_geom.h: a geometry only the registry chooses), and version
# 1's rule (its tables are legacy)
GEOM_NAMED_ALSO = {'cuckoo.h': None, 'cuckoo_int.h': {'CF_GEOM_LEGACY'}, 'cuckoo_geom.h': None, 'cuckoo_format.c': {'CF_GEOM_LEGACY'}}
GEOM_NAME = re.compile(r'\bCF_GEOM_\w+')
REGISTRY_SET = re.compile(r'\[\s*CF_GEOM_\w+\s*\]\s*=')
REGISTRY_USERS = {REGISTRY: 'defines it', 'cuckoo_geom.h': 'declares it', 'cuckoo_ops.c': 'cf_open, cf_validate, cf_upgrade'}
GONE = re.compile(r'\bcfi_geom_top\b|\bcfi_top_over\b|(->|\.)\s*below\b')
ASKED = re.compile(r'(->|\.)\s*geometry\b(?!\s*=[^=])')
CODEC_FILES = {'cuckoo_codec.h', 'cuckoo_codec.c', 'cuckoo_codec_packed.h', 'cuckoo_codec_semi.h',
               'cuckoo_semisort.h', 'cuckoo_semisort.c'}
GEOM_TEST = re.compile(r'(==|!=)\s*CF_GEOM_\w+|CF_GEOM_\w+\s*(==|!=)|case\s+CF_GEOM_')
ENC_TEST = re.compile(r'(==|!=)\s*CF_ENC_(PACKED|SEMISORT)|CF_ENC_(PACKED|SEMISORT)\s*(==|!=)|'
                      r'case\s+CF_ENC_|(->|\.)enc\s*(==|!=)\s*CF_ENC')
LOOKUP_NAMES = re.compile(r'\bCF_GEOM_\w+|\b(split|chain|list|semi)_\w+\s*\(')


def variants():
    n = 0
    core = os.path.join(TOP, 'src/core')
    if os.path.exists(os.path.join(core, 'cuckoo_internal.h')):
        fail('src/core/cuckoo_internal.h is back: layout (cuckoo_layout.h), slot access '
             '(cuckoo_codec.h) and each module\'s own part have their places')
    for name in sorted(os.listdir(core)):
        if not name.endswith(('.c', '.h')):
            continue
        n += 1
        raw = open(os.path.join(core, name)).read()
        if raw.count('\n') > 1000:
            fail('src/core/%s has %d lines (at most 1,000)' % (name, raw.count('\n')))
        src = strip_comments_strings(raw)
        for lineno, line in enumerate(src.split('\n'), 1):
            m = GEOM_TEST.search(line)
            if m and name not in GEOMETRY_FILES:
                fail('src/core/%s:%d tests a geometry (%s): ask its table (cfi_geometry)'
                     % (name, lineno, m.group(0).strip()))
            for g in GEOM_NAME.findall(line):
                if name not in GEOMETRY_FILES and not (name in GEOM_NAMED_ALSO and (
                        GEOM_NAMED_ALSO[name] is None or g in GEOM_NAMED_ALSO[name])):
                    fail('src/core/%s:%d names a geometry (%s) outside the geometry modules' % (name, lineno, g))
            if REGISTRY_SET.search(line) and name != REGISTRY:
                fail('src/core/%s:%d sets a table at a geometry byte: the registry (%s) is the one place'
                     % (name, lineno, REGISTRY))
            if re.search(r'\bcfi_geometries\b', line) and name not in REGISTRY_USERS:
                fail('src/core/%s:%d reads the registry (cfi_geometries): a module re-opens with '
                     'cfi_registry_of(f)' % (name, lineno))
            if re.search(r'\bcfi_geometry_at\s*\(', line) and name not in ('cuckoo_format.c', 'cuckoo_geom_iface.h'):
                fail('src/core/%s:%d finds a table by its byte (cfi_geometry_at) outside the format layer'
                     % (name, lineno))
            m = GONE.search(line)
            if m:
                fail('src/core/%s:%d: %s is gone (the registry finds a table by its byte)'
                     % (name, lineno, m.group(0).strip()))
            if ASKED.search(line) and name not in (REGISTRY, 'cuckoo.h'):
                fail('src/core/%s:%d reads what a caller asks for (geometry): the geometry of a new '
                     'filter is chosen in %s alone' % (name, lineno, REGISTRY))
            m = ENC_TEST.search(line)
            if m and name not in CODEC_FILES:
                fail('src/core/%s:%d tests an encoding (%s): ask its codec (cuckoo_codec.h)'
                     % (name, lineno, m.group(0).strip()))
            m = LOOKUP_NAMES.search(line)
            if m and name in ('cuckoo_lookup.c', 'cuckoo_lookup.h'):
                fail('src/core/%s:%d names a geometry (%s): its lookups are its module\'s'
                     % (name, lineno, m.group(0).strip()))
    return n


def strip_comments_strings(src):
    """src with its comments and string and character literals blanked (lines kept)"""
    def blank(m):
        return re.sub(r'[^\n]', ' ', m.group(0))
    return re.sub(r'/\*.*?\*/|//[^\n]*|"(\\.|[^"\\\n])*"|\'(\\.|[^\'\\\n])*\'', blank, src, flags=re.S)


def glue_reads():
    n = 0
    for d in glue_dirs():
        for name in sorted(os.listdir(os.path.join(TOP, d))):
            if not name.endswith(('.c', '.h')):
                continue
            n += 1
            src = strip_comments_strings(open(os.path.join(TOP, d, name)).read())
            for lineno, line in enumerate(src.split('\n'), 1):
                for rx, what in GLUE_READS:
                    m = rx.search(line)
                    if m:
                        fail('%s/%s:%d reads %s (%s): ask the core (cuckoo.h)'
                             % (d, name, lineno, what, m.group(0).strip()))
    return n



# the split geometry is one module on one floor (7.): its objects adjacent in
# CORE_OBJS, so that nothing between or below them calls into it (the order
# check above), and its private header included by its files alone (tests
# and benches aside)
SPLIT_OBJS = ['cuckoo_split', 'cuckoo_split_lookup', 'cuckoo_geom_split']
SPLIT_HEADER = 'src/core/cuckoo_split.h'


def split_module(objs, graph):
    idx = [objs.index(o) for o in SPLIT_OBJS if o in objs]
    if len(idx) != len(SPLIT_OBJS) or idx != list(range(idx[0], idx[0] + len(SPLIT_OBJS))):
        fail('the split module (%s) is not adjacent in CORE_OBJS' % ', '.join(o + '.o' for o in SPLIT_OBJS))
    own = {'src/core/%s.c' % o for o in SPLIT_OBJS} | {SPLIT_HEADER}
    others = sorted(p for p, incs in graph.items() if SPLIT_HEADER in incs and p not in own)
    for path in sorted(glob.glob(os.path.join(TOP, 'python', '**', '*.[ch]'), recursive=True)):
        if re.search(r'^\s*#\s*include\s+"cuckoo_split\.h"', open(path).read(), re.M):
            others.append(os.path.relpath(path, TOP))
    for path in others:
        fail('%s includes %s, the split module\'s private header' % (path, SPLIT_HEADER))
    return not others and len(idx) == len(SPLIT_OBJS)


def main():
    objs = core_objs()
    print('core objects, in the Makefile\'s order (CORE_OBJS): ' + ' '.join(objs))

    graph = includes()
    cycle = find_cycle(graph)
    nedges = sum(len(v) for v in graph.values())
    if cycle:
        fail('include cycle: ' + ' -> '.join(cycle))
    else:
        print('include graph: %d files, %d includes, acyclic' % (len(graph), nedges))
    check_glue_rooms(graph)

    defined, undefined = {}, {}
    with tempfile.TemporaryDirectory() as tmp:
        for o in objs:
            out = os.path.join(tmp, o + '.o')
            subprocess.run([CC, '-std=c99', '-O2', '-c', '-I' + os.path.join(TOP, 'src/core'),
                            os.path.join(TOP, 'src/core', o + '.c'), '-o', out], check=True)
            defined[o] = {r[2] for r in nm(out, '--defined-only') if len(r) == 3 and r[1].isupper()}
            undefined[o] = {r[1] for r in nm(out, '--undefined-only') if len(r) == 2}
    owner = {s: o for o in objs for s in defined[o]}
    print('calls between core objects (each may use only the ones above it):')
    for i, o in enumerate(objs):
        uses = sorted({owner[s] for s in undefined[o] if s in owner}, key=objs.index)
        up = [u for u in uses if objs.index(u) >= i]
        print('  %-16s uses %s' % (o, ', '.join(uses) if uses else '(nothing of the core)'))
        for u in up:
            names = sorted(s for s in undefined[o] if owner.get(s) == u)
            fail('%s uses %s, listed after it: %s' % (o, u, ', '.join(names)))


    # units: the include edges of src/core, the objects' calls, the headers' inline calls
    def unit(path):
        return os.path.splitext(os.path.basename(path))[0]
    units = {}
    for path, incs in graph.items():
        if path.startswith('src/core/'):
            units.setdefault(unit(path), set()).update(unit(i) for i in incs if unit(i) != unit(path))
    for o in objs:
        units.setdefault(o, set()).update(owner[s] for s in undefined[o] if s in owner and owner[s] != o)
    with tempfile.TemporaryDirectory() as tmp:
        for h in sorted(os.listdir(os.path.join(TOP, 'src/core'))):
            if not h.endswith('.h'):
                continue
            out = os.path.join(tmp, h + '.o')
            subprocess.run([CC, '-std=c99', '-O0', '-fkeep-inline-functions', '-w', '-x', 'c', '-c',
                            '-I' + os.path.join(TOP, 'src/core'), os.path.join(TOP, 'src/core', h),
                            '-o', out], check=True)
            calls = {r[1] for r in nm(out, '--undefined-only') if len(r) == 2}
            up = {owner[s] for s in calls if s in owner and owner[s] != unit(h)}
            units.setdefault(unit(h), set()).update(up)
            if up:
                print('  %-16s (header inline code) calls %s' % (h, ', '.join(sorted(up, key=objs.index))))
    cyc = find_cycle({u: sorted(v) for u, v in units.items()})
    if cyc:
        fail('circle of core units: ' + ' -> '.join(cyc))
    else:
        print('core units (a .c with its .h): %d units, %d edges (includes, calls, inline calls), no circle'
              % (len(units), sum(len(v) for v in units.values())))

    before = len(failures)
    nglue = glue_reads()
    if len(failures) == before:
        print('glue: %d files read no sub-filter (cf_stage, stages[], its fields, no CF_GEOM_*)'
              % nglue)

    # the core's callers outside the server use its public API only
    before = len(failures)
    outside = sorted(glob.glob(os.path.join(TOP, 'python', 'cuckoo', '*.c')) +
                     glob.glob(os.path.join(TOP, 'test', 'lib', '*.c')))
    core_headers = set(os.listdir(os.path.join(TOP, 'src/core')))
    for path in outside:
        for inc in re.findall(r'^\s*#\s*include\s+"([^"]+)"', open(path).read(), re.M):
            if inc in core_headers and inc != 'cuckoo.h':
                fail('%s includes %s: outside the server, only the public cuckoo.h'
                     % (os.path.relpath(path, TOP), inc))
    for path in sorted(glob.glob(os.path.join(TOP, 'python', 'cuckoo', '*.c'))):
        src = strip_comments_strings(open(path).read())
        for lineno, line in enumerate(src.split('\n'), 1):
            m = GEOM_NAME.search(line)
            if m:
                fail('%s:%d names a geometry (%s): ask for CF_GROWING or CF_BUILT_AT_ONCE'
                     % (os.path.relpath(path, TOP), lineno, m.group(0)))
    if len(failures) == before:
        print('outside the server: %d files (python/, test/lib/) include only the public cuckoo.h; '
              'python/ names no CF_GEOM_*' % len(outside))
    # the installed cuckoo.h is the API alone: no header of the tree, no word of the view's layout
    before = len(failures)
    api = open(os.path.join(TOP, 'src/core/cuckoo.h')).read()
    for inc in re.findall(r'^\s*#\s*include\s+"([^"]+)"', api, re.M):
        fail('src/core/cuckoo.h includes "%s": installed alone, it can include system headers only' % inc)
    for word in ('cuckoo_view.h', 'cf_stage', 'cf_probe', 'CF_HASH8_FLIP', 'CF_SPLIT_STASH'):
        if word in api:
            fail('src/core/cuckoo.h names %s: internals go to cuckoo_int.h or cuckoo_view.h' % word)
    if len(failures) == before:
        print('cuckoo.h: the API alone (no tree header, no internal name)')
    # value hashing: the probe with alternates is the core's, and a plain probe stays out of the alternates' file
    before = len(failures)
    alt = strip_comments_strings(open(os.path.join(TOP, 'src/pg/values/cuckoo_hashval_alt.c')).read())
    if re.search(r'^cfpg_find_value\s*\(', alt, re.M):
        fail('src/pg/values/cuckoo_hashval_alt.c defines cfpg_find_value: a plain probe would pass through it')
    for path in [os.path.join(TOP, 'src/pg/values/cuckoo_hashval_alt.c'), os.path.join(TOP, 'python/cuckoo/_cuckoo.c')]:
        body = strip_comments_strings(open(path).read())
        if 'cf_contains_first' not in body:
            fail('%s probes alternates without the core\'s cf_contains_first' % os.path.relpath(path, TOP))
    if len(failures) == before:
        print('value hashing: the probe with alternates is the core\'s cf_contains_first; cfpg_find_value is not in the alternates\' file')
    before = len(failures)
    split_module(objs, graph)
    if len(failures) == before:
        print('split module: %s adjacent in CORE_OBJS; %s included only by its files'
              % (', '.join(SPLIT_OBJS), os.path.basename(SPLIT_HEADER)))
    before = len(failures)
    ncore = variants()
    if len(failures) == before:
        print('variants: %d core files; geometries named only in %s (and cuckoo.h, cuckoo_geom.h, version 1\'s legacy '
              'in cuckoo_format.c); the registry %s the one place a byte meets its table and a new '
              'filter\'s geometry is chosen; encodings only in %s; no file over 1,000 lines'
              % (ncore, ', '.join(sorted(GEOMETRY_FILES)), REGISTRY, ', '.join(sorted(CODEC_FILES))))

    if len(sys.argv) > 1:
        so = sys.argv[1]
        exported = {r[2] for r in nm(so, '-D', '--defined-only') if len(r) == 3}
        core = sorted(s for s in exported if s in owner)
        finfo = [s for s in exported if s.startswith('pg_finfo_')]
        print('%s: %d exported symbols, %d of the core (cfi_*: %d), %d pg_finfo_* records, _PG_init %s'
              % (os.path.basename(so), len(exported), len(core),
                 sum(s.startswith('cfi_') for s in core), len(finfo),
                 'exported' if '_PG_init' in exported else 'MISSING'))
        if core:
            fail('core symbols exported: ' + ', '.join(core[:10]) + (' ...' if len(core) > 10 else ''))
        if '_PG_init' not in exported or 'Pg_magic_func' not in exported or not finfo:
            fail('entry points not exported')

    print('layering: %s' % ('ok' if not failures else '%d failure(s)' % len(failures)))
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
