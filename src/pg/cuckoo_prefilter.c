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
 * Where it may apply (and nowhere else): B and S base relations; an inner
 * join (both reached from the top of the query through inner joins and the
 * preserved sides of outer joins), an IN / EXISTS sublink in such a scope's
 * conditions (a semi join), or the nullable side of a LEFT / RIGHT join (the
 * condition goes into that join's ON clause).  Never a preserved side, a FULL
 * join or an anti join (NOT IN / NOT EXISTS are not top-level conjuncts).  The
 * filter holds a superset of the keys of the S rows that can match: S's
 * conditions are kept only when they reference S alone, are neither volatile
 * nor correlated, call only leakproof functions (which raise no error of
 * their own: the filter's subquery must not add an error the plain query
 * would not raise) and hold no sublink; the others are dropped, which only
 * makes the filter larger.  The keys are plain columns of types the filter
 * hashes alike under the join's equality (the type's btree equality), with
 * deterministic collations, so no probe is refused.
 *
 * When: the query is planned once as written while a set_rel_pathlist_hook
 * notes each candidate relation's estimated rows and its key's distinct
 * values; the candidates the thresholds accept are added to a copy of the
 * query taken before that planning, which is planned again.  Queries without
 * a syntactic candidate pay one walk of their join tree.
 */
#include "postgres.h"

#include <math.h>

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/stratnum.h"
#include "access/table.h"
#include "catalog/indexing.h"
#include "catalog/pg_aggregate.h"
#include "catalog/pg_extension.h"
#include "catalog/pg_foreign_table.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "catalog/pg_inherits.h"
#include "commands/extension.h"
#include "foreign/foreign.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/clauses.h"
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
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/selfuncs.h"
#include "utils/syscache.h"
#include "utils/typcache.h"
#if PG_VERSION_NUM >= 160000
#include "parser/parse_relation.h"
#endif

#include "cuckoo_hashval.h"
#include "cuckoo_prefilter.h"

/* ---- settings (docs/prefilter.md) ---- */

static bool cfpg_prefilter_on = false;
static double cfpg_prefilter_min_big_rows = 100000.0;
static double cfpg_prefilter_max_small_rows = 10000000.0;
static double cfpg_prefilter_min_removed = 0.5;
static int	cfpg_prefilter_msglevel = DEBUG1;

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

typedef enum PfKind
{
	PF_INNER,					/* an inner join's clause */
	PF_SEMI,					/* IN (SELECT ...) or EXISTS (...) */
	PF_NULLABLE					/* the nullable side of a LEFT / RIGHT join */
} PfKind;

static const char *const pf_kind_names[] = {
	"inner join", "semi join", "nullable side of an outer join"
};

/* one side of a candidate, and what the first planning estimated for it */
typedef struct PfSide
{
	RangeTblEntry *rte;			/* the RTE of the query planned first, or NULL
								 * (a sublink's relation: matched by name) */
	Oid			relid;
	char	   *alias;
	Index		rti;			/* in its own query's range table */
	AttrNumber	attno;			/* the key column */
	Oid			type;
	int32		typmod;
	Oid			coll;
	bool		seen;			/* estimates captured */
	bool		exact;			/* ... from the RTE itself */
	double		rows;			/* rows after its own conditions */
	double		tuples;			/* rows in the relation */
	double		nd;				/* distinct keys in the relation */
	bool		nd_default;		/* nd is a guess: no statistics */
} PfSide;

typedef struct PfCand
{
	PfKind		kind;
	PfSide		b;				/* the side filtered */
	PfSide		s;				/* the side the filter is built from */
	RangeTblEntry *s_rte;		/* a copy of S's RTE, for the subquery */
#if PG_VERSION_NUM >= 160000
	RTEPermissionInfo *s_perm;	/* a copy of its permissions, or NULL */
#endif
	List	   *s_quals;		/* S's usable conditions (copies, S = s.rti) */
	int			s_dropped;		/* conditions of S left out */
	int			join_rtindex;	/* PF_NULLABLE: the JoinExpr's rtindex */
	double		removed;		/* expected fraction of B's rows removed */
	bool		apply;
} PfCand;

/* the candidates of the planning under way (NULL: capture nothing) */
static List *pf_capture = NULL;

#define PF_MSG "cuckoo.join_prefilter"

/* ---- finding candidates in the query tree ---- */

typedef struct PfScope
{
	Query	   *q;
	List	   *rels;			/* base relations reached through inner joins */
	List	   *quals;			/* the conjuncts of their conditions */
	List	   *outer;			/* LEFT / RIGHT JoinExprs with a preserved side
								 * in the scope */
	List	   *cands;
} PfScope;

static List *
pf_conjuncts(List *acc, Node *n)
{
	ListCell   *lc;

	if (n == NULL)
		return acc;
	if (IsA(n, List))
	{
		foreach(lc, (List *) n)
			acc = pf_conjuncts(acc, lfirst(lc));
		return acc;
	}
	if (is_andclause(n))
	{
		foreach(lc, ((BoolExpr *) n)->args)
			acc = pf_conjuncts(acc, lfirst(lc));
		return acc;
	}
	return lappend(acc, n);
}

static const char *
pf_relname(Query *q, Index rti)
{
	return rt_fetch(rti, q->rtable)->eref->aliasname;
}

static void
pf_walk(PfScope *sc, Node *n)
{
	ListCell   *lc;

	if (n == NULL)
		return;
	if (IsA(n, RangeTblRef))
	{
		int			rti = ((RangeTblRef *) n)->rtindex;

		if (rt_fetch(rti, sc->q->rtable)->rtekind == RTE_RELATION)
			sc->rels = lappend_int(sc->rels, rti);
	}
	else if (IsA(n, FromExpr))
	{
		FromExpr   *f = (FromExpr *) n;

		foreach(lc, f->fromlist)
			pf_walk(sc, lfirst(lc));
		sc->quals = pf_conjuncts(sc->quals, f->quals);
	}
	else if (IsA(n, JoinExpr))
	{
		JoinExpr   *j = (JoinExpr *) n;

		switch (j->jointype)
		{
			case JOIN_INNER:
				pf_walk(sc, j->larg);
				pf_walk(sc, j->rarg);
				sc->quals = pf_conjuncts(sc->quals, j->quals);
				break;
			case JOIN_LEFT:
				pf_walk(sc, j->larg);
				sc->outer = lappend(sc->outer, j);
				break;
			case JOIN_RIGHT:
				pf_walk(sc, j->rarg);
				sc->outer = lappend(sc->outer, j);
				break;
			default:
				ereport(cfpg_prefilter_msglevel,
						(errmsg_internal(PF_MSG ": declined: a full join (neither side is filtered)")));
				break;
		}
	}
}

static Node *
pf_strip(Node *n)
{
	while (n && IsA(n, RelabelType))
		n = (Node *) ((RelabelType *) n)->arg;
	return n;
}

/* clause is "x = y" between two plain columns (relabelings stripped) */
static bool
pf_equi(Node *clause, Var **x, Var **y, OpExpr **op)
{
	OpExpr	   *o;
	Node	   *a;
	Node	   *b;

	if (!IsA(clause, OpExpr))
		return false;
	o = (OpExpr *) clause;
	if (list_length(o->args) != 2 || o->opretset ||
		!(op_mergejoinable(o->opno, exprType(linitial(o->args))) ||
		  op_hashjoinable(o->opno, exprType(linitial(o->args)))))
		return false;
	a = pf_strip(linitial(o->args));
	b = pf_strip(lsecond(o->args));
	if (!a || !b || !IsA(a, Var) || !IsA(b, Var))
		return false;
	*x = (Var *) a;
	*y = (Var *) b;
	*op = o;
	return true;
}

/*
 * The class of types a filter hashes alike and SQL's btree equality compares
 * alike (docs/hashing.md), or 0: a key type the rule does not take.
 */
static int
pf_type_class(Oid typid)
{
	switch (getBaseType(typid))
	{
		case INT2OID:
		case INT4OID:
		case INT8OID:
			return 1;
		case FLOAT4OID:
		case FLOAT8OID:
			return 2;
		case NUMERICOID:
			return 3;
		case TEXTOID:
		case VARCHAROID:
			return 4;
		case BPCHAROID:
			return 5;
		case UUIDOID:
			return 6;
		case BYTEAOID:
			return 7;
		case DATEOID:
			return 8;
		case TIMESTAMPOID:
			return 9;
		case TIMESTAMPTZOID:
			return 10;
		case BOOLOID:
			return 11;
		case INTERVALOID:
			return 12;
		default:
			return 0;
	}
}

static bool
pf_coll_ok(Oid coll)
{
	return !OidIsValid(coll) || get_collation_isdeterministic(coll);
}

/*
 * Can b.k be probed in a filter of s.k's values, under the join's equality
 * op, with no false negative and no error?  Else *why says why not.
 */
static bool
pf_pair_ok(OpExpr *op, Var *bv, Var *sv, const char **why)
{
	Oid			lt;
	Oid			rt;
	TypeCacheEntry *tce;

	if (bv->varattno <= 0 || sv->varattno <= 0)
	{
		*why = "a key is not a column";
		return false;
	}
	op_input_types(op->opno, &lt, &rt);
	tce = lookup_type_cache(lt, TYPECACHE_BTREE_OPFAMILY);
	if (!OidIsValid(tce->btree_opf) ||
		get_op_opfamily_strategy(op->opno, tce->btree_opf) != BTEqualStrategyNumber)
	{
		*why = "the operator is not the key type's btree equality";
		return false;
	}
	if (pf_type_class(bv->vartype) == 0 ||
		pf_type_class(bv->vartype) != pf_type_class(sv->vartype) ||
		(getBaseType(sv->vartype) != getBaseType(bv->vartype) &&
		 !cfpg_kind_accepts((uint32) cfpg_type_value_kind(getBaseType(sv->vartype)),
							(uint32) cfpg_type_value_kind(getBaseType(bv->vartype)))))
	{
		*why = "key types the filter does not hash alike";
		return false;
	}
	if (!pf_coll_ok(bv->varcollid) || !pf_coll_ok(sv->varcollid) ||
		!pf_coll_ok(op->inputcollid))
	{
		*why = "a nondeterministic collation";
		return false;
	}
	return true;
}

/*
 * The conjuncts a filter of relation srti may keep: they reference it alone,
 * at its own level, and cannot raise an error or change between calls.
 */
static List *
pf_usable_quals(List *conj, Index srti, int *dropped)
{
	List	   *keep = NIL;
	ListCell   *lc;

	foreach(lc, conj)
	{
		Node	   *q = lfirst(lc);
		Bitmapset  *rels = pull_varnos(NULL, q);

		if (bms_is_empty(rels))
			continue;			/* not S's: a constant, or another level's */
		if (bms_membership(rels) == BMS_SINGLETON && bms_is_member((int) srti, rels) &&
			!contain_vars_of_level(q, 1) && !checkExprHasSubLink(q) &&
			!contain_volatile_functions(q) && !contain_leaked_vars(q))
			keep = lappend(keep, copyObject(q));
		else if (bms_is_member((int) srti, rels) && bms_membership(rels) == BMS_SINGLETON)
			(*dropped)++;
	}
	return keep;
}

static void
pf_side(PfSide *sd, Query *q, Index rti, Var *v, bool exact_rte)
{
	RangeTblEntry *rte = rt_fetch(rti, q->rtable);

	sd->rte = exact_rte ? rte : NULL;
	sd->relid = rte->relid;
	sd->alias = pstrdup(rte->eref->aliasname);
	sd->rti = rti;
	sd->attno = v->varattno;
	sd->type = v->vartype;
	sd->typmod = v->vartypmod;
	sd->coll = v->varcollid;
}

/*
 * Does a second scan of relation relid (and its inheritors) in the same
 * statement see the rows the first one saw?  Local tables do (one snapshot);
 * a postgres_fdw foreign table does (one remote transaction, repeatable
 * read); another wrapper's may not (a file that changed), and a filter of
 * rows the join does not see could miss keys: decline.
 */
static bool
pf_rescan_same(Oid relid, bool inh)
{
	List	   *rels;
	ListCell   *lc;

	/* the relations are locked: the first planning expanded them */
	rels = inh ? find_all_inheritors(relid, NoLock, NULL) : list_make1_oid(relid);

	foreach(lc, rels)
	{
		Oid			r = lfirst_oid(lc);

		if (get_rel_relkind(r) == RELKIND_FOREIGN_TABLE)
		{
			HeapTuple	tup = SearchSysCache1(FOREIGNTABLEREL, ObjectIdGetDatum(r));
			Oid			server;
			ForeignDataWrapper *fdw;

			if (!HeapTupleIsValid(tup))
				return false;	/* dropped meanwhile: decline */
			server = ((Form_pg_foreign_table) GETSTRUCT(tup))->ftserver;
			ReleaseSysCache(tup);
			fdw = GetForeignDataWrapper(GetForeignServer(server)->fdwid);
			if (strcmp(fdw->fdwname, "postgres_fdw") != 0)
				return false;
		}
	}
	return true;
}

/*
 * Is the filtered side a table whose size alone is below the threshold?
 * (Its rows after its conditions cannot be more.)  Decided before the first
 * planning, so that the joins of small tables pay no copy and no capture.
 */
static bool
pf_too_small(Oid relid)
{
	char		relkind = get_rel_relkind(relid);
	Relation	rel;
	BlockNumber pages;
	double		tuples;
	double		allvisfrac;

	if (cfpg_prefilter_min_big_rows <= 0 ||
		(relkind != RELKIND_RELATION && relkind != RELKIND_MATVIEW) ||
		has_subclass(relid))
		return false;
	rel = table_open(relid, NoLock);	/* locked by the parser */
	estimate_rel_size(rel, NULL, &pages, &tuples, &allvisfrac);
	table_close(rel, NoLock);
	return tuples < cfpg_prefilter_min_big_rows;
}

/* a candidate: filter b (of the top query) by s (of query sq) */
static void
pf_add_cand(PfScope *sc, PfKind kind, OpExpr *op, Var *bv, Query *sq, Var *sv,
			List *s_conj, int join_rtindex)
{
	PfCand	   *c;
	const char *why = NULL;
	RangeTblEntry *srte = rt_fetch(sv->varno, sq->rtable);

	if (pf_pair_ok(op, bv, sv, &why) &&
		pf_too_small(rt_fetch(bv->varno, sc->q->rtable)->relid))
		why = "the filtered side is estimated below cuckoo.join_prefilter_min_big_rows";
	if (why != NULL)
	{
		ereport(cfpg_prefilter_msglevel,
				(errmsg_internal(PF_MSG ": declined %s.%s from %s.%s (%s): %s",
								 pf_relname(sc->q, bv->varno),
								 get_attname(rt_fetch(bv->varno, sc->q->rtable)->relid, bv->varattno, false),
								 srte->eref->aliasname,
								 get_attname(srte->relid, sv->varattno, false),
								 pf_kind_names[kind], why)));
		return;
	}
	c = palloc0(sizeof(PfCand));
	c->kind = kind;
	pf_side(&c->b, sc->q, bv->varno, bv, true);
	pf_side(&c->s, sq, sv->varno, sv, sq == sc->q);
	c->s_rte = copyObject(srte);
	c->s_rte->tablesample = NULL;	/* the whole table's keys: a superset */
#if PG_VERSION_NUM >= 160000
	c->s_perm = srte->perminfoindex ?
		copyObject(getRTEPermissionInfo(sq->rteperminfos, srte)) : NULL;
#endif
	c->s_quals = pf_usable_quals(s_conj, sv->varno, &c->s_dropped);
	c->join_rtindex = join_rtindex;
	sc->cands = lappend(sc->cands, c);
}

static bool
pf_in_scope(PfScope *sc, Var *v, int levelsup)
{
	return (int) v->varlevelsup == levelsup && list_member_int(sc->rels, (int) v->varno);
}

/* a subquery of one table and conditions, nothing that changes its rows */
static bool
pf_simple_sub(Query *sub, Index *srti)
{
	RangeTblRef *ref;

	if (sub->commandType != CMD_SELECT || sub->setOperations || sub->hasAggs ||
		sub->groupClause || sub->groupingSets || sub->havingQual ||
		sub->hasWindowFuncs || sub->hasTargetSRFs || sub->limitCount ||
		sub->limitOffset || sub->cteList || sub->rowMarks ||
		sub->hasModifyingCTE || list_length(sub->jointree->fromlist) != 1)
		return false;
	ref = linitial(sub->jointree->fromlist);
	if (!IsA(ref, RangeTblRef) ||
		rt_fetch(ref->rtindex, sub->rtable)->rtekind != RTE_RELATION)
		return false;
	*srti = ref->rtindex;
	return true;
}

static void
pf_sublink(PfScope *sc, SubLink *sl)
{
	Query	   *sub = (Query *) sl->subselect;
	Index		srti;
	List	   *conj;
	ListCell   *lc;

	if (sl->subLinkType != ANY_SUBLINK && sl->subLinkType != EXISTS_SUBLINK)
		return;
	if (!pf_simple_sub(sub, &srti))
	{
		ereport(cfpg_prefilter_msglevel,
				(errmsg_internal(PF_MSG ": declined a semi join: its subquery is not one table and its conditions")));
		return;
	}
	conj = pf_conjuncts(NIL, sub->jointree->quals);
	if (sl->subLinkType == ANY_SUBLINK)
	{
		Var		   *bv;
		Node	   *p;
		OpExpr	   *op;
		TargetEntry *tle;
		Node	   *sv;

		if (!sl->testexpr || !IsA(sl->testexpr, OpExpr) ||
			list_length(((OpExpr *) sl->testexpr)->args) != 2)
			return;
		op = (OpExpr *) sl->testexpr;
		bv = (Var *) pf_strip(linitial(op->args));
		p = pf_strip(lsecond(op->args));
		if (!bv || !IsA(bv, Var) || !pf_in_scope(sc, bv, 0) || !p || !IsA(p, Param) ||
			((Param *) p)->paramkind != PARAM_SUBLINK || ((Param *) p)->paramid != 1 ||
			list_length(sub->targetList) < 1)
			return;
		tle = linitial(sub->targetList);
		sv = pf_strip((Node *) tle->expr);
		if (!sv || !IsA(sv, Var) || ((Var *) sv)->varlevelsup != 0 ||
			((Var *) sv)->varno != (int) srti)
			return;
		pf_add_cand(sc, PF_SEMI, op, bv, sub, (Var *) sv, conj, 0);
		return;
	}
	foreach(lc, conj)
	{
		Var		   *x;
		Var		   *y;
		OpExpr	   *op;

		if (!pf_equi(lfirst(lc), &x, &y, &op))
			continue;
		if (pf_in_scope(sc, y, 1) && x->varlevelsup == 0 && x->varno == (int) srti)
		{
			Var		   *t = x;

			x = y;
			y = t;
		}
		if (pf_in_scope(sc, x, 1) && y->varlevelsup == 0 && y->varno == (int) srti)
		{
			Var		   *bv = copyObject(x);

			bv->varlevelsup = 0;
			pf_add_cand(sc, PF_SEMI, op, bv, sub, y, conj, 0);
		}
	}
}

static void
pf_find(PfScope *sc)
{
	ListCell   *lc;
	ListCell   *lc2;

	pf_walk(sc, (Node *) sc->q->jointree);
	foreach(lc, sc->quals)
	{
		Node	   *qual = lfirst(lc);
		Var		   *x;
		Var		   *y;
		OpExpr	   *op;

		if (IsA(qual, SubLink))
			pf_sublink(sc, (SubLink *) qual);
		else if (is_notclause(qual) && IsA(get_notclausearg(qual), SubLink))
			ereport(cfpg_prefilter_msglevel,
					(errmsg_internal(PF_MSG ": declined an anti join (NOT IN / NOT EXISTS): its outer side is never filtered")));
		else if (pf_equi(qual, &x, &y, &op) && pf_in_scope(sc, x, 0) &&
				 pf_in_scope(sc, y, 0) && x->varno != y->varno)
		{
			pf_add_cand(sc, PF_INNER, op, x, sc->q, y, sc->quals, 0);
			pf_add_cand(sc, PF_INNER, op, y, sc->q, x, sc->quals, 0);
		}
	}
	foreach(lc, sc->outer)
	{
		JoinExpr   *j = lfirst(lc);
		Node	   *nullable = j->jointype == JOIN_LEFT ? j->rarg : j->larg;
		Index		brti;
		List	   *conj;

		if (!IsA(nullable, RangeTblRef) ||
			rt_fetch(((RangeTblRef *) nullable)->rtindex, sc->q->rtable)->rtekind != RTE_RELATION)
		{
			ereport(cfpg_prefilter_msglevel,
					(errmsg_internal(PF_MSG ": declined the nullable side of an outer join: not one table")));
			continue;
		}
		brti = ((RangeTblRef *) nullable)->rtindex;
		conj = pf_conjuncts(NIL, j->quals);
		foreach(lc2, conj)
		{
			Var		   *x;
			Var		   *y;
			OpExpr	   *op;

			if (!pf_equi(lfirst(lc2), &x, &y, &op) || x->varlevelsup || y->varlevelsup)
				continue;
			if (y->varno == (int) brti)
			{
				Var		   *t = x;

				x = y;
				y = t;
			}
			if (x->varno != (int) brti || !pf_in_scope(sc, y, 0))
				continue;
			ereport(cfpg_prefilter_msglevel,
					(errmsg_internal(PF_MSG ": declined %s from %s: the preserved side of an outer join is never filtered",
									 pf_relname(sc->q, y->varno), pf_relname(sc->q, x->varno))));
			pf_add_cand(sc, PF_NULLABLE, op, x, sc->q, y,
						list_concat(list_copy(sc->quals), conj), j->rtindex);
		}
	}
}

/* ---- the estimates of the first planning ---- */

static void
pf_capture_side(PlannerInfo *root, RelOptInfo *rel, Index rti,
				RangeTblEntry *rte, PfSide *sd)
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
	sd->rows = rel->rows;
	sd->tuples = rel->tuples;
	v = makeVar((int) rti, sd->attno, sd->type, sd->typmod, sd->coll, 0);
	examine_variable(root, (Node *) v, 0, &vd);
	sd->nd = get_variable_numdistinct(&vd, &sd->nd_default);
	ReleaseVariableStats(vd);
}

static void
pf_relhook(PlannerInfo *root, RelOptInfo *rel, Index rti, RangeTblEntry *rte)
{
	ListCell   *lc;

	if (cfpg_prefilter_prev_relhook)
		cfpg_prefilter_prev_relhook(root, rel, rti, rte);
	if (pf_capture == NIL || rte->rtekind != RTE_RELATION ||
		rel->reloptkind != RELOPT_BASEREL)
		return;
	foreach(lc, pf_capture)
	{
		PfCand	   *c = lfirst(lc);

		pf_capture_side(root, rel, rti, rte, &c->b);
		pf_capture_side(root, rel, rti, rte, &c->s);
	}
}

/* Is c worth it?  Else *why says why not. */
static bool
pf_decide(PfCand *c, const char **why)
{
	double		kept;
	double		sel;
	double		nds;

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
		kept = Min(1.0, nds / c->b.nd);
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
pf_declined(PfCand *c, const char *why)
{
	ereport(cfpg_prefilter_msglevel,
			(errmsg_internal(PF_MSG ": declined %s.%s from %s.%s (%s): %s",
							 c->b.alias, get_attname(c->b.relid, c->b.attno, false),
							 c->s.alias, get_attname(c->s.relid, c->s.attno, false),
							 pf_kind_names[c->kind], why)));
}

/* ---- the filter's condition ---- */

/* the schema of the installed extension, or InvalidOid */
static Oid
pf_ext_schema(void)
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
pf_filter_qual(PfCand *c, Oid nsp, const char **why)
{
	char	   *nspname = get_namespace_name(nsp);
	Oid			cftype;
	Oid			aggfn;
	Oid			opno;
	Oid			argtype;
	Query	   *sq;
	RangeTblEntry *rte;
	Var		   *sv;
	Var		   *bv;
	Aggref	   *agg;
	SubLink    *sl;
	List	   *quals;
	Oid			probetype;
	RangeTblRef *ref;

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
	rte = copyObject(c->s_rte);
	quals = copyObject(c->s_quals);
	sv = makeVar((int) c->s.rti, c->s.attno, c->s.type, c->s.typmod, c->s.coll, 0);
	ChangeVarNodes((Node *) quals, (int) c->s.rti, 1, 0);
	ChangeVarNodes((Node *) rte->securityQuals, (int) c->s.rti, 1, 0);
	ChangeVarNodes((Node *) sv, (int) c->s.rti, 1, 0);

	sq = makeNode(Query);
	sq->commandType = CMD_SELECT;
	sq->querySource = QSRC_ORIGINAL;
	sq->canSetTag = true;
	sq->rtable = list_make1(rte);
#if PG_VERSION_NUM >= 160000
	if (c->s_perm)
	{
		sq->rteperminfos = list_make1(copyObject(c->s_perm));
		rte->perminfoindex = 1;
	}
	else
		rte->perminfoindex = 0;
#endif
	ref = makeNode(RangeTblRef);
	ref->rtindex = 1;
	sq->jointree = makeFromExpr(list_make1(ref),
								quals ? (Node *) make_ands_explicit(quals) : NULL);
	sq->hasSubLinks = checkExprHasSubLink((Node *) rte->securityQuals);

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
	sq->targetList = list_make1(makeTargetEntry((Expr *) agg, 1,
												pstrdup("cf_agg"), false));
	sq->hasAggs = true;

	sl = makeNode(SubLink);
	sl->subLinkType = EXPR_SUBLINK;
	sl->subLinkId = 0;
	sl->testexpr = NULL;
	sl->operName = NIL;
	sl->subselect = (Node *) sq;
	sl->location = -1;

	bv = makeVar((int) c->b.rti, c->b.attno, c->b.type, c->b.typmod, c->b.coll, 0);
	if (probetype == TEXTOID && c->b.type != TEXTOID)
		return (Node *) make_opclause(opno, BOOLOID, false, (Expr *) sl,
									  (Expr *) makeRelabelType((Expr *) bv, TEXTOID, -1,
															   c->b.coll, COERCE_IMPLICIT_CAST),
									  InvalidOid, c->b.coll);
	return (Node *) make_opclause(opno, BOOLOID, false, (Expr *) sl, (Expr *) bv,
								  InvalidOid, c->b.coll);
}

static JoinExpr *
pf_find_join(Node *n, int rtindex)
{
	ListCell   *lc;
	JoinExpr   *found;

	if (n == NULL)
		return NULL;
	if (IsA(n, FromExpr))
	{
		foreach(lc, ((FromExpr *) n)->fromlist)
			if ((found = pf_find_join(lfirst(lc), rtindex)) != NULL)
				return found;
	}
	else if (IsA(n, JoinExpr))
	{
		JoinExpr   *j = (JoinExpr *) n;

		if (j->rtindex == rtindex)
			return j;
		if ((found = pf_find_join(j->larg, rtindex)) != NULL)
			return found;
		return pf_find_join(j->rarg, rtindex);
	}
	return NULL;
}

/* ---- the hook ---- */

static PlannedStmt *
pf_plan(Query *parse, const char *query_string, int cursorOptions,
		ParamListInfo boundParams)
{
	if (cfpg_prefilter_prev_planner)
		return cfpg_prefilter_prev_planner(parse, query_string, cursorOptions, boundParams);
	return standard_planner(parse, query_string, cursorOptions, boundParams);
}

/* pf_plan with capture set to capture (NIL: none), restored after */
static PlannedStmt *
pf_plan_capturing(List *capture, Query *parse, const char *query_string,
				  int cursorOptions, ParamListInfo boundParams)
{
	List	   *saved = pf_capture;
	PlannedStmt *result;

	pf_capture = capture;
	PG_TRY();
	{
		result = pf_plan(parse, query_string, cursorOptions, boundParams);
	}
	PG_FINALLY();
	{
		pf_capture = saved;
	}
	PG_END_TRY();
	return result;
}

static PlannedStmt *
pf_planner(Query *parse, const char *query_string, int cursorOptions,
		   ParamListInfo boundParams)
{
	PfScope		sc;
	Query	   *pristine;
	PlannedStmt *first;
	ListCell   *lc;
	Oid			nsp = InvalidOid;
	bool		any = false;

	if (!cfpg_prefilter_on || parse->utilityStmt != NULL)
		return pf_plan_capturing(NIL, parse, query_string, cursorOptions, boundParams);
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
		return pf_plan_capturing(NIL, parse, query_string, cursorOptions, boundParams);
	}
	if (parse->setOperations || parse->jointree == NULL ||
		(list_length(parse->rtable) < 2 && !parse->hasSubLinks))
		return pf_plan_capturing(NIL, parse, query_string, cursorOptions, boundParams);

	memset(&sc, 0, sizeof(sc));
	sc.q = parse;
	pf_find(&sc);
	if (sc.cands == NIL)
		return pf_plan_capturing(NIL, parse, query_string, cursorOptions, boundParams);
	if (contain_volatile_functions((Node *) parse->jointree))
	{
		ereport(cfpg_prefilter_msglevel,
				(errmsg_internal(PF_MSG ": declined: a volatile function in the query's conditions")));
		return pf_plan_capturing(NIL, parse, query_string, cursorOptions, boundParams);
	}

	pristine = copyObject(parse);
	first = pf_plan_capturing(sc.cands, parse, query_string, cursorOptions, boundParams);

	/* decide; at most one filter per filtered relation, the best one */
	foreach(lc, sc.cands)
	{
		PfCand	   *c = lfirst(lc);
		const char *why = NULL;
		ListCell   *lc2;

		if (!pf_decide(c, &why))
		{
			pf_declined(c, why);
			continue;
		}
		if (!pf_rescan_same(c->s.relid, c->s_rte->inh))
		{
			pf_declined(c, "the filter's side is a foreign table of another wrapper than postgres_fdw");
			continue;
		}
		c->apply = true;
		foreach(lc2, sc.cands)
		{
			PfCand	   *o = lfirst(lc2);

			if (o == c)
				break;
			if (o->apply && o->b.rti == c->b.rti &&
				o->join_rtindex == c->join_rtindex)
			{
				if (o->removed >= c->removed)
					c->apply = false;
				else
					o->apply = false;
			}
		}
	}
	foreach(lc, sc.cands)
	{
		PfCand	   *c = lfirst(lc);
		Node	   *qual;
		const char *why = NULL;

		if (!c->apply)
			continue;
		if (!OidIsValid(nsp))
			nsp = pf_ext_schema();
		qual = OidIsValid(nsp) ? pf_filter_qual(c, nsp, &why) : NULL;
		if (qual == NULL)
		{
			ereport(cfpg_prefilter_msglevel,
					(errmsg_internal(PF_MSG ": declined: %s",
									 why ? why : "the extension cuckoo is not installed in this database")));
			break;
		}
		if (c->kind == PF_NULLABLE)
		{
			JoinExpr   *j = pf_find_join((Node *) pristine->jointree, c->join_rtindex);

			Assert(j != NULL);
			if (j == NULL)
				continue;
			j->quals = make_and_qual(j->quals, qual);
		}
		else
			pristine->jointree->quals = make_and_qual(pristine->jointree->quals, qual);
		pristine->hasSubLinks = true;
		any = true;
		ereport(cfpg_prefilter_msglevel,
				(errmsg_internal(PF_MSG ": filter on %s.%s from %s.%s (%s)%s",
								 c->b.alias, get_attname(c->b.relid, c->b.attno, false),
								 c->s.alias, get_attname(c->s.relid, c->s.attno, false),
								 pf_kind_names[c->kind],
								 c->s_dropped ? ", some of its conditions left out" : ""),
				 errdetail_internal("Estimated rows: %.0f filtered, %.0f in the filter; %.0f%% expected to be removed.",
									c->b.rows, c->s.rows, c->removed * 100.0)));
	}
	if (!any)
		return first;
	return pf_plan_capturing(NIL, pristine, query_string, cursorOptions, boundParams);
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
	DefineCustomEnumVariable("cuckoo.join_prefilter_messages",
							 "Level of the messages that say which joins got a pre-filter and why others did not.",
							 NULL, &cfpg_prefilter_msglevel, DEBUG1, cfpg_prefilter_msglevels,
							 PGC_USERSET, 0, NULL, NULL, NULL);

	cfpg_prefilter_prev_planner = planner_hook;
	planner_hook = pf_planner;
	cfpg_prefilter_prev_relhook = set_rel_pathlist_hook;
	set_rel_pathlist_hook = pf_relhook;
}
