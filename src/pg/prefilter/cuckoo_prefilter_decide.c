/*
 * cuckoo_prefilter_decide.c - the query-level join pre-filter's decision
 * (docs/prefilter.md, "The decision"): pure functions of a candidate's facts
 * (PfFacts: the estimates of its two sides, where its filtered side lives)
 * and the settings (PfSettings), which hold every threshold of the
 * query-level form, Citus's included.  No catalog, no planner state: the
 * estimate stage (cuckoo_prefilter_estimate.c) gathers the facts, and what
 * the plan with the filters shows (its cost, where the filters went) comes
 * back here as PfPlanFacts.
 *
 * Where it applies (cuckoo.join_prefilter_query):
 *   off     nowhere;
 *   remote  where the filter crosses a network: a postgres_fdw foreign table
 *           or a Citus distributed table is the filtered side;
 *   auto    remote, and on local plans where the plan with the filter is
 *           estimated cheaper than the plan without it, the filter's own
 *           scan of the small side (its InitPlan) included (the default);
 *   always  wherever the thresholds accept (1.4's rule, for tests).
 * A LIMIT (a plan for few rows) makes every filter but a Citus one costed (a
 * Citus one declines): the filter's scan of the small side is paid before
 * the first row.
 */
#include "postgres.h"

#include <math.h>

#include "cuckoo_prefilter_int.h"

bool
cfpg_pf_too_few_rows(double tuples, const PfSettings *s)
{
	return s->min_big_rows > 0 && tuples < s->min_big_rows;
}

/* Citus: a distributed big side is taken as big (its estimates are the shell's) */
static PfVerdict
cfpg_pf_decide_citus(const PfFacts *f, const PfSettings *s, double *removed,
					 const char **why)
{
	double		kept;

	if (!f->b_dist)
	{
		/* the filter would be built from a table whose size is unknown here */
		*why = "the filter's side is a Citus distributed table (its size is unknown on the coordinator)";
		return PF_DECLINE;
	}
	if (f->colocated_keys)
	{
		*why = "a co-located join on the distribution column (Citus joins in the shards: no row moves)";
		return PF_DECLINE;
	}
	/* B's estimates are the shell's and unused; S's conditions' are needed */
	if (!f->s_sel_seen || !f->seen)
	{
		*why = "no estimate (a relation the planner removed)";
		return PF_DECLINE;
	}
	if (s->max_small_rows >= 0 && !f->s_dist && f->s_rows > s->max_small_rows)
	{
		*why = "the filter's side is estimated above cuckoo.join_prefilter_max_small_rows";
		return PF_DECLINE;
	}
	kept = Min(1.0, f->s_sel + PF_FPR);
	*removed = 1.0 - kept;
	if (*removed < s->min_removed)
	{
		*why = "the expected fraction removed (the filter's side's own conditions) is below cuckoo.join_prefilter_min_removed";
		return PF_DECLINE;
	}

	/*
	 * A distributed small side (not co-located on the key): Citus plans the
	 * derived table on its own, and the rows that pass travel through the
	 * coordinator to every task of the join, one per shard of the small side,
	 * where without the filter each row of the big side moves once.  It
	 * pays while the rows kept, read by each of those tasks, are fewer than
	 * the rows the big side has: kept <= 1 / shards.
	 */
	if (f->s_dist && kept * Max(1, f->s_nshards) > 1.0)
	{
		*why = "the filter's side is a Citus distributed table and the expected fraction kept is above 1 / its shard count (each of its shards' tasks would read the rows kept)";
		return PF_DECLINE;
	}
	if (f->limit)
	{
		*why = "a LIMIT: the filter is built before the first row, and a Citus plan's cost does not say whether that pays";
		return PF_DECLINE;
	}
	return PF_APPLY;
}

PfVerdict
cfpg_pf_decide(const PfFacts *f, const PfSettings *s, double *removed, const char **why)
{
	double		kept;
	double		sel;
	double		nds;

	*removed = 0.0;
	if (s->mode == PF_QUERY_OFF)
	{
		*why = "cuckoo.join_prefilter_query is off";
		return PF_DECLINE;
	}
	if (f->where == PF_CITUS)
		return cfpg_pf_decide_citus(f, s, removed, why);
	if (!f->seen)
	{
		*why = "no estimate (a relation the planner removed)";
		return PF_DECLINE;
	}
	if (f->b_rows < s->min_big_rows)
	{
		*why = "the filtered side is estimated below cuckoo.join_prefilter_min_big_rows";
		return PF_DECLINE;
	}
	if (s->max_small_rows >= 0 && f->s_rows > s->max_small_rows)
	{
		*why = "the filter's side is estimated above cuckoo.join_prefilter_max_small_rows";
		return PF_DECLINE;
	}
	if (s->max_small_ratio >= 0 && f->s_rows > s->max_small_ratio * f->b_rows)
	{
		*why = "the filter's side is estimated above cuckoo.join_prefilter_max_small_ratio of the filtered side";
		return PF_DECLINE;
	}
	/* the fraction of S's rows its conditions keep */
	sel = f->s_tuples > 0 ? Min(1.0, f->s_rows / f->s_tuples) : 1.0;
	if (f->nd_default || f->s_nd <= 0 || f->b_nd <= 0)
		kept = sel;				/* no statistics: as if every key matched */
	else if (!f->ranges_known)
		return PF_NEED_RANGES;	/* a catalog look-up, only for those that get here */
	else
	{
		/* distinct keys among S's rows that pass (as estimate_num_groups) */
		nds = f->s_nd;
		if (f->s_tuples > 0 && sel < 1.0)
			nds = f->s_nd * (1.0 - pow(1.0 - sel, f->s_tuples / f->s_nd));
		nds = Min(nds, f->s_rows);
		/* S's keys outside B's range match nothing; B's outside S's neither */
		kept = Min(1.0, Min(nds * f->s_in / f->b_nd, f->b_in));
	}
	kept = Min(1.0, kept + PF_FPR);
	*removed = 1.0 - kept;
	if (*removed < s->min_removed)
	{
		*why = "the expected fraction removed is below cuckoo.join_prefilter_min_removed";
		return PF_DECLINE;
	}
	if (f->where == PF_LOCAL && s->mode == PF_QUERY_REMOTE)
	{
		*why = "a local table, and cuckoo.join_prefilter_query is remote";
		return PF_DECLINE;
	}

	/*
	 * A local filter's own cost against what it saves: it reads S a second
	 * time and aggregates its rows, and probes every row of B; each row it
	 * removes saves at least passing that row up and hashing it into the
	 * join (a hash join's probe of a small table costs about what the
	 * filter's does).  Plan changes that pay more are the plan's costs to
	 * show (PF_APPLY_IF_COSTED).
	 */
	if (f->where == PF_LOCAL && s->mode == PF_QUERY_AUTO)
	{
		double		build = f->s_pages * s->seq_page_cost +
			f->s_tuples * (s->cpu_tuple_cost + s->cpu_operator_cost) +
			f->s_rows * s->cpu_operator_cost;
		double		probe = f->b_rows * s->cpu_operator_cost;
		double		saved = *removed * f->b_rows * (s->cpu_tuple_cost + s->cpu_operator_cost);

		if (saved <= build + probe)
		{
			*why = "the rows it is expected to remove do not pay for its own scan of the filter's side and its probes";
			return PF_DECLINE;
		}
	}
	if (!f->s_rescan_same)
	{
		*why = "the filter's side is a foreign table of another wrapper than postgres_fdw";
		return PF_DECLINE;
	}
	/* a local plan pays for the filter's scan of S: the plans' costs say if it pays */
	if (f->limit || (f->where == PF_LOCAL && s->mode == PF_QUERY_AUTO))
		return PF_APPLY_IF_COSTED;
	return PF_APPLY;
}

bool
cfpg_pf_decide_plan(const PfPlanFacts *pf, bool costed, const char **why)
{
	if (pf->on_param_inner)
	{
		*why = "the plan puts it on a nested loop's parameterized inner scan (its index condition already matches the key)";
		return false;
	}
	if (costed && !(pf->cost_with < pf->cost_without))
	{
		*why = "the plan with it is not estimated cheaper, its scan of the filter's side included";
		return false;
	}
	return true;
}
