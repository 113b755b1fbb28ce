#!/usr/bin/env python3
"""difftest.py - the join pre-filter's differential test (issue 40).

Generated queries run with cuckoo.join_prefilter off and on; their rows must
be the same multiset, and no query may raise an error only with the setting
on, unless the plain query raises the same error under another plan (a join
method or two turned off, the join order as written, a parallel plan), or one
of the query's own conditions on a table raises it on that table's rows alone
(any plan that reads that table whole raises it): then it comes from the
query's own expressions, which PostgreSQL evaluates in an order that depends
on the plan, and it is counted and shown apart.  The thresholds are set so that the rule applies wherever it is allowed,
and the test counts the queries whose plan (EXPLAIN VERBOSE, setting on)
holds a filter: a differential test where the rule never fires proves
nothing, so a minimum fraction must fire.

Run it against a server where cuckoo is installed (test/prefilter/run.sh
starts a throw-away cluster): it needs PGHOST/PGPORT/PGUSER of a superuser,
creates the database "difftest" (dropped first if it exists) with tables of
int2/int4/int8/numeric keys, text keys under the C collation, the database's
libc one, an ICU one and a nondeterministic ICU one (which the rule must
decline), char(n) and varchar keys, uuid keys, NULL keys and duplicates,
partitioned tables, and foreign tables through a postgres_fdw loopback server
(extensions 'cuckoo').  The queries: inner / left / right / full joins, IN,
EXISTS, NOT EXISTS, NOT IN, anti joins as LEFT JOIN ... IS NULL, 2-3-way
joins, restrictions on either side (some volatile, some that raise unless
guarded), aggregates over joins, correlated scalar subqueries, CTEs,
subqueries in FROM, DISTINCT, UNION ALL, USING joins, views, EXISTS over an
aggregate or with HAVING (true where nothing matches), IS NOT DISTINCT FROM,
UPDATE / DELETE / INSERT with RETURNING (rolled back), FOR UPDATE / SHARE,
scroll cursors read forward and back; some with parallel plans forced,
some with a join method disabled or hash joins in several batches (a tiny
work_mem), some as prepared statements under plan_cache_mode =
force_generic_plan.

Python 3 standard library only; it drives psql (one session).

Environment:
  DIFFTEST_SEED       the seed (default: from the clock; always printed).  The
                      data and the queries follow from it: a run is replayed
                      with the same seed and DIFFTEST_QUERIES
  DIFFTEST_SECONDS    time budget for the queries (default 25)
  DIFFTEST_QUERIES    at most this many queries (default: no limit)
  DIFFTEST_MIN_QUERIES  at least this many, past the time budget (default 0)
  DIFFTEST_MIN_FIRED  the fraction of queries that must get a filter (0.25)
  DIFFTEST_VERBOSE=1  print every query
  DIFFTEST_DRY=1      run even without the setting (checks the harness itself)
Exit status: 0 all same, 1 a difference or too few filters, 77 the setting
cuckoo.join_prefilter does not exist in this build (nothing to test).
"""
import hashlib
import os
import random
import re
import subprocess
import sys
import time

SETTING = "cuckoo.join_prefilter"
# the thresholds at their extremes: the rule applies wherever it is allowed
# (each is set only if the build has it)
THRESHOLDS = [
    ("cuckoo.join_prefilter_min_big_rows", "0"),
    ("cuckoo.join_prefilter_max_small_rows", "-1"),
    ("cuckoo.join_prefilter_min_removed", "0"),
    ("cuckoo.join_prefilter_max_small_ratio", "-1"),
    ("cuckoo.join_prefilter_runtime_min_rows", "-1"),
]
# the run-time form (cuckoo.join_prefilter_runtime): for each query, drawn
# from a stream of its own, which forms the "on" run has (both, the
# run-time one alone: the query-level one declines everything with
# min_big_rows = 1e15, or the query-level one alone), the adaptive
# switch-off's sample and threshold, and the key bound (5: most builds give
# up, every row passes)
RUNTIME = "cuckoo.join_prefilter_runtime"
RT_FORMS = [("both", 4), ("runtime", 5), ("query", 1)]
RT_SAMPLES = ("0", "16", "4096")
RT_MIN_REMOVED = ("0", "0.1", "0.9")
RT_MAX_KEYS = ("4000000", "4000000", "4000000", "5")
DB = "difftest"
NULL = "<NULL>"


class Psql:
    """One psql session fed through a pipe; each call returns the output
    lines and the error lines of what it ran (a marker ends each)."""

    def __init__(self, db):
        self.p = subprocess.Popen(
            ["psql", "-X", "-q", "-A", "-t", "-F", "\x1f", "-v", "ON_ERROR_STOP=0", "-d", db],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True, encoding="utf-8", errors="replace", bufsize=1)
        self.n = 0
        self.run("\\set VERBOSITY terse\n\\set SHOW_CONTEXT never\n\\pset null '%s'" % NULL)

    def run(self, sql):
        self.n += 1
        mark = "@@difftest-%d@@" % self.n
        self.p.stdin.write(sql.rstrip() + "\n\\echo " + mark + "\n\\warn " + mark + "\n")
        self.p.stdin.flush()
        out, err = [], []
        for stream, lines in ((self.p.stdout, out), (self.p.stderr, err)):
            while True:
                line = stream.readline()
                if line == "":
                    raise RuntimeError("psql ended unexpectedly; last input:\n" + sql)
                line = line.rstrip("\n")
                if line == mark:
                    break
                lines.append(line)
        return out, errors_of(err)

    def ok(self, sql):
        out, err = self.run(sql)
        if err:
            raise RuntimeError("setup failed: %s\n%s" % ("\n".join(err), sql))
        return out

    def close(self):
        self.p.stdin.close()
        self.p.wait()


def errors_of(lines):
    """the ERROR lines, without psql's "psql:<stdin>:N: " prefix"""
    errs = []
    for line in lines:
        i = line.find("ERROR:")
        if i >= 0:
            errs.append(line[i:])
    return errs


# ---------------------------------------------------------------- the schema

# key families: columns that can be joined with each other (same collation)
FAMILIES = {
    "int": ["i2", "i4", "i8", "num", "f8"],
    "text_d": ["txt_d", "ch", "vc"],      # the database's collation (libc C.UTF-8)
    "text_c": ["txt_c"],                  # COLLATE "C"
    "text_icu": ["txt_icu"],              # COLLATE "en-x-icu", deterministic
    "text_nd": ["txt_nd"],                # nondeterministic ICU: the rule declines
    "uuid": ["u"],
    # date = timestamp hash alike; timestamp = timestamptz depend on the
    # session's TimeZone and a filter refuses to mix them: the rule declines
    "time": ["d", "ts", "tz"],
    # oid = integer: an oid hashes apart from integers (refused as another kind)
    "oid": ["o", "i4", "i8"],
}
FAMILY_WEIGHTS = [("int", 10), ("text_d", 4), ("text_c", 2), ("text_icu", 2), ("text_nd", 2), ("uuid", 2),
                  ("time", 2), ("oid", 1)]

COLUMNS = """id int, g int, v int, i2 int2, i4 int4, i8 int8, num numeric,
	txt_c text COLLATE "C", txt_d text, txt_icu text COLLATE "en-x-icu", txt_nd text COLLATE nd_ci,
	ch char(6), vc varchar(8), u uuid, f8 float8, d date, ts timestamp, tz timestamptz, o oid"""

# name, rows, key domain; the small tables' keys spread wider, so that a
# filter removes rows
TABLES = [("t_a", 3000, 600), ("t_b", 300, 1800), ("t_c", 800, 900),
          ("t_p", 2000, 600), ("t_q", 250, 1500)]


def fill(name, rows, dom, seed):
    """rows of keys from a hash of the row number and the seed: NULL keys
    (1 in 12), duplicates, integers as int2..numeric (numeric with scales,
    and some with a fraction that no integer equals), text with case and
    trailing-blank variants, uuids of the key"""
    h = "abs(hashint8(g::int8 * 1000003 + %d))" % (seed % 1000000007)
    key = "CASE WHEN %s %% 12 = 0 THEN NULL ELSE (%s / 12) %% %d END" % (h, h, dom)
    var = "(%s / 7919) %% 6" % h
    return """INSERT INTO {name}
SELECT g, g % 10, (g * 37) % 100, k::int2, k::int4, k::int8,
       CASE {var} WHEN 0 THEN k + 0.5 WHEN 1 THEN k::numeric(12, 2) ELSE k END,
       t, t, t, t, t, t,
       CASE WHEN k IS NULL THEN NULL ELSE md5('k' || k)::uuid END,
       CASE {var} WHEN 4 THEN k + 0.25 ELSE k END,
       DATE '2026-01-01' + k,
       TIMESTAMP '2026-01-01' + k * INTERVAL '1 day' + CASE {var} WHEN 5 THEN INTERVAL '1 hour' ELSE INTERVAL '0' END,
       (TIMESTAMP '2026-01-01' + k * INTERVAL '1 day') AT TIME ZONE 'UTC',
       k::oid
FROM (SELECT g, k,
             CASE {var} WHEN 2 THEN 'K' || k WHEN 3 THEN 'k' || k || ' ' ELSE 'k' || k END AS t
      FROM (SELECT g, {key} AS k FROM generate_series(1, {rows}) g) s) s;""".format(
        name=name, var=var, key=key, rows=rows)


def setup(seed):
    admin = Psql("postgres")
    admin.ok("DROP DATABASE IF EXISTS %s;" % DB)
    admin.ok("CREATE DATABASE %s;" % DB)
    admin.close()
    db = Psql(DB)
    host = os.environ.get("PGHOST", "/tmp")
    port = os.environ.get("PGPORT", "5432")
    db.ok("""SET client_min_messages = warning;
CREATE EXTENSION cuckoo;
CREATE EXTENSION postgres_fdw;
CREATE COLLATION nd_ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);""")
    for name, rows, dom in TABLES:
        if name == "t_p":
            db.ok("CREATE TABLE t_p (%s) PARTITION BY RANGE (id);" % COLUMNS)
            for i, (lo, hi) in enumerate([(None, 700), (700, 1400), (1400, None)]):
                db.ok("CREATE TABLE t_p%d PARTITION OF t_p FOR VALUES FROM (%s) TO (%s);" % (
                    i, "MINVALUE" if lo is None else lo, "MAXVALUE" if hi is None else hi))
        elif name == "t_q":
            db.ok("CREATE TABLE t_q (%s) PARTITION BY HASH (i8);" % COLUMNS)
            for i in range(3):
                db.ok("CREATE TABLE t_q%d PARTITION OF t_q FOR VALUES WITH (MODULUS 3, REMAINDER %d);" % (i, i))
        else:
            db.ok("CREATE TABLE %s (%s);" % (name, COLUMNS))
        db.ok(fill(name, rows, dom, seed))
    db.ok("CREATE INDEX ON t_a (i4); CREATE INDEX ON t_c (txt_d); CREATE INDEX ON t_p (i8);")
    # views: one plain, one security_barrier
    db.ok("CREATE VIEW v_b AS SELECT * FROM t_b WHERE g < 7;"
          "CREATE VIEW v_c WITH (security_barrier) AS SELECT * FROM t_c WHERE v % 3 <> 0;"
          "CREATE TABLE sink (a int, b int);")
    # the loopback server: foreign tables over t_a, t_b and t_p
    db.ok("""CREATE SERVER loop FOREIGN DATA WRAPPER postgres_fdw
  OPTIONS (host '%s', port '%s', dbname '%s', extensions 'cuckoo', use_remote_estimate 'false');
CREATE USER MAPPING FOR CURRENT_USER SERVER loop;
CREATE FOREIGN TABLE f_a (%s) SERVER loop OPTIONS (table_name 't_a');
CREATE FOREIGN TABLE f_b (%s) SERVER loop OPTIONS (table_name 't_b');
CREATE FOREIGN TABLE f_p (%s) SERVER loop OPTIONS (table_name 't_p');""" % (
        host, port, DB, COLUMNS, COLUMNS, COLUMNS))
    db.ok("ANALYZE; ANALYZE f_a, f_b, f_p;")
    db.close()


# ---------------------------------------------------------------- the queries

LOCAL = ["t_a", "t_b", "t_c", "t_p", "t_q"]
FOREIGN = ["f_a", "f_b", "f_p"]
# (category, weight)
CATEGORIES = [
    ("inner", 14), ("inner_where", 5), ("left", 9), ("right", 6), ("full", 4),
    ("semi_in", 8), ("semi_exists", 8), ("anti_not_exists", 5), ("anti_not_in", 4),
    ("anti_left", 4), ("three_way", 8), ("aggregate", 8), ("scalar_sub", 2), ("cte", 3),
    ("from_subquery", 3), ("distinct", 2), ("union", 2), ("dml", 3), ("locking", 2),
    ("star", 8),
]


def pick(r, weighted):
    total = sum(w for _, w in weighted)
    x = r.uniform(0, total)
    for item, w in weighted:
        x -= w
        if x <= 0:
            return item
    return weighted[-1][0]


def table(r):
    # foreign tables in about one query in six, views in one in twenty
    x = r.random()
    if x < 0.17:
        return r.choice(FOREIGN)
    if x < 0.22:
        return r.choice(["v_b", "v_c"])
    return r.choice(LOCAL)


def keypair(r, a, b, same_table=False):
    """a join condition between aliases a and b: columns of one family,
    sometimes through an expression; for two scans of one table, sometimes
    the whole rows (a composite with a nondeterministic column: the rule
    must decline) or ctid"""
    if same_table and r.random() < 0.25:
        if r.random() < 0.5:
            return "row", "%s = %s" % (a, b), (a, b)
        return "ctid", "%s.ctid = %s.ctid" % (a, b), ("%s.ctid" % a, "%s.ctid" % b)
    fam = pick(r, FAMILY_WEIGHTS)
    ca, cb = r.choice(FAMILIES[fam]), r.choice(FAMILIES[fam])
    left, right = "%s.%s" % (a, ca), "%s.%s" % (b, cb)
    x = r.random()
    if fam == "int" and x < 0.08:
        right = "(%s.%s + 0)" % (b, cb)              # an expression key
    elif fam == "int" and x < 0.14:
        left = "%s.%s::int8" % (a, ca)               # a cast key
    elif fam.startswith("text") and fam != "text_nd" and x < 0.08:
        left = "lower(%s.%s)" % (a, ca)
    elif x > 0.96:
        # NULL keys match: never an equality a filter may serve
        return fam, "%s IS NOT DISTINCT FROM %s" % (left, right), (left, right)
    elif fam == "text_d" and x < 0.14:
        right = '%s.%s COLLATE "C"' % (b, cb)         # an explicit collation
        left = '%s.%s COLLATE "C"' % (a, ca)
    return fam, "%s = %s" % (left, right), (left, right)


def restriction(r, a, param=None):
    """a condition on alias a (param: a prepared statement's $n to use)"""
    choices = [
        lambda: "%s.v < %d" % (a, r.randint(5, 95)),
        lambda: "%s.g = %d" % (a, r.randint(0, 9)),
        lambda: "%s.g IN (%d, %d)" % (a, r.randint(0, 9), r.randint(0, 9)),
        lambda: "%s.v BETWEEN %d AND %d" % (a, r.randint(0, 40), r.randint(40, 99)),
        lambda: "%s.txt_d LIKE 'k%d%%'" % (a, r.randint(1, 9)),
        lambda: "%s.i4 IS NOT NULL" % a,
        lambda: "%s.i8 IS NULL" % a,
        lambda: "%s.u::text < '%x'" % (a, r.randint(1, 15)),
        lambda: "%s.num > %d.5" % (a, r.randint(0, 500)),
        # volatile, but always the same value: the rule must not keep it
        lambda: "%s.v < 50 + random() * 0" % a,
        # raises unless guarded: 100 / (v - 10) where v = 10 fails v > 50
        lambda: "%s.v > 50 AND 100 / (%s.v - 10) > 0" % (a, a),
        # a stable function
        lambda: "%s.v < length(current_setting('TimeZone')) * 0 + 60" % a,
        # raises on the rows with v % 50 = 7, wherever they are read
        lambda: "(%s.v %% 50 <> 7 OR 1 / (%s.v - %s.v) = 0)" % (a, a, a),
    ]
    if param is not None:
        choices = [lambda: "%s.v < %s" % (a, param), lambda: "%s.g <> %s" % (a, param)]
    cond = r.choice(choices)()
    RESTR.append((a, cond))
    return cond


# the restrictions of the query being generated: (alias, condition)
RESTR = []


def where(conds):
    conds = [c for c in conds if c]
    return (" WHERE " + " AND ".join(conds)) if conds else ""


def maybe(r, p, f):
    return f() if r.random() < p else None


def gen_query(r, cat, param=None):
    """one query of category cat: (sql, key family)"""
    A, B, C = table(r), table(r), table(r)
    ra = lambda a: maybe(r, 0.4, lambda: restriction(r, a, param))
    fam, on, (lk, rk) = keypair(r, "x", "y", same_table=(A == B and A in LOCAL))
    cols = "x.id, y.id"
    if cat == "inner":
        extra = maybe(r, 0.3, lambda: r.choice([restriction(r, "y", param), "x.v < y.v", "x.g <> y.g"]))
        on2 = on + (" AND " + extra if extra else "")
        return "SELECT %s FROM %s x JOIN %s y ON %s%s" % (cols, A, B, on2, where([ra("x"), ra("y")])), fam
    if cat == "inner_where":
        return "SELECT %s, x.v FROM %s x, %s y%s" % (cols, A, B, where([on, ra("x"), ra("y")])), fam
    if cat in ("left", "right", "full") and r.random() < 0.12:
        col = r.choice(["i4", "i8", "txt_c", "txt_d", "u", "num", "d"])
        fam = [f for f, cs in FAMILIES.items() if col in cs][0]
        return "SELECT %s, %s, x.g, y.g FROM %s x %s JOIN %s y USING (%s)%s" % (
            cols, col, A, cat.upper(), B, col, where([ra("x") if cat != "left" else ra("y")])), fam
    if cat in ("left", "right", "full"):
        on_extra = maybe(r, 0.3, lambda: restriction(r, r.choice("xy"), param))
        if r.random() < 0.15:
            # an IN in the ON clause, on either side: on the preserved side
            # it only null-extends a row, it never removes one
            side = r.choice("xy")
            fam3, _, (k3, k4) = keypair(r, side, "z")
            on_extra = "%s IN (SELECT %s FROM %s z%s)" % (k3, k4, C, where([ra("z")]))
        on2 = on + (" AND " + on_extra if on_extra else "")
        w = []
        if cat == "left":
            w = [ra("x")]
            # a WHERE on the nullable side (the join becomes inner)
            w.append(maybe(r, 0.15, lambda: restriction(r, "y", param)))
        elif cat == "right":
            w = [ra("y")]
        else:
            w = [maybe(r, 0.2, lambda: "(x.id IS NULL OR x.g < 5)")]
        return "SELECT %s, x.%s, y.g FROM %s x %s JOIN %s y ON %s%s" % (
            cols, r.choice(["i4", "txt_d", "u"]), A, cat.upper(), B, on2, where(w)), fam
    if cat == "semi_in":
        tail = r.choice(["", "", "", " GROUP BY %s HAVING count(*) > 1" % rk, " ORDER BY y.v, y.id LIMIT 7",
                         " OFFSET 3"])
        corr = maybe(r, 0.15, lambda: "y.g = x.g") if B in LOCAL else None
        nested = maybe(r, 0.1, lambda: "y.i4 IN (SELECT w.i8 FROM %s w WHERE w.v < %d)" % (
            r.choice(LOCAL), r.randint(10, 90)))
        sub = "SELECT %s FROM %s y%s%s" % (rk, B, where([ra("y"), corr, nested]), tail)
        if r.random() < 0.15:
            sub = "SELECT DISTINCT %s FROM %s y%s" % (rk, B, where([ra("y")]))
        if r.random() < 0.08:
            sub = "SELECT %s FROM %s y UNION SELECT %s FROM %s z" % (rk, B, rk.replace("y.", "z."), C)
        cond = "%s IN (%s)" % (lk, sub)
        x = r.random()
        if x < 0.12:
            # a semi join under an OR is not a conjunct: nothing may be removed
            cond = "(x.v < %d OR %s)" % (r.randint(5, 60), cond)
        elif x < 0.2:
            # the same under NOT ... IS FALSE-like wrappers
            cond = "(%s) IS NOT FALSE" % cond
        return "SELECT x.id, x.v FROM %s x WHERE %s%s" % (
            A, cond, (" AND " + restriction(r, "x", param)) if r.random() < 0.4 else ""), fam
    if cat in ("semi_exists", "anti_not_exists"):
        neg = "NOT " if cat == "anti_not_exists" else ""
        corr = maybe(r, 0.2, lambda: "y.v < x.v")
        cond = on
        if r.random() < 0.1:
            cond = "(%s OR y.v = %d)" % (on, r.randint(0, 99))   # not an equality conjunct
        x = r.random()
        head, tail = "SELECT 1", ""
        if x < 0.12:
            if x < 0.06:
                head = "SELECT count(*)"        # one row whatever matches: always true
            else:
                tail = " HAVING count(*) = 0"   # true where nothing matches
            # a subquery run once per row: few rows, a local table
            A, B = r.choice(["t_b", "t_q"]), r.choice(LOCAL)
        elif x < 0.16:
            tail = " LIMIT 1"
        return "SELECT x.id, x.g FROM %s x WHERE %sEXISTS (%s FROM %s y%s%s)%s" % (
            A, neg, head, B, where([cond, ra("y"), corr]), tail,
            (" AND " + restriction(r, "x", param)) if r.random() < 0.4 else ""), fam
    if cat == "anti_not_in":
        return "SELECT x.id FROM %s x WHERE %s NOT IN (SELECT %s FROM %s y%s)%s" % (
            A, lk, rk, B, where([ra("y")]), (" AND " + restriction(r, "x", param)) if r.random() < 0.4 else ""), fam
    if cat == "anti_left":
        return "SELECT x.id, x.v FROM %s x LEFT JOIN %s y ON %s WHERE y.id IS NULL%s" % (
            A, B, on, (" AND " + restriction(r, "x", param)) if r.random() < 0.4 else ""), fam
    if cat == "star":
        # a fact table and three dimensions, most restricted (TPC-DS's
        # shape: each dimension's filter checked on the fact's scan, below
        # the other joins), some LEFT; sometimes under an ordered LIMIT
        dims = [table(r) for _ in range(3)]
        joins, conds = [], [ra("x")]
        for i, d in enumerate(dims):
            _, on_i, _ = keypair(r, "x", "d%d" % i)
            joins.append("%s %s d%d ON %s" % (r.choice(["JOIN", "JOIN", "JOIN", "LEFT JOIN"]), d, i, on_i))
            if r.random() < 0.8:
                conds.append(restriction(r, "d%d" % i, param))
        q = "SELECT x.id, d0.id, d1.id, d2.id FROM %s x %s%s" % (A, " ".join(joins), where(conds))
        if r.random() < 0.2:
            q = "SELECT * FROM (%s ORDER BY 1, 2, 3, 4 LIMIT %d) s" % (q, r.randint(1, 30))
        return q, fam
    if cat == "three_way":
        fam2, on_yz, _ = keypair(r, "y", "z")
        j1 = r.choice(["JOIN", "JOIN", "LEFT JOIN", "RIGHT JOIN"])
        j2 = r.choice(["JOIN", "JOIN", "LEFT JOIN", "FULL JOIN"])
        if r.random() < 0.3:
            fam3, on_xz, _ = keypair(r, "x", "z")
            on_yz = on_xz
        if r.random() < 0.2:
            # the nullable side is a join
            _, on_yz, _ = keypair(r, "y", "z")
            return "SELECT x.id, y.id, z.id FROM %s x %s (%s y %s %s z ON %s) ON %s%s" % (
                A, r.choice(["LEFT JOIN", "RIGHT JOIN", "JOIN"]), B, r.choice(["JOIN", "LEFT JOIN"]), C,
                on_yz, on, where([ra("x")])), fam
        return "SELECT x.id, y.id, z.id FROM %s x %s %s y ON %s %s %s z ON %s%s" % (
            A, j1, B, on, j2, C, on_yz, where([ra("x"), ra("z")])), fam
    if cat == "aggregate":
        j = r.choice(["JOIN", "JOIN", "LEFT JOIN"])
        grp = r.choice(["", " GROUP BY x.g", " GROUP BY y.g", " GROUP BY x.g, y.g"])
        sel = ("x.g, " if "x.g" in grp else "") + ("y.g, " if "y.g" in grp else "")
        sel += "count(*), count(y.id), sum(x.v), min(y.id), max(x.i8), count(DISTINCT x.%s)" % r.choice(
            ["i4", "txt_c", "u"])
        having = " HAVING count(*) > 1" if grp and r.random() < 0.3 else ""
        return "SELECT %s FROM %s x %s %s y ON %s%s%s%s" % (
            sel, A, j, B, on, where([ra("x"), ra("y")]), grp, having), fam
    if cat == "scalar_sub":
        # a correlated subquery runs once per row: a local table (a foreign
        # one would be a remote query per row)
        B = r.choice(LOCAL)
        A = r.choice(["t_b", "t_q", "f_b"])     # few outer rows: few runs of it
        return "SELECT x.id, (SELECT count(*) FROM %s y%s) FROM %s x%s" % (
            B, where([on, ra("y")]), A, where([ra("x")])), fam
    if cat == "cte":
        return "WITH y AS (SELECT * FROM %s%s) SELECT %s FROM %s x JOIN y ON %s%s" % (
            B, where([restriction(r, B, param)]), cols, A, on, where([ra("x")])), fam
    if cat in ("dml", "locking"):
        A = r.choice(LOCAL)
        if cat == "locking":
            return "SELECT x.id, y.id FROM %s x JOIN %s y ON %s%s FOR %s OF x" % (
                A, B, on, where([ra("y")]), r.choice(["UPDATE", "SHARE", "KEY SHARE"])), fam
        kind = r.choice(["update", "delete", "insert"])
        if kind == "update":
            # (which y row an x row is updated with is the plan's choice: not returned)
            return "UPDATE %s x SET v = x.v + 1 FROM %s y WHERE %s%s RETURNING x.id, x.v" % (
                A, B, on, "".join(" AND " + c for c in [ra("y")] if c)), fam
        if kind == "delete":
            return "DELETE FROM %s x USING %s y WHERE %s%s RETURNING x.id" % (
                A, B, on, "".join(" AND " + c for c in [ra("y")] if c)), fam
        return "INSERT INTO sink SELECT x.id, y.id FROM %s x JOIN %s y ON %s%s RETURNING a, b" % (
            A, B, on, where([ra("x"), ra("y")])), fam
    if cat == "from_subquery":
        return "SELECT x.id, y.id FROM %s x JOIN (SELECT * FROM %s%s) y ON %s%s" % (
            A, B, where([restriction(r, B, param)]), on, where([ra("x")])), fam
    if cat == "distinct":
        return "SELECT DISTINCT x.g, y.g FROM %s x JOIN %s y ON %s%s" % (A, B, on, where([ra("x"), ra("y")])), fam
    if cat == "union":
        fam2, on2, _ = keypair(r, "x", "y")
        return ("SELECT x.id, y.id FROM %s x JOIN %s y ON %s%s UNION ALL "
                "SELECT x.id, y.id FROM %s x LEFT JOIN %s y ON %s%s") % (
            A, B, on, where([ra("y")]), C, A, on2, where([ra("x")])), fam
    raise ValueError(cat)


PARALLEL = ("SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0; "
            "SET min_parallel_table_scan_size = 0; SET min_parallel_index_scan_size = 0; "
            "SET max_parallel_workers_per_gather = 2;")
SERIAL = ("RESET parallel_setup_cost; RESET parallel_tuple_cost; RESET min_parallel_table_scan_size; "
          "RESET min_parallel_index_scan_size; SET max_parallel_workers_per_gather = 0;")


# plan shapes: a join method disabled, or a work_mem so small that hash joins
# run in several batches (a filter must cover every batch and every rescan)
KNOBS = ["enable_hashjoin", "enable_mergejoin", "enable_nestloop", "enable_seqscan"]


def knobs(r):
    sets = []
    if r.random() < 0.25:
        sets.append("SET %s = off;" % r.choice(KNOBS))
    if r.random() < 0.15:
        sets.append("SET work_mem = '64kB';")
    return " ".join(sets)


RESET_KNOBS = " ".join("RESET %s;" % k for k in KNOBS) + " RESET work_mem;"


# the other plans plain_raises_too tries: a join method or scan off, two of
# them, the join order as written, the parallel plan
OTHER_PLANS = ([["%s = off" % k] for k in KNOBS] +
               [["%s = off" % a, "%s = off" % b] for i, a in enumerate(KNOBS) for b in KNOBS[i + 1:]] +
               [["join_collapse_limit = 1", "from_collapse_limit = 1"],
                ["parallel_setup_cost = 0", "parallel_tuple_cost = 0", "min_parallel_table_scan_size = 0",
                 "max_parallel_workers_per_gather = 2"]])


def plain_raises_too(db, setting, q, arg, dml, err):
    """whether the query with the setting off raises the same error under
    another plan (OTHER_PLANS): the error then comes from the query's own
    expressions, read in another order, not from the filter"""
    if arg is not None:
        q = q.replace("$1", str(arg))
    for sets in OTHER_PLANS:
        sql = "BEGIN; SET LOCAL %s = off; %s\n" % (setting, " ".join("SET LOCAL %s;" % x for x in sets))
        sql += ("SAVEPOINT dt;\n%s;\nROLLBACK TO dt;" % q) if dml else (q + ";")
        _, e = db.run(sql + "\nROLLBACK;")
        if e and e[0] == err[0]:
            return ", ".join(sets)
    return None


ALIAS = re.compile(r"\b(?:FROM|JOIN|USING)\s+(\w+)\s+([a-z])\b")


def own_condition_raises(db, setting, q, arg, restr, err):
    """whether one of the query's own conditions on a table raises the error
    on that table's rows alone: then any plan that reads the whole table with
    its conditions raises it (which plan reads which table first is the
    planner's choice), so it is not the filter's"""
    names = dict((a, t) for t, a in ALIAS.findall(q))
    for a, cond in restr:
        t = names.get(a, a if a in LOCAL + FOREIGN + ["v_b", "v_c"] else None)
        if t is None:
            continue
        one = "SELECT count(*) FROM %s%s WHERE %s" % (t, "" if t == a else " " + a, cond)
        if arg is not None:
            one = one.replace("$1", str(arg))
        _, e = db.run("BEGIN; SET LOCAL %s = off;\n%s;\nROLLBACK;" % (setting, one))
        if e and e[0] == err[0]:
            return "its own condition on %s alone raises it: %s" % (t, cond)
    return None


def digest(rows):
    rows = sorted(rows)
    return len(rows), hashlib.md5("\n".join(rows).encode()).hexdigest()


# the few-keys form: b.k = ANY (an InitPlan's array) OR EXISTS (...)
# (15 writes $n, 17 and later (InitPlan n).col1)
ANY_FORM = re.compile(r"= ANY \((\$\d+|\(InitPlan \d+\)\.col1)")
# its setting, drawn for each query: 0 (always a filter), the default, and a
# limit small enough that a side often holds more keys than it (every row passes)
ANY_KNOB = "cuckoo.join_prefilter_max_array_keys"
ANY_LIMITS = ("0", "1000", "3")


def any_form(plan_lines):
    return any(ANY_FORM.search(line) for line in plan_lines)


def fired(plan_lines):
    """a filter (either form) or the few-keys form in the plan"""
    return (any("cf_agg" in line for line in plan_lines) or any_form(plan_lines) or
            rt_fired(plan_lines))


def ql_fired(plan_lines):
    """a query-level filter or the few-keys form in the plan"""
    return any("cf_agg" in line for line in plan_lines) or any_form(plan_lines)


def rt_fired(plan_lines):
    """a run-time filter's check in the plan"""
    return any("Custom Scan (CuckooFilter)" in line for line in plan_lines)


def shipped(plan_lines):
    """a filter in a foreign scan's remote SQL"""
    return any("Remote SQL" in line and "@>" in line for line in plan_lines)


def shipped_keys(plan_lines):
    """the keys (= ANY) in a foreign scan's remote SQL"""
    return any("Remote SQL" in line and "= ANY ($" in line for line in plan_lines)


def gathered(plan_lines):
    return any("Gather" in line for line in plan_lines)


def main():
    seed = int(os.environ.get("DIFFTEST_SEED") or (int(time.time() * 1000) % 1000000007))
    budget = float(os.environ.get("DIFFTEST_SECONDS", "25"))
    limit = int(os.environ.get("DIFFTEST_QUERIES", "0")) or None
    min_fired = float(os.environ.get("DIFFTEST_MIN_FIRED", "0.25"))
    min_queries = int(os.environ.get("DIFFTEST_MIN_QUERIES", "0"))
    verbose = os.environ.get("DIFFTEST_VERBOSE") == "1"
    print("difftest: seed %d (replay: DIFFTEST_SEED=%d), budget %.0f s%s" % (
        seed, seed, budget, (", at most %d queries" % limit) if limit else ""))
    sys.stdout.flush()
    t0 = time.time()
    setup(seed)
    db = Psql(DB)
    # a statement timeout only as a guard against a hang: one set near the
    # slowest query's time would turn a loaded machine's slowness into an
    # "error only with the setting on" (the slowest take 2-4 s at load 2-3,
    # 15-17 s at load 8)
    db.ok("LOAD 'cuckoo'; SET jit = off; SET statement_timeout = '300s'; SET TimeZone = 'Asia/Tokyo';")
    setting = SETTING
    have = db.ok("SELECT name FROM pg_settings WHERE name LIKE 'cuckoo.join_prefilter%' ORDER BY 1;")
    if SETTING not in have:
        print("difftest: the setting %s is missing (LOAD 'cuckoo' defines no such GUC): "
              "nothing to test" % SETTING)
        if os.environ.get("DIFFTEST_DRY") != "1":
            return 77
        print("difftest: DIFFTEST_DRY=1: running the queries anyway (the harness's own check)")
        setting = "difftest.placeholder"
    for name, value in THRESHOLDS:
        if name in have:
            db.ok("SET %s = %s;" % (name, value))
        else:
            print("difftest: note: %s does not exist in this build" % name)
    print("difftest: setup %.1f s; settings: %s" % (time.time() - t0, ", ".join(have)))
    sys.stdout.flush()

    r = random.Random(seed)
    # the few-keys limit from a stream of its own: a seed's queries stay those it gave before
    r_any = random.Random(seed + 1) if ANY_KNOB in have else None
    r_rt = random.Random(seed + 2) if RUNTIME in have else None
    tq = time.time()
    try:
        return run_queries(db, setting, seed, budget, limit, min_fired, min_queries, verbose, r, r_any,
                           r_rt, tq, t0)
    except RuntimeError as e:
        # psql ended: the server closed the connection (a crash?) or psql died
        print("difftest: FAILED: %s" % e)
        print("difftest: seed %d; replay the run up to here: DIFFTEST_SEED=%d DIFFTEST_QUERIES=%d" % (
            seed, seed, CURRENT[0]))
        log = os.environ.get("TMPCLUSTER_LOG")
        if log and os.path.exists(log):
            with open(log, errors="replace") as f:
                tail = f.readlines()[-40:]
            print("difftest: the server's log ends:\n  " + "  ".join(tail))
        return 1


# the number of the query running (a crash report names it)
CURRENT = [0]


def run_queries(db, setting, seed, budget, limit, min_fired, min_queries, verbose, r, r_any, r_rt, tq, t0):
    nkeys = 0
    nrt = 0
    nrt_parallel = 0
    rt_forms = {}
    nshipped_keys = 0
    stats = {}          # category -> [queries, fired, errors only off]
    fstats = {}         # key family -> [queries, fired]
    n = nfired = 0
    failures = []
    both_err = off_only_err = 0
    nparallel = nprepared = 0
    nshipped = ngather = ncursor = 0
    plan_dep = []       # errors only on, that the plain query raises under another plan
    slowest = []
    while (limit is None or n < limit) and (time.time() - tq < budget or n < min_queries):
        n += 1
        CURRENT[0] = n
        cat = pick(r, CATEGORIES)
        parallel = r.random() < 0.25
        prepared = r.random() < 0.15 and cat != "dml"
        cursor = r.random() < 0.08 and not prepared and cat not in ("dml", "locking")
        ncursor += cursor
        label = (cat + (" parallel" if parallel else "") + (" prepared" if prepared else "") +
                 (" cursor" if cursor else ""))
        del RESTR[:]
        if prepared:
            q, fam = gen_query(r, cat, param="$1")
            arg = r.randint(0, 99)
        else:
            q, fam = gen_query(r, cat)
            arg = None
        nparallel += parallel
        nprepared += prepared
        shape = knobs(r)
        # no plan-shape knob where it may make a subquery or a foreign scan
        # run once per row (a remote query per row)
        if shape and (" f_" in q or cat in ("anti_not_in", "scalar_sub") or "count(*)" in q):
            shape = ""
        if shape:
            label += " [" + shape.replace("SET ", "").replace(";", "") + "]"
        pre = (PARALLEL if parallel else SERIAL) + " " + RESET_KNOBS + " " + shape + " "
        if r_any:
            pre += "SET %s = %s; " % (ANY_KNOB, r_any.choice(ANY_LIMITS))
        if r_rt:
            form = pick(r_rt, RT_FORMS)
            rt_forms[form] = rt_forms.get(form, 0) + 1
            pre += ("SET %s = %s; SET cuckoo.join_prefilter_min_big_rows = %s; "
                    "SET cuckoo.join_prefilter_runtime_sample = %s; "
                    "SET cuckoo.join_prefilter_runtime_min_removed = %s; "
                    "SET cuckoo.join_prefilter_runtime_max_keys = %s; ") % (
                RUNTIME, "off" if form == "query" else "on", "1e15" if form == "runtime" else "0",
                r_rt.choice(RT_SAMPLES), r_rt.choice(RT_MIN_REMOVED), r_rt.choice(RT_MAX_KEYS))
            label += " [rt:%s]" % form
        tq0 = time.time()
        res = {}
        plan = []
        for value in ("off", "on"):
            pre += "SET %s = %s;" % (setting, value)
            if prepared:
                db.ok(pre)
                name = "dt_%d_%s" % (n, value)
                db.ok("SET plan_cache_mode = force_generic_plan;")
                _, perr = db.run("PREPARE %s(int) AS %s;" % (name, q))
                if perr:
                    res[value] = (None, perr)
                else:
                    out, err = db.run("EXECUTE %s(%d);" % (name, arg))
                    res[value] = (out, err)
                    if value == "on":
                        plan, _ = db.run("EXPLAIN (VERBOSE, COSTS OFF) EXECUTE %s(%d);" % (name, arg))
                    db.run("DEALLOCATE %s;" % name)
                db.ok("RESET plan_cache_mode;")
            elif cat == "dml":
                # the rows it returns, then rolled back
                out, err = db.run(pre + "\nBEGIN;\n" + q + ";\nROLLBACK;")
                res[value] = (out, err)
                if value == "on":
                    plan, _ = db.run("EXPLAIN (VERBOSE, COSTS OFF) " + q + ";")
            elif cursor:
                # through a cursor (no parallel plan), read forward and back
                out, err = db.run(pre + "\nBEGIN;\nDECLARE dt_c SCROLL CURSOR FOR " + q +
                                  ";\nFETCH ALL FROM dt_c;\nFETCH BACKWARD ALL FROM dt_c;\nCOMMIT;")
                res[value] = (out, err)
                if value == "on":
                    plan, _ = db.run("EXPLAIN (VERBOSE, COSTS OFF) " + q + ";")
            else:
                # the settings (SET raises nothing, prints nothing) and the query
                out, err = db.run(pre + "\n" + q + ";")
                res[value] = (out, err)
                if value == "on":
                    plan, _ = db.run("EXPLAIN (VERBOSE, COSTS OFF) " + q + ";")
            pre = ""
        (out_off, err_off), (out_on, err_on) = res["off"], res["on"]
        slowest.append((time.time() - tq0, n, label, q))
        slowest = sorted(slowest, reverse=True)[:3]
        f = fired(plan)
        fs = fstats.setdefault(fam, [0, 0])
        fs[0] += 1
        fs[1] += fired(plan)
        st = stats.setdefault(cat, [0, 0, 0])
        st[0] += 1
        st[1] += f
        nfired += f
        nshipped += shipped(plan)
        nkeys += any_form(plan)
        nrt += rt_fired(plan)
        nrt_parallel += rt_fired(plan) and gathered(plan)
        nshipped_keys += shipped_keys(plan)
        ngather += gathered(plan)
        if verbose:
            print("[%d] %s%s, %s rows: %s" % (n, label, " (filter)" if f else "",
                                             len(out_off) if out_off is not None else "no", q))
        problem = None
        # the one join of a two-way query on keys of a nondeterministic
        # collation: the rule must decline (cf_agg refuses such values)
        # (the run-time form hashes with the join's own functions: it may)
        if (f and not rt_fired(plan) or ql_fired(plan)) and fam == "text_nd" and cat not in ("three_way", "union", "star"):
            problem = "a filter on keys of a nondeterministic collation"
        elif err_on and not err_off:
            knob = (plain_raises_too(db, setting, q, arg, cat == "dml", err_on) or
                    own_condition_raises(db, setting, q, arg, list(RESTR), err_on))
            if knob:
                # another plan of the plain query raises it too
                plan_dep.append((n, label, q, arg, err_on[0], knob))
            else:
                problem = "an error only with the setting on: %s" % err_on[0]
        elif err_off and err_on:
            both_err += 1
        elif err_off:
            off_only_err += 1
            st[2] += 1
        elif digest(out_off) != digest(out_on):
            so, sn = sorted(out_off), sorted(out_on)
            missing = [x for x in so if x not in set(sn)][:5]
            extra = [x for x in sn if x not in set(so)][:5]
            problem = "rows differ: %d off, %d on; only off: %s; only on: %s" % (
                len(so), len(sn), missing, extra)
        if problem:
            failures.append((n, label, q, arg, problem, plan))
            print("DIFFERENCE in query %d (%s, keys %s, seed %d)%s:\n  %s\n  %s" % (
                n, label, fam, seed, (" with $1 = %d" % arg) if prepared else "", q, problem))
            print("  plan with the setting on:\n    " + "\n    ".join(plan))
            sys.stdout.flush()
            if len(failures) >= 20:
                print("difftest: stopping after 20 differences")
                break
    db.close()
    wall = time.time() - t0

    print("difftest: %d queries in %.1f s (%.1f s with setup); seed %d" % (n, time.time() - tq, wall, seed))
    print("  %-16s %8s %8s %8s" % ("category", "queries", "filter", "off-err"))
    for cat, _ in CATEGORIES:
        if cat in stats:
            q, fcount, e = stats[cat]
            print("  %-16s %8d %8d %8d" % (cat, q, fcount, e))
    print("  %-16s %8s %8s" % ("key family", "queries", "filter"))
    for fam in [f for f, _ in FAMILY_WEIGHTS] + ["row", "ctid"]:
        if fam in fstats:
            print("  %-16s %8d %8d" % (fam, fstats[fam][0], fstats[fam][1]))
    frac = nfired / n if n else 0.0
    print("  parallel plans forced: %d (a Gather in %d plans); prepared (generic plans): %d; "
          "through a scroll cursor: %d" % (nparallel, ngather, nprepared, ncursor))
    print("  a filter shipped in a postgres_fdw scan's remote SQL: %d" % nshipped)
    print("  the few-keys form (= ANY) in the plan: %d; in a postgres_fdw scan's remote SQL: %d" % (
        nkeys, nshipped_keys))
    print("  a run-time filter in the plan: %d (under a Gather: %d); forms of the run with the setting on: %s" % (
        nrt, nrt_parallel, ", ".join("%s %d" % kv for kv in sorted(rt_forms.items()))))
    print("  a filter in the plan: %d of %d (%.1f%%, at least %.0f%% required)" % (
        nfired, n, 100 * frac, 100 * min_fired))
    print("  errors both off and on: %d; only off (the filter spared a row that raises): %d" % (
        both_err, off_only_err))
    print("  an error only with the setting on that the plain query raises too under another plan "
          "(its own expressions read in another order): %d" % len(plan_dep))
    for i, label, q, arg, e, knob in plan_dep[:3]:
        print("    query %d (%s)%s, off with %s: %s: %s" % (
            i, label, (" $1 = %d" % arg) if arg is not None else "", knob, e, q))
    print("  differences (rows, or an error only with the setting on): %d" % len(failures))
    for secs, i, label, q in slowest:
        print("  slow: query %d (%s) %.1f s off + on + EXPLAIN: %s" % (i, label, secs, q[:160]))
    status = 0
    if failures:
        status = 1
        # again at the end, where a run's last lines (CI's view) show them
        for i, label, q, arg, problem, plan in failures[:3]:
            print("difftest: DIFFERENCE in query %d (%s)%s: %s\n    %s" % (
                i, label, (" with $1 = %d" % arg) if arg is not None else "", problem, q))
        print("difftest: replay: DIFFTEST_SEED=%d DIFFTEST_QUERIES=%d" % (seed, failures[0][0]))
    if n == 0 or frac < min_fired:
        print("difftest: FAIL: too few queries got a filter (%.1f%% < %.0f%%): the test proves little" % (
            100 * frac, 100 * min_fired))
        status = 1
    print("difftest: %s" % ("ok" if status == 0 else "FAILED"))
    return status


if __name__ == "__main__":
    sys.exit(main())
