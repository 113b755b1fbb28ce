/*
 * cuckoo_selfuncs.c - planner selectivity for filter @> column and
 * cf_contains(filter, column): when the filter is a constant, the fraction of
 * rows it passes is estimated from its item count and false-positive rate.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/pg_statistic.h"
#include "fmgr.h"
#include "nodes/supportnodes.h"
#include "optimizer/optimizer.h"
#include "utils/selfuncs.h"

#include "cuckoo_pg.h"

/* PostgreSQL's estimate for an operator or function it knows nothing about */
#define CF_DEFAULT_SEL	0.3333333333

/*
 * Selectivity of filter @> value for the two arguments of a call: with the
 * filter a non-NULL constant and the value a column with statistics, a row
 * passes if its value is one of the filter's items (items / distinct values)
 * or a false positive; NULL values never pass (the function is strict).
 */
static Selectivity
cf_contains_selectivity(PlannerInfo *root, List *args, int varRelid)
{
	VariableStatData vardata;
	Node	   *other;
	bool		varonleft;
	Selectivity sel = CF_DEFAULT_SEL;

	if (list_length(args) != 2 ||
		!get_restriction_variable(root, args, varRelid, &vardata, &other, &varonleft))
		return sel;
	if (!varonleft && IsA(other, Const))
	{
		Const	   *c = (Const *) other;

		if (c->constisnull)
			sel = 0.0;
		else
		{
			struct varlena *v = DatumGetCuckooFilterP(c->constvalue);
			cf_filter	f;
			cf_stats	st;
			bool		isdefault;
			double		ndistinct = get_variable_numdistinct(&vardata, &isdefault);
			double		nullfrac = 0.0;

			cfpg_open(&f, v);
			cf_get_stats(&f, &st);
			if (HeapTupleIsValid(vardata.statsTuple))
				nullfrac = ((Form_pg_statistic) GETSTRUCT(vardata.statsTuple))->stanullfrac;
			if (!isdefault && ndistinct >= 1.0)
			{
				double		hit = Min(1.0, (double) st.items / ndistinct);

				sel = (hit + (1.0 - hit) * st.fpr) * (1.0 - nullfrac);
			}
		}
	}
	ReleaseVariableStats(vardata);
	CLAMP_PROBABILITY(sel);
	return sel;
}

/* restriction estimator of the @> operators */
PG_FUNCTION_INFO_V1(cuckoo_contains_sel);
Datum
cuckoo_contains_sel(PG_FUNCTION_ARGS)
{
	PlannerInfo *root = (PlannerInfo *) PG_GETARG_POINTER(0);
	List	   *args = (List *) PG_GETARG_POINTER(2);
	int			varRelid = PG_GETARG_INT32(3);

	PG_RETURN_FLOAT8(cf_contains_selectivity(root, args, varRelid));
}

/* planner support function of cf_contains: the same estimate for the call */
PG_FUNCTION_INFO_V1(cuckoo_contains_support);
Datum
cuckoo_contains_support(PG_FUNCTION_ARGS)
{
	Node	   *rawreq = (Node *) PG_GETARG_POINTER(0);

	if (IsA(rawreq, SupportRequestSelectivity))
	{
		SupportRequestSelectivity *req = (SupportRequestSelectivity *) rawreq;

		if (req->is_join)
			req->selectivity = cfpg_contains_joinsel(req->root, req->args,
													 (int) req->jointype, req->sjinfo);
		else
			req->selectivity = cf_contains_selectivity(req->root, req->args, req->varRelid);
		PG_RETURN_POINTER(req);
	}
	PG_RETURN_POINTER(NULL);
}
