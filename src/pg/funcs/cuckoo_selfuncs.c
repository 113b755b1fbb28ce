/*
 * cuckoo_selfuncs.c - planner support: ANALYZE statistics of a filter
 * column, and the selectivity of filter @> value in a scan or a join.
 */
#include "postgres.h"

#include <math.h>

#include "access/htup_details.h"
#include "catalog/pg_statistic.h"
#include "commands/vacuum.h"
#include "fmgr.h"
#include "nodes/pathnodes.h"
#include "nodes/supportnodes.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "utils/lsyscache.h"
#include "utils/selfuncs.h"

#include "cuckoo_args.h"

/* ---------------------------------------------------------------------
 * statistics of a filter column, and the join estimate of filter @> value
 *
 * ANALYZE of a cuckoofilter column adds one slot to the standard
 * statistics: the mean item count and mean expected false-positive rate of
 * the sampled filters.  With it, filters.f @> t.key in a join is estimated
 * as cf_contains_sel does for a constant filter: a key passes if it is one
 * of a filter's items (items / distinct keys) or a false positive.
 * ------------------------------------------------------------------- */

/* a private statistics kind (pg_statistic.h: 10000-30000 for extensions) */
#define CF_STATISTIC_KIND	21731
/* filters read per ANALYZE for it, and the bytes they may total */
#define CF_STATS_MAX_VALUES	1000
#define CF_STATS_MAX_BYTES	((Size) 64 * 1024 * 1024)
/* the join estimate without these statistics (a key passes 1 filter in 100) */
#define CF_DEFAULT_JOIN_SEL	0.01

/* the standard compute_stats and its extra data, which ours wraps */
typedef struct CfAnalyzeData
{
	AnalyzeAttrComputeStatsFunc std_compute;
	void	   *std_extra;
} CfAnalyzeData;

static void
cfpg_compute_stats(VacAttrStatsP stats, AnalyzeAttrFetchFunc fetchfunc,
				   int samplerows, double totalrows)
{
	CfAnalyzeData *d = (CfAnalyzeData *) stats->extra_data;
	double		items = 0.0,
				fpr = 0.0;
	int			n = 0,
				step;
	Size		bytes = 0;
	int			slot;

	stats->extra_data = d->std_extra;
	d->std_compute(stats, fetchfunc, samplerows, totalrows);
	stats->extra_data = d;
	if (!stats->stats_valid)
		return;

	/* evenly spaced rows of the sample (which is in random order anyway) */
	step = Max(1, samplerows / CF_STATS_MAX_VALUES);
	for (int i = 0; i < samplerows && bytes < CF_STATS_MAX_BYTES; i += step)
	{
		bool		isnull;
		Datum		value = fetchfunc(stats, i, &isnull);
		struct varlena *v;
		cf_filter	f;
		cf_stats	s;

		if (isnull)
			continue;
#if PG_VERSION_NUM >= 180000
		vacuum_delay_point(true);
#else
		vacuum_delay_point();
#endif
		v = (struct varlena *) PG_DETOAST_DATUM_PACKED(value);
		bytes += VARSIZE_ANY(v);
		/* a corrupted value is skipped here; reading it reports it */
		if (cf_open(&f, (uint8 *) VARDATA_ANY(v), VARSIZE_ANY_EXHDR(v), NULL, 0))
		{
			cf_get_stats(&f, &s);
			items += (double) s.items;
			fpr += s.fpr;
			n++;
		}
		if ((Pointer) v != DatumGetPointer(value))
			pfree(v);
	}
	if (n == 0)
		return;
	for (slot = 0; slot < STATISTIC_NUM_SLOTS; slot++)
		if (stats->stakind[slot] == 0)
			break;
	if (slot == STATISTIC_NUM_SLOTS)
		return;
	stats->stakind[slot] = CF_STATISTIC_KIND;
	stats->staop[slot] = InvalidOid;
	stats->stacoll[slot] = InvalidOid;
	stats->stanumbers[slot] = MemoryContextAlloc(stats->anl_context, 2 * sizeof(float4));
	stats->stanumbers[slot][0] = (float4) (items / n);
	stats->stanumbers[slot][1] = (float4) (fpr / n);
	stats->numnumbers[slot] = 2;
}

/* typanalyze of cuckoofilter: the standard statistics plus the slot above */
PG_FUNCTION_INFO_V1(cuckoofilter_typanalyze);
Datum
cuckoofilter_typanalyze(PG_FUNCTION_ARGS)
{
	VacAttrStats *stats = (VacAttrStats *) PG_GETARG_POINTER(0);
	CfAnalyzeData *d;

	if (!std_typanalyze(stats))
		PG_RETURN_BOOL(false);
	d = MemoryContextAlloc(stats->anl_context, sizeof(CfAnalyzeData));
	d->std_compute = stats->compute_stats;
	d->std_extra = stats->extra_data;
	stats->compute_stats = cfpg_compute_stats;
	stats->extra_data = d;
	PG_RETURN_BOOL(true);
}

/* fraction of vardata's rows that are NULL, from its statistics */
static double
cfpg_nullfrac(VariableStatData *vardata)
{
	if (HeapTupleIsValid(vardata->statsTuple))
		return ((Form_pg_statistic) GETSTRUCT(vardata->statsTuple))->stanullfrac;
	return 0.0;
}

/* estimated rows of the relation (base or join) made of relids, or -1 */
static double
cfpg_rel_rows(PlannerInfo *root, Relids relids)
{
	int			relid;
	RelOptInfo *rel;

	if (bms_get_singleton_member(relids, &relid))
		rel = find_base_rel(root, relid);
	else
		rel = find_join_rel(root, relids);
	return rel != NULL ? rel->rows : -1.0;
}

/*
 * The share of a value column's rows that a filter with items items and
 * expected false-positive rate fpr passes: a value passes if it is one of
 * the items (items / distinct values, at most all) or a false positive.
 * False when the column's distinct count is not known.
 */
static bool
cfpg_pass_rate(VariableStatData *vardata, double items, double fpr, double *rate)
{
	bool		isdefault;
	double		ndistinct = get_variable_numdistinct(vardata, &isdefault);
	double		hit;

	if (isdefault || ndistinct < 1.0)
		return false;
	hit = Min(1.0, items / ndistinct);
	*rate = hit + (1.0 - hit) * fpr;
	return true;
}

/* the item count and expected false-positive rate of a constant filter */
static void
cfpg_const_stats(const Const *c, double *items, double *fpr)
{
	Datum		d = c->constvalue;
	cf_filter	f;
	cf_stats	s;

	cfpg_open_datum(&d, &f);
	cf_get_stats(&f, &s);
	*items = (double) s.items;
	*fpr = s.fpr;
}

/*
 * The filter side of a join: the items and rate of a constant filter, or
 * the means ANALYZE recorded for a filter column (*items stays -1 without
 * them), and the share of NULL filters.
 */
static void
cfpg_filter_side(Node *farg, VariableStatData *fvar, double *items, double *fpr,
				 double *nullfrac)
{
	if (IsA(farg, Const))
	{
		Const	   *c = (Const *) farg;

		if (c->constisnull)
			*nullfrac = 1.0;
		else
			cfpg_const_stats(c, items, fpr);
	}
	else if (HeapTupleIsValid(fvar->statsTuple))
	{
		/* only numbers are read, no stored value is passed to a function */
		AttStatsSlot sslot;

		*nullfrac = cfpg_nullfrac(fvar);
		if (get_attstatsslot(&sslot, fvar->statsTuple, CF_STATISTIC_KIND, InvalidOid,
							 ATTSTATSSLOT_NUMBERS))
		{
			if (sslot.nnumbers == 2)
			{
				*items = sslot.numbers[0];
				*fpr = sslot.numbers[1];
			}
			free_attstatsslot(&sslot);
		}
	}
}

/* the join estimate of a filter that meets the keys of its own group, without its statistics */
#define CF_DEFAULT_GROUP_SEL	0.5

/*
 * The equivalence class that also joins the relations of a and b, if any: an
 * equality with a member of each (USING (user_id), a = b, or both equal to
 * one constant).  Then a filter meets only the keys of its own group, which
 * it was most likely built from, not keys drawn from the whole column.
 */
static EquivalenceClass *
cfpg_grouped(PlannerInfo *root, Relids a, Relids b)
{
	ListCell   *lc;

	if (bms_is_empty(a) || bms_is_empty(b) || bms_overlap(a, b))
		return NULL;
	foreach(lc, root->eq_classes)
	{
		EquivalenceClass *ec = (EquivalenceClass *) lfirst(lc);
		bool		ina = false,
					inb = false;
		ListCell   *lm;

		foreach(lm, ec->ec_members)
		{
			EquivalenceMember *em = (EquivalenceMember *) lfirst(lm);

			if (em->em_is_child || bms_is_empty(em->em_relids))
				continue;
			ina |= bms_is_subset(em->em_relids, a);
			inb |= bms_is_subset(em->em_relids, b);
		}
		if (ina && inb)
			return ec;
	}
	return NULL;
}

/*
 * The distinct values of side's member of ec (at most rows, the side's
 * rows): the groups that the equality splits the side into; 1 when ec holds
 * a constant (the side is one group already); -1 when not known.
 */
static double
cfpg_side_groups(PlannerInfo *root, EquivalenceClass *ec, Relids side, double rows)
{
	ListCell   *lm;

	if (rows < 1.0)
		return -1.0;
	if (ec->ec_has_const)
		return 1.0;
	foreach(lm, ec->ec_members)
	{
		EquivalenceMember *em = (EquivalenceMember *) lfirst(lm);
		VariableStatData v;
		bool		isdefault;
		double		nd;

		if (em->em_is_child || bms_is_empty(em->em_relids) ||
			!bms_is_subset(em->em_relids, side))
			continue;
		examine_variable(root, (Node *) em->em_expr, 0, &v);
		nd = get_variable_numdistinct(&v, &isdefault);
		ReleaseVariableStats(v);
		if (!isdefault && nd >= 1.0)
			return Min(nd, rows);
	}
	return -1.0;
}

/*
 * The groups of a join of filters (frows rows) and keys (krows) that ec
 * pairs: as eqjoinsel counts them, the larger of the two sides' distinct
 * values (a sampled count can fall short of the other side's exact one);
 * else the filter rows (one filter per group); -1 when nothing is known.
 */
static double
cfpg_groups(PlannerInfo *root, EquivalenceClass *ec, Relids frelids, double frows,
			Relids krelids, double krows)
{
	double		gf = cfpg_side_groups(root, ec, frelids, frows),
				gk = cfpg_side_groups(root, ec, krelids, krows),
				g = Max(gf, gk);

	if (g < 1.0 && frows >= 1.0)
		g = frows;
	return g >= 1.0 ? g : -1.0;
}

/*
 * Join selectivity of filter @> value (args: the filter, the value): the
 * fraction of (filter row, value row) pairs that pass; NULLs on either side
 * never pass.  Semi and anti joins turn it into the fraction of outer rows
 * with a match.
 *
 * Filters and keys joined only by @> (a key probes every filter): the pass
 * rate of the filter side's items and false-positive rate among the key
 * column's distinct values, as cf_contains_sel estimates it; without those
 * statistics CF_DEFAULT_JOIN_SEL.
 *
 * Filters and keys also joined by an equality (JOIN seen s USING (user_id)
 * WHERE s.items @> e.item_id): the equality already paired each filter with
 * the keys of its group, so the rate is that of the filter's items among the
 * keys of a group (key rows per group, the groups counted as eqjoinsel
 * counts them, else one per filter row; at most the distinct keys), as if
 * the group's filters were built from its keys (the "seen" recipe: one
 * filter per user, or one per user and day); without the filter statistics,
 * or the row counts, the neutral
 * CF_DEFAULT_GROUP_SEL, which misleads neither @> nor NOT @> by orders of
 * magnitude.  Independence (items / all distinct keys) would say almost no
 * pair passes, and NOT @> almost all: 1,633 and 1.15M rows estimated against
 * 917,898 and 0 (issue 33).
 */
static double
cfpg_contains_joinsel(PlannerInfo *root, List *args, int jointype,
					  SpecialJoinInfo *sjinfo)
{
	VariableStatData fvar,
				kvar;
	double		sel = CF_DEFAULT_JOIN_SEL;
	double		items = -1.0,
				fpr = 0.0,
				fnullfrac = 0.0,
				rate;
	Node	   *farg;
	Relids		frelids,
				krelids;
	EquivalenceClass *grouped;
	double		frows = -1.0,
				krows = -1.0,
				groups = -1.0;

	if (list_length(args) != 2)
		return sel;
	farg = (Node *) linitial(args);
	examine_variable(root, farg, 0, &fvar);
	examine_variable(root, (Node *) lsecond(args), 0, &kvar);
	frelids = pull_varnos(root, farg);
	krelids = pull_varnos(root, (Node *) lsecond(args));
	grouped = cfpg_grouped(root, frelids, krelids);

	cfpg_filter_side(farg, &fvar, &items, &fpr, &fnullfrac);
	if (grouped)
	{
		double		met;

		frows = cfpg_rel_rows(root, frelids);
		krows = cfpg_rel_rows(root, krelids);
		groups = cfpg_groups(root, grouped, frelids, frows, krelids, krows);
		met = groups >= 1.0 && krows >= 1.0 ? krows / groups : -1.0;
		sel = CF_DEFAULT_GROUP_SEL;
		if (items >= 0.0 && met > 0.0)
		{
			bool		isdefault;
			double		ndistinct = get_variable_numdistinct(&kvar, &isdefault);
			double		hit;

			if (!isdefault && ndistinct >= 1.0)
				met = Min(met, ndistinct);
			met = Max(met, 1.0);
			hit = Min(1.0, items / met);
			sel = hit + (1.0 - hit) * fpr;
		}
	}
	else if (items >= 0.0 && cfpg_pass_rate(&kvar, items, fpr, &rate))
		sel = rate;
	sel *= (1.0 - cfpg_nullfrac(&kvar)) * (1.0 - fnullfrac);

	/*
	 * EXISTS / NOT EXISTS (semi and anti joins) want the fraction of outer
	 * rows with at least one match among the inner side's rows: with pairs
	 * passing independently, 1 - (1 - sel)^n for the n inner rows an outer
	 * row meets: all of them, or with an equality the rows of its group.
	 */
	if ((jointype == JOIN_SEMI || jointype == JOIN_ANTI) && sjinfo != NULL)
	{
		double		inner = cfpg_rel_rows(root, sjinfo->min_righthand);

		if (grouped)
		{
			/* the inner rows of one group */
			inner = groups >= 1.0 ? Max(1.0, inner / groups) : 1.0;
		}
		if (inner >= 1.0)
			sel = 1.0 - pow(1.0 - Min(sel, 1.0), inner);
	}
	ReleaseVariableStats(fvar);
	ReleaseVariableStats(kvar);
	CLAMP_PROBABILITY(sel);
	return sel;
}

/* join estimator of the @> operators */
PG_FUNCTION_INFO_V1(cuckoo_contains_joinsel);
Datum
cuckoo_contains_joinsel(PG_FUNCTION_ARGS)
{
	PlannerInfo *root = (PlannerInfo *) PG_GETARG_POINTER(0);
	List	   *args = (List *) PG_GETARG_POINTER(2);
	JoinType	jointype = (JoinType) PG_GETARG_INT16(3);
	SpecialJoinInfo *sjinfo = (SpecialJoinInfo *) PG_GETARG_POINTER(4);

	PG_RETURN_FLOAT8(cfpg_contains_joinsel(root, args, (int) jointype, sjinfo));
}

/* PostgreSQL's estimate for an operator or function it knows nothing about */
#define CF_DEFAULT_SEL	0.3333333333

/*
 * Selectivity of filter @> value for the two arguments of a call: with the
 * filter a non-NULL constant and the value a column with statistics, the
 * filter's pass rate (cfpg_pass_rate); NULL values never pass (the function
 * is strict).
 */
static Selectivity
cfpg_contains_selectivity(PlannerInfo *root, List *args, int varRelid)
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
		double		items,
					fpr,
					rate;

		if (c->constisnull)
			sel = 0.0;
		else
		{
			cfpg_const_stats(c, &items, &fpr);
			if (cfpg_pass_rate(&vardata, items, fpr, &rate))
				sel = rate * (1.0 - cfpg_nullfrac(&vardata));
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

	PG_RETURN_FLOAT8(cfpg_contains_selectivity(root, args, varRelid));
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
			req->selectivity = cfpg_contains_selectivity(req->root, req->args, req->varRelid);
		PG_RETURN_POINTER(req);
	}
	PG_RETURN_POINTER(NULL);
}
