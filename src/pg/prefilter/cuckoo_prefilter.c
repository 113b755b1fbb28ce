/*
 * cuckoo_prefilter.c - the automatic join pre-filter's query-level form
 * (docs/prefilter.md): its settings, and the planner hook that runs its
 * stages in turn.
 *
 * With cuckoo.join_prefilter on, a plain SELECT that joins a big table B to a
 * small one S on b.k = s.k may be planned as if the user had written the
 * hand-made pre-filter (README, "Pre-filter a join"):
 *
 *     ... AND (SELECT cf_agg(s.k) FROM S s WHERE <S's own conditions>) @> b.k
 *
 * an uncorrelated scalar sublink, so PostgreSQL makes it an InitPlan run once
 * per execution in the statement's snapshot and pushes the condition into B's
 * scan: a local scan, a postgres_fdw foreign scan's remote SQL (the server's
 * extensions option lists cuckoo), or Citus's worker tasks.
 *
 * The stages, each in its file:
 *   find      the candidate joins (cuckoo_prefilter_find.c);
 *   estimate  their sides' rows and distinct keys, from the statistics or
 *             the first planning, the query as written
 *             (cuckoo_prefilter_estimate.c);
 *   decide    apply, apply if the plan with it costs less, or decline, and
 *             why (cuckoo_prefilter_decide.c: every threshold);
 *   build     the filter's condition (cuckoo_prefilter_build.c);
 *   splice    the conditions in a copy of the query taken before the first
 *             planning, planned again (in a subtransaction: should that fail,
 *             the plan as written is used), and the plan's verdict: costed
 *             filters kept only if it is estimated cheaper, and none on a
 *             nested loop's parameterized inner scan
 *             (cuckoo_prefilter_splice.c).
 * Each candidate join then gets one message (cuckoo.join_prefilter_messages)
 * saying what was done or why not.  Queries without a syntactic candidate
 * pay one walk of their join tree.
 */
#include "postgres.h"

#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "optimizer/planner.h"
#include "utils/guc.h"

#include "cuckoo_prefilter.h"
#include "cuckoo_prefilter_int.h"

/* ---- settings (docs/prefilter.md) ---- */

static bool cfpg_prefilter_on = false;
PfSettings	cfpg_pf_set = {
	PF_QUERY_REMOTE,			/* mode */
	100000.0,					/* min_big_rows */
	10000000.0,					/* max_small_rows */
	0.5,						/* min_removed */
	0.5,						/* max_small_ratio */
	1000,						/* max_array_keys */
	1.0, 0.01, 0.0025			/* the cost units: set each planning */
};
int			cfpg_prefilter_msglevel = DEBUG1;

static const struct config_enum_entry cfpg_prefilter_msglevels[] = {
	{"debug1", DEBUG1, false},
	{"log", LOG, false},
	{"notice", NOTICE, false},
	{NULL, 0, false}
};

static const struct config_enum_entry cfpg_prefilter_modes[] = {
	{"off", PF_QUERY_OFF, false},
	{"remote", PF_QUERY_REMOTE, false},
	{"auto", PF_QUERY_AUTO, false},
	{"always", PF_QUERY_ALWAYS, false},
	{NULL, 0, false}
};

static planner_hook_type cfpg_prefilter_prev_planner = NULL;

/* ---- the messages: one per candidate join ---- */

/* Does the other direction of c's join apply? */
static bool
cfpg_pf_mirror_applied(PfCand *c, List *cands)
{
	ListCell   *lc;

	foreach(lc, cands)
	{
		PfCand	   *o = lfirst(lc);

		if (o != c && o->apply && o->qlevel == c->qlevel &&
			o->b.rti == c->s.rti && o->s.rti == c->b.rti &&
			o->b.relid == c->s.relid && o->s.relid == c->b.relid)
			return true;
	}
	return false;
}

/*
 * Both directions of c's join declined: is the other one's line the join's?
 * The one that got further says: not the one whose filtered side is small,
 * then the one expected to remove more, then the first in the list.
 */
static bool
cfpg_pf_mirror_says(PfCand *c, List *cands)
{
	ListCell   *lc;
	bool		c_small = strstr(c->why, "min_big_rows") != NULL;

	foreach(lc, cands)
	{
		PfCand	   *o = lfirst(lc);
		bool		o_small;

		if (o == c || o->apply || o->why == NULL || o->qlevel != c->qlevel ||
			o->b.rti != c->s.rti || o->s.rti != c->b.rti ||
			o->b.relid != c->s.relid || o->s.relid != c->b.relid || o->kind != c->kind)
			continue;
		o_small = strstr(o->why, "min_big_rows") != NULL;
		if (c_small != o_small)
			return c_small;
		if (o->removed != c->removed)
			return o->removed > c->removed;
		return o->reported;
	}
	return false;
}

static void
cfpg_pf_report(List *cands)
{
	ListCell   *lc;

	foreach(lc, cands)
	{
		PfCand	   *c = lfirst(lc);

		if (c->reported)
			continue;
		c->reported = true;
		if (c->apply)
			ereport(cfpg_prefilter_msglevel,
					(errmsg_internal(PF_MSG ": %s on %s.%s from %s.%s (%s)%s%s%s%s",
									 c->any_form ? "= ANY (keys)" : "filter",
									 c->b.alias, cfpg_pf_attname(c->b.relid, c->b.attno),
									 c->s.alias, cfpg_pf_attname(c->s.relid, c->s.attno),
									 cfpg_pf_kind_names[c->kind],
									 c->s_dropped ? ", some of its conditions left out" : "",
									 c->citus ? ", in a derived table around a Citus distributed table" : "",
									 c->costed ? ", costed: the plan with it is estimated cheaper" : "",
									 c->shared_cte ? ", its filter built once for several joins" : ""),
					 c->citus ?
					 errdetail_internal("Estimated rows: %.0f in the filter; by the statistics, up to %.0f%% of the filtered rows have no partner.",
										c->s.rows, c->removed * 100.0) :
					 errdetail_internal("Estimated rows: %.0f filtered, %.0f in the filter; by the statistics, up to %.0f%% of the filtered rows have no partner.",
										c->b.rows, c->s.rows, c->removed * 100.0)));
		else if (c->why != NULL && !cfpg_pf_mirror_applied(c, cands) &&
				 !cfpg_pf_mirror_says(c, cands))
			ereport(cfpg_prefilter_msglevel,
					(errmsg_internal(PF_MSG ": declined %s.%s from %s.%s (%s): %s",
									 c->b.alias, cfpg_pf_attname(c->b.relid, c->b.attno),
									 c->s.alias, cfpg_pf_attname(c->s.relid, c->s.attno),
									 cfpg_pf_kind_names[c->kind], c->why)));
	}
}

/* ---- the stages ---- */

/* Does q's range table hold a subquery (a view, a subquery in FROM)? */
static bool
cfpg_pf_has_subquery(Query *q)
{
	ListCell   *lc;

	foreach(lc, q->rtable)
		if (((RangeTblEntry *) lfirst(lc))->rtekind == RTE_SUBQUERY)
			return true;
	return false;
}


/* Does a level of q plan for few rows (a LIMIT; OFFSET alone, a fence, does not)? */
static bool
cfpg_pf_limited(Query *q)
{
	List	   *levels = NIL;
	ListCell   *lc;

	cfpg_pf_levels(q, &levels);
	foreach(lc, levels)
	{
		Query	   *l = lfirst(lc);

		if (l->limitCount != NULL &&
			!(IsA(l->limitCount, Const) && ((Const *) l->limitCount)->constisnull))
			return true;
	}
	return false;
}

/* decide: each candidate's verdict; at most one filter per filtered relation */
static void
cfpg_pf_decide_all(List *cands, bool limit)
{
	ListCell   *lc;

	foreach(lc, cands)
	{
		PfCand	   *c = lfirst(lc);
		const char *why = NULL;
		PfFacts		f;
		PfVerdict	v;
		ListCell   *lc2;

		cfpg_pf_facts(c, limit, &f);
		v = cfpg_pf_decide_cand(c, &f, &c->removed, &why);
		if (v != PF_DECLINE && c->citus == NULL &&
			!cfpg_pf_rescan_same(c->s.relid, c->s_rte->inh))
		{
			/* the catalog, asked only where the rest would apply */
			f.s_rescan_same = false;
			v = cfpg_pf_decide_cand(c, &f, &c->removed, &why);
		}
		if (v == PF_DECLINE)
		{
			c->why = why;
			continue;
		}
		c->apply = true;
		c->costed = v == PF_APPLY_IF_COSTED;
		foreach(lc2, cands)
		{
			PfCand	   *o = lfirst(lc2);

			if (o == c)
				break;
			if (o->apply && o->qlevel == c->qlevel && o->b.rti == c->b.rti &&
				o->join_rtindex == c->join_rtindex)
			{
				PfCand	   *loser = o->removed >= c->removed ? c : o;

				loser->apply = false;
				loser->why = "another filter of the same side is expected to remove more";
			}
		}
	}
	cfpg_pf_citus_mirrors(cands);
}

/*
 * build and splice: the applied candidates' conditions in a copy of
 * pristine, planned; the plan, or NULL if none applies.  The candidates
 * declined on the way have their reason.
 */
static PlannedStmt *
cfpg_pf_build_splice(List *cands, Query *pristine, PlannedStmt *first,
					 const char *query_string, int cursorOptions, ParamListInfo boundParams)
{
	Oid			nsp = InvalidOid;
	int			attempt;

	/* twice at most: a second time without the filters the first plan declined */
	for (attempt = 0; attempt < 2; attempt++)
	{
		Query	   *copy = copyObject(pristine);
		List	   *levels = NIL;
		List	   *applied = NIL;
		PlannedStmt *with;
		PfPlanFacts pf;
		List	   *bad;
		bool		costed = false;
		const char *why = NULL;
		ListCell   *lc;
		ListCell   *lc2;
		int			ncte = 0;

		cfpg_pf_levels(copy, &levels);
		foreach(lc, cands)
		{
			PfCand	   *c = lfirst(lc);
			Node	   *qual;

			if (!c->apply)
				continue;
			c->filter_sl = NULL;
			c->shared_cte = 0;
			qual = cfpg_pf_build(c, &nsp, &why);
			if (qual == NULL || !cfpg_pf_splice(levels, c, qual, &why))
			{
				c->apply = false;
				c->why = why;
				continue;
			}
			c->any_form = IsA(qual, BoolExpr);
			/* the same filter as one spliced before: built once */
			foreach(lc2, applied)
			{
				PfCand	   *o = lfirst(lc2);

				if (cfpg_pf_same_filter(c, o))
				{
					cfpg_pf_share(levels, o, c, &ncte);
					break;
				}
			}
			costed |= c->costed;
			applied = lappend(applied, c);
		}
		if (applied == NIL)
			return NULL;
		with = cfpg_pf_plan_or_null(applied, copy, query_string, cursorOptions, boundParams);
		if (with == NULL)
		{
			foreach(lc, applied)
			{
				PfCand	   *c = lfirst(lc);

				c->apply = false;
				c->reported = true; /* its line is out */
			}
			return NULL;
		}
		cfpg_pf_plan_facts(first, with, applied, &pf, &bad);
		if (cfpg_pf_decide_plan(&pf, costed, &why))
			return with;
		foreach(lc, applied)
		{
			PfCand	   *c = lfirst(lc);

			if (pf.on_param_inner ? list_member_ptr(bad, c) || attempt == 1 :
				c->costed || attempt == 1)
			{
				c->apply = false;
				c->why = why;
			}
		}
	}
	return NULL;
}

static PlannedStmt *
cfpg_pf_planner(Query *parse, const char *query_string, int cursorOptions,
				ParamListInfo boundParams)
{
	List	   *cands;
	List	   *live;
	List	   *left;
	Query	   *pristine;
	PlannedStmt *first;
	PlannedStmt *with;
	bool		limit;

	if (!cfpg_prefilter_on || cfpg_pf_set.mode == PF_QUERY_OFF || parse->utilityStmt != NULL)
		return cfpg_pf_plan_capturing(NIL, NIL, parse, query_string, cursorOptions, boundParams);
	if (parse->commandType != CMD_SELECT || parse->rowMarks != NIL ||
		parse->hasForUpdate || parse->hasModifyingCTE)
	{
		if (parse->hasSubLinks || list_length(parse->jointree->fromlist) > 1 ||
			(list_length(parse->jointree->fromlist) == 1 &&
			 IsA(linitial(parse->jointree->fromlist), JoinExpr)))
			ereport(cfpg_prefilter_msglevel,
					(errmsg_internal(PF_MSG ": declined: %s",
									 parse->commandType != CMD_SELECT ?
									 "not a SELECT (rows a data-modifying statement rechecks could be newer than the filter)" :
									 parse->hasModifyingCTE ? "a data-modifying WITH" :
									 "FOR UPDATE / SHARE (rechecked rows could be newer than the filter)")));
		return cfpg_pf_plan_capturing(NIL, NIL, parse, query_string, cursorOptions, boundParams);
	}
	if (parse->jointree == NULL ||
		(list_length(parse->rtable) < 2 && !parse->hasSubLinks && parse->cteList == NIL &&
		 (parse->rtable == NIL ||
		  ((RangeTblEntry *) linitial(parse->rtable))->rtekind != RTE_SUBQUERY)))
		return cfpg_pf_plan_capturing(NIL, NIL, parse, query_string, cursorOptions, boundParams);

	/* find */
	cfpg_pf_citus_reset();
	cands = cfpg_pf_find(parse);
	if (cands == NIL)
		return cfpg_pf_plan_capturing(NIL, NIL, parse, query_string, cursorOptions, boundParams);
	/* a lower level's FOR UPDATE: only a query with lower levels has one */
	if ((parse->hasSubLinks || parse->cteList != NIL || cfpg_pf_has_subquery(parse)) &&
		cfpg_pf_locks_rows((Node *) parse, NULL))
	{
		ereport(cfpg_prefilter_msglevel,
				(errmsg_internal(PF_MSG ": declined: FOR UPDATE / SHARE (rechecked rows could be newer than the filter)")));
		return cfpg_pf_plan_capturing(NIL, NIL, parse, query_string, cursorOptions, boundParams);
	}

	/* the candidates the search declined have their reason and their line */
	{
		ListCell   *lc;

		live = NIL;
		foreach(lc, cands)
			if (((PfCand *) lfirst(lc))->why == NULL)
				live = lappend(live, lfirst(lc));
	}
	if (live == NIL)
	{
		cfpg_pf_report(cands);
		return cfpg_pf_plan_capturing(NIL, NIL, parse, query_string, cursorOptions, boundParams);
	}

	/* estimate: from the statistics where they suffice, else the first planning */
	cfpg_pf_set.seq_page_cost = seq_page_cost;
	cfpg_pf_set.cpu_tuple_cost = cpu_tuple_cost;
	cfpg_pf_set.cpu_operator_cost = cpu_operator_cost;
	limit = cfpg_pf_limited(parse);
	left = cfpg_pf_predecide(live, limit);
	if (left == NIL)
	{
		cfpg_pf_report(cands);
		return cfpg_pf_plan_capturing(NIL, NIL, parse, query_string, cursorOptions, boundParams);
	}
	pristine = copyObject(parse);
	first = cfpg_pf_plan_capturing(left, NIL, parse, query_string, cursorOptions, boundParams);

	/* decide, then build and splice */
	cfpg_pf_decide_all(left, limit);
	with = cfpg_pf_build_splice(left, pristine, first, query_string, cursorOptions, boundParams);
	cfpg_pf_report(cands);
	return with ? with : first;
}

void
cfpg_prefilter_init(void)
{
	DefineCustomBoolVariable("cuckoo.join_prefilter",
							 "Pre-filters joins with a cuckoo filter of the small side's keys.",
							 "Adds (SELECT cf_agg(s.k) FROM s WHERE ...) @> b.k to the big side of "
							 "inner, semi and outer joins where that cannot change the result "
							 "(docs/prefilter.md).",
							 &cfpg_prefilter_on, false, PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomEnumVariable("cuckoo.join_prefilter_query",
							 "Where the query-level join pre-filter applies: off, remote (foreign and Citus distributed tables), auto (remote, and local plans it is costed to pay on) or always.",
							 NULL, &cfpg_pf_set.mode, PF_QUERY_REMOTE, cfpg_prefilter_modes,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomRealVariable("cuckoo.join_prefilter_min_big_rows",
							 "Fewest estimated rows of the side a join pre-filter filters.",
							 NULL, &cfpg_pf_set.min_big_rows, 100000.0, 0.0, 1e15,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomRealVariable("cuckoo.join_prefilter_max_small_rows",
							 "Most estimated rows of the side a join pre-filter is built from.",
							 "-1: no limit.", &cfpg_pf_set.max_small_rows, 10000000.0, -1.0, 1e15,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomRealVariable("cuckoo.join_prefilter_min_removed",
							 "Smallest expected fraction of rows a join pre-filter removes.",
							 NULL, &cfpg_pf_set.min_removed, 0.5, 0.0, 1.0,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomRealVariable("cuckoo.join_prefilter_max_small_ratio",
							 "Most estimated rows of the side a join pre-filter is built from, as a fraction of the filtered side's.",
							 "-1: no limit.", &cfpg_pf_set.max_small_ratio, 0.5, -1.0, 1e15,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("cuckoo.join_prefilter_max_array_keys",
							"Most estimated rows of the side a join pre-filter is built from for which a foreign table gets = ANY (its keys) instead of a filter.",
							"0: always a filter.", &cfpg_pf_set.max_array_keys, 1000, 0, 100000,
							PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomEnumVariable("cuckoo.join_prefilter_messages",
							 "Level of the messages that say which joins got a pre-filter and why others did not.",
							 NULL, &cfpg_prefilter_msglevel, DEBUG1, cfpg_prefilter_msglevels,
							 PGC_USERSET, 0, NULL, NULL, NULL);

	cfpg_pf_range_init();
	cfpg_pf_find_init();
	cfpg_pf_citus_init();

	cfpg_pf_estimate_init();

	cfpg_prefilter_prev_planner = planner_hook;
	cfpg_pf_set_next_planner(cfpg_prefilter_prev_planner);
	planner_hook = cfpg_pf_planner;
}
