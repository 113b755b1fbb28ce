/*
 * cuckoo_prefilter_find.c - the join pre-filter's search of the query tree
 * (docs/prefilter.md): the joins where (SELECT cf_agg(s.k) FROM S s WHERE
 * <S's own conditions>) @> b.k cannot change the result, and the conditions
 * of S the filter may keep.
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
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/stratnum.h"
#include "access/transam.h"
#include "access/table.h"
#include "catalog/pg_class.h"
#include "catalog/pg_foreign_table.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_type.h"
#include "foreign/foreign.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/clauses.h"
#include "optimizer/optimizer.h"
#include "optimizer/plancat.h"
#include "parser/parsetree.h"
#include "rewrite/rewriteManip.h"
#include "utils/fmgroids.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/syscache.h"
#include "utils/typcache.h"
#if PG_VERSION_NUM >= 160000
#include "parser/parse_relation.h"
#endif

#include "cuckoo_hashval.h"
#include "cuckoo_prefilter_int.h"

const char *const cfpg_pf_kind_names[] = {
	"inner join", "semi join", "nullable side of an outer join"
};

/* ---- finding candidates in the query tree ---- */

typedef struct PfScope
{
	Query	   *q;
	int			qlevel;			/* q's index among cfpg_pf_levels' */
	List	   *rels;			/* base relations reached through inner joins */
	List	   *quals;			/* the conjuncts of their conditions */
	List	   *outer;			/* LEFT / RIGHT JoinExprs with a preserved side
								 * in the scope */
	List	   *cands;
} PfScope;

static List *
cfpg_pf_conjuncts(List *acc, Node *n)
{
	ListCell   *lc;

	if (n == NULL)
		return acc;
	if (IsA(n, List))
	{
		foreach(lc, (List *) n)
			acc = cfpg_pf_conjuncts(acc, lfirst(lc));
		return acc;
	}
	if (is_andclause(n))
	{
		foreach(lc, ((BoolExpr *) n)->args)
			acc = cfpg_pf_conjuncts(acc, lfirst(lc));
		return acc;
	}
	return lappend(acc, n);
}

const char *
cfpg_pf_attname(Oid relid, AttrNumber attno)
{
	char	   *name = attno != 0 ? get_attname(relid, attno, true) : NULL;

	return name ? name : "?";
}

static const char *
cfpg_pf_relname(Query *q, Index rti)
{
	return rt_fetch(rti, q->rtable)->eref->aliasname;
}

static void
cfpg_pf_walk(PfScope *sc, Node *n)
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
			cfpg_pf_walk(sc, lfirst(lc));
		sc->quals = cfpg_pf_conjuncts(sc->quals, f->quals);
	}
	else if (IsA(n, JoinExpr))
	{
		JoinExpr   *j = (JoinExpr *) n;

		switch (j->jointype)
		{
			case JOIN_INNER:
				cfpg_pf_walk(sc, j->larg);
				cfpg_pf_walk(sc, j->rarg);
				sc->quals = cfpg_pf_conjuncts(sc->quals, j->quals);
				break;
			case JOIN_LEFT:
				cfpg_pf_walk(sc, j->larg);
				sc->outer = lappend(sc->outer, j);
				break;
			case JOIN_RIGHT:
				cfpg_pf_walk(sc, j->rarg);
				sc->outer = lappend(sc->outer, j);
				break;
			default:
				ereport(cfpg_prefilter_msglevel,
						(errmsg_internal(PF_MSG ": declined: a full join (neither side is filtered)")));
				break;
		}
	}
}

/*
 * The column under relabelings and the casts that cannot fail and keep what
 * the filter hashes: integers to numeric, int2 and int4 to float8, int2 to
 * float4 (the filter hashes an integral numeric or float as the integer),
 * char(n) to text (it hashes both without trailing blanks), or n itself.
 */
static Node *
cfpg_pf_strip(Node *n)
{
	for (;;)
	{
		if (n && IsA(n, RelabelType))
			n = (Node *) ((RelabelType *) n)->arg;
		else if (n && IsA(n, FuncExpr) && list_length(((FuncExpr *) n)->args) == 1 &&
				 (((FuncExpr *) n)->funcid == F_NUMERIC_INT2 ||
				  ((FuncExpr *) n)->funcid == F_NUMERIC_INT4 ||
				  ((FuncExpr *) n)->funcid == F_NUMERIC_INT8 ||
				  ((FuncExpr *) n)->funcid == F_FLOAT8_INT2 ||
				  ((FuncExpr *) n)->funcid == F_FLOAT8_INT4 ||
				  ((FuncExpr *) n)->funcid == F_FLOAT4_INT2 ||
				  ((FuncExpr *) n)->funcid == F_TEXT_BPCHAR))
			n = (Node *) linitial(((FuncExpr *) n)->args);
		else
			return n;
	}
}

/*
 * What the rule asks of a join's operator, kept per backend: the catalog
 * look-ups behind it (its input types, whether it joins by hash or merge,
 * whether it is its left type's btree equality, its commutator, whether it
 * is strict) ran for every conjunct of every query planned, ~0.5 us of a
 * 13 us plan.  Emptied when pg_operator, pg_amop or pg_opclass changes (a
 * default operator class decides the btree family).
 */
typedef struct PfOpInfo
{
	Oid			opno;
	Oid			intype;			/* its first argument's type, for joinable */
	bool		joinable;		/* op_mergejoinable or op_hashjoinable */
	bool		btree_eq;		/* the btree equality of its left type's family */
	bool		strict;
	Oid			lt;
	Oid			rt;
	Oid			commutator;
} PfOpInfo;

#define PF_OPS 64
static PfOpInfo pf_ops[PF_OPS];
static int	pf_nops = 0;
static uint64 pf_ops_inval = 0;	/* invalidations seen: one during a look-up */

static void
cfpg_pf_ops_inval(Datum arg, int cacheid, uint32 hashvalue)
{
	pf_nops = 0;
	pf_ops_inval++;
}

void
cfpg_pf_find_init(void)
{
	CacheRegisterSyscacheCallback(OPEROID, cfpg_pf_ops_inval, (Datum) 0);
	CacheRegisterSyscacheCallback(AMOPOPID, cfpg_pf_ops_inval, (Datum) 0);
	CacheRegisterSyscacheCallback(CLAOID, cfpg_pf_ops_inval, (Datum) 0);
}

static const PfOpInfo *
cfpg_pf_opinfo(Oid opno, Oid intype)
{
	static PfOpInfo uncached;
	PfOpInfo	o;
	TypeCacheEntry *tce;
	uint64		inval = pf_ops_inval;
	int			i;

	for (i = 0; i < pf_nops; i++)
		if (pf_ops[i].opno == opno && pf_ops[i].intype == intype)
			return &pf_ops[i];
	memset(&o, 0, sizeof(o));
	o.opno = opno;
	o.intype = intype;
	o.joinable = op_mergejoinable(opno, intype) || op_hashjoinable(opno, intype);
	op_input_types(opno, &o.lt, &o.rt);
	tce = lookup_type_cache(o.lt, TYPECACHE_BTREE_OPFAMILY);
	o.btree_eq = OidIsValid(tce->btree_opf) &&
		get_op_opfamily_strategy(opno, tce->btree_opf) == BTEqualStrategyNumber;
	o.strict = op_strict(opno);
	o.commutator = get_commutator(opno);
	/*
	 * A catalog change seen while these were looked up (a look-up that
	 * opens a catalog takes in invalidations) may have made them stale:
	 * use them this once, as an uncached look-up would, but keep nothing
	 */
	if (inval != pf_ops_inval)
	{
		uncached = o;
		return &uncached;
	}
	/* full: start again (a query with more distinct operators is rare) */
	if (pf_nops == PF_OPS)
		pf_nops = 0;
	pf_ops[pf_nops] = o;
	return &pf_ops[pf_nops++];
}

/* clause is "x = y" between two plain columns (relabelings stripped) */
static bool
cfpg_pf_equi(Node *clause, Var **x, Var **y, OpExpr **op)
{
	OpExpr	   *o;
	Node	   *a;
	Node	   *b;

	if (!IsA(clause, OpExpr))
		return false;
	o = (OpExpr *) clause;
	if (list_length(o->args) != 2 || o->opretset ||
		!cfpg_pf_opinfo(o->opno, exprType(linitial(o->args)))->joinable)
		return false;
	a = cfpg_pf_strip(linitial(o->args));
	b = cfpg_pf_strip(lsecond(o->args));
	if (!a || !b || !IsA(a, Var) || !IsA(b, Var))
		return false;
	*x = (Var *) a;
	*y = (Var *) b;
	*op = o;
	return true;
}

/* Is clause a join's equality (a joinable operator) between two relations of its level? */
static bool
cfpg_pf_join_eq(Node *clause)
{
	OpExpr	   *o;
	Bitmapset  *rels;

	if (!IsA(clause, OpExpr))
		return false;
	o = (OpExpr *) clause;
	if (list_length(o->args) != 2 || o->opretset ||
		!cfpg_pf_opinfo(o->opno, exprType(linitial(o->args)))->joinable)
		return false;
	rels = pull_varnos(NULL, clause);
	return bms_num_members(rels) == 2 &&
		bms_num_members(pull_varnos(NULL, linitial(o->args))) == 1 &&
		bms_num_members(pull_varnos(NULL, lsecond(o->args))) == 1;
}

/*
 * A conjunct that joins two relations of the scope's level but is no
 * candidate: its line, saying why (a key that is an expression or a cast, a
 * view, subquery or CTE on a side, a key only inside OR branches).
 */
static void
cfpg_pf_say_other(PfScope *sc, Node *qual)
{
	OpExpr	   *o;
	Node	   *a;
	Node	   *b;
	int			ra;
	int			rb;
	RangeTblEntry *ea;
	RangeTblEntry *eb;

	if (is_orclause(qual))
	{
		ListCell   *lc;
		ListCell   *lc2;

		/* an equality in every branch (PostgreSQL joins by none of them) */
		foreach(lc, ((BoolExpr *) qual)->args)
		{
			List	   *conj = cfpg_pf_conjuncts(NIL, lfirst(lc));
			bool		found = false;

			foreach(lc2, conj)
				found |= cfpg_pf_join_eq(lfirst(lc2));
			if (!found)
				return;
		}
		ereport(cfpg_prefilter_msglevel,
				(errmsg_internal(PF_MSG ": declined a join whose keys are only inside OR branches (no branch is the join's: a filter of one branch's keys could drop the other's rows)")));
		return;
	}
	if (!cfpg_pf_join_eq(qual))
		return;
	o = (OpExpr *) qual;
	a = cfpg_pf_strip(linitial(o->args));
	b = cfpg_pf_strip(lsecond(o->args));
	ra = bms_singleton_member(pull_varnos(NULL, a));
	rb = bms_singleton_member(pull_varnos(NULL, b));
	if (ra == rb || contain_vars_of_level(qual, 1))
		return;
	ea = rt_fetch(ra, sc->q->rtable);
	eb = rt_fetch(rb, sc->q->rtable);
	if (ea->rtekind != RTE_RELATION || eb->rtekind != RTE_RELATION)
		ereport(cfpg_prefilter_msglevel,
				(errmsg_internal(PF_MSG ": declined the join of %s and %s: %s is a view, a subquery or a WITH query, not a table (a filter is built from a table and checked in a table's scan)",
								 ea->eref->aliasname, eb->eref->aliasname,
								 (ea->rtekind != RTE_RELATION ? ea : eb)->eref->aliasname)));
	else if (!IsA(a, Var) || !IsA(b, Var))
		ereport(cfpg_prefilter_msglevel,
				(errmsg_internal(PF_MSG ": declined the join of %s and %s: a key is an expression or a cast, not a column",
								 ea->eref->aliasname, eb->eref->aliasname)));
}

/* getBaseType, without its catalog look-up for a built-in type (never a domain) */
static inline Oid
cfpg_pf_base_type(Oid typid)
{
	return typid < FirstGenbkiObjectId ? typid : getBaseType(typid);
}

/* cfpg_type_value_kind, kept for the built-in types (their kind never changes) */
static int
cfpg_pf_value_kind(Oid typid)
{
	static Oid	oids[16];
	static int	kinds[16];
	static int	n = 0;
	int			i;
	int			kind;

	if (typid >= FirstGenbkiObjectId)
		return cfpg_type_value_kind(typid);
	for (i = 0; i < n; i++)
		if (oids[i] == typid)
			return kinds[i];
	kind = cfpg_type_value_kind(typid);
	if (n < (int) lengthof(oids))
	{
		oids[n] = typid;
		kinds[n++] = kind;
	}
	return kind;
}

/*
 * The class of types a filter hashes alike and SQL's btree equality compares
 * alike (docs/hashing.md), or 0: a key type the rule does not take.
 */
static int
cfpg_pf_type_class(Oid typid)
{
	switch (cfpg_pf_base_type(typid))
	{
		case INT2OID:
		case INT4OID:
		case INT8OID:
			return 1;
		case FLOAT4OID:
		case FLOAT8OID:
			return 2;
		case NUMERICOID:
			return 3;			/* also against an integer cast to numeric */
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

/*
 * Key classes a and b differ: does the equality on lt (its left input type)
 * compare them as the filter hashes them?  Integers against numeric, or
 * floats (the casts cfpg_pf_strip looks through); text or varchar against
 * char(n); timestamp against date (hashed as the timestamp of its midnight);
 * the kind check follows.
 */
static bool
cfpg_pf_cross_ok(Oid lt, int a, int b)
{
#define PAIR(x, y) ((a == (x) && b == (y)) || (a == (y) && b == (x)))
	if (lt == NUMERICOID && PAIR(1, 3))
		return true;
	if ((lt == FLOAT8OID || lt == FLOAT4OID) && PAIR(1, 2))
		return true;
	if ((lt == TEXTOID || lt == BPCHAROID) && PAIR(4, 5))
		return true;
	if (PAIR(8, 9))
		return true;
#undef PAIR
	return false;
}

static bool
cfpg_pf_coll_ok(Oid coll)
{
	return !OidIsValid(coll) || get_collation_isdeterministic(coll);
}

/*
 * Can b.k be probed in a filter of s.k's values, under the join's equality
 * op, with no false negative and no error?  Else *why says why not.
 */
static bool
cfpg_pf_pair_ok(OpExpr *op, Var *bv, Var *sv, const char **why)
{
	const PfOpInfo *oi;
	Oid			lt;
	int			cb;
	int			cs;

	if (bv->varattno <= 0 || sv->varattno <= 0)
	{
		*why = "a key is not a column";
		return false;
	}
	oi = cfpg_pf_opinfo(op->opno, exprType(linitial(op->args)));
	lt = oi->lt;
	if (!oi->btree_eq)
	{
		*why = "the operator is not the key type's btree equality";
		return false;
	}
	cb = cfpg_pf_type_class(bv->vartype);
	cs = cfpg_pf_type_class(sv->vartype);
	if (cb == 0 ||
		(cb != cs && !cfpg_pf_cross_ok(lt, cb, cs)) ||
		(cfpg_pf_base_type(sv->vartype) != cfpg_pf_base_type(bv->vartype) &&
		 !cfpg_kind_accepts((uint32) cfpg_pf_value_kind(cfpg_pf_base_type(sv->vartype)),
							(uint32) cfpg_pf_value_kind(cfpg_pf_base_type(bv->vartype)))))
	{
		*why = "key types the filter does not hash alike";
		return false;
	}
	if (!cfpg_pf_coll_ok(bv->varcollid) || !cfpg_pf_coll_ok(sv->varcollid) ||
		!cfpg_pf_coll_ok(op->inputcollid))
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
cfpg_pf_usable_quals(List *conj, Index srti, int *dropped)
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
		else if (bms_membership(rels) == BMS_SINGLETON && bms_is_member((int) srti, rels) &&
				 !contain_vars_of_level(q, 1))
			(*dropped)++;		/* S's own (a correlated one joins) */
	}
	return keep;
}

static void
cfpg_pf_side(PfSide *sd, Query *q, Index rti, Var *v, bool exact_rte)
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
/* Is relid a postgres_fdw foreign table (a filter that crosses a network)? */
static bool
cfpg_pf_is_postgres_fdw(Oid relid)
{
	HeapTuple	tup;
	Oid			server;

	if (get_rel_relkind(relid) != RELKIND_FOREIGN_TABLE)
		return false;
	tup = SearchSysCache1(FOREIGNTABLEREL, ObjectIdGetDatum(relid));
	if (!HeapTupleIsValid(tup))
		return false;
	server = ((Form_pg_foreign_table) GETSTRUCT(tup))->ftserver;
	ReleaseSysCache(tup);
	return strcmp(GetForeignDataWrapper(GetForeignServer(server)->fdwid)->fdwname,
				  "postgres_fdw") == 0;
}

bool
cfpg_pf_rescan_same(Oid relid, bool inh)
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
 * Its size is pg_class.reltuples, the count of its last ANALYZE or VACUUM
 * (as its statistics; the planner scales it to the table's current size,
 * which costs a system call), or, never counted, the planner's estimate.
 */
static bool
cfpg_pf_too_small(Oid relid)
{
	HeapTuple	tup;
	Form_pg_class cls;
	double		tuples = -1;
	bool		plain;

	if (cfpg_pf_set.min_big_rows <= 0 || cfpg_pf_citus_dist(relid))
		return false;
	tup = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
	if (!HeapTupleIsValid(tup))
		return false;
	cls = (Form_pg_class) GETSTRUCT(tup);
	plain = (cls->relkind == RELKIND_RELATION || cls->relkind == RELKIND_MATVIEW) &&
		!cls->relhassubclass;
	if (plain)
		tuples = cls->reltuples;
	ReleaseSysCache(tup);
	if (!plain)
		return false;
	if (tuples < 0)
	{
		Relation	rel = table_open(relid, NoLock);	/* locked by the parser */
		BlockNumber pages;
		double		allvisfrac;

		estimate_rel_size(rel, NULL, &pages, &tuples, &allvisfrac);
		table_close(rel, NoLock);
	}
	return cfpg_pf_too_few_rows(tuples, &cfpg_pf_set);
}

/*
 * The join's equality as an operator of (B's key type, S's): the clause's
 * own or its commutator, where its inputs are the two columns themselves
 * (no cast looked through); else none, and the = ANY form is not used.
 */
static void
cfpg_pf_eqop(PfCand *c, OpExpr *op, Var *bv, Var *sv)
{
	Oid			lt;
	Oid			rt;
	Node	   *first = cfpg_pf_strip(linitial(op->args));
	bool		b_first = first != NULL && IsA(first, Var) && equal(first, bv);
	Oid			eqop = b_first ? op->opno :
		cfpg_pf_opinfo(op->opno, exprType(linitial(op->args)))->commutator;
	const PfOpInfo *oi;

	c->eqop = InvalidOid;
	c->eqcoll = op->inputcollid;
	if (!OidIsValid(eqop))
		return;
	oi = cfpg_pf_opinfo(eqop, b_first ? exprType(linitial(op->args)) : exprType(lsecond(op->args)));
	if (!oi->strict)
		return;
	lt = oi->lt;
	rt = oi->rt;
	if (lt == bv->vartype && rt == sv->vartype &&
		exprType(linitial(op->args)) == (b_first ? bv->vartype : sv->vartype) &&
		exprType(lsecond(op->args)) == (b_first ? sv->vartype : bv->vartype))
		c->eqop = eqop;
}

/* a candidate: filter b (of the top query) by s (of query sq) */
static void
cfpg_pf_add_cand(PfScope *sc, PfKind kind, OpExpr *op, Var *bv, Query *sq, Var *sv,
			List *s_conj, int join_rtindex)
{
	PfCand	   *c;
	const char *why = NULL;
	RangeTblEntry *srte = rt_fetch(sv->varno, sq->rtable);

	if (cfpg_pf_pair_ok(op, bv, sv, &why) &&
		cfpg_pf_too_small(rt_fetch(bv->varno, sc->q->rtable)->relid))
		why = "the filtered side is estimated below cuckoo.join_prefilter_min_big_rows";
	c = palloc0(sizeof(PfCand));
	c->kind = kind;
	cfpg_pf_side(&c->b, sc->q, bv->varno, bv, true);
	cfpg_pf_side(&c->s, sq, sv->varno, sv, sq == sc->q);
	c->s_rte = srte;			/* copied for the candidates kept */
#if PG_VERSION_NUM >= 160000
	c->s_perm = srte->perminfoindex ?
		copyObject(getRTEPermissionInfo(sq->rteperminfos, srte)) : NULL;
#endif
	c->s_quals = cfpg_pf_usable_quals(s_conj, sv->varno, &c->s_dropped);
	c->join_rtindex = join_rtindex;
	c->qlevel = sc->qlevel;
	cfpg_pf_eqop(c, op, bv, sv);
	c->remote = cfpg_pf_is_postgres_fdw(c->b.relid);
	cfpg_pf_citus_note(c);
	/* declined already: kept for its message (cuckoo_prefilter.c) */
	c->why = why;
	sc->cands = lappend(sc->cands, c);
}

static bool
cfpg_pf_in_scope(PfScope *sc, Var *v, int levelsup)
{
	return (int) v->varlevelsup == levelsup && list_member_int(sc->rels, (int) v->varno);
}

/* a subquery of one table and conditions, nothing that changes its rows */
static bool
cfpg_pf_simple_sub(Query *sub, bool exists, Index *srti)
{
	RangeTblRef *ref;
	Const	   *lim = (Const *) sub->limitCount;

	if (exists && lim && !IsA(lim, Const) && !contain_volatile_functions((Node *) lim))
		lim = (Const *) eval_const_expressions(NULL, copyObject((Node *) lim));

	/* EXISTS (... LIMIT n), n > 0, is EXISTS (...): PostgreSQL drops it too */
	if (exists && lim && IsA(lim, Const) && lim->consttype == INT8OID &&
		!lim->constisnull && DatumGetInt64(lim->constvalue) > 0 &&
		sub->limitOffset == NULL)
		lim = NULL;
	if (sub->commandType != CMD_SELECT || sub->setOperations || sub->hasAggs ||
		sub->groupClause || sub->groupingSets || sub->havingQual ||
		sub->hasWindowFuncs || sub->hasTargetSRFs || lim ||
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
cfpg_pf_sublink(PfScope *sc, SubLink *sl)
{
	Query	   *sub = (Query *) sl->subselect;
	Index		srti;
	List	   *conj;
	ListCell   *lc;

	if (sl->subLinkType != ANY_SUBLINK && sl->subLinkType != EXISTS_SUBLINK)
		return;
	if (!cfpg_pf_simple_sub(sub, sl->subLinkType == EXISTS_SUBLINK, &srti))
	{
		ereport(cfpg_prefilter_msglevel,
				(errmsg_internal(PF_MSG ": declined a semi join: its subquery is not one table and its conditions")));
		return;
	}
	conj = cfpg_pf_conjuncts(NIL, sub->jointree->quals);
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
		bv = (Var *) cfpg_pf_strip(linitial(op->args));
		p = cfpg_pf_strip(lsecond(op->args));
		if (!bv || !IsA(bv, Var) || !cfpg_pf_in_scope(sc, bv, 0) || !p || !IsA(p, Param) ||
			((Param *) p)->paramkind != PARAM_SUBLINK || ((Param *) p)->paramid != 1 ||
			list_length(sub->targetList) < 1)
		{
			if (bv && !IsA(bv, Var))
				ereport(cfpg_prefilter_msglevel,
						(errmsg_internal(PF_MSG ": declined a semi join: its key is an expression or a cast, not a column")));
			return;
		}
		tle = linitial(sub->targetList);
		sv = cfpg_pf_strip((Node *) tle->expr);
		if (!sv || !IsA(sv, Var) || ((Var *) sv)->varlevelsup != 0 ||
			((Var *) sv)->varno != (int) srti)
		{
			ereport(cfpg_prefilter_msglevel,
					(errmsg_internal(PF_MSG ": declined a semi join: its subquery's key is an expression or a cast, not a column")));
			return;
		}
		cfpg_pf_add_cand(sc, PF_SEMI, op, bv, sub, (Var *) sv, conj, 0);
		return;
	}
	foreach(lc, conj)
	{
		Var		   *x;
		Var		   *y;
		OpExpr	   *op;

		if (!cfpg_pf_equi(lfirst(lc), &x, &y, &op))
			continue;
		if (cfpg_pf_in_scope(sc, y, 1) && x->varlevelsup == 0 && x->varno == (int) srti)
		{
			Var		   *t = x;

			x = y;
			y = t;
		}
		if (cfpg_pf_in_scope(sc, x, 1) && y->varlevelsup == 0 && y->varno == (int) srti)
		{
			Var		   *bv = copyObject(x);

			bv->varlevelsup = 0;
			cfpg_pf_add_cand(sc, PF_SEMI, op, bv, sub, y, conj, 0);
		}
	}
}

static void
cfpg_pf_find_scope(PfScope *sc)
{
	ListCell   *lc;
	ListCell   *lc2;

	cfpg_pf_walk(sc, (Node *) sc->q->jointree);
	foreach(lc, sc->quals)
	{
		Node	   *qual = lfirst(lc);
		Var		   *x;
		Var		   *y;
		OpExpr	   *op;

		if (IsA(qual, SubLink))
			cfpg_pf_sublink(sc, (SubLink *) qual);
		else if (is_notclause(qual) && IsA(get_notclausearg(qual), SubLink))
			ereport(cfpg_prefilter_msglevel,
					(errmsg_internal(PF_MSG ": declined an anti join (NOT IN / NOT EXISTS): its outer side is never filtered")));
		else if (cfpg_pf_equi(qual, &x, &y, &op) && cfpg_pf_in_scope(sc, x, 0) &&
				 cfpg_pf_in_scope(sc, y, 0) && x->varno != y->varno)
		{
			cfpg_pf_add_cand(sc, PF_INNER, op, x, sc->q, y, sc->quals, 0);
			cfpg_pf_add_cand(sc, PF_INNER, op, y, sc->q, x, sc->quals, 0);
		}
		else
			cfpg_pf_say_other(sc, qual);
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
		conj = cfpg_pf_conjuncts(NIL, j->quals);
		foreach(lc2, conj)
		{
			Var		   *x;
			Var		   *y;
			OpExpr	   *op;

			if (!cfpg_pf_equi(lfirst(lc2), &x, &y, &op) || x->varlevelsup || y->varlevelsup)
				continue;
			if (y->varno == (int) brti)
			{
				Var		   *t = x;

				x = y;
				y = t;
			}
			if (x->varno != (int) brti || !cfpg_pf_in_scope(sc, y, 0))
				continue;
			ereport(cfpg_prefilter_msglevel,
					(errmsg_internal(PF_MSG ": declined %s from %s: the preserved side of an outer join is never filtered",
									 cfpg_pf_relname(sc->q, y->varno), cfpg_pf_relname(sc->q, x->varno))));
			cfpg_pf_add_cand(sc, PF_NULLABLE, op, x, sc->q, y,
						list_concat(list_copy(sc->quals), conj), j->rtindex);
		}
	}
}

bool
cfpg_pf_locks_rows(Node *n, void *context)
{
	if (n == NULL)
		return false;
	if (IsA(n, Query))
	{
		Query	   *q = (Query *) n;

		if (q->rowMarks != NIL || q->hasForUpdate)
			return true;
		return query_tree_walker(q, cfpg_pf_locks_rows, context, 0);
	}
	return expression_tree_walker(n, cfpg_pf_locks_rows, context);
}

void
cfpg_pf_levels(Query *q, List **levels)
{
	ListCell   *lc;

	*levels = lappend(*levels, q);
	foreach(lc, q->rtable)
	{
		RangeTblEntry *rte = lfirst(lc);

		if (rte->rtekind == RTE_SUBQUERY && rte->subquery && !rte->security_barrier)
			cfpg_pf_levels(rte->subquery, levels);
	}
	foreach(lc, q->cteList)
	{
		CommonTableExpr *cte = lfirst(lc);

		if (!cte->cterecursive && IsA(cte->ctequery, Query))
			cfpg_pf_levels((Query *) cte->ctequery, levels);
	}
}

List *
cfpg_pf_find(Query *top)
{
	List	   *levels = NIL;
	List	   *cands = NIL;
	ListCell   *lc;
	int			level = 0;

	cfpg_pf_levels(top, &levels);
	foreach(lc, levels)
	{
		Query	   *q = lfirst(lc);
		PfScope		sc;

		if (q->commandType == CMD_SELECT && q->utilityStmt == NULL &&
			q->setOperations == NULL && q->jointree != NULL)
		{
			memset(&sc, 0, sizeof(sc));
			sc.q = q;
			sc.qlevel = level;
			cfpg_pf_find_scope(&sc);
			if (sc.cands != NIL && contain_volatile_functions((Node *) q->jointree))
				ereport(cfpg_prefilter_msglevel,
						(errmsg_internal(PF_MSG ": declined: a volatile function in the query's conditions")));
			else
				cands = list_concat(cands, sc.cands);
		}
		level++;
	}
	return cands;
}
