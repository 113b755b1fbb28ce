#!/usr/bin/env python3
"""run.py - TPC-DS with the join pre-filter off and on (issue 47's instrument).

Runs every query of a dsqgen stream file against a loaded database (load.sh)
with `cuckoo.join_prefilter` off (side A) and on (side B), interleaved
(A B B A A B ...), N repetitions each, timed by psql's client clock (`\\timing`:
from sending the statement to having its last row), and compares the results of
every run (md5 of the sorted result rows): any difference between the sides is
a failure, printed, and the exit status is 1.  For side B one
`EXPLAIN (ANALYZE, TIMING OFF, FORMAT JSON)` run counts the pre-filters in the
plan and the rows they removed.  It prints the per-query table and the
geomeans; --aa runs one side's settings on both sides (the noise band).

    python3 bench/tpcds/run.py --dir /work/kits/tpcds-pg \\
        --queries /work/kits/tpcds-queries/query_0.sql [--reps 3] [--timeout 60]
        [--only 10,17,25] [--set name=value ...] [--on-set name=value ...]
        [--off-set name=value ...] [--aa off|on] [--out FILE.json] [--no-explain]

Without --dir, the connection is libpq's environment (PGHOST, PGPORT,
PGDATABASE, PGUSER).  psql is taken from $PG_CONFIG's bindir, else from PATH.

Which plan nodes are a pre-filter (adapt with the options; see README.md):
  * the query-level form (1.4): a node whose "Filter" matches --qf-re (default
    '@>'): its "Rows Removed by Filter" x "Actual Loops" are the rows removed
    (the node's whole filter: other conditions in the same Filter count too);
  * the run-time form: a node whose "Node Type"/"Custom Plan Provider" or any
    property name matches --rt-re (default: the checker's "Checks Run-time
    Filter"); its rows removed are the numeric properties whose name matches
    --rt-removed-re (default 'Removed') and the "removed N" of its text
    properties ("Run-time Filter Rows": "checked N, removed M"), times
    "Actual Loops" when --rt-removed-per-loop (the checker's counts are
    already summed over its loops).
"""
import argparse
import hashlib
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time


def pg_fixes(sql):
    """dsqgen's netezza dialect, made PostgreSQL: the only edits to the kit's
    queries, all here so that they can be read at a glance."""
    # date arithmetic: (cast('1999-08-05' as date) + 30 days) -> ... + 30
    sql = re.sub(r"\)\s*([+-])\s*(\d+)\s+days\b", r") \1 \2", sql)
    # a subquery in FROM needs an alias before PostgreSQL 16 (q2, q14, q23, q49)
    out = []
    pos = 0
    k = 0
    for m in re.finditer(r"(?:\bfrom|,)\s*\(\s*select\b", sql, re.I):
        if m.start() < pos:
            continue
        start = sql.index("(", m.start())
        depth = 0
        for i in range(start, len(sql)):
            depth += {"(": 1, ")": -1}.get(sql[i], 0)
            if depth == 0:
                break
        nxt = re.match(r"\s*(\w+|.|$)", sql[i + 1:], re.S).group(1).lower()
        if nxt in ("", ")", ",", ";", "where", "group", "order", "union", "having", "limit",
                   "intersect", "except"):
            k += 1
            out.append(sql[pos:i + 1] + " as sq%d" % k)
            pos = i + 1
    sql = "".join(out) + sql[pos:]
    # ORDER BY ... case when lochierarchy = 0: an output column inside an
    # expression is not allowed: its definition instead (q36, q70, q86)
    m = re.search(r"(grouping\(\w+\)\s*\+\s*grouping\(\w+\))\s+as\s+lochierarchy", sql, re.I)
    if m:
        sql = re.sub(r"case\s+when\s+lochierarchy\s*=\s*0", "case when %s = 0" % m.group(1), sql, flags=re.I)
    return sql


def parse_stream(path):
    """[(name, template number, sql)] from a dsqgen output file (the markers
    '-- start query N in stream S using template queryNN.tpl'), in template
    order; a template of two statements (14, 23, 24, 39) gives two queries,
    q14a and q14b: 103 queries from 99 templates."""
    text = open(path, encoding="latin-1").read()
    out = []
    pat = re.compile(r"-- start query \d+ in stream \d+ using template query(\d+)\.tpl\n(.*?)-- end query",
                     re.S)
    for m in pat.finditer(text):
        t = int(m.group(1))
        st = statements(pg_fixes(m.group(2)))
        for i, q in enumerate(st):
            out.append(("q%02d%s" % (t, "ab"[i] if len(st) > 1 else ""), t, q))
    return sorted(out)


def statements(sql):
    return [s.strip() for s in re.split(r";\s*(?:\n|$)", sql) if s.strip()]


class Runner:
    def __init__(self, args):
        self.args = args
        self.psql = args.psql
        self.tmp = tempfile.mkdtemp(prefix="tpcds-run.")
        self.env = dict(os.environ)
        if args.dir:
            self.env.update(PGHOST=os.path.join(args.dir, "sock"), PGPORT=str(args.port),
                            PGDATABASE="tpcds", PGUSER="postgres")

    def script(self, stmts, sets, explain=False):
        lines = ["\\set ON_ERROR_STOP 1",
                 "SET statement_timeout = '%ds';" % self.args.timeout]
        lines += ["SET %s = %s;" % (k, v) for k, v in sets]
        lines.append("\\timing on")
        for s in stmts:
            if explain:
                s = "EXPLAIN (ANALYZE, TIMING OFF, FORMAT JSON) " + s
            lines.append(s + ";")
        return "\n".join(lines) + "\n"

    def run(self, stmts, sets, explain=False):
        """-> (ms or None, digest or None, rows, error text); None ms on error/timeout."""
        sf = os.path.join(self.tmp, "q.sql")
        of = os.path.join(self.tmp, "out.txt")
        with open(sf, "w") as f:
            f.write(self.script(stmts, sets, explain))
        if os.path.exists(of):
            os.unlink(of)
        # \o sends the rows to a file; "Time:" lines stay on stdout
        cmd = [self.psql, "-X", "-q", "-A", "-t", "-o", of, "-f", sf]
        try:
            p = subprocess.run(cmd, env=self.env, capture_output=True, text=True,
                               encoding="utf-8", errors="replace",
                               timeout=self.args.timeout * len(stmts) + 60)
        except subprocess.TimeoutExpired:
            return None, None, 0, "client timeout", None
        times = [float(x) for x in re.findall(r"^Time: ([0-9.]+) ms", p.stdout, re.M)]
        out = open(of, encoding="utf-8", errors="replace").read() if os.path.exists(of) else ""
        if p.returncode != 0:
            err = p.stderr.strip().splitlines()
            err = [e for e in err if "ERROR" in e] or err or ["exit %d" % p.returncode]
            e = re.sub(r"^psql:[^ ]*: ", "", err[0])
            kind = "timeout" if "statement timeout" in e else "error"
            return None, None, 0, kind + ": " + e, None
        # one "Time:" per statement ("\timing on" comes after the SETs)
        ms = sum(times[-len(stmts):])
        if explain:
            return ms, None, 0, None, out
        rows = out.splitlines()
        digest = hashlib.md5("\n".join(sorted(rows)).encode()).hexdigest()
        return ms, digest, len(rows), None, None


def walk(plan):
    yield plan
    for c in plan.get("Plans", []):
        yield from walk(c)


def count_filters(explain_out, args):
    """(filters, rows removed, description) from the EXPLAIN JSON outputs."""
    qf = re.compile(args.qf_re)
    rt = re.compile(args.rt_re)
    rtr = re.compile(args.rt_removed_re)
    nf = 0
    removed = 0
    zero = 0
    # several statements: the JSON documents follow each other
    dec = json.JSONDecoder()
    text = explain_out.strip()
    pos = 0
    docs = []
    while pos < len(text):
        while pos < len(text) and text[pos].isspace():
            pos += 1
        if pos >= len(text):
            break
        obj, pos = dec.raw_decode(text, pos)
        docs.append(obj)
    for doc in docs:
        for q in doc:
            for node in walk(q["Plan"]):
                loops = node.get("Actual Loops", 1) or 1
                if qf.search(str(node.get("Filter", ""))):
                    n = node.get("Rows Removed by Filter", 0) * loops
                    nf += 1
                    removed += n
                    zero += n == 0
                    continue
                hit = rt.search(str(node.get("Node Type", ""))) or \
                    rt.search(str(node.get("Custom Plan Provider", ""))) or \
                    any(rt.search(k) for k in node)
                if hit:
                    n = 0
                    for k, v in node.items():
                        if rtr.search(k) and isinstance(v, (int, float)) and not isinstance(v, bool):
                            n += v * (loops if args.rt_removed_per_loop else 1)
                        elif isinstance(v, str):
                            # the run-time form's "Run-time Filter Rows": "checked N, removed M, ..."
                            m = re.search(r'\bremoved (\d+)', v)
                            if m:
                                n += int(m.group(1)) * (loops if args.rt_removed_per_loop else 1)
                    nf += 1
                    removed += n
                    zero += n == 0
    return nf, int(round(removed)), zero


def median(xs):
    xs = sorted(xs)
    n = len(xs)
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def parse_sets(items):
    out = []
    for it in items or []:
        k, _, v = it.partition("=")
        if not k or not _:
            sys.exit("run.py: a setting is name=value, not %r" % it)
        out.append((k.strip(), v.strip()))
    return out


def summary(results, la, lb, failures):
    """the summary lines after the table (also --report)"""
    counted = [x for x in results if x.get("ratio")]
    skipped = [x for x in results if x.get("skipped")]
    with_rows = [x for x in counted if (x.get("removed") or 0) > 0]
    with_filter = [x for x in counted if (x.get("filters") or 0) > 0]
    print("# counted: %d queries; not counted (A failed or timed out in the untimed run): %s" %
          (len(counted), ", ".join("%s (%s)" % (x["query"], re.sub(r"psql:\S+: |ERROR: +|canceling statement due to ", "", x["note"])[:40])
                                   for x in skipped) or "none"))
    other = [x for x in results if not x.get("skipped") and not x.get("ratio")]
    if other:
        print("# no ratio (an error or timeout in a timed run): %s" %
              ", ".join("%s (%s)" % (x["query"], re.sub(r"ERROR: +|canceling statement due to ", "", x["note"])[:40])
                        for x in other))
    for name, grp in (("all counted queries", counted), ("queries with a filter", with_filter),
                      ("queries where a filter removed rows", with_rows)):
        if not grp:
            print("# geomean %s/%s over %-36s      -  (0 queries)" % (lb, la, name + ":"))
            continue
        g = geomean([x["ratio"] for x in grp])
        print("# geomean %s/%s over %-36s %6.3f  (%d queries; %.2fx %s)" % (
            lb, la, name + ":", g, len(grp), 1 / g if g < 1 else g, "faster" if g < 1 else "slower"))
    if counted:
        w = max(counted, key=lambda x: x["ratio"])
        b = min(counted, key=lambda x: x["ratio"])
        print("# worst ratio: %s %.3f (%.1f -> %.1f ms); best: %s %.3f (%.1f -> %.1f ms)" % (
            w["query"], w["ratio"], w["median_a"], w["median_b"],
            b["query"], b["ratio"], b["median_a"], b["median_b"]))
        for lim in (1.05, 1.10, 1.25, 1.5):
            k = [x for x in counted if x["ratio"] > lim]
            print("# ratio > %.2f: %d queries %s" % (lim, len(k), " ".join(x["query"] for x in k)))
        tot_a = sum(x["median_a"] for x in counted)
        tot_b = sum(x["median_b"] for x in counted)
        print("# sum of medians: %s %.0f ms, %s %.0f ms (%.3f)" % (la, tot_a, lb, tot_b, tot_b / tot_a))
    nf = sum(x.get("filters") or 0 for x in counted)
    nz = sum(x.get("zero_filters") or 0 for x in counted)
    print("# filters in %s's plans: %d in %d queries, %d removed no row" % (lb, nf, len(with_filter), nz))
    print("# results compared (md5 of sorted rows, every run): %s" %
          ("all identical" if failures == 0 else "%d FAILURES" % failures))
    # the noise inside the run: each side's own repetitions against each other
    for side, lab in (("a", la), ("b", lb)):
        spreads = sorted(max(x[side]) / min(x[side]) for x in counted
                         if len(x[side]) > 1 and None not in x[side] and min(x[side]) > 0)
        if spreads:
            print("# noise inside the run, %s's repetitions max/min: geomean %.3f, median %.3f, "
                  "90th percentile %.3f, max %.3f" % (lab, geomean(spreads), median(spreads),
                                                       spreads[int(0.9 * (len(spreads) - 1))], spreads[-1]))
    named = [x for x in results if x["query"] in ("q10", "q17", "q25", "q29", "q82")]
    if named:
        print("# issue 47's queries: %s" % ", ".join(
            "%s %s" % (x["query"], "%.3f (%.0f -> %.0f ms)" % (x["ratio"], x["median_a"], x["median_b"])
                       if x.get("ratio") else "-") for x in named))


def row_line(res):
    filt, rem, zero = res.get("filters"), res.get("removed"), res.get("zero_filters")
    ma, mb = res.get("median_a"), res.get("median_b")
    return "%-5s %10s %10s %7s %7s %12s %6s  %s" % (
        res["query"], "%.1f" % ma if ma else "-", "%.1f" % mb if mb else "-",
        "%.3f" % res["ratio"] if res.get("ratio") else "-",
        "-" if filt is None else ("%d" % filt if not zero else "%d(%d:0)" % (filt, zero)),
        "-" if rem is None else "%d" % rem, "-" if res.get("skipped") else "yes" if res.get("same") else "NO",
        ("not counted: " if res.get("skipped") else "") + re.sub(r"psql:\S+: ", "", res["note"]))


HEADER = "%-5s %10s %10s %7s %7s %12s %6s  %s"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--queries", help="dsqgen's output file (query_0.sql)")
    ap.add_argument("--dir", help="load.sh's --dir (its socket and port); else libpq's environment")
    ap.add_argument("--port", type=int, default=5447)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--timeout", type=int, default=60, help="seconds per statement (default 60)")
    ap.add_argument("--only", help="comma-separated template numbers (e.g. 10,17,25,29,82)")
    ap.add_argument("--skip", help="comma-separated template numbers not to run")
    ap.add_argument("--set", action="append", default=[], help="name=value on both sides")
    ap.add_argument("--off-set", action="append", default=[], help="name=value on side A only")
    ap.add_argument("--on-set", action="append", default=[], help="name=value on side B only")
    ap.add_argument("--aa", choices=["off", "on"], help="A/A run: both sides get this side's settings")
    ap.add_argument("--no-warmup", action="store_true", help="no untimed side-A run first")
    ap.add_argument("--no-explain", action="store_true")
    ap.add_argument("--out", help="write every figure as JSON here")
    ap.add_argument("--report", metavar="FILE.json", nargs="+",
                    help="print the table and summary of --out files (several: their queries merged, "
                         "a later file's query replacing an earlier one's), run nothing")
    ap.add_argument("--psql")
    ap.add_argument("--qf-re", default=r"@>")
    ap.add_argument("--rt-re", default=r"(?i)^checks run-?time filter")
    ap.add_argument("--rt-removed-re", default=r"(?i)removed")
    ap.add_argument("--rt-removed-per-loop", action="store_true")
    args = ap.parse_args()
    if args.report:
        merged = {}
        for path in args.report:
            js = json.load(open(path))
            print("# %s: A (%s): %s; B (%s): %s; %d repetitions, timeout %d s, %d queries" % (
                path, js["a"], ", ".join("%s=%s" % tuple(kv) for kv in js["a_sets"]), js["b"],
                ", ".join("%s=%s" % tuple(kv) for kv in js["b_sets"]), js["reps"], js["timeout"],
                len(js["results"])))
            merged.update((x["query"], x) for x in js["results"])
        results = [merged[q] for q in sorted(merged)]
        print(HEADER % ("query", js["a"] + " ms", js["b"] + " ms", "ratio", "filters", "removed", "same", "note"))
        for res in results:
            print(row_line(res))
        print()
        summary(results, js["a"], js["b"],
                sum(1 for x in results if x.get("failed", not x.get("skipped") and not x.get("same"))))
        return
    if not args.queries:
        ap.error("--queries is required")
    if not args.psql:
        pgc = os.environ.get("PG_CONFIG")
        if pgc:
            args.psql = os.path.join(subprocess.check_output([pgc, "--bindir"], text=True).strip(), "psql")
        else:
            args.psql = shutil.which("psql") or sys.exit("run.py: no psql (set PG_CONFIG)")

    queries = parse_stream(args.queries)

    def picked(spec, name, t):
        return any(x.strip() in (str(t), name, name[1:]) for x in spec.split(","))
    if args.only:
        queries = [q for q in queries if picked(args.only, q[0], q[1])]
    if args.skip:
        queries = [q for q in queries if not picked(args.skip, q[0], q[1])]
    common = parse_sets(args.set)
    side = {"off": common + [("cuckoo.join_prefilter", "off")] + parse_sets(args.off_set),
            "on": common + [("cuckoo.join_prefilter", "on")] + parse_sets(args.on_set)}
    a_sets, b_sets = side["off"], side["on"]
    la, lb = "off", "on"
    if args.aa:
        a_sets = b_sets = side[args.aa]
        la, lb = args.aa + "1", args.aa + "2"
    r = Runner(args)
    print("# TPC-DS %s: %d queries, %d repetitions a side interleaved, timeout %d s, %s" %
          (os.path.basename(args.queries), len(queries), args.reps, args.timeout,
           time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())))
    print("# A (%s): %s" % (la, ", ".join("%s=%s" % kv for kv in a_sets)))
    print("# B (%s): %s" % (lb, ", ".join("%s=%s" % kv for kv in b_sets)))
    print("# load at start: %s" % open("/proc/loadavg").read().strip())
    v = subprocess.run([args.psql, "-X", "-A", "-t", "-c",
                        "SELECT version(), (SELECT extversion FROM pg_extension WHERE extname = 'cuckoo')"],
                       env=r.env, capture_output=True, text=True)
    print("# server: %s" % v.stdout.strip().replace("\n", " "))
    print(HEADER % ("query", la + " ms", lb + " ms", "ratio", "filters", "removed", "same", "note"))
    results = []
    failures = 0

    def save():
        """--out after every query: a run stopped half-way keeps its figures (--report)"""
        if args.out:
            with open(args.out + ".tmp", "w") as f:
                json.dump({"a": la, "b": lb, "a_sets": a_sets, "b_sets": b_sets, "reps": args.reps,
                           "timeout": args.timeout, "results": results}, f, indent=1, default=sorted)
            os.replace(args.out + ".tmp", args.out)
    for n, _t, sql in queries:
        stmts = [sql]
        res = {"query": n, "a": [], "b": [], "digests_a": set(), "digests_b": set(), "note": ""}
        if not args.no_warmup:
            ms, d, rows, err, _ = r.run(stmts, a_sets)
            if err:
                res["note"] = "A " + err
                res["skipped"] = True
                print(row_line(res), flush=True)
                results.append(res)
                save()
                continue
            res["digests_a"].add(d)
        errs = []
        for rep in range(args.reps):
            order = ("a", "b") if rep % 2 == 0 else ("b", "a")
            for s in order:
                ms, d, rows, err, _ = r.run(stmts, a_sets if s == "a" else b_sets)
                if err:
                    errs.append("%s %s" % (s.upper(), err))
                    res[s].append(None)
                else:
                    res[s].append(ms)
                    res["digests_" + s].add(d)
        filt = rem = zero = None
        if not args.no_explain:
            ms, d, rows, err, out = r.run(stmts, b_sets, explain=True)
            if err:
                errs.append("B explain " + err)
            else:
                filt, rem, zero = count_filters(out, args)
        res["filters"], res["removed"], res["zero_filters"] = filt, rem, zero
        ta = [x for x in res["a"] if x is not None]
        tb = [x for x in res["b"] if x is not None]
        same = len(res["digests_a"] | res["digests_b"]) == 1
        notes = []
        failed = not same
        if not same:
            if len(res["digests_a"]) > 1 or len(res["digests_b"]) > 1:
                notes.append("RESULTS DIFFER (also within a side: a nondeterministic query?)")
            else:
                notes.append("RESULTS DIFFER")
        if errs:
            notes.append("; ".join(sorted(set(errs))))
            # an error on side B only is a failure; a timeout on B only is not (a slower
            # run near the timeout: listed under "no ratio" with its note)
            if any(e.startswith("B") and "timeout" not in e for e in errs) and \
                    not any(e.startswith("A") for e in errs):
                failed = True
        failures += failed
        res["failed"] = failed
        res["note"] = " ".join(notes)
        res["same"] = same
        ma = median(ta) if len(ta) == args.reps else None
        mb = median(tb) if len(tb) == args.reps else None
        res["median_a"], res["median_b"] = ma, mb
        res["ratio"] = mb / ma if ma and mb else None
        print(row_line(res), flush=True)
        res["digests_a"], res["digests_b"] = sorted(res["digests_a"]), sorted(res["digests_b"])
        results.append(res)
        save()

    print()
    summary(results, la, lb, failures)
    print("# load at end: %s" % open("/proc/loadavg").read().strip())
    save()
    shutil.rmtree(r.tmp, ignore_errors=True)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
