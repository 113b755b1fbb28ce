#!/usr/bin/env python3
"""check.py - the release files agree with each other and with the PGXN Meta
Spec 1.0: META.json has every mandatory field in its required form (name and
extension names are Terms, versions SemVer, a known license, meta-spec
1.0.x), the extension's version is cuckoo.control's default_version, the
files it names exist, LICENSE is the PostgreSQL License, CHANGELOG.md has a
section for the version, and the README's "Supported versions" section
lists exactly the majors CI tests (.ci/run's PG_VERSIONS); the Python
module's version (python/setup.py, cuckoo.__version__) and the Debian
packages' (debian/changelog) are the extension's.
Usage: python3 test/release/check.py   (from the top of the tree)"""
import json, os, re, sys

errors = []
def bad(msg):
    errors.append(msg)

TERM = re.compile(r'^[^/\\\s\x00-\x1f\x7f]{2,}$')
SEMVER = re.compile(r'^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)'
                    r'(?:-[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?$')
LICENSES = {'agpl_3', 'apache_1_1', 'apache_2_0', 'artistic_1', 'artistic_2', 'bsd',
            'freebsd', 'gfdl_1_2', 'gfdl_1_3', 'gpl_1', 'gpl_2', 'gpl_3', 'lgpl_2_1',
            'lgpl_3_0', 'mit', 'mozilla_1_0', 'mozilla_1_1', 'openssl', 'perl_5',
            'postgresql', 'qpl_1_0', 'ssleay', 'sun', 'zlib', 'open_source',
            'restricted', 'unrestricted', 'unknown'}

meta = json.load(open('META.json'))
for key in ('name', 'version', 'abstract', 'maintainer', 'license', 'provides', 'meta-spec'):
    if key not in meta:
        bad("META.json: missing mandatory field '%s'" % key)
if not TERM.match(str(meta.get('name', ''))):
    bad('META.json: name is not a Term')
if not SEMVER.match(str(meta.get('version', ''))):
    bad('META.json: version is not SemVer')
if not isinstance(meta.get('abstract'), str) or not meta.get('abstract'):
    bad('META.json: abstract must be a non-empty string')
m = meta.get('maintainer')
if not (isinstance(m, str) and m) and not (isinstance(m, list) and m and all(isinstance(x, str) and x for x in m)):
    bad('META.json: maintainer must be a string or a list of strings')
lic = meta.get('license')
lics = [lic] if isinstance(lic, str) else lic if isinstance(lic, list) else []
if not lics or any(x not in LICENSES for x in lics):
    bad('META.json: license must name known licenses')
spec = meta.get('meta-spec', {})
if not re.match(r'^1\.0\.\d+$', str(spec.get('version', ''))):
    bad('META.json: meta-spec version must be 1.0.x')
if spec.get('url') not in (None, 'https://pgxn.org/meta/spec.txt', 'http://pgxn.org/meta/spec.txt'):
    bad('META.json: meta-spec url is not the spec')
if meta.get('release_status', 'stable') not in ('stable', 'testing', 'unstable'):
    bad('META.json: release_status must be stable, testing or unstable')
for tag in meta.get('tags', []):
    if not (2 <= len(tag) <= 255) or re.search(r'[/\\\x00-\x1f\x7f]', tag):
        bad('META.json: bad tag %r' % tag)
provides = meta.get('provides', {})
if not isinstance(provides, dict) or not provides:
    bad('META.json: provides must name at least one extension')
    provides = {}

control = open('cuckoo.control').read()
dv = re.search(r"^default_version\s*=\s*'([^']+)'", control, re.M)
dv = dv.group(1) if dv else None
for ext, p in provides.items():
    if not TERM.match(ext):
        bad('META.json: extension name %r is not a Term' % ext)
    for key in ('file', 'version'):
        if key not in p:
            bad('META.json: provides.%s lacks %s' % (ext, key))
    if not SEMVER.match(str(p.get('version', ''))):
        bad('META.json: provides.%s.version is not SemVer' % ext)
    for key in ('file', 'docfile'):
        if key in p and not os.path.isfile(p[key]):
            bad('META.json: provides.%s.%s names a missing file %s' % (ext, key, p[key]))
    # the control file's "1.1" is SemVer "1.1.0"
    if dv and ext == 'cuckoo' and p.get('version') != dv + '.0' * (2 - dv.count('.')):
        bad('META.json: provides.cuckoo.version %s is not the control file\'s %s' % (p.get('version'), dv))
if dv and meta.get('version') != dv + '.0' * (2 - dv.count('.')):
    bad('META.json: version %s is not the control file\'s %s' % (meta.get('version'), dv))

# the Python module (python/) and the Debian packages (debian/changelog) carry
# the extension's version too
if dv:
    semver = dv + '.0' * (2 - dv.count('.'))
    m = re.search(r"^\s*version='([^']+)'", open('python/setup.py').read(), re.M)
    if not m or m.group(1) != semver:
        bad('python/setup.py: version %s is not the control file\'s %s' % (m and m.group(1), semver))
    m = re.search(r"^__version__ = '([^']+)'", open('python/cuckoo/__init__.py').read(), re.M)
    if not m or m.group(1) != semver:
        bad('python/cuckoo/__init__.py: __version__ %s is not the control file\'s %s' % (m and m.group(1), semver))
    if os.path.isfile('debian/changelog'):
        m = re.match(r'^cuckoo \(([0-9.]+)(-[^)]*)?\)', open('debian/changelog').read())
        if not m or m.group(1) != semver:
            bad('debian/changelog: version %s is not the control file\'s %s' % (m and m.group(1), semver))

if not open('LICENSE').read().startswith('PostgreSQL License'):
    bad('LICENSE: not the PostgreSQL License')
changelog = open('CHANGELOG.md').read()
if dv and not re.search(r'^## \[?%s\]?' % re.escape(dv), changelog, re.M):
    bad('CHANGELOG.md: no section for %s' % dv)

ci = open('.ci/run').read()
ci_majors = re.search(r'PG_VERSIONS="([0-9 ]+)"', ci)
readme = open('README.md').read()
sec = re.search(r'^## Supported versions\n(.*?)(?=^## )', readme, re.M | re.S)
if not ci_majors:
    bad('.ci/run: no PG_VERSIONS')
elif not sec:
    bad('README.md: no "Supported versions" section')
else:
    listed = sorted(set(re.findall(r'^\| PostgreSQL (\d+) \|', sec.group(1), re.M)), key=int)
    tested = sorted(ci_majors.group(1).split(), key=int)
    if listed != tested:
        bad('README.md: "Supported versions" lists %s, CI tests %s' % (listed, tested))

for e in errors:
    print('release: ' + e)
if errors:
    sys.exit(1)
print('release: META.json (PGXN Meta Spec 1.0), LICENSE, CHANGELOG.md and the README agree (version %s)' % meta['version'])
