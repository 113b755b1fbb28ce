#!/usr/bin/env bash
# prefilter_planning.sh - what cuckoo.join_prefilter costs the planner: the
# planning time of EXPLAIN (no execution) of three queries with the setting
# off and on, alternated in rounds in one session of a throw-away cluster:
#   declined_size      a join the rule declines before planning: pf_big's
#              size is below cuckoo.join_prefilter_min_big_rows
#   declined_estimate  a join the rule declines from the first planning's
#              estimates (pf_small unfiltered removes nothing): the copy
#              of the query and the capture of the estimates
#   none       a one-table query: no candidate, one walk of the join tree
#   applied    a join that gets a filter (the thresholds at their extremes):
#              planned twice
# Prints the median of the rounds' on/off ratios (the whole EXPLAIN, parse and
# output included), then the planning alone: EXPLAIN's Planning Time of
# PLANS_PER_ROUND plans of each query, off and on alternated, the mean of the
# fastest 90% of each side, and their ratio.  Then the same in CPU time, which
# the machine's load does not move: the backend's own CPU time
# (/proc/self/schedstat, read through pg_read_file; it advances by the
# scheduler's tick, 4 ms here, hence batches of CPU_PLANS plans, 20000) of
# CPU_ROUNDS (3) batches a side in turn: what the setting adds to an EXPLAIN
# (on - off, us), and that over the planning's own off time as a ratio,
# 1 + (on - off) / planning_off_us.  Where /proc is not readable it says so.
# Usage: PG_CONFIG=... [CPU_PLANS=N] [CPU_ROUNDS=N] bash bench/prefilter_planning.sh [ROUNDS] [PLANS_PER_ROUND]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
rounds=${1:-7}
per=${2:-2000}
cpu_plans=${CPU_PLANS:-20000}
cpu_rounds=${CPU_ROUNDS:-3}
sql=$(mktemp -t pf-planning.XXXXXX.sql)
trap 'rm -f "$sql"' EXIT
cat > "$sql" <<SQL
\set QUIET on
CREATE EXTENSION cuckoo;
LOAD 'cuckoo';
CREATE TABLE pf_big (k int8, v int4, region text);
INSERT INTO pf_big SELECT g % 5000, g, 'r' || g % 7 FROM generate_series(1, 50000) g;
CREATE TABLE pf_small (k int8, region text);
INSERT INTO pf_small SELECT g, CASE WHEN g % 100 = 0 THEN 'eu' ELSE 'us' END FROM generate_series(1, 10000) g;
ANALYZE pf_big, pf_small;
-- the scenarios, each with the cuckoo.join_prefilter_min_big_rows it is run under
CREATE TEMP TABLE scen (ord int, scenario text, q text, min_big_rows text);
INSERT INTO scen VALUES
  (1, 'declined_size', 'SELECT count(*) FROM pf_big b JOIN pf_small s ON b.k = s.k WHERE s.region = ''eu''', '1e6'),
  (2, 'declined_estimate', 'SELECT count(*) FROM pf_big b JOIN pf_small s ON b.k = s.k', '0'),
  (3, 'none', 'SELECT count(*) FROM pf_big b WHERE b.region = ''r1''', '1e6'),
  (4, 'applied', 'SELECT count(*) FROM pf_big b JOIN pf_small s ON b.k = s.k WHERE s.region = ''eu''', '0');
-- n EXPLAINs of q under setting: the wall time in ms (plan_ms), or the
-- backend's own CPU time in us per EXPLAIN (plan_cpu_us)
CREATE FUNCTION cpu_ns() RETURNS bigint LANGUAGE sql AS
  \$\$ SELECT split_part(pg_read_file('/proc/self/schedstat'), ' ', 1)::bigint \$\$;
CREATE FUNCTION explains(q text, n int, setting text, cpu bool) RETURNS float8 LANGUAGE plpgsql AS \$\$
DECLARE t0 timestamptz; c0 bigint; i int;
BEGIN
  PERFORM set_config('cuckoo.join_prefilter', setting, true);
  IF cpu THEN c0 := cpu_ns(); END IF;
  t0 := clock_timestamp();
  FOR i IN 1..n LOOP EXECUTE 'EXPLAIN ' || q; END LOOP;
  IF cpu THEN RETURN (cpu_ns() - c0) / 1000.0 / n; END IF;
  RETURN extract(epoch FROM clock_timestamp() - t0) * 1000;
END \$\$;
CREATE FUNCTION plan_ms(q text, n int, setting text) RETURNS float8 LANGUAGE sql AS
  \$\$ SELECT explains(q, n, setting, false) \$\$;
CREATE FUNCTION plan_cpu_us(q text, n int, setting text) RETURNS float8 LANGUAGE sql AS
  \$\$ SELECT explains(q, n, setting, true) \$\$;
-- rounds of fn(q, n, 'off') and fn(q, n, 'on') for every scenario, the order
-- of the two sides swapped every round
CREATE FUNCTION alternate(fn text, n int, rounds int)
  RETURNS TABLE (scenario text, round int, off_v float8, on_v float8) LANGUAGE plpgsql AS \$\$
DECLARE s record; r int; a float8; b float8;
BEGIN
  FOR r IN 1..rounds LOOP
    FOR s IN SELECT * FROM scen ORDER BY ord LOOP
      PERFORM set_config('cuckoo.join_prefilter_min_big_rows', s.min_big_rows, true);
      IF r % 2 = 0 THEN
        EXECUTE format('SELECT %s(\$1, \$2, ''off'')', fn) INTO a USING s.q, n;
        EXECUTE format('SELECT %s(\$1, \$2, ''on'')', fn) INTO b USING s.q, n;
      ELSE
        EXECUTE format('SELECT %s(\$1, \$2, ''on'')', fn) INTO b USING s.q, n;
        EXECUTE format('SELECT %s(\$1, \$2, ''off'')', fn) INTO a USING s.q, n;
      END IF;
      scenario := s.scenario; round := r; off_v := a; on_v := b;
      RETURN NEXT;
    END LOOP;
  END LOOP;
END \$\$;
-- the planning alone: EXPLAIN's Planning Time of n plans, off and on
-- alternated, the mean of the fastest 90% of each side
CREATE FUNCTION planning_us(q text, n int, OUT off_us float8, OUT on_us float8) LANGUAGE plpgsql AS \$\$
DECLARE j json; i int; k int; a float8[] := '{}'; b float8[] := '{}'; ms float8;
BEGIN
  FOR i IN 0..n LOOP
    FOR k IN 0..1 LOOP
      PERFORM set_config('cuckoo.join_prefilter', CASE WHEN (i + k) % 2 = 0 THEN 'off' ELSE 'on' END, true);
      EXECUTE 'EXPLAIN (FORMAT JSON, COSTS OFF, SUMMARY ON) ' || q INTO j;
      ms := (j -> 0 ->> 'Planning Time')::float8;
      IF i > 0 THEN IF (i + k) % 2 = 0 THEN a := a || ms; ELSE b := b || ms; END IF; END IF;
    END LOOP;
  END LOOP;
  off_us := (SELECT avg(x) FROM unnest(a) x WHERE x <= (SELECT percentile_cont(0.9) WITHIN GROUP (ORDER BY y) FROM unnest(a) y)) * 1000;
  on_us := (SELECT avg(x) FROM unnest(b) x WHERE x <= (SELECT percentile_cont(0.9) WITHIN GROUP (ORDER BY y) FROM unnest(b) y)) * 1000;
END \$\$;
CREATE TEMP TABLE runs AS SELECT * FROM alternate('plan_ms', $per, $rounds);
CREATE TEMP TABLE planning (scenario text, off_us float8, on_us float8);
DO \$\$
DECLARE s record;
BEGIN
  FOR s IN SELECT * FROM scen ORDER BY ord LOOP
    PERFORM set_config('cuckoo.join_prefilter_min_big_rows', s.min_big_rows, true);
    INSERT INTO planning SELECT s.scenario, p.off_us, p.on_us FROM planning_us(s.q, $per) p;
  END LOOP;
END \$\$;
\set QUIET off
SELECT scenario, count(*) AS rounds,
       round((percentile_cont(0.5) WITHIN GROUP (ORDER BY off_v))::numeric / $per * 1000, 1) AS off_us_per_plan,
       round((percentile_cont(0.5) WITHIN GROUP (ORDER BY on_v))::numeric / $per * 1000, 1) AS on_us_per_plan,
       round((percentile_cont(0.5) WITHIN GROUP (ORDER BY on_v / off_v))::numeric, 3) AS median_on_off
  FROM runs GROUP BY scenario ORDER BY scenario;
SELECT scenario, round(off_us::numeric, 2) AS planning_off_us, round(on_us::numeric, 2) AS planning_on_us,
       round((on_us / off_us)::numeric, 3) AS planning_on_off
  FROM planning ORDER BY scenario;
-- CPU time, where /proc/self/schedstat can be read
SELECT pg_read_file('/proc/self/schedstat', 0, 1, true) IS NOT NULL AS have_cpu \gset
\if :have_cpu
\set QUIET on
CREATE TEMP TABLE cpu AS SELECT * FROM alternate('plan_cpu_us', $cpu_plans, $cpu_rounds);
\set QUIET off
SELECT c.scenario, count(*) AS batches, $cpu_plans AS plans_a_batch,
       round(percentile_cont(0.5) WITHIN GROUP (ORDER BY c.off_v)::numeric, 2) AS cpu_off_us_per_explain,
       round(percentile_cont(0.5) WITHIN GROUP (ORDER BY c.on_v)::numeric, 2) AS cpu_on_us_per_explain,
       round(percentile_cont(0.5) WITHIN GROUP (ORDER BY c.on_v - c.off_v)::numeric, 2) AS added_us,
       round((1 + percentile_cont(0.5) WITHIN GROUP (ORDER BY c.on_v - c.off_v) / min(p.off_us))::numeric, 3)
         AS planning_on_off_cpu
  FROM cpu c JOIN planning p USING (scenario) GROUP BY c.scenario ORDER BY c.scenario;
\else
\echo no CPU time table: /proc/self/schedstat cannot be read here
\endif
SQL
chmod 644 "$sql"
PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config} \
	bash "$top/test/pg/tmpcluster.sh" psql -X -v ON_ERROR_STOP=1 -f "$sql"
