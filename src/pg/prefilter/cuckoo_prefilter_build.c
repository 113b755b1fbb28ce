/*
 * cuckoo_prefilter_build.c - the query-level join pre-filter's build stage
 * (docs/prefilter.md): a candidate's condition, either
 *
 *     (SELECT cf_agg(s.k) FROM S s WHERE <S's usable conditions>) @> b.k
 *
 * an uncorrelated scalar sublink that PostgreSQL makes an InitPlan run once
 * per execution, or, for a foreign table and a few keys, the = ANY form of
 * cuckoo_prefilter_any.c.
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/stratnum.h"
#include "access/table.h"
#include "catalog/indexing.h"
#include "catalog/pg_aggregate.h"
#include "catalog/pg_extension.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "commands/extension.h"
#include "nodes/makefuncs.h"
#include "optimizer/optimizer.h"
#include "parser/parse_func.h"
#include "parser/parse_oper.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"

#include "cuckoo_prefilter_int.h"

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
	c->filter_sl = sl;
	c->filter_type = cftype;

	bv = makeVar((int) c->b.rti, c->b.attno, c->b.type, c->b.typmod, c->b.coll, 0);
	probe = (Expr *) bv;
	if (probetype == TEXTOID && c->b.type != TEXTOID)
		probe = (Expr *) makeRelabelType(probe, TEXTOID, -1, c->b.coll, COERCE_IMPLICIT_CAST);
	op = (OpExpr *) make_opclause(opno, BOOLOID, false, (Expr *) sl, probe,
								  InvalidOid, c->b.coll);
	/* as the parser leaves it: a hook after this one (Citus) may evaluate it */
	op->opfuncid = get_opcode(opno);
	c->probe_op = opno;
	return (Node *) op;
}

/*
 * The condition of candidate c, or NULL (*why set) if the extension's
 * objects are not there; *nsp caches the extension's schema.
 */
Node *
cfpg_pf_build(PfCand *c, Oid *nsp, const char **why)
{
	if (cfpg_pf_any_fits(c))
		return cfpg_pf_any_qual(c);
	if (!OidIsValid(*nsp))
		*nsp = cfpg_pf_ext_schema();
	if (!OidIsValid(*nsp))
	{
		*why = "the extension cuckoo is not installed in this database";
		return NULL;
	}
	return cfpg_pf_filter_qual(c, *nsp, why);
}
