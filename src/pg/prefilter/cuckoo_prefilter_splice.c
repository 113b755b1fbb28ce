/*
 * cuckoo_prefilter_splice.c - the query-level join pre-filter's splice stage
 * (docs/prefilter.md): a candidate's condition put into the copy of the
 * query taken before the first planning (into its WHERE, the ON clause of
 * the outer join whose nullable side it filters, or a derived table around a
 * Citus distributed table), the copy planned again, and what that plan
 * shows: its cost against the plan as written, and whether a filter landed
 * on a nested loop's parameterized inner scan.
 */
#include "postgres.h"

#include "access/xact.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "optimizer/planner.h"
#include "parser/parsetree.h"
#include "rewrite/rewriteManip.h"
#include "utils/memutils.h"
#include "utils/resowner.h"

#include "cuckoo_prefilter_int.h"

static planner_hook_type cfpg_pf_next_planner = NULL;

/* the planner after ours (set by cuckoo_prefilter.c) */
void
cfpg_pf_set_next_planner(planner_hook_type next)
{
	cfpg_pf_next_planner = next;
}

static JoinExpr *
cfpg_pf_find_join(Node *n, int rtindex)
{
	ListCell   *lc;
	JoinExpr   *found;

	if (n == NULL)
		return NULL;
	if (IsA(n, FromExpr))
	{
		foreach(lc, ((FromExpr *) n)->fromlist)
			if ((found = cfpg_pf_find_join(lfirst(lc), rtindex)) != NULL)
				return found;
	}
	else if (IsA(n, JoinExpr))
	{
		JoinExpr   *j = (JoinExpr *) n;

		if (j->rtindex == rtindex)
			return j;
		if ((found = cfpg_pf_find_join(j->larg, rtindex)) != NULL)
			return found;
		return cfpg_pf_find_join(j->rarg, rtindex);
	}
	return NULL;
}

/* ---- the hook ---- */

static PlannedStmt *
cfpg_pf_plan(Query *parse, const char *query_string, int cursorOptions,
			 ParamListInfo boundParams)
{
	if (cfpg_pf_next_planner)
		return cfpg_pf_next_planner(parse, query_string, cursorOptions, boundParams);
	return standard_planner(parse, query_string, cursorOptions, boundParams);
}

PlannedStmt *
cfpg_pf_plan_capturing(List *capture, List *adjust, Query *parse, const char *query_string,
					   int cursorOptions, ParamListInfo boundParams)
{
	List	   *saved = cfpg_pf_capture_get();
	List	   *saved_adj = cfpg_pf_adjust_get();
	PlannedStmt *volatile result = NULL;

	cfpg_pf_capture_set(capture);
	cfpg_pf_adjust_set(adjust);
	PG_TRY();
	{
		result = cfpg_pf_plan(parse, query_string, cursorOptions, boundParams);
	}
	PG_FINALLY();
	{
		cfpg_pf_capture_set(saved);
		cfpg_pf_adjust_set(saved_adj);
	}
	PG_END_TRY();
	return result;
}

/*
 * Plans the query with the filters; should that raise an error (a planner
 * hook after ours that cannot plan the filter's subquery), returns NULL: the
 * caller uses the plan of the query as written, the setting adds no error.
 * A cancel is raised.
 */
PlannedStmt *
cfpg_pf_plan_or_null(List *adjust, Query *rewritten, const char *query_string,
					 int cursorOptions, ParamListInfo boundParams)
{
	MemoryContext mcxt = CurrentMemoryContext;
	ResourceOwner owner = CurrentResourceOwner;
	PlannedStmt *volatile result = NULL;

	if (IsInParallelMode())		/* no subtransaction there: plan it as it is */
		return cfpg_pf_plan_capturing(NIL, adjust, rewritten, query_string, cursorOptions,
									  boundParams);
	BeginInternalSubTransaction(NULL);
	MemoryContextSwitchTo(mcxt);
	PG_TRY();
	{
		result = cfpg_pf_plan_capturing(NIL, adjust, rewritten, query_string, cursorOptions,
										boundParams);
		ReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(mcxt);
		CurrentResourceOwner = owner;
	}
	PG_CATCH();
	{
		ErrorData  *edata;

		MemoryContextSwitchTo(mcxt);
		edata = CopyErrorData();
		if (edata->sqlerrcode == ERRCODE_QUERY_CANCELED)
			PG_RE_THROW();
		FlushErrorState();
		RollbackAndReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(mcxt);
		CurrentResourceOwner = owner;
		ereport(cfpg_prefilter_msglevel,
				(errmsg_internal(PF_MSG ": declined: planning with the filter failed, planned as written"),
				 errdetail_internal("%s", edata->message)));
		FreeErrorData(edata);
		result = NULL;
	}
	PG_END_TRY();
	return result;
}

/*
 * Puts c's condition qual into its level of the copy (levels: the copy's,
 * taken before any splice: cfpg_pf_levels walks the query and its copy
 * alike); false (*why set) if it cannot go there.
 */
bool
cfpg_pf_splice(List *levels, PfCand *c, Node *qual, const char **why)
{
	Query	   *target = (Query *) list_nth(levels, c->qlevel);

	if (c->citus)
	{
		/* in a derived table around B: cuckoo_prefilter_citus.c */
		if (!cfpg_pf_citus_wrap(target, c, qual, why))
			return false;
	}
	else if (c->kind == PF_NULLABLE)
	{
		JoinExpr   *j = cfpg_pf_find_join((Node *) target->jointree, c->join_rtindex);

		Assert(j != NULL);
		if (j == NULL)
		{
			*why = "its outer join is not in the query";
			return false;
		}
		j->quals = make_and_qual(j->quals, qual);
	}
	else
		target->jointree->quals = make_and_qual(target->jointree->quals, qual);
	if (c->citus == NULL)
		target->hasSubLinks = true;
	return true;
}

/* ---- one filter for several joins ---- */

bool
cfpg_pf_same_filter(const PfCand *c, const PfCand *o)
{
	return c->filter_sl != NULL && o->filter_sl != NULL &&
		c->citus == NULL && o->citus == NULL && c->qlevel == o->qlevel &&
		c->s.relid == o->s.relid && c->s.attno == o->s.attno &&
		c->s.rti == o->s.rti && c->s_rte->inh == o->s_rte->inh &&
		c->s.type == o->s.type && c->s.coll == o->s.coll &&
		c->filter_type == o->filter_type &&
		equal(c->s_rte->securityQuals, o->s_rte->securityQuals) &&
		equal(c->s_quals, o->s_quals);
}

/* SELECT f FROM <cte>: the filter, read from the WITH query one level up */
static Query *
cfpg_pf_cte_query(CommonTableExpr *cte, Oid cftype)
{
	Query	   *q = makeNode(Query);
	RangeTblEntry *rte = makeNode(RangeTblEntry);
	RangeTblRef *ref = makeNode(RangeTblRef);

	ref->rtindex = 1;
	rte->rtekind = RTE_CTE;
	rte->ctename = cte->ctename;
	rte->ctelevelsup = 1;
	rte->self_reference = false;
	rte->coltypes = list_make1_oid(cftype);
	rte->coltypmods = list_make1_int(-1);
	rte->colcollations = list_make1_oid(InvalidOid);
	rte->eref = makeAlias(cte->ctename, list_make1(makeString(pstrdup("f"))));
	rte->inFromCl = true;
	q->commandType = CMD_SELECT;
	q->querySource = QSRC_ORIGINAL;
	q->canSetTag = true;
	q->rtable = list_make1(rte);
	q->jointree = makeFromExpr(list_make1(ref), NULL);
	q->targetList = list_make1(makeTargetEntry((Expr *) makeVar(1, 1, cftype, -1, InvalidOid, 0),
											   1, pstrdup("f"), false));
	cte->cterefcount++;
	return q;
}

/*
 * c builds the filter o builds (o spliced before it, at the same level):
 * the filter's query becomes a MATERIALIZED WITH query of their level, run
 * once, and each filter's sublink reads it (SELECT f FROM it).
 */
void
cfpg_pf_share(List *levels, PfCand *o, PfCand *c, int *ncte)
{
	Query	   *target = (Query *) list_nth(levels, c->qlevel);
	CommonTableExpr *cte = NULL;
	ListCell   *lc;

	if (o->shared_cte > 0)
	{
		char	   *name = psprintf("cuckoo_prefilter_%d", o->shared_cte);

		foreach(lc, target->cteList)
			if (strcmp(((CommonTableExpr *) lfirst(lc))->ctename, name) == 0)
				cte = lfirst(lc);
	}
	if (cte == NULL)
	{
		cte = makeNode(CommonTableExpr);
		o->shared_cte = ++(*ncte);
		cte->ctename = psprintf("cuckoo_prefilter_%d", o->shared_cte);
		cte->aliascolnames = NIL;
		cte->ctematerialized = CTEMaterializeAlways;
		cte->ctequery = o->filter_sl->subselect;
		cte->location = -1;
		cte->cterecursive = false;
		cte->cterefcount = 0;
		cte->ctecolnames = list_make1(makeString(pstrdup("f")));
		cte->ctecoltypes = list_make1_oid(o->filter_type);
		cte->ctecoltypmods = list_make1_int(-1);
		cte->ctecolcollations = list_make1_oid(InvalidOid);
		target->cteList = lappend(target->cteList, cte);
		o->filter_sl->subselect = (Node *) cfpg_pf_cte_query(cte, o->filter_type);
	}
	c->shared_cte = o->shared_cte;
	c->filter_sl->subselect = (Node *) cfpg_pf_cte_query(cte, c->filter_type);
}

/* ---- what the plan with the filters shows ---- */

typedef struct PfPlanWalk
{
	PlannedStmt *stmt;
	List	   *applied;
	Oid			scan_relid;		/* the relation of the scan whose qual is walked */
	Index		scanrelid;		/* ... its range table index */
	List	   *bad;			/* candidates on a parameterized inner scan */
} PfPlanWalk;

/*
 * An applied candidate's probe in the qual of a scan of its relation (the
 * key matched where the qual names it by the scan's range table index; an
 * index-only scan's qual names the index's columns)
 */
static bool
cfpg_pf_probe_walker(Node *n, PfPlanWalk *w)
{
	if (n == NULL)
		return false;
	if (IsA(n, OpExpr) && list_length(((OpExpr *) n)->args) == 2 &&
		IsA(linitial(((OpExpr *) n)->args), Param))
	{
		OpExpr	   *op = (OpExpr *) n;
		Node	   *v = lsecond(op->args);
		ListCell   *lc;

		while (v && IsA(v, RelabelType))
			v = (Node *) ((RelabelType *) v)->arg;
		if (v && IsA(v, Var))
		{
			foreach(lc, w->applied)
			{
				PfCand	   *c = lfirst(lc);

				if (c->probe_op == op->opno && c->b.relid == w->scan_relid &&
					(((Var *) v)->varno != (int) w->scanrelid ||
					 c->b.attno == ((Var *) v)->varattno))
					w->bad = list_append_unique_ptr(w->bad, c);
			}
		}
	}
	return expression_tree_walker(n, cfpg_pf_probe_walker, w);
}

static void
cfpg_pf_walk_plan(Plan *p, bool param_inner, PfPlanWalk *w)
{
	ListCell   *lc;
	List	   *kids = NIL;

	if (p == NULL)
		return;
	if (param_inner)
	{
		switch (nodeTag(p))
		{
			case T_SeqScan:
			case T_SampleScan:
			case T_IndexScan:
			case T_IndexOnlyScan:
			case T_BitmapHeapScan:
			case T_TidScan:
			case T_ForeignScan:
				w->scanrelid = ((Scan *) p)->scanrelid;
				w->scan_relid = w->scanrelid >= 1 &&
					w->scanrelid <= (Index) list_length(w->stmt->rtable) ?
					rt_fetch(w->scanrelid, w->stmt->rtable)->relid : InvalidOid;
				if (OidIsValid(w->scan_relid))
					(void) cfpg_pf_probe_walker((Node *) p->qual, w);
				break;
			default:
				break;
		}
	}
	switch (nodeTag(p))
	{
		case T_NestLoop:
			cfpg_pf_walk_plan(p->lefttree, param_inner, w);
			cfpg_pf_walk_plan(p->righttree,
							  param_inner || ((NestLoop *) p)->nestParams != NIL, w);
			return;
		case T_Append:
			kids = ((Append *) p)->appendplans;
			break;
		case T_MergeAppend:
			kids = ((MergeAppend *) p)->mergeplans;
			break;
		case T_BitmapAnd:
			kids = ((BitmapAnd *) p)->bitmapplans;
			break;
		case T_BitmapOr:
			kids = ((BitmapOr *) p)->bitmapplans;
			break;
		case T_SubqueryScan:
			cfpg_pf_walk_plan(((SubqueryScan *) p)->subplan, param_inner, w);
			break;
		case T_CustomScan:
			kids = ((CustomScan *) p)->custom_plans;
			break;
		default:
			break;
	}
	foreach(lc, kids)
		cfpg_pf_walk_plan(lfirst(lc), param_inner, w);
	cfpg_pf_walk_plan(p->lefttree, param_inner, w);
	cfpg_pf_walk_plan(p->righttree, param_inner, w);
}

/*
 * The facts of the plan with the filters (with) against the plan as written
 * (first): their costs (an InitPlan's is in its plan's), and the applied
 * candidates whose probe landed on a nested loop's parameterized inner
 * side (*bad).
 */
void
cfpg_pf_plan_facts(PlannedStmt *first, PlannedStmt *with, List *applied,
				   PfPlanFacts *pf, List **bad)
{
	PfPlanWalk	w;
	ListCell   *lc;

	w.stmt = with;
	w.applied = applied;
	w.bad = NIL;
	cfpg_pf_walk_plan(with->planTree, false, &w);
	foreach(lc, with->subplans)
		cfpg_pf_walk_plan(lfirst(lc), false, &w);
	pf->cost_without = first->planTree->total_cost;
	pf->cost_with = with->planTree->total_cost;
	pf->on_param_inner = w.bad != NIL;
	*bad = w.bad;
}
