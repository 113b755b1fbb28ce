#!/usr/bin/env python3
"""docs_links.py - every relative link of the documentation points to a file
that exists and, where it names an anchor (#...), to a heading of that file.
Checks README.md, CONTRIBUTING.md, FORMAT.md and docs/*.md (or the files
given); links to http(s) and mailto are not followed.  Anchors are GitHub's:
the heading in lower case, punctuation dropped, spaces turned into hyphens,
repeats numbered -1, -2, ...
Usage: python3 test/docs_links.py [file.md ...]   (from the top of the tree)"""
import glob, os, re, sys

def anchors(path, cache={}):
    if path not in cache:
        seen, found, fence = {}, set(), False
        for line in open(path, encoding='utf-8'):
            if line.startswith('```'):
                fence = not fence
                continue
            m = None if fence else re.match(r'^#{1,6}\s+(.*?)\s*#*\s*$', line)
            if not m:
                continue
            slug = re.sub(r'[^\w\- ]', '', m.group(1).lower()).replace(' ', '-')
            n = seen.get(slug, 0)
            seen[slug] = n + 1
            found.add(slug if n == 0 else '%s-%d' % (slug, n))
        cache[path] = found
    return cache[path]

def links(path):
    """(line number, target) of each inline link outside code blocks and spans"""
    fence = False
    for no, line in enumerate(open(path, encoding='utf-8'), 1):
        if line.startswith('```'):
            fence = not fence
            continue
        if fence:
            continue
        line = re.sub(r'`[^`]*`', '', line)
        for m in re.finditer(r'\]\(([^)\s]+)\)', line):
            yield no, m.group(1)

files = sys.argv[1:] or ['README.md', 'CONTRIBUTING.md', 'FORMAT.md'] + sorted(glob.glob('docs/*.md'))
bad = n = 0
for f in files:
    for no, target in links(f):
        if re.match(r'^[a-z]+:', target):
            continue
        n += 1
        path, _, anchor = target.partition('#')
        dest = os.path.normpath(os.path.join(os.path.dirname(f), path)) if path else f
        if not os.path.exists(dest):
            print('docs_links: %s:%d: %s: no such file' % (f, no, target))
            bad += 1
        elif anchor and dest.endswith('.md') and anchor not in anchors(dest):
            print('docs_links: %s:%d: %s: no heading #%s in %s' % (f, no, target, anchor, dest))
            bad += 1
print('docs_links: %d relative links in %d files, %d broken' % (n, len(files), bad))
sys.exit(1 if bad else 0)
