/*
 * cuckoo_prefilter_any.c - the join pre-filter's form for a few keys: where
 * the filtered side is a foreign table and the other side is estimated at
 * no more than cuckoo.join_prefilter_max_array_keys rows, the rule adds
 *
 *     (b.k = ANY (ARRAY(SELECT s.k FROM S s WHERE <S's conditions> LIMIT n + 1))
 *      OR (EXISTS (SELECT FROM S s WHERE <S's conditions> OFFSET n) AND b.k = b.k))
 *
 * instead of the cuckoo filter: the remote server gets the keys themselves
 * (two InitPlans' values, sent as parameters), plans its scan with them and
 * can answer from an index on the key, which a filter cannot use
 * (bench/prefilter_tiny.sh: docs/prefilter.md, "A few keys").  The
 * comparison is the join's own equality operator, so the condition keeps a
 * row exactly when some key of S equals its key, as the join compares them.
 * When S has more than n rows after all (the estimate was wrong), the
 * EXISTS is true and every row passes: the condition never removes a row
 * that could join (b.k = b.k holds for every key but NULL, which joins
 * nothing), and neither InitPlan reads more than n + 1 of S's rows.  The
 * b.k = b.k is there for the planner: it estimates it at 1 / b's distinct
 * keys, where the EXISTS alone would count as half of b's rows and could
 * turn a hash join into a loop of remote queries; the remote server, which
 * gets the EXISTS's value, folds the whole OR away.
 */
#include "postgres.h"

#include "catalog/pg_class.h"
#include "catalog/pg_type.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "parser/parsetree.h"
#include "rewrite/rewriteManip.h"
#include "utils/lsyscache.h"
#include "utils/typcache.h"

#include "cuckoo_prefilter_int.h"

/*
 * The key types the ARRAY form takes: plain base types with an array type
 * (not arrays, whose ANY would compare elements, nor domains or records).
 */
static bool
cfpg_pf_any_type_ok(Oid type)
{
	return get_typtype(type) == TYPTYPE_BASE && !type_is_array(type) &&
		OidIsValid(get_array_type(type));
}

/* b's own equality (b.k = b.k), or InvalidOid */
static Oid
cfpg_pf_any_self_eq(const PfCand *c)
{
	TypeCacheEntry *tce = lookup_type_cache(c->b.type, TYPECACHE_EQ_OPR);

	return tce->eq_opr;
}

bool
cfpg_pf_any_fits(const PfCand *c)
{
	return cfpg_pf_set.max_array_keys > 0 &&
		OidIsValid(cfpg_pf_any_self_eq(c)) &&
		OidIsValid(c->eqop) &&
		c->b.rte != NULL && c->b.rte->rtekind == RTE_RELATION &&
		get_rel_relkind(c->b.relid) == RELKIND_FOREIGN_TABLE &&
		c->s.seen && c->s.rows <= cfpg_pf_set.max_array_keys &&
		cfpg_pf_any_type_ok(c->s.type);
}

/*
 * SELECT <tlexpr> AS <name> (no column for NULL) FROM S s WHERE <S's usable
 * conditions>, S renumbered 1 (tlexpr, a Var of S, renumbered in place)
 */
Query *
cfpg_pf_s_query(const PfCand *c, Expr *tlexpr, const char *name)
{
	Query	   *sq = makeNode(Query);
	RangeTblEntry *rte = copyObject(c->s_rte);
	List	   *quals = copyObject(c->s_quals);
	RangeTblRef *ref = makeNode(RangeTblRef);

	ChangeVarNodes((Node *) quals, (int) c->s.rti, 1, 0);
	ChangeVarNodes((Node *) rte->securityQuals, (int) c->s.rti, 1, 0);
	if (tlexpr)
		ChangeVarNodes((Node *) tlexpr, (int) c->s.rti, 1, 0);
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
	ref->rtindex = 1;
	sq->jointree = makeFromExpr(list_make1(ref),
								quals ? (Node *) make_ands_explicit(quals) : NULL);
	sq->hasSubLinks = checkExprHasSubLink((Node *) rte->securityQuals);
	if (tlexpr)
		sq->targetList = list_make1(makeTargetEntry(tlexpr, 1, pstrdup(name ? name : "k"), false));
	return sq;
}

/* a sublink of type over sq */
SubLink *
cfpg_pf_make_sublink(SubLinkType type, Query *sq)
{
	SubLink    *sl = makeNode(SubLink);

	sl->subLinkType = type;
	sl->subLinkId = 0;
	sl->testexpr = NULL;
	sl->operName = NIL;
	sl->subselect = (Node *) sq;
	sl->location = -1;
	return sl;
}

Node *
cfpg_pf_any_qual(const PfCand *c)
{
	int64		n = (int64) cfpg_pf_set.max_array_keys;
	Var		   *sv = makeVar((int) c->s.rti, c->s.attno, c->s.type, c->s.typmod, c->s.coll, 0);
	Var		   *bv = makeVar((int) c->b.rti, c->b.attno, c->b.type, c->b.typmod, c->b.coll, 0);
	Query	   *keys = cfpg_pf_s_query(c, (Expr *) sv, NULL);
	Query	   *more = cfpg_pf_s_query(c, NULL, NULL);
	SubLink    *arr;
	ScalarArrayOpExpr *saop;
	OpExpr	   *self;

	keys->limitCount = (Node *) makeConst(INT8OID, -1, InvalidOid, sizeof(int64),
										  Int64GetDatum(n + 1), false, FLOAT8PASSBYVAL);
	keys->limitOption = LIMIT_OPTION_COUNT;
	more->limitOffset = (Node *) makeConst(INT8OID, -1, InvalidOid, sizeof(int64),
										   Int64GetDatum(n), false, FLOAT8PASSBYVAL);
	arr = cfpg_pf_make_sublink(ARRAY_SUBLINK, keys);

	saop = makeNode(ScalarArrayOpExpr);
	saop->opno = c->eqop;
	saop->opfuncid = get_opcode(c->eqop);
	saop->useOr = true;
	saop->inputcollid = c->eqcoll;
	saop->args = list_make2(bv, arr);
	saop->location = -1;
	self = (OpExpr *) make_opclause(cfpg_pf_any_self_eq(c), BOOLOID, false,
									(Expr *) bv, (Expr *) copyObject(bv),
									InvalidOid, c->b.coll);
	self->opfuncid = get_opcode(self->opno);
	return (Node *) make_orclause(list_make2(saop,
											 make_andclause(list_make2(cfpg_pf_make_sublink(EXISTS_SUBLINK, more),
																	   self))));
}
