/*
 * cuckoo_prefilter.c - the automatic join pre-filter (docs/prefilter.md).
 *
 * With cuckoo.join_prefilter on, a plain SELECT that joins a big table B to a
 * small one S on b.k = s.k is planned as if the user had written the
 * hand-made pre-filter (README, "Pre-filter a join"):
 *
 *     ... AND (SELECT cf_agg(s.k) FROM S s WHERE <S's own conditions>) @> b.k
 *
 * an uncorrelated scalar sublink, so PostgreSQL makes it an InitPlan run once
 * per execution in the statement's snapshot and pushes the condition into B's
 * scan: a local scan, a postgres_fdw foreign scan's remote SQL (the server's
 * extensions option lists cuckoo), or Citus's worker tasks.
 *
 * Where it may apply: cuckoo_prefilter_find.c, which finds the candidates.
 * This file holds the settings, the hooks, the estimates, the decision and
 * the rewrite.
 *
 * When: the query is planned once as written while a set_rel_pathlist_hook
 * notes each candidate relation's estimated rows and its key's distinct
 * values; the candidates the thresholds accept are added to a copy of the
 * query taken before that planning, which is planned again (in a subtransaction: should
 * that fail, the plan as written is used).  Queries without a syntactic
 * candidate pay one walk of their join tree.
 */
#include "postgres.h"

#include <math.h>

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/stratnum.h"
#include "access/table.h"
#include "access/transam.h"
#include "access/xact.h"
#include "catalog/indexing.h"
#include "catalog/pg_aggregate.h"
#include "catalog/pg_class.h"
#include "catalog/pg_extension.h"
#include "catalog/pg_foreign_table.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_statistic.h"
#include "catalog/pg_type.h"
#include "catalog/pg_inherits.h"
#include "commands/extension.h"
#include "foreign/foreign.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/clauses.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/paths.h"
#include "optimizer/plancat.h"
#include "optimizer/planner.h"
#include "parser/parse_func.h"
#include "parser/parse_oper.h"
#include "parser/parsetree.h"
#include "rewrite/rewriteManip.h"
#include "utils/fmgroids.h"
#include "utils/guc.h"
#include "utils/hsearch.h"
#include "utils/inval.h"
#include "utils/acl.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/resowner.h"
#include "utils/rls.h"
#include "utils/selfuncs.h"
#include "utils/syscache.h"
#include "utils/typcache.h"
#if PG_VERSION_NUM >= 160000
#include "parser/parse_relation.h"
#endif

#include "cuckoo_prefilter.h"
#include "cuckoo_prefilter_int.h"

/* ---- settings (docs/prefilter.md) ---- */

static bool cfpg_prefilter_on = false;
double		cfpg_prefilter_min_big_rows = 100000.0;
static double cfpg_prefilter_max_small_rows = 10000000.0;
static double cfpg_prefilter_min_removed = 0.5;
static double cfpg_prefilter_max_small_ratio = 0.5;
int			cfpg_prefilter_msglevel = DEBUG1;
int			cfpg_prefilter_max_array_keys = 1000;

static const struct config_enum_entry cfpg_prefilter_msglevels[] = {
	{"debug1", DEBUG1, false},
	{"log", LOG, false},
	{"notice", NOTICE, false},
	{NULL, 0, false}
};

/* the false-positive rate of cf_agg's filters, counted as rows kept */
#define PF_FPR 0.01

static planner_hook_type cfpg_prefilter_prev_planner = NULL;
static set_rel_pathlist_hook_type cfpg_prefilter_prev_relhook = NULL;

/* the candidates of the planning under way (NULL: capture nothing) */
static List *cfpg_pf_capture = NULL;

/* ---- the estimates of the first planning ---- */

static void
cfpg_pf_capture_side(PlannerInfo *root, RelOptInfo *rel, Index rti,
				RangeTblEntry *rte, PfSide *sd, List *quals, bool all_quals)
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
	if (!all_quals)
	{
		/*
		 * Conditions of S left out of the filter: the planner's rows count
		 * them, the filter does not; the rows of the conditions it keeps.
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

static void
cfpg_pf_relhook(PlannerInfo *root, RelOptInfo *rel, Index rti, RangeTblEntry *rte)
{
	ListCell   *lc;

	if (cfpg_prefilter_prev_relhook)
		cfpg_prefilter_prev_relhook(root, rel, rti, rte);
	if (cfpg_pf_capture == NIL || rte->rtekind != RTE_RELATION ||
		rel->reloptkind != RELOPT_BASEREL)
		return;
	foreach(lc, cfpg_pf_capture)
	{
		PfCand	   *c = lfirst(lc);

		cfpg_pf_capture_side(root, rel, rti, rte, &c->b, NIL, true);
		cfpg_pf_capture_side(root, rel, rti, rte, &c->s, c->s_quals, c->s_dropped == 0);
		cfpg_pf_citus_capture(root, rel, rti, rte, c);
	}
}

/* Is c worth it?  Else *why says why not. */
static bool
cfpg_pf_decide(PfCand *c, const char **why)
{
	double		kept;
	double		sel;
	double		nds;
	double		s_in;
	double		b_in;

	if (c->citus)				/* a Citus distributed side: its own rule */
		return cfpg_pf_citus_decide(c, PF_FPR, cfpg_prefilter_min_removed,
									cfpg_prefilter_max_small_rows, why);
	if (!c->b.seen || !c->s.seen)
	{
		*why = "no estimate (a relation the planner removed)";
		return false;
	}

	if (c->b.rows < cfpg_prefilter_min_big_rows)
	{
		*why = "the filtered side is estimated below cuckoo.join_prefilter_min_big_rows";
		return false;
	}
	if (cfpg_prefilter_max_small_rows >= 0 && c->s.rows > cfpg_prefilter_max_small_rows)
	{
		*why = "the filter's side is estimated above cuckoo.join_prefilter_max_small_rows";
		return false;
	}
	if (cfpg_prefilter_max_small_ratio >= 0 &&
		c->s.rows > cfpg_prefilter_max_small_ratio * c->b.rows)
	{
		*why = "the filter's side is estimated above cuckoo.join_prefilter_max_small_ratio of the filtered side";
		return false;
	}
	/* the fraction of S's rows its conditions keep */
	sel = c->s.tuples > 0 ? Min(1.0, c->s.rows / c->s.tuples) : 1.0;
	if (c->b.nd_default || c->s.nd_default || c->s.nd <= 0 || c->b.nd <= 0)
		kept = sel;				/* no statistics: as if every key matched */
	else
	{
		/* distinct keys among S's rows that pass (as estimate_num_groups) */
		nds = c->s.nd;
		if (c->s.tuples > 0 && sel < 1.0)
			nds = c->s.nd * (1.0 - pow(1.0 - sel, c->s.tuples / c->s.nd));
		nds = Min(nds, c->s.rows);
		/* S's keys outside B's range match nothing; B's outside S's neither */
		cfpg_pf_clip(c, &s_in, &b_in);
		kept = Min(1.0, Min(nds * s_in / c->b.nd, b_in));
	}
	kept = Min(1.0, kept + PF_FPR);
	c->removed = 1.0 - kept;
	if (c->removed < cfpg_prefilter_min_removed)
	{
		*why = "the expected fraction removed is below cuckoo.join_prefilter_min_removed";
		return false;
	}
	return true;
}

static void
cfpg_pf_declined(PfCand *c, const char *why)
{
	ereport(cfpg_prefilter_msglevel,
			(errmsg_internal(PF_MSG ": declined %s.%s from %s.%s (%s): %s",
							 c->b.alias, cfpg_pf_attname(c->b.relid, c->b.attno),
							 c->s.alias, cfpg_pf_attname(c->s.relid, c->s.attno),
							 cfpg_pf_kind_names[c->kind], why)));
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
	double		stadistinct;

	tup = SearchSysCache1(RELOID, ObjectIdGetDatum(sd->relid));
	if (!HeapTupleIsValid(tup))
		return false;
	cls = (Form_pg_class) GETSTRUCT(tup);
	tuples = cls->reltuples;
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
 * of S's RTE.
 */
static List *
cfpg_pf_predecide(List *cands)
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

		if (c->citus == NULL && c->s_quals == NIL && c->s_rte->securityQuals == NIL &&
			cfpg_pf_table_est_once(&t.b, seen, seen_ok, &nseen) &&
			cfpg_pf_table_est_once(&t.s, seen, seen_ok, &nseen) &&
			!cfpg_pf_decide(&t, &why))
		{
			cfpg_pf_declined(c, why);
			continue;
		}
		/* the planning changes the query's RTE: the filter's subquery gets a copy */
		c->s_rte = copyObject(c->s_rte);
		c->s_rte->tablesample = NULL;	/* the whole table's keys: a superset */
		left = lappend(left, c);
	}
	return left;
}

/* ---- the filter's condition ---- */

/* the schema of the installed extension, or InvalidOid */
static Oid
cfpg_pf_ext_schema(void)
{
	Oid			ext = get_extension_oid("cuckoo", true);
	Oid			nsp = InvalidOid;
	Relation	rel;
	ScanKeyData key;
	SysScanDesc scan;
	HeapTuple	tup;

	if (!OidIsValid(ext))
		return InvalidOid;
	rel = table_open(ExtensionRelationId, AccessShareLock);
	ScanKeyInit(&key, Anum_pg_extension_oid, BTEqualStrategyNumber, F_OIDEQ,
				ObjectIdGetDatum(ext));
	scan = systable_beginscan(rel, ExtensionOidIndexId, true, NULL, 1, &key);
	tup = systable_getnext(scan);
	if (HeapTupleIsValid(tup))
		nsp = ((Form_pg_extension) GETSTRUCT(tup))->extnamespace;
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	return nsp;
}

/*
 * (SELECT cf_agg(s.k) FROM S s WHERE <S's usable conditions>) @> b.k, or
 * NULL (*why set) if the extension's objects are not there.
 */
static Node *
cfpg_pf_filter_qual(PfCand *c, Oid nsp, const char **why)
{
	char	   *nspname = get_namespace_name(nsp);
	Oid			cftype;
	Oid			aggfn;
	Oid			opno;
	Oid			argtype;
	Query	   *sq;
	Var		   *sv;
	Var		   *bv;
	Aggref	   *agg;
	SubLink    *sl;
	Oid			probetype;
	Expr	   *probe;
	OpExpr	   *op;

	cftype = GetSysCacheOid2(TYPENAMENSP, Anum_pg_type_oid,
							 CStringGetDatum("cuckoofilter"), ObjectIdGetDatum(nsp));
	argtype = c->s.type;
	aggfn = LookupFuncName(list_make2(makeString(nspname), makeString("cf_agg")),
						   1, &argtype, true);
	if (!OidIsValid(aggfn))
	{
		argtype = ANYELEMENTOID;
		aggfn = LookupFuncName(list_make2(makeString(nspname), makeString("cf_agg")),
							   1, &argtype, true);
	}
	probetype = getBaseType(c->b.type) == TEXTOID ? TEXTOID : ANYELEMENTOID;
	opno = OidIsValid(cftype) ?
		LookupOperName(NULL, list_make2(makeString(nspname), makeString("@>")),
					   cftype, probetype, true, -1) : InvalidOid;
	if (!OidIsValid(cftype) || !OidIsValid(aggfn) || !OidIsValid(opno) ||
		get_func_prokind(aggfn) != PROKIND_AGGREGATE)
	{
		*why = "the extension cuckoo is not installed in this database";
		return NULL;
	}

	/* the subquery, S renumbered 1 */
	sv = makeVar((int) c->s.rti, c->s.attno, c->s.type, c->s.typmod, c->s.coll, 0);
	sq = cfpg_pf_s_query(c, (Expr *) sv, "cf_agg");

	agg = makeNode(Aggref);
	agg->aggfnoid = aggfn;
	agg->aggtype = cftype;
	agg->aggcollid = InvalidOid;
	agg->inputcollid = c->s.coll;
	agg->aggtranstype = InvalidOid;	/* the planner fills it */
	agg->aggargtypes = list_make1_oid(c->s.type);
	agg->aggdirectargs = NIL;
	agg->args = list_make1(makeTargetEntry((Expr *) sv, 1, NULL, false));
	agg->aggorder = NIL;
	agg->aggdistinct = NIL;
	agg->aggfilter = NULL;
	agg->aggstar = false;
	agg->aggvariadic = false;
	agg->aggkind = AGGKIND_NORMAL;
	agg->agglevelsup = 0;
	agg->aggsplit = AGGSPLIT_SIMPLE;
	agg->aggno = -1;
	agg->aggtransno = -1;
	agg->location = -1;
	linitial_node(TargetEntry, sq->targetList)->expr = (Expr *) agg;
	sq->hasAggs = true;

	sl = cfpg_pf_make_sublink(EXPR_SUBLINK, sq);

	bv = makeVar((int) c->b.rti, c->b.attno, c->b.type, c->b.typmod, c->b.coll, 0);
	probe = (Expr *) bv;
	if (probetype == TEXTOID && c->b.type != TEXTOID)
		probe = (Expr *) makeRelabelType(probe, TEXTOID, -1, c->b.coll, COERCE_IMPLICIT_CAST);
	op = (OpExpr *) make_opclause(opno, BOOLOID, false, (Expr *) sl, probe,
								  InvalidOid, c->b.coll);
	/* as the parser leaves it: a hook after this one (Citus) may evaluate it */
	op->opfuncid = get_opcode(opno);
	return (Node *) op;
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
	if (cfpg_prefilter_prev_planner)
		return cfpg_prefilter_prev_planner(parse, query_string, cursorOptions, boundParams);
	return standard_planner(parse, query_string, cursorOptions, boundParams);
}

/* cfpg_pf_plan with capture set to capture (NIL: none), restored after */
static PlannedStmt *
cfpg_pf_plan_capturing(List *capture, Query *parse, const char *query_string,
				  int cursorOptions, ParamListInfo boundParams)
{
	List	   *saved = cfpg_pf_capture;
	PlannedStmt *result;

	cfpg_pf_capture = capture;
	PG_TRY();
	{
		result = cfpg_pf_plan(parse, query_string, cursorOptions, boundParams);
	}
	PG_FINALLY();
	{
		cfpg_pf_capture = saved;
	}
	PG_END_TRY();
	return result;
}

/*
 * Plans the query with the filters; should that raise an error (a planner
 * hook after ours that cannot plan the filter's subquery), returns the plan
 * of the query as written: the setting adds no error.  A cancel is raised.
 */
static PlannedStmt *
cfpg_pf_plan_or(PlannedStmt *first, Query *rewritten, const char *query_string,
		   int cursorOptions, ParamListInfo boundParams)
{
	MemoryContext mcxt = CurrentMemoryContext;
	ResourceOwner owner = CurrentResourceOwner;
	PlannedStmt *volatile result = first;

	if (IsInParallelMode())		/* no subtransaction there: plan it as it is */
		return cfpg_pf_plan_capturing(NIL, rewritten, query_string, cursorOptions, boundParams);
	BeginInternalSubTransaction(NULL);
	MemoryContextSwitchTo(mcxt);
	PG_TRY();
	{
		result = cfpg_pf_plan_capturing(NIL, rewritten, query_string, cursorOptions, boundParams);
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
		result = first;
	}
	PG_END_TRY();
	return result;
}

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

static PlannedStmt *
cfpg_pf_planner(Query *parse, const char *query_string, int cursorOptions,
		   ParamListInfo boundParams)
{
	List	   *cands;
	Query	   *pristine;
	List	   *levels = NIL;
	PlannedStmt *first;
	ListCell   *lc;
	Oid			nsp = InvalidOid;
	bool		any = false;

	if (!cfpg_prefilter_on || parse->utilityStmt != NULL)
		return cfpg_pf_plan_capturing(NIL, parse, query_string, cursorOptions, boundParams);
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
		return cfpg_pf_plan_capturing(NIL, parse, query_string, cursorOptions, boundParams);
	}
	if (parse->jointree == NULL ||
		(list_length(parse->rtable) < 2 && !parse->hasSubLinks && parse->cteList == NIL &&
		 (parse->rtable == NIL ||
		  ((RangeTblEntry *) linitial(parse->rtable))->rtekind != RTE_SUBQUERY)))
		return cfpg_pf_plan_capturing(NIL, parse, query_string, cursorOptions, boundParams);

	cfpg_pf_citus_reset();
	cands = cfpg_pf_find(parse);
	if (cands == NIL)
		return cfpg_pf_plan_capturing(NIL, parse, query_string, cursorOptions, boundParams);
	/* a lower level's FOR UPDATE: only a query with lower levels has one */
	if ((parse->hasSubLinks || parse->cteList != NIL || cfpg_pf_has_subquery(parse)) &&
		cfpg_pf_locks_rows((Node *) parse, NULL))
	{
		ereport(cfpg_prefilter_msglevel,
				(errmsg_internal(PF_MSG ": declined: FOR UPDATE / SHARE (rechecked rows could be newer than the filter)")));
		return cfpg_pf_plan_capturing(NIL, parse, query_string, cursorOptions, boundParams);
	}
	cands = cfpg_pf_predecide(cands);
	if (cands == NIL)
		return cfpg_pf_plan_capturing(NIL, parse, query_string, cursorOptions, boundParams);
	pristine = copyObject(parse);
	cfpg_pf_levels(pristine, &levels);
	first = cfpg_pf_plan_capturing(cands, parse, query_string, cursorOptions, boundParams);

	/* decide; at most one filter per filtered relation, the best one */
	foreach(lc, cands)
	{
		PfCand	   *c = lfirst(lc);
		const char *why = NULL;
		ListCell   *lc2;

		if (!cfpg_pf_decide(c, &why))
		{
			cfpg_pf_declined(c, why);
			continue;
		}
		if (!cfpg_pf_rescan_same(c->s.relid, c->s_rte->inh))
		{
			cfpg_pf_declined(c, "the filter's side is a foreign table of another wrapper than postgres_fdw");
			continue;
		}
		c->apply = true;
		foreach(lc2, cands)
		{
			PfCand	   *o = lfirst(lc2);

			if (o == c)
				break;
			if (o->apply && o->qlevel == c->qlevel && o->b.rti == c->b.rti &&
				o->join_rtindex == c->join_rtindex)
			{
				if (o->removed >= c->removed)
					c->apply = false;
				else
					o->apply = false;
			}
		}
	}
	cfpg_pf_citus_mirrors(cands);
	foreach(lc, cands)
	{
		PfCand	   *c = lfirst(lc);
		Node	   *qual;
		Query	   *target;
		const char *why = NULL;

		if (!c->apply)
			continue;
		if (!OidIsValid(nsp))
			nsp = cfpg_pf_ext_schema();
		if (cfpg_pf_any_fits(c))
			qual = cfpg_pf_any_qual(c);
		else
			qual = OidIsValid(nsp) ? cfpg_pf_filter_qual(c, nsp, &why) : NULL;
		if (qual == NULL)
		{
			ereport(cfpg_prefilter_msglevel,
					(errmsg_internal(PF_MSG ": declined: %s",
									 why ? why : "the extension cuckoo is not installed in this database")));
			break;
		}
		/* the same level of the copy: cfpg_pf_levels walks both alike */
		target = (Query *) list_nth(levels, c->qlevel);
		if (c->citus)
		{
			/* in a derived table around B: cuckoo_prefilter_citus.c */
			if (!cfpg_pf_citus_wrap(target, c, qual, &why))
			{
				cfpg_pf_declined(c, why);
				continue;
			}
		}
		else if (c->kind == PF_NULLABLE)
		{
			JoinExpr   *j = cfpg_pf_find_join((Node *) target->jointree, c->join_rtindex);

			Assert(j != NULL);
			if (j == NULL)
				continue;
			j->quals = make_and_qual(j->quals, qual);
		}
		else
			target->jointree->quals = make_and_qual(target->jointree->quals, qual);
		if (c->citus == NULL)
			target->hasSubLinks = true;
		any = true;
		ereport(cfpg_prefilter_msglevel,
				(errmsg_internal(PF_MSG ": %s on %s.%s from %s.%s (%s)%s%s",
								 IsA(qual, BoolExpr) ? "= ANY (keys)" : "filter",
								 c->b.alias, cfpg_pf_attname(c->b.relid, c->b.attno),
								 c->s.alias, cfpg_pf_attname(c->s.relid, c->s.attno),
								 cfpg_pf_kind_names[c->kind],
								 c->s_dropped ? ", some of its conditions left out" : "",
								 c->citus ? ", in a derived table around a Citus distributed table" : ""),
				 errdetail_internal("Estimated rows: %.0f filtered, %.0f in the filter; %.0f%% expected to be removed.",
									c->b.rows, c->s.rows, c->removed * 100.0)));
	}
	if (!any)
		return first;
	return cfpg_pf_plan_or(first, pristine, query_string, cursorOptions, boundParams);
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
	DefineCustomRealVariable("cuckoo.join_prefilter_min_big_rows",
							 "Fewest estimated rows of the side a join pre-filter filters.",
							 NULL, &cfpg_prefilter_min_big_rows, 100000.0, 0.0, 1e15,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomRealVariable("cuckoo.join_prefilter_max_small_rows",
							 "Most estimated rows of the side a join pre-filter is built from.",
							 "-1: no limit.", &cfpg_prefilter_max_small_rows, 10000000.0, -1.0, 1e15,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomRealVariable("cuckoo.join_prefilter_min_removed",
							 "Smallest expected fraction of rows a join pre-filter removes.",
							 NULL, &cfpg_prefilter_min_removed, 0.5, 0.0, 1.0,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomRealVariable("cuckoo.join_prefilter_max_small_ratio",
							 "Most estimated rows of the side a join pre-filter is built from, as a fraction of the filtered side's.",
							 "-1: no limit.", &cfpg_prefilter_max_small_ratio, 0.5, -1.0, 1e15,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("cuckoo.join_prefilter_max_array_keys",
							"Most estimated rows of the side a join pre-filter is built from for which a foreign table gets = ANY (its keys) instead of a filter.",
							"0: always a filter.", &cfpg_prefilter_max_array_keys, 1000, 0, 100000,
							PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomEnumVariable("cuckoo.join_prefilter_messages",
							 "Level of the messages that say which joins got a pre-filter and why others did not.",
							 NULL, &cfpg_prefilter_msglevel, DEBUG1, cfpg_prefilter_msglevels,
							 PGC_USERSET, 0, NULL, NULL, NULL);

	cfpg_pf_range_init();
	cfpg_pf_find_init();
	cfpg_pf_citus_init();

	cfpg_prefilter_prev_planner = planner_hook;
	planner_hook = cfpg_pf_planner;
	cfpg_prefilter_prev_relhook = set_rel_pathlist_hook;
	set_rel_pathlist_hook = cfpg_pf_relhook;
}
