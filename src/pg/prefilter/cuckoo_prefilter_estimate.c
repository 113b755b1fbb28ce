/*
 * cuckoo_prefilter_estimate.c - the query-level join pre-filter's estimates
 * (docs/prefilter.md): the facts the decision (cuckoo_prefilter_decide.c)
 * reads.
 *
 * Before the first planning, a candidate whose filter keeps no condition of
 * its small side S is estimated from pg_class and pg_statistic alone (and
 * declined there if these suffice).  During the first planning, the query
 * planned as written, a set_rel_pathlist_hook notes each candidate side's
 * estimated rows and its key's distinct values.  S's rows are those of the
 * conditions the filter keeps: the planner's also count restrictions it
 * derived (from OR conditions across tables, for one) that the filter does
 * not apply.  During the second planning, the query with the filters, the
 * same hook brings the filtered side's rows to the decision's estimate (the
 * restriction estimator of @> knows nothing of a filter not yet built), so
 * that the two plans' costs compare.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/pg_class.h"
#include "catalog/pg_statistic.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/paths.h"
#include "rewrite/rewriteManip.h"
#include "utils/lsyscache.h"
#include "utils/selfuncs.h"
#include "utils/syscache.h"

#include "cuckoo_prefilter_int.h"

/*
 * The selectivity the restriction estimator of @> gives a filter that is not
 * a constant (cuckoo_selfuncs.c, CF_DEFAULT_SEL): the planner's estimate of
 * the filtered side's rows in the second planning.
 */
#define PF_CONTAINS_DEFAULT_SEL 0.3333333333

static set_rel_pathlist_hook_type cfpg_pf_prev_relhook = NULL;

/* the candidates of the planning under way (NIL: capture nothing) */
static List *cfpg_pf_capture = NIL;

/* the candidates applied in the planning under way (NIL: adjust nothing) */
static List *cfpg_pf_adjust = NIL;

void
cfpg_pf_capture_set(List *cands)
{
	cfpg_pf_capture = cands;
}

List *
cfpg_pf_capture_get(void)
{
	return cfpg_pf_capture;
}

void
cfpg_pf_adjust_set(List *cands)
{
	cfpg_pf_adjust = cands;
}

List *
cfpg_pf_adjust_get(void)
{
	return cfpg_pf_adjust;
}

/* ---- the estimates of the first planning ---- */

static void
cfpg_pf_capture_side(PlannerInfo *root, RelOptInfo *rel, Index rti,
					 RangeTblEntry *rte, PfSide *sd, List *quals, bool is_s)
{
	bool		exact = sd->rte != NULL && sd->rte == rte;
	Var		   *v;
	VariableStatData vd;

	if (!exact &&
		(sd->exact || rte->relid != sd->relid || strcmp(rte->eref->aliasname, sd->alias) != 0 ||
		 (sd->seen && sd->rows >= rel->rows)))
		return;
	sd->seen = true;
	sd->exact = exact;
	sd->inh = rte->inh;
	sd->rows = rel->rows;
	sd->tuples = rel->tuples;
	sd->pages = rel->pages;
	if (is_s)
	{
		/*
		 * The filter's rows are those of the conditions it keeps: the
		 * planner's rows also count the conditions left out and the
		 * restrictions it derived (from OR conditions across tables, from
		 * equivalences), which the filter does not apply.
		 */
		List	   *kept = copyObject(quals);
		Selectivity sel;

		ChangeVarNodes((Node *) kept, (int) sd->rti, (int) rti, 0);
		sel = kept ? clauselist_selectivity(root, kept, 0, JOIN_INNER, NULL) : 1.0;
		sd->rows = Max(sd->rows, clamp_row_est(sel * rel->tuples));
	}
	v = makeVar((int) rti, sd->attno, sd->type, sd->typmod, sd->coll, 0);
	examine_variable(root, (Node *) v, 0, &vd);
	sd->nd = get_variable_numdistinct(&vd, &sd->nd_default);
	ReleaseVariableStats(vd);
}

/* ---- the second planning: the filtered side's rows as the decision has them ---- */

/* Is clause an applied candidate's probe of this relation?  Its candidate, or NULL. */
static PfCand *
cfpg_pf_probe_of(Node *clause, RangeTblEntry *rte)
{
	OpExpr	   *op;
	Node	   *v;
	ListCell   *lc;

	if (!IsA(clause, OpExpr) || list_length(((OpExpr *) clause)->args) != 2)
		return NULL;
	op = (OpExpr *) clause;
	if (!IsA(linitial(op->args), Param))
		return NULL;
	v = lsecond(op->args);
	while (v && IsA(v, RelabelType))
		v = (Node *) ((RelabelType *) v)->arg;
	if (!v || !IsA(v, Var))
		return NULL;
	foreach(lc, cfpg_pf_adjust)
	{
		PfCand	   *c = lfirst(lc);

		if (c->apply && c->citus == NULL && c->probe_op == op->opno &&
			c->b.relid == rte->relid && c->b.attno == ((Var *) v)->varattno)
			return c;
	}
	return NULL;
}

static void
cfpg_pf_adjust_rel(RelOptInfo *rel, RangeTblEntry *rte)
{
	double		factor = 1.0;
	ListCell   *lc;

	foreach(lc, rel->baserestrictinfo)
	{
		RestrictInfo *ri = lfirst(lc);
		PfCand	   *c = cfpg_pf_probe_of((Node *) ri->clause, rte);

		if (c != NULL)
			factor *= Min(1.0, (1.0 - c->removed) / PF_CONTAINS_DEFAULT_SEL);
	}
	if (factor >= 1.0)
		return;
	rel->rows = clamp_row_est(rel->rows * factor);
	foreach(lc, rel->pathlist)
	{
		Path	   *p = lfirst(lc);

		p->rows = clamp_row_est(p->rows * factor);
	}
	foreach(lc, rel->partial_pathlist)
	{
		Path	   *p = lfirst(lc);

		p->rows = clamp_row_est(p->rows * factor);
	}
	foreach(lc, rel->ppilist)
	{
		ParamPathInfo *ppi = lfirst(lc);

		ppi->ppi_rows = clamp_row_est(ppi->ppi_rows * factor);
	}
}

static void
cfpg_pf_relhook(PlannerInfo *root, RelOptInfo *rel, Index rti, RangeTblEntry *rte)
{
	ListCell   *lc;

	if (cfpg_pf_prev_relhook)
		cfpg_pf_prev_relhook(root, rel, rti, rte);
	if (rte->rtekind != RTE_RELATION || rel->reloptkind != RELOPT_BASEREL)
		return;
	if (cfpg_pf_adjust != NIL)
		cfpg_pf_adjust_rel(rel, rte);
	foreach(lc, cfpg_pf_capture)
	{
		PfCand	   *c = lfirst(lc);

		cfpg_pf_capture_side(root, rel, rti, rte, &c->b, NIL, false);
		cfpg_pf_capture_side(root, rel, rti, rte, &c->s, c->s_quals, true);
		cfpg_pf_citus_capture(root, rel, rti, rte, c);
	}
}

void
cfpg_pf_estimate_init(void)
{
	cfpg_pf_prev_relhook = set_rel_pathlist_hook;
	set_rel_pathlist_hook = cfpg_pf_relhook;
}

/* ---- the facts ---- */

void
cfpg_pf_facts(PfCand *c, bool limit, PfFacts *f)
{
	memset(f, 0, sizeof(*f));
	f->limit = limit;
	if (c->citus)
	{
		cfpg_pf_citus_facts(c, f);
		f->seen = c->s.seen;
		f->s_rows = c->s.rows;
		return;
	}
	f->where = c->remote ? PF_FDW : PF_LOCAL;
	f->seen = c->b.seen && c->s.seen;
	f->b_rows = c->b.rows;
	f->s_rows = c->s.rows;
	f->s_tuples = c->s.tuples;
	f->s_pages = c->s.pages;
	f->b_nd = c->b.nd;
	f->s_nd = c->s.nd;
	f->nd_default = c->b.nd_default || c->s.nd_default;
	f->s_in = 1.0;
	f->b_in = 1.0;
	f->ranges_known = false;
	/* the catalog, only where the rest would apply: set by the caller */
	f->s_rescan_same = true;
}

PfVerdict
cfpg_pf_decide_cand(PfCand *c, PfFacts *f, double *removed, const char **why)
{
	PfVerdict	v = cfpg_pf_decide(f, &cfpg_pf_set, removed, why);

	if (v == PF_NEED_RANGES)
	{
		cfpg_pf_clip(c, &f->s_in, &f->b_in);
		f->ranges_known = true;
		v = cfpg_pf_decide(f, &cfpg_pf_set, removed, why);
	}
	return v;
}

/*
 * A side's estimates from pg_class and pg_statistic alone, for a plain table
 * (no inheritance) without conditions: its rows, pg_class.reltuples (the
 * count of the ANALYZE or VACUUM that made its statistics, where the planner
 * scales it to the table's current size), and its key's distinct values.
 * False: they need the planning.
 */
static bool
cfpg_pf_table_est(PfSide *sd)
{
	HeapTuple	tup;
	Form_pg_class cls;
	double		tuples;
	double		pages;
	double		stadistinct;

	tup = SearchSysCache1(RELOID, ObjectIdGetDatum(sd->relid));
	if (!HeapTupleIsValid(tup))
		return false;
	cls = (Form_pg_class) GETSTRUCT(tup);
	tuples = cls->reltuples;
	pages = cls->relpages;
	if ((cls->relkind != RELKIND_RELATION && cls->relkind != RELKIND_MATVIEW) ||
		cls->relhassubclass || tuples <= 0)
	{
		ReleaseSysCache(tup);
		return false;
	}
	ReleaseSysCache(tup);
	tup = SearchSysCache3(STATRELATTINH, ObjectIdGetDatum(sd->relid),
						  Int16GetDatum(sd->attno), BoolGetDatum(false));
	if (!HeapTupleIsValid(tup))
		return false;
	stadistinct = ((Form_pg_statistic) GETSTRUCT(tup))->stadistinct;
	ReleaseSysCache(tup);
	if (stadistinct == 0.0)
		return false;
	sd->seen = true;
	sd->inh = false;
	sd->tuples = tuples;
	sd->pages = pages;
	sd->rows = clamp_row_est(tuples);
	sd->nd = clamp_row_est(stadistinct > 0 ? stadistinct : -stadistinct * tuples);
	sd->nd_default = false;
	return true;
}

/* cfpg_pf_table_est, once per key column of the candidates (seen[], *nseen) */
static bool
cfpg_pf_table_est_once(PfSide *sd, PfSide *seen, bool *seen_ok, int *nseen)
{
	int			i;

	for (i = 0; i < *nseen; i++)
		if (seen[i].relid == sd->relid && seen[i].attno == sd->attno)
			break;
	if (i == *nseen)
	{
		seen[i] = *sd;
		seen_ok[i] = cfpg_pf_table_est(&seen[i]);
		(*nseen)++;
	}
	if (seen_ok[i])
	{
		sd->seen = true;
		sd->inh = false;
		sd->tuples = seen[i].tuples;
		sd->pages = seen[i].pages;
		sd->rows = seen[i].rows;
		sd->nd = seen[i].nd;
		sd->nd_default = false;
	}
	return seen_ok[i];
}

/*
 * Before the first planning: a candidate whose filter keeps no condition of
 * S needs no planning to be declined.  S's rows are its table's, its
 * distinct keys the statistics', and B's rows at most its table's: a
 * decline from these holds for the planner's estimates too.  Returns the
 * candidates left, which the first planning estimates, each with its copy
 * of S's RTE; the others have their reason in c->why.
 */
List *
cfpg_pf_predecide(List *cands, bool limit)
{
	List	   *left = NIL;
	ListCell   *lc;

	PfSide	   *seen = palloc(2 * list_length(cands) * sizeof(PfSide));
	bool	   *seen_ok = palloc(2 * list_length(cands) * sizeof(bool));
	int			nseen = 0;

	foreach(lc, cands)
	{
		PfCand	   *c = lfirst(lc);
		PfCand		t = *c;
		const char *why = NULL;
		PfFacts		f;
		double		removed;

		if (c->citus == NULL && c->s_quals == NIL && c->s_rte->securityQuals == NIL &&
			cfpg_pf_table_est_once(&t.b, seen, seen_ok, &nseen) &&
			cfpg_pf_table_est_once(&t.s, seen, seen_ok, &nseen))
		{
			cfpg_pf_facts(&t, limit, &f);
			if (cfpg_pf_decide_cand(&t, &f, &removed, &why) == PF_DECLINE)
			{
				c->why = why;
				c->removed = removed;
				continue;
			}
		}
		/* the planning changes the query's RTE: the filter's subquery gets a copy */
		c->s_rte = copyObject(c->s_rte);
		c->s_rte->tablesample = NULL;	/* the whole table's keys: a superset */
		left = lappend(left, c);
	}
	return left;
}
