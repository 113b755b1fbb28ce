/*
 * cuckoo_rtf_plan.c - run-time join filters: the settings, the planner hook
 * and the one walk of the finished plan that places builders and checkers
 * (cuckoo_rtf.h; docs/prefilter.md, "Run-time filters").
 *
 * The walk visits the plan and every subplan once, bottom up.  For each
 * hash join whose outer rows without a match are dropped (inner, semi,
 * right: never a Parallel Hash, whose table several processes build), each
 * hash key becomes a filter when the probe side can be checked:
 *
 *  - the checker goes where the outer key's value is first produced: the
 *    key (a Var) is followed down the outer subtree through the target
 *    lists, through inner and semi joins and the non-preserved side of
 *    outer joins, a nested loop's outer side only, Hash, Sort, Material,
 *    a Result without a constant qual, a subquery scan and the nodes of
 *    this walk; it stops above anything else (a scan, an aggregate, a
 *    Gather: the check runs in the process that built the filter).  A key
 *    that is not a plain Var is checked directly above the join's outer
 *    child, which evaluates it on the same rows (the first key only, and
 *    never a volatile one: see cfpg_rtf_hashjoin);
 *  - the builder goes between the Hash node and its child and evaluates
 *    the Hash node's own key expressions on every tuple it passes up.
 *
 * Removing a probe row whose key is in no build row cannot change the
 * result: the join drops it (and, below another join, every row made from
 * it carries the same key, or a NULL one on a non-preserved side, which
 * the strict hash equality drops too).  A join is skipped where a filter
 * cannot pay at all: fewer estimated rows where the check goes than
 * cuckoo.join_prefilter_runtime_min_rows or than the build side's (-1:
 * none is skipped, a testing aid).
 */
#include "postgres.h"

#include "access/hash.h"
#include "access/htup_details.h"
#include "catalog/pg_amop.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/clauses.h"
#include "optimizer/optimizer.h"
#include "optimizer/planner.h"
#include "parser/parsetree.h"
#include "utils/catcache.h"
#include "utils/fmgroids.h"
#include "utils/guc.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"

#include "cuckoo_rtf.h"

bool		cfpg_rtf_enabled = true;
int			cfpg_rtf_max_keys = 4000000;
int			cfpg_rtf_sample = 4096;
double		cfpg_rtf_min_removed = 0.1;
double		cfpg_rtf_min_rows = 1000.0;

static planner_hook_type cfpg_rtf_prev_planner = NULL;

typedef struct CfpgRtfWalk
{
	PlannedStmt *stmt;
	int			next_id;		/* hash joins given filters */
	int			next_filter;	/* filters (EXPLAIN's numbers) */
	int			next_node_id;	/* 0: not yet looked up */
} CfpgRtfWalk;

/* the hash functions of a hash clause's operator for its two input types */
typedef struct CfpgRtfHash
{
	Oid			lproc;			/* outer (left) type's */
	Oid			rproc;			/* inner (right) type's */
	int			lmethod;		/* CFPG_RTF_HASH_* of each side */
	int			rmethod;
	bool		strict;			/* the operator's */
} CfpgRtfHash;

/*
 * The integer types' own hashing: an equality of two of int2, int4, int8
 * (the built-in operators, equal exactly when the numbers are) hashes each
 * side's value as an int64, in line, with no function call.
 */
static int
cfpg_rtf_int_method(Oid type)
{
	switch (type)
	{
		case INT2OID:
			return CFPG_RTF_HASH_INT2;
		case INT4OID:
			return CFPG_RTF_HASH_INT4;
		case INT8OID:
			return CFPG_RTF_HASH_INT8;
		default:
			return -1;
	}
}

static bool
cfpg_rtf_int_equality(Oid opno, CfpgRtfHash *out)
{
	Oid			lt,
				rt;

	switch (get_opcode(opno))
	{
		case F_INT2EQ:
		case F_INT4EQ:
		case F_INT8EQ:
		case F_INT24EQ:
		case F_INT42EQ:
		case F_INT28EQ:
		case F_INT82EQ:
		case F_INT48EQ:
		case F_INT84EQ:
			break;
		default:
			return false;
	}
	op_input_types(opno, &lt, &rt);
	out->lmethod = cfpg_rtf_int_method(lt);
	out->rmethod = cfpg_rtf_int_method(rt);
	out->lproc = out->rproc = InvalidOid;
	return out->lmethod >= 0 && out->rmethod >= 0;
}

/*
 * The answers of cfpg_rtf_hash_procs, per backend: a few operators, kept
 * until an operator, an opfamily member or a support function changes (the
 * planning overhead of a walk is then a few field reads per hash key).
 */
#define CFPG_RTF_CACHE	16
typedef struct CfpgRtfCached
{
	Oid			opno;			/* InvalidOid: empty */
	bool		found;
	CfpgRtfHash hf;
} CfpgRtfCached;
static CfpgRtfCached cfpg_rtf_cache[CFPG_RTF_CACHE];
static int	cfpg_rtf_cache_next = 0;
static uint64 cfpg_rtf_cache_gen = 0;	/* resets so far */

static void
cfpg_rtf_cache_reset(Datum arg, int cacheid, uint32 hashvalue)
{
	memset(cfpg_rtf_cache, 0, sizeof(cfpg_rtf_cache));
	cfpg_rtf_cache_next = 0;
	cfpg_rtf_cache_gen++;
}

static bool cfpg_rtf_hash_procs_lookup(Oid opno, CfpgRtfHash *out);

static bool
cfpg_rtf_hash_procs(Oid opno, CfpgRtfHash *out)
{
	uint64		gen = cfpg_rtf_cache_gen;
	bool		found;

	for (int i = 0; i < CFPG_RTF_CACHE; i++)
		if (cfpg_rtf_cache[i].opno == opno && OidIsValid(opno))
		{
			*out = cfpg_rtf_cache[i].hf;
			return cfpg_rtf_cache[i].found;
		}
	memset(out, 0, sizeof(*out));
	found = cfpg_rtf_hash_procs_lookup(opno, out);
	out->strict = op_strict(opno);
	/* kept only if no invalidation came in while it was looked up */
	if (gen == cfpg_rtf_cache_gen)
	{
		CfpgRtfCached *c = &cfpg_rtf_cache[cfpg_rtf_cache_next];

		cfpg_rtf_cache_next = (cfpg_rtf_cache_next + 1) % CFPG_RTF_CACHE;
		c->opno = opno;
		c->found = found;
		c->hf = *out;
	}
	return found;
}

/*
 * The hash opfamily's functions for opno's input types: the extended
 * 64-bit ones if it has both, else the standard 32-bit ones (as the hash
 * join's own get_op_hash_functions finds them).  false: none.
 */
static bool
cfpg_rtf_hash_procs_lookup(Oid opno, CfpgRtfHash *out)
{
	CatCList   *catlist;
	bool		found = false;

	if (cfpg_rtf_int_equality(opno, out))
		return true;
	catlist = SearchSysCacheList1(AMOPOPID, ObjectIdGetDatum(opno));
	for (int i = 0; i < catlist->n_members && !found; i++)
	{
		HeapTuple	tuple = &catlist->members[i]->tuple;
		Form_pg_amop aform = (Form_pg_amop) GETSTRUCT(tuple);
		Oid			l,
					r;

		if (aform->amopmethod != HASH_AM_OID || aform->amopstrategy != HTEqualStrategyNumber)
			continue;
		l = get_opfamily_proc(aform->amopfamily, aform->amoplefttype, aform->amoplefttype,
							  HASHEXTENDED_PROC);
		r = get_opfamily_proc(aform->amopfamily, aform->amoprighttype, aform->amoprighttype,
							  HASHEXTENDED_PROC);
		if (OidIsValid(l) && OidIsValid(r))
		{
			out->lproc = l;
			out->rproc = r;
			out->lmethod = out->rmethod = CFPG_RTF_HASH_EXTENDED;
			found = true;
			break;
		}
		l = get_opfamily_proc(aform->amopfamily, aform->amoplefttype, aform->amoplefttype,
							  HASHSTANDARD_PROC);
		r = get_opfamily_proc(aform->amopfamily, aform->amoprighttype, aform->amoprighttype,
							  HASHSTANDARD_PROC);
		if (OidIsValid(l) && OidIsValid(r))
		{
			out->lproc = l;
			out->rproc = r;
			out->lmethod = out->rmethod = CFPG_RTF_HASH_STANDARD;
			found = true;
		}
	}
	ReleaseSysCacheList(catlist);
	return found;
}

static Expr *
cfpg_rtf_strip(Expr *e)
{
	while (e && IsA(e, RelabelType))
		e = ((RelabelType *) e)->arg;
	return e;
}

static bool
cfpg_rtf_is_ours(Plan *p)
{
	return IsA(p, CustomScan) &&
		(((CustomScan *) p)->methods == &cfpg_rtf_build_methods ||
		 ((CustomScan *) p)->methods == &cfpg_rtf_check_methods);
}

/*
 * A volatile function, or a subplan (contain_volatile_functions does not
 * look into its plan, which may call one): evaluated once more, or on rows
 * it would not see, it could change what a query does.
 */
static bool
cfpg_rtf_volatile(Node *n)
{
	return contain_volatile_functions(n) || contain_subplans(n);
}

/*
 * Follows output column *attno of *slot down to the node that first
 * produces it (see the file's comment); returns that node's slot, with
 * *attno its column there.
 */
static Plan **
cfpg_rtf_descend(Plan **slot, AttrNumber *attno, bool replay_ok)
{
	Plan	  **prev = slot;
	AttrNumber	prev_attno = *attno;

	for (;;)
	{
		Plan	   *p = *slot;
		TargetEntry *tle;
		Expr	   *e;
		Var		   *v;
		Plan	  **next = NULL;

		/*
		 * A node that evaluates a volatile function per row would see fewer
		 * rows with the check below it: the check stays above it.
		 */
		if (IsA(p, Hash))
			;					/* evaluates nothing (and see below) */
		else if (cfpg_rtf_volatile((Node *) p->qual) ||
				 cfpg_rtf_volatile((Node *) p->targetlist) ||
				 ((IsA(p, HashJoin) || IsA(p, MergeJoin) || IsA(p, NestLoop)) &&
				  cfpg_rtf_volatile((Node *) ((Join *) p)->joinqual)))
			return slot;
		tle = get_tle_by_resno(p->targetlist, *attno);
		e = tle ? cfpg_rtf_strip(tle->expr) : NULL;
		v = (e != NULL && IsA(e, Var) && ((Var *) e)->varattno > 0) ? (Var *) e : NULL;
		if (v != NULL)
		switch (nodeTag(p))
		{
			case T_HashJoin:
			case T_MergeJoin:
			case T_NestLoop:
				{
					JoinType	jt = ((Join *) p)->jointype;

					if (v->varno == OUTER_VAR &&
						(jt == JOIN_INNER || jt == JOIN_SEMI || jt == JOIN_RIGHT))
						next = &p->lefttree;
					else if (v->varno == INNER_VAR && !IsA(p, NestLoop) &&
							 (jt == JOIN_INNER || jt == JOIN_LEFT))
						next = &p->righttree;
				}
				break;
			case T_Hash:
			case T_Sort:
			case T_IncrementalSort:
			case T_Material:
				/*
				 * These keep the rows they read and give them again on a
				 * rescan without reading their child (a Hash: its join
				 * reuses the table): rows kept under one filter would be
				 * replayed under the next, from a rebuilt build side.
				 */
				if (v->varno == OUTER_VAR && replay_ok)
					next = &p->lefttree;
				break;
			case T_Result:
				if (v->varno == OUTER_VAR && ((Result *) p)->resconstantqual == NULL)
					next = &p->lefttree;
				break;
			case T_CustomScan:
				if (v->varno == OUTER_VAR && cfpg_rtf_is_ours(p))
					next = &p->lefttree;
				break;
			case T_SubqueryScan:
				if (v->varno == (int) ((SubqueryScan *) p)->scan.scanrelid)
					next = &((SubqueryScan *) p)->subplan;
				break;
			default:
				break;
		}
		if (next == NULL || *next == NULL)
		{
			/* a hash join's inner child must stay its Hash: above the join then */
			if (IsA(p, Hash))
			{
				*attno = prev_attno;
				return prev;
			}
			return slot;
		}
		prev = slot;
		prev_attno = *attno;
		*attno = v->varattno;
		slot = next;
	}
}

/*
 * Whether a rescan gives the subtree under p the same rows: no volatile
 * function in a node's quals, target list, functions or VALUES lists (a
 * hash join rebuilds a multi-batch table on a rescan even when no
 * parameter changed).  false when unsure.
 */
static bool
cfpg_rtf_stable(Plan *p)
{
	ListCell   *lc;

	if (p == NULL)
		return true;
	check_stack_depth();
	if (cfpg_rtf_volatile((Node *) p->qual) ||
		cfpg_rtf_volatile((Node *) p->targetlist))
		return false;
	switch (nodeTag(p))
	{
		case T_HashJoin:
		case T_MergeJoin:
		case T_NestLoop:
			if (cfpg_rtf_volatile((Node *) ((Join *) p)->joinqual))
				return false;
			break;
		case T_FunctionScan:
			if (cfpg_rtf_volatile((Node *) ((FunctionScan *) p)->functions))
				return false;
			break;
		case T_ValuesScan:
			if (cfpg_rtf_volatile((Node *) ((ValuesScan *) p)->values_lists))
				return false;
			break;
		case T_Append:
			foreach(lc, ((Append *) p)->appendplans)
				if (!cfpg_rtf_stable(lfirst(lc)))
					return false;
			break;
		case T_MergeAppend:
			foreach(lc, ((MergeAppend *) p)->mergeplans)
				if (!cfpg_rtf_stable(lfirst(lc)))
					return false;
			break;
		case T_SubqueryScan:
			if (!cfpg_rtf_stable(((SubqueryScan *) p)->subplan))
				return false;
			break;
		case T_CustomScan:
			if (!cfpg_rtf_is_ours(p))
				return false;
			break;
		case T_SeqScan:
		case T_IndexScan:
		case T_IndexOnlyScan:
		case T_BitmapHeapScan:
		case T_BitmapIndexScan:
		case T_TidScan:
		case T_CteScan:
		case T_WorkTableScan:
		case T_Hash:
		case T_Sort:
		case T_IncrementalSort:
		case T_Material:
		case T_Memoize:
		case T_Result:
		case T_Agg:
		case T_Group:
		case T_Unique:
		case T_Limit:
		case T_WindowAgg:
		case T_SetOp:
		case T_Gather:
		case T_GatherMerge:
			break;
		default:
			return false;		/* not looked at: unsure */
	}
	return cfpg_rtf_stable(p->lefttree) && cfpg_rtf_stable(p->righttree);
}

static int
cfpg_rtf_max_id_walk(Plan *p)
{
	int			m;
	ListCell   *lc;

	if (p == NULL)
		return 0;
	m = p->plan_node_id;
	m = Max(m, cfpg_rtf_max_id_walk(p->lefttree));
	m = Max(m, cfpg_rtf_max_id_walk(p->righttree));
	if (IsA(p, Append))
		foreach(lc, ((Append *) p)->appendplans)
			m = Max(m, cfpg_rtf_max_id_walk(lfirst(lc)));
	else if (IsA(p, MergeAppend))
		foreach(lc, ((MergeAppend *) p)->mergeplans)
			m = Max(m, cfpg_rtf_max_id_walk(lfirst(lc)));
	else if (IsA(p, SubqueryScan))
		m = Max(m, cfpg_rtf_max_id_walk(((SubqueryScan *) p)->subplan));
	else if (IsA(p, CustomScan))
		foreach(lc, ((CustomScan *) p)->custom_plans)
			m = Max(m, cfpg_rtf_max_id_walk(lfirst(lc)));
	else if (IsA(p, BitmapAnd))
		foreach(lc, ((BitmapAnd *) p)->bitmapplans)
			m = Max(m, cfpg_rtf_max_id_walk(lfirst(lc)));
	else if (IsA(p, BitmapOr))
		foreach(lc, ((BitmapOr *) p)->bitmapplans)
			m = Max(m, cfpg_rtf_max_id_walk(lfirst(lc)));
	return m;
}

/* a fresh plan_node_id (parallel query keys instrumentation by it) */
static int
cfpg_rtf_node_id(CfpgRtfWalk *w)
{
	if (w->next_node_id == 0)
	{
		int			m = cfpg_rtf_max_id_walk(w->stmt->planTree);
		ListCell   *lc;

		foreach(lc, w->stmt->subplans)
			m = Max(m, cfpg_rtf_max_id_walk(lfirst(lc)));
		w->next_node_id = m + 1;
	}
	return w->next_node_id++;
}

/* a pass-through custom scan over child: its output is the child's, as OUTER_VARs */
static CustomScan *
cfpg_rtf_make_node(CfpgRtfWalk *w, Plan *child, const CustomScanMethods *methods)
{
	CustomScan *cs = makeNode(CustomScan);
	Plan	   *p = &cs->scan.plan;
	ListCell   *lc;

	p->startup_cost = child->startup_cost;
	p->total_cost = child->total_cost;
	p->plan_rows = child->plan_rows;
	p->plan_width = child->plan_width;
	p->parallel_aware = false;
	p->parallel_safe = child->parallel_safe;
	p->plan_node_id = cfpg_rtf_node_id(w);
	foreach(lc, child->targetlist)
	{
		TargetEntry *tle = lfirst_node(TargetEntry, lc);
		Var		   *v = makeVar(OUTER_VAR, tle->resno, exprType((Node *) tle->expr),
								exprTypmod((Node *) tle->expr),
								exprCollation((Node *) tle->expr), 0);
		TargetEntry *ntle = makeTargetEntry((Expr *) v, tle->resno, tle->resname, tle->resjunk);

		ntle->ressortgroupref = tle->ressortgroupref;
		p->targetlist = lappend(p->targetlist, ntle);
	}
	p->lefttree = child;
	/* a change of a parameter the child depends on must reach it */
	p->extParam = bms_copy(child->extParam);
	p->allParam = bms_copy(child->allParam);
	cs->scan.scanrelid = 0;
	cs->flags = 0;
	cs->methods = methods;
	return cs;
}

static List *
cfpg_rtf_key_fields(List *l, int filterno, Oid proc, Oid coll, int method, bool strict)
{
	l = lappend(l, makeInteger(filterno));
	l = lappend(l, makeInteger((int) proc));
	l = lappend(l, makeInteger((int) coll));
	l = lappend(l, makeInteger(method));
	l = lappend(l, makeInteger(strict ? 1 : 0));
	return l;
}

static void
cfpg_rtf_hashjoin(CfpgRtfWalk *w, HashJoin *hj)
{
	Hash	   *hash = (Hash *) innerPlan(hj);
	JoinType	jt = hj->join.jointype;
	List	   *bkeys = NIL;
	List	   *bpriv = NIL;
	int			nkeys = 0;
	int			keyidx;
	int			id;
	int			replay_ok = -1; /* the filter the same on every rescan */
	ListCell   *lo,
			   *li,
			   *lop,
			   *lcoll;

	if (hash == NULL || !IsA(hash, Hash) || outerPlan(hj) == NULL)
		return;
	if (!(jt == JOIN_INNER || jt == JOIN_SEMI || jt == JOIN_RIGHT
#if PG_VERSION_NUM >= 160000
		  || jt == JOIN_RIGHT_ANTI
#endif
		  ))
		return;
	/* a Parallel Hash: a shared table that several processes build */
	if (hj->join.plan.parallel_aware || hash->plan.parallel_aware)
		return;
	if (list_length(hj->hashkeys) != list_length(hash->hashkeys) ||
		list_length(hj->hashkeys) != list_length(hj->hashoperators) ||
		list_length(hj->hashkeys) != list_length(hj->hashcollations))
		return;

	id = w->next_id + 1;
	keyidx = 0;
	forfour(lo, hj->hashkeys, li, hash->hashkeys, lop, hj->hashoperators, lcoll, hj->hashcollations)
	{
		Expr	   *okey = (Expr *) lfirst(lo);
		Expr	   *e = cfpg_rtf_strip(okey);
		Oid			opno = lfirst_oid(lop);
		Oid			coll = lfirst_oid(lcoll);
		CfpgRtfHash hf;
		bool		strict;
		Plan	  **at = &hj->join.plan.lefttree;
		Expr	   *ckey;
		CustomScan *chk;
		int			filterno;

		Expr	   *ikey = cfpg_rtf_strip((Expr *) lfirst(li));
		bool		ovar = e != NULL && IsA(e, Var);
		bool		ivar = ikey != NULL && IsA(ikey, Var);

		keyidx++;
		/*
		 * The join evaluates a row's keys in order and stops at the first
		 * NULL: a key after the first is taken only where both sides are
		 * columns (evaluating an expression on a row the join would not
		 * could raise an error it does not); a volatile key never (the
		 * join's evaluation and ours could differ).
		 */
		if (keyidx > 1 && !(ovar && ivar))
			continue;
		if ((!ovar && cfpg_rtf_volatile((Node *) okey)) ||
			(!ivar && cfpg_rtf_volatile((Node *) lfirst(li))))
			continue;
		if (!cfpg_rtf_hash_procs(opno, &hf))
			continue;
		strict = hf.strict;
		if (e != NULL && IsA(e, Var) && ((Var *) e)->varno == OUTER_VAR && ((Var *) e)->varattno > 0)
		{
			AttrNumber	attno = ((Var *) e)->varattno;
			TargetEntry *tle;

			/*
			 * The filter stays the same across rescans only when the build
			 * side depends on no parameter and has no volatile function
			 * (its hash table rebuilt from the same rows); else never below
			 * a node that replays rows.
			 */
			if (replay_ok < 0)
				replay_ok = bms_is_empty(hash->plan.allParam) &&
					bms_is_empty(hash->plan.extParam) &&
					bms_is_empty(pull_paramids((Expr *) hash->hashkeys)) &&
					cfpg_rtf_stable(hash->plan.lefttree);
			at = cfpg_rtf_descend(at, &attno, replay_ok > 0);
			tle = get_tle_by_resno((*at)->targetlist, attno);
			Assert(tle != NULL);
			ckey = (Expr *) makeVar(OUTER_VAR, attno, exprType((Node *) tle->expr),
									exprTypmod((Node *) tle->expr),
									exprCollation((Node *) tle->expr), 0);
		}
		else
			ckey = (Expr *) copyObject(okey);
		/* where a filter cannot pay at all */
		if (cfpg_rtf_min_rows >= 0 &&
			((*at)->plan_rows < cfpg_rtf_min_rows || (*at)->plan_rows < hash->plan.plan_rows))
			continue;

		filterno = ++w->next_filter;
		chk = cfpg_rtf_make_node(w, *at, &cfpg_rtf_check_methods);
		chk->custom_private = list_make3(makeInteger(CFPG_RTF_CHECK), makeInteger(id),
										 makeInteger(nkeys));
		chk->custom_private = cfpg_rtf_key_fields(chk->custom_private, filterno, hf.lproc, coll,
												  hf.lmethod, strict);
		chk->custom_exprs = list_make1(ckey);
		*at = &chk->scan.plan;

		bkeys = lappend(bkeys, copyObject(lfirst(li)));
		bpriv = cfpg_rtf_key_fields(bpriv, filterno, hf.rproc, coll, hf.rmethod, strict);
		nkeys++;
	}
	if (nkeys > 0)
	{
		CustomScan *b = cfpg_rtf_make_node(w, hash->plan.lefttree, &cfpg_rtf_build_methods);

		b->custom_private = list_concat(list_make3(makeInteger(CFPG_RTF_BUILD), makeInteger(id),
												   makeInteger(nkeys)), bpriv);
		b->custom_exprs = bkeys;
		hash->plan.lefttree = &b->scan.plan;
		w->next_id = id;
	}
}

/* every hash join under p, children first */
static void
cfpg_rtf_walk(CfpgRtfWalk *w, Plan *p)
{
	ListCell   *lc;

	if (p == NULL)
		return;
	check_stack_depth();
	cfpg_rtf_walk(w, p->lefttree);
	cfpg_rtf_walk(w, p->righttree);
	if (IsA(p, Append))
		foreach(lc, ((Append *) p)->appendplans)
			cfpg_rtf_walk(w, lfirst(lc));
	else if (IsA(p, MergeAppend))
		foreach(lc, ((MergeAppend *) p)->mergeplans)
			cfpg_rtf_walk(w, lfirst(lc));
	else if (IsA(p, SubqueryScan))
		cfpg_rtf_walk(w, ((SubqueryScan *) p)->subplan);
	else if (IsA(p, CustomScan))
		foreach(lc, ((CustomScan *) p)->custom_plans)
			cfpg_rtf_walk(w, lfirst(lc));
	if (IsA(p, HashJoin))
		cfpg_rtf_hashjoin(w, (HashJoin *) p);
}

bool
cfpg_rtf_active(void)
{
	const char *v;

	if (!cfpg_rtf_enabled)
		return false;
	v = GetConfigOption("cuckoo.join_prefilter", true, false);
	return v != NULL && strcmp(v, "on") == 0;
}

static PlannedStmt *
cfpg_rtf_planner(Query *parse, const char *query_string, int cursorOptions,
				 ParamListInfo boundParams)
{
	PlannedStmt *stmt;

	if (cfpg_rtf_prev_planner)
		stmt = cfpg_rtf_prev_planner(parse, query_string, cursorOptions, boundParams);
	else
		stmt = standard_planner(parse, query_string, cursorOptions, boundParams);
	if (stmt != NULL && stmt->commandType != CMD_UTILITY && cfpg_rtf_active())
	{
		CfpgRtfWalk w;
		ListCell   *lc;

		memset(&w, 0, sizeof(w));
		w.stmt = stmt;
		cfpg_rtf_walk(&w, stmt->planTree);
		foreach(lc, stmt->subplans)
			cfpg_rtf_walk(&w, lfirst(lc));
	}
	return stmt;
}

void
cfpg_rtf_init(void)
{
	DefineCustomBoolVariable("cuckoo.join_prefilter_runtime",
							 "Filters hash joins' probe sides at run time with a cuckoo filter of the build side's keys.",
							 "Active when cuckoo.join_prefilter is on (docs/prefilter.md, \"Run-time filters\").",
							 &cfpg_rtf_enabled, true, PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("cuckoo.join_prefilter_runtime_max_keys",
							"Most build-side keys a run-time join filter collects; past it, the filter passes every row.",
							"8 bytes each while the build side is read.",
							&cfpg_rtf_max_keys, 4000000, 0, INT_MAX / 2,
							PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("cuckoo.join_prefilter_runtime_sample",
							"Rows a run-time join filter checks before it decides whether it removes enough to stay on.",
							"0: it never switches off.",
							&cfpg_rtf_sample, 4096, 0, INT_MAX,
							PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomRealVariable("cuckoo.join_prefilter_runtime_min_removed",
							 "Smallest fraction of the sampled rows a run-time join filter must remove to stay on.",
							 NULL, &cfpg_rtf_min_removed, 0.1, 0.0, 1.0,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomRealVariable("cuckoo.join_prefilter_runtime_min_rows",
							 "Fewest estimated rows where a run-time join filter's check would go.",
							 "Joins whose check would see fewer rows, or fewer than the build side's, get none; "
							 "-1: every join that allows one (a testing aid).",
							 &cfpg_rtf_min_rows, 1000.0, -1.0, 1e15,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	CacheRegisterSyscacheCallback(OPEROID, cfpg_rtf_cache_reset, (Datum) 0);
	CacheRegisterSyscacheCallback(AMOPOPID, cfpg_rtf_cache_reset, (Datum) 0);
	CacheRegisterSyscacheCallback(AMPROCNUM, cfpg_rtf_cache_reset, (Datum) 0);
	cfpg_rtf_exec_init();
	cfpg_rtf_prev_planner = planner_hook;
	planner_hook = cfpg_rtf_planner;
}
