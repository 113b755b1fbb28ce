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
CREATE FUNCTION plan_ms(q text, n int, setting text) RETURNS float8 LANGUAGE plpgsql AS \$\$
DECLARE t0 timestamptz; i int;
BEGIN
  PERFORM set_config('cuckoo.join_prefilter', setting, true);
  t0 := clock_timestamp();
  FOR i IN 1..n LOOP EXECUTE 'EXPLAIN ' || q; END LOOP;
  RETURN extract(epoch FROM clock_timestamp() - t0) * 1000;
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
CREATE TEMP TABLE runs (scenario text, round int, off_ms float8, on_ms float8);
CREATE TEMP TABLE planning (scenario text, off_us float8, on_us float8);
DO \$\$
DECLARE
  qs text[] := ARRAY[
    'declined_size', 'SELECT count(*) FROM pf_big b JOIN pf_small s ON b.k = s.k WHERE s.region = ''eu''',
    'declined_estimate', 'SELECT count(*) FROM pf_big b JOIN pf_small s ON b.k = s.k',
    'none', 'SELECT count(*) FROM pf_big b WHERE b.region = ''r1''',
    'applied', 'SELECT count(*) FROM pf_big b JOIN pf_small s ON b.k = s.k WHERE s.region = ''eu'''];
  r int; i int; a float8; b float8;
BEGIN
  FOR r IN 1..$rounds LOOP
    FOR i IN 1..4 LOOP
      IF qs[2*i-1] IN ('applied', 'declined_estimate') THEN
        PERFORM set_config('cuckoo.join_prefilter_min_big_rows', '0', true);
      ELSE
        PERFORM set_config('cuckoo.join_prefilter_min_big_rows', '1e6', true);
      END IF;
      IF r % 2 = 0 THEN
        a := plan_ms(qs[2*i], $per, 'off'); b := plan_ms(qs[2*i], $per, 'on');
      ELSE
        b := plan_ms(qs[2*i], $per, 'on'); a := plan_ms(qs[2*i], $per, 'off');
      END IF;
      INSERT INTO runs VALUES (qs[2*i-1], r, a, b);
    END LOOP;
  END LOOP;
  FOR i IN 1..4 LOOP
    IF qs[2*i-1] IN ('applied', 'declined_estimate') THEN
      PERFORM set_config('cuckoo.join_prefilter_min_big_rows', '0', true);
    ELSE
      PERFORM set_config('cuckoo.join_prefilter_min_big_rows', '1e6', true);
    END IF;
    INSERT INTO planning SELECT qs[2*i-1], p.off_us, p.on_us FROM planning_us(qs[2*i], $per) p;
  END LOOP;
END \$\$;
\set QUIET off
SELECT scenario, count(*) AS rounds,
       round((percentile_cont(0.5) WITHIN GROUP (ORDER BY off_ms))::numeric / $per * 1000, 1) AS off_us_per_plan,
       round((percentile_cont(0.5) WITHIN GROUP (ORDER BY on_ms))::numeric / $per * 1000, 1) AS on_us_per_plan,
       round((percentile_cont(0.5) WITHIN GROUP (ORDER BY on_ms / off_ms))::numeric, 3) AS median_on_off
  FROM runs GROUP BY scenario ORDER BY scenario;
SELECT scenario, round(off_us::numeric, 2) AS planning_off_us, round(on_us::numeric, 2) AS planning_on_us,
       round((on_us / off_us)::numeric, 3) AS planning_on_off
  FROM planning ORDER BY scenario;
\set QUIET on
-- CPU time: the backend's own, batches of cpu_plans EXPLAINs, off and on in turn
CREATE FUNCTION cpu_ns() RETURNS bigint LANGUAGE sql AS
  \$\$ SELECT split_part(pg_read_file('/proc/self/schedstat'), ' ', 1)::bigint \$\$;
CREATE FUNCTION plan_cpu_us(q text, n int, setting text) RETURNS float8 LANGUAGE plpgsql AS \$\$
DECLARE c0 bigint; i int;
BEGIN
  PERFORM set_config('cuckoo.join_prefilter', setting, true);
  c0 := cpu_ns();
  FOR i IN 1..n LOOP EXECUTE 'EXPLAIN ' || q; END LOOP;
  RETURN (cpu_ns() - c0) / 1000.0 / n;
END \$\$;
CREATE TEMP TABLE cpu (scenario text, round int, off_us float8, on_us float8);
DO \$\$
DECLARE
  qs text[] := ARRAY[
    'declined_size', 'SELECT count(*) FROM pf_big b JOIN pf_small s ON b.k = s.k WHERE s.region = ''eu''',
    'declined_estimate', 'SELECT count(*) FROM pf_big b JOIN pf_small s ON b.k = s.k',
    'none', 'SELECT count(*) FROM pf_big b WHERE b.region = ''r1''',
    'applied', 'SELECT count(*) FROM pf_big b JOIN pf_small s ON b.k = s.k WHERE s.region = ''eu'''];
  r int; i int; a float8; b float8;
BEGIN
  BEGIN
    PERFORM cpu_ns();
  EXCEPTION WHEN OTHERS THEN
    RAISE NOTICE 'no CPU time table: /proc/self/schedstat is not readable here (%)', SQLERRM;
    RETURN;
  END;
  FOR r IN 1..$cpu_rounds LOOP
    FOR i IN 1..4 LOOP
      IF qs[2*i-1] IN ('applied', 'declined_estimate') THEN
        PERFORM set_config('cuckoo.join_prefilter_min_big_rows', '0', true);
      ELSE
        PERFORM set_config('cuckoo.join_prefilter_min_big_rows', '1e6', true);
      END IF;
      IF r % 2 = 0 THEN
        a := plan_cpu_us(qs[2*i], $cpu_plans, 'off'); b := plan_cpu_us(qs[2*i], $cpu_plans, 'on');
      ELSE
        b := plan_cpu_us(qs[2*i], $cpu_plans, 'on'); a := plan_cpu_us(qs[2*i], $cpu_plans, 'off');
      END IF;
      INSERT INTO cpu VALUES (qs[2*i-1], r, a, b);
    END LOOP;
  END LOOP;
END \$\$;
\set QUIET off
SELECT c.scenario, count(*) AS batches, $cpu_plans AS plans_a_batch,
       round(percentile_cont(0.5) WITHIN GROUP (ORDER BY c.off_us)::numeric, 2) AS cpu_off_us_per_explain,
       round(percentile_cont(0.5) WITHIN GROUP (ORDER BY c.on_us)::numeric, 2) AS cpu_on_us_per_explain,
       round(percentile_cont(0.5) WITHIN GROUP (ORDER BY c.on_us - c.off_us)::numeric, 2) AS added_us,
       round((1 + percentile_cont(0.5) WITHIN GROUP (ORDER BY c.on_us - c.off_us) / min(p.off_us))::numeric, 3)
         AS planning_on_off_cpu
  FROM cpu c JOIN planning p USING (scenario) GROUP BY c.scenario ORDER BY c.scenario;
SQL
chmod 644 "$sql"
PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config} \
	bash "$top/test/pg/tmpcluster.sh" psql -X -v ON_ERROR_STOP=1 -f "$sql"
