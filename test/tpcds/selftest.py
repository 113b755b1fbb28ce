#!/usr/bin/env python3
"""selftest.py - bench/tpcds/run.py (the TPC-DS instrument) tested without the
kit: its PostgreSQL fixes of dsqgen's SQL and its EXPLAIN filter counting on
fixed inputs, then whole runs against the server in libpq's environment
(test/tpcds/run.sh gives it a throw-away cluster) on a small star schema and a
stream file written like dsqgen's: the per-query table, the filters and rows
removed of the query-level form, a two-statement template, a query that times
out off (listed, not counted), the A/A mode, and a query whose results differ
between runs (must be reported, exit status 1).  Exits 0 only if all hold."""
import json
import os
import re
import subprocess
import sys
import tempfile

top = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(top, "bench", "tpcds"))
import run  # noqa: E402

failures = 0


def check(what, ok, detail=""):
    global failures
    print("%s: %s%s" % ("ok" if ok else "FAILED", what, "" if ok else "\n    " + detail))
    failures += not ok


# ---- pg_fixes: dsqgen's netezza SQL made PostgreSQL ----
src = """select * from t where d between cast('1999-08-05' as date) and (cast('1999-08-05' as date) +  30 days)
 and e > (cast ('1998-05-11' as date) - 30 days), sum(x) as "30 days", sum(y) as "31-60 days"
"""
got = run.pg_fixes(src)
check("pg_fixes: '+ 30 days' and '- 30 days' lose 'days'; quoted aliases are kept",
      "(cast('1999-08-05' as date) + 30)" in got and "(cast ('1998-05-11' as date) - 30)" in got
      and '"30 days"' in got and '"31-60 days"' in got, got)
src = "with w as (select a from (select 1 a union all select 2 a)), v as (select a from w, (select 3 b) where a > 0)\n" \
      "select a from (select a from w) where a in (select a from (select a from v) x) order by 1"
got = run.pg_fixes(src)
check("pg_fixes: unaliased FROM subqueries get aliases, aliased ones and IN (...) do not",
      got == "with w as (select a from (select 1 a union all select 2 a) as sq1), v as (select a from w, "
             "(select 3 b) as sq2 where a > 0)\nselect a from (select a from w) as sq3 where a in "
             "(select a from (select a from v) x) order by 1", got)
src = """select grouping(i_category)+grouping(i_class) as lochierarchy, rank() over (partition by x) r
 from t group by rollup(i_category,i_class)
 order by lochierarchy desc, case when lochierarchy = 0 then i_category end, r"""
got = run.pg_fixes(src)
check("pg_fixes: 'case when lochierarchy = 0' in ORDER BY becomes its definition",
      "case when grouping(i_category)+grouping(i_class) = 0 then i_category end" in got
      and "order by lochierarchy desc" in got, got)


# ---- count_filters on fixed EXPLAIN JSON ----
class A:
    qf_re = r"@>"
    rt_re = r"(?i)run-?\s?time\s*(join\s*)?filter"
    rt_removed_re = r"(?i)removed"
    rt_removed_per_loop = False


plan = [{"Plan": {"Node Type": "Hash Join", "Join Filter": "(a.x > b.y)", "Rows Removed by Join Filter": 7,
                  "Plans": [
                      {"Node Type": "Seq Scan", "Filter": "($0 @> ss_item_sk)", "Rows Removed by Filter": 100,
                       "Actual Loops": 3},
                      {"Node Type": "Index Scan", "Filter": "($1 @> ss_item_sk)", "Rows Removed by Filter": 0,
                       "Actual Loops": 5},
                      {"Node Type": "Custom Scan", "Custom Plan Provider": "Runtime Filter",
                       "Rows Removed by Runtime Filter": 40, "Actual Loops": 2,
                       "Plans": [{"Node Type": "Seq Scan", "Filter": "(x > 1)", "Rows Removed by Filter": 9}]},
                      {"Node Type": "Seq Scan", "Run-time Filter": "from Hash Join 2 on (k)",
                       "Run-time Filter Rows Removed": 11}]}}]
doc = json.dumps(plan)
check("count_filters: @> filters x loops, run-time nodes and properties; plain filters ignored",
      run.count_filters(doc + "\n" + doc, A) == (8, 2 * (300 + 0 + 40 + 11), 2),
      repr(run.count_filters(doc + "\n" + doc, A)))
A.rt_removed_per_loop = True
check("count_filters: --rt-removed-per-loop multiplies by the loops",
      run.count_filters(doc, A) == (4, 300 + 80 + 11, 1), repr(run.count_filters(doc, A)))

# ---- whole runs against the server ----
psql = ["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1"]
subprocess.run(psql + ["-c", """
CREATE EXTENSION IF NOT EXISTS cuckoo;
DROP TABLE IF EXISTS fact, dim;
CREATE TABLE dim (d_sk int PRIMARY KEY, grp int, d_date date);
INSERT INTO dim SELECT i, i % 100, date '1999-01-01' + i FROM generate_series(1, 2000) i;
CREATE TABLE fact (f_dim_sk int, amount numeric(7,2));
INSERT INTO fact SELECT 1 + (i * 7919) % 2000, (i % 1000) / 10.0 FROM generate_series(1, 200000) i;
ANALYZE dim, fact;
"""], check=True)
tmp = tempfile.mkdtemp(prefix="tpcds-selftest.")
stream = os.path.join(tmp, "query_0.sql")
queries = {
    # the query-level form applies (thresholds at 0 on side B): a filter that removes rows
    7: "select grp, count(*), sum(amount) from fact, dim where f_dim_sk = d_sk and grp = 3\n"
       " and d_date between cast('1999-01-01' as date) and (cast('1999-01-01' as date) + 3000 days)\n"
       "group by grp order by 1;\n",
    # two statements, an unaliased FROM subquery
    14: "select count(*) from (select f_dim_sk from fact where amount > 50);\n"
        "select sum(c) from (select count(*) c from dim group by grp);\n",
    # times out off (timeout 1 s)
    30: "select count(*) from fact, pg_sleep(2);\n",
    # different rows every run
    50: "select random() < 2, random() from dim limit 1;\n",
}
with open(stream, "w") as f:
    for i, (t, q) in enumerate(sorted(queries.items())):
        f.write("-- start query %d in stream 0 using template query%d.tpl\n%s\n"
                "-- end query %d in stream 0 using template query%d.tpl\n" % (i + 1, t, q, i + 1, t))
base = [sys.executable, os.path.join(top, "bench", "tpcds", "run.py"), "--queries", stream,
        "--reps", "2", "--timeout", "1",
        "--on-set", "cuckoo.join_prefilter_min_big_rows=0", "--on-set", "cuckoo.join_prefilter_min_removed=0",
        # the query-level form on a local join as 1.4 placed it (1.5's default, auto, leaves a
        # plain local hash join to the run-time form): q07's check counts its @> filter
        "--on-set", "cuckoo.join_prefilter_query=always",
        # and the query-level form alone: the run-time form's checks would count too
        "--on-set", "cuckoo.join_prefilter_runtime=off"]


def go(*extra):
    p = subprocess.run(base + list(extra), capture_output=True, text=True)
    print("   ", " ".join(extra) or "(all but q50)", "-> exit", p.returncode)
    return p.returncode, p.stdout, p.stderr


def row(out, q):
    m = re.search(r"^%s +(.*)$" % q, out, re.M)
    return m.group(1).split() if m else None


rc, out, err = go("--skip", "50", "--out", os.path.join(tmp, "r.json"))
sys.stdout.write(out)
check("run: exit 0, 4 queries (q14 split into q14a, q14b)", rc == 0 and "4 queries" in out, out + err)
r7 = row(out, "q07")
# columns after the query: off ms, on ms, ratio, filters, removed, same, note
check("run: q07 timed on both sides, the same rows, one @> filter that removed rows",
      r7 is not None and r7[2] != "-" and r7[3] == "1" and r7[4].isdigit() and int(r7[4]) > 0
      and r7[5] == "yes", repr(r7))
check("run: q14a and q14b both run, the same rows", all((row(out, q) or ["", "", "", "", "", "NO"])[5] == "yes"
                                                        for q in ("q14a", "q14b")), out)
check("run: q30 times out off: listed as not counted", re.search(r"^q30 .*not counted: A timeout", out, re.M)
      is not None and "q30 (A timeout" in out, out)
check("run: geomeans and the comparison line printed",
      "geomean on/off over all counted queries" in out and "all identical" in out, out)
js = json.load(open(os.path.join(tmp, "r.json")))
q7 = [x for x in js["results"] if x["query"] == "q07"][0]
check("run: --out keeps every time (2 a side) and one digest", len(q7["a"]) == 2 and len(q7["b"]) == 2
      and len(set(q7["digests_a"]) | set(q7["digests_b"])) == 1, repr(q7))

p = subprocess.run([sys.executable, os.path.join(top, "bench", "tpcds", "run.py"), "--report",
                    os.path.join(tmp, "r.json")], capture_output=True, text=True)
check("run --report: the saved run's table and summary again",
      p.returncode == 0 and row(p.stdout, "q07") == row(out, "q07") and "q30 (A timeout" in p.stdout
      and "all identical" in p.stdout, p.stdout + p.stderr)

rc2, out2, err2 = go("--only", "14", "--no-explain", "--out", os.path.join(tmp, "r14.json"))
p = subprocess.run([sys.executable, os.path.join(top, "bench", "tpcds", "run.py"), "--report",
                    os.path.join(tmp, "r.json"), os.path.join(tmp, "r14.json")], capture_output=True, text=True)
check("run --report A B: the queries of both files, B's q14a replacing A's",
      p.returncode == 0 and row(p.stdout, "q07") == row(out, "q07") and row(p.stdout, "q14a") == row(out2, "q14a")
      and row(p.stdout, "q14a") != row(out, "q14a") and len(re.findall(r"^q\d", p.stdout, re.M)) == 4,
      p.stdout + p.stderr)

rc, out, err = go("--only", "50", "--no-explain")
check("run: results that differ are reported and fail the run (exit 1)",
      rc == 1 and "RESULTS DIFFER" in out and "1 FAILURES" in out, out + err)

rc, out, err = go("--only", "7", "--aa", "off")
r7 = row(out, "q07")
check("run --aa off: columns off1/off2, no filter on either side",
      rc == 0 and "off1 ms" in out and r7 is not None and r7[3] == "0", out + err)

print("%d failed" % failures)
sys.exit(1 if failures else 0)
