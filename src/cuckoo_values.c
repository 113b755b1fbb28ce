/*
 * cuckoo_values.c - filters as SQL values: equality, ordering and hashing of
 * the stored bytes, the bytea casts, cf_describe, the union's rate check,
 * white space in the text form, and the join estimate of filter @> column.
 */
#include "postgres.h"

#include <math.h>

#include "access/detoast.h"
#include "access/htup_details.h"
#include "catalog/pg_statistic.h"
#include "commands/vacuum.h"
#include "common/hashfn.h"
#include "fmgr.h"
#include "lib/stringinfo.h"
#include "nodes/pathnodes.h"
#include "nodes/supportnodes.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/selfuncs.h"

#include "cuckoo_pg.h"

/* ---------------------------------------------------------------------
 * formatting
 * ------------------------------------------------------------------- */

/* appends a rate in (0, 1) as a percentage with two significant digits */
static void
cfpg_append_percent(StringInfo buf, double rate)
{
	double		p = 100.0 * rate;
	int			decimals;

	if (!(p > 0.0))
	{
		appendStringInfoString(buf, "0%");
		return;
	}
	/* two significant digits, at most 9 decimals, no exponent */
	decimals = p >= 10.0 ? 0 : Min(9, 1 - (int) floor(log10(p)));
	appendStringInfo(buf, "%.*f%%", decimals, p);
}

/* ---------------------------------------------------------------------
 * target and expected false-positive rates
 * ------------------------------------------------------------------- */

/*
 * The false-positive rate f was designed for: the rate asked for at
 * creation, which a version-2 filter stores.  A version-1 filter stores
 * only the fingerprint width it implied, and the core gives its design
 * rate instead, 2 * bucket_size / 2^fpbits of the first sub-filter (0.78%
 * for the default 1%).
 */
double
cfpg_target_fpr(const cf_filter *f)
{
	return f->target_fpr;
}

/*
 * Raises a NOTICE if union r's expected false-positive rate exceeds twice
 * its target, at most once per call site and query (flinfo's fn_extra: a
 * union in a per-row expression would otherwise say it once per row).
 * With only_on_crossing (cf_union_agg, whose transition function runs once
 * per input filter), it stays quiet when part a or b was already over.
 */
void
cfpg_union_check_fpr(FmgrInfo *flinfo, const cf_filter *a, const cf_filter *b,
					 const cf_filter *r, bool only_on_crossing)
{
	cf_stats	s;
	double		target = cfpg_target_fpr(r);
	StringInfoData rate,
				trate;

	cf_get_stats(r, &s);
	if (!(s.fpr > 2.0 * target))
		return;
	if (!only_on_crossing && flinfo != NULL)
	{
		/* fn_extra is unused by cf_union: a non-NULL value means "said it" */
		if (flinfo->fn_extra != NULL)
			return;
		flinfo->fn_extra = MemoryContextAllocZero(flinfo->fn_mcxt, 1);
	}
	if (only_on_crossing)
	{
		cf_stats	sa,
					sb;

		cf_get_stats(a, &sa);
		cf_get_stats(b, &sb);
		if (sa.fpr > 2.0 * cfpg_target_fpr(a) || sb.fpr > 2.0 * cfpg_target_fpr(b))
			return;
	}
	initStringInfo(&rate);
	cfpg_append_percent(&rate, s.fpr);
	initStringInfo(&trate);
	cfpg_append_percent(&trate, target);
	ereport(NOTICE,
			(errmsg("union of cuckoo filters has an expected false-positive rate of %s, more than twice its target of %s",
					rate.data, trate.data),
			 errdetail("The union holds %llu items in %u sub-filters: tables that do not fit into one another are kept side by side, and each adds its own false positives.",
					   (unsigned long long) s.items, s.subfilters),
			 errhint("Give the parts one capacity, the total number of items expected (cf_create(capacity) or cf_agg(value, fpr, capacity)), so that they fold into one table; or build the filter with cf_agg over the union of the values.")));
}

/* ---------------------------------------------------------------------
 * text input: white space
 * ------------------------------------------------------------------- */

/*
 * The base64 text str without its white space (space, tab, newline, CR,
 * as decode(..., 'base64') skips them), so that the output of a base64
 * tool, wrapped or with a final newline, reads back.  Returns str itself
 * when it has none; otherwise a palloc'd copy, after checking every
 * character so that an error names its position in str.  *len is the
 * length of the result.
 */
char *
cfpg_base64_strip(const char *str, size_t *len)
{
	size_t		n = strlen(str);
	size_t		kept = 0;
	int			npad = 0;
	char	   *out;

	if (strpbrk(str, " \t\n\r") == NULL)
	{
		*len = n;
		return (char *) str;
	}
	out = palloc(n + 1);
	for (size_t i = 0; i < n; i++)
	{
		unsigned char c = (unsigned char) str[i];
		bool		ok;

		if (c == ' ' || c == '\t' || c == '\n' || c == '\r')
			continue;
		if (c == '=')
			ok = ++npad <= 2;
		else
			ok = npad == 0 && ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
							   (c >= '0' && c <= '9') || c == '+' || c == '/');
		if (!ok)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
					 errmsg("invalid input syntax for type %s", "cuckoofilter"),
					 errdetail("Invalid base64 character at position %zu.", i + 1)));
		out[kept++] = (char) c;
	}
	out[kept] = '\0';
	*len = kept;
	return out;
}

/* ---------------------------------------------------------------------
 * equality, order and hashing of the stored bytes
 *
 * Two filters are equal when their bytes are: the same values added in the
 * same order to filters created alike give equal filters, but equal sets
 * built differently (another order, capacity, a union) usually do not.
 * The order is that of the bytes as bytea: memcmp of the common length,
 * then the shorter first.  It is a total order, good for sorting, btree
 * indexes, DISTINCT and merge joins, and means nothing about the sets.
 * ------------------------------------------------------------------- */

/* the stored bytes of a filter datum (detoasted, expanded ones flattened) */
static inline struct varlena *
cfpg_bytes(Datum d)
{
	return (struct varlena *) PG_DETOAST_DATUM_PACKED(d);
}

static int
cfpg_cmp(FunctionCallInfo fcinfo)
{
	struct varlena *a = cfpg_bytes(PG_GETARG_DATUM(0));
	struct varlena *b = cfpg_bytes(PG_GETARG_DATUM(1));
	size_t		la = VARSIZE_ANY_EXHDR(a);
	size_t		lb = VARSIZE_ANY_EXHDR(b);
	int			c = memcmp(VARDATA_ANY(a), VARDATA_ANY(b), Min(la, lb));

	if (c == 0 && la != lb)
		c = la < lb ? -1 : 1;
	PG_FREE_IF_COPY(a, 0);
	PG_FREE_IF_COPY(b, 1);
	return c;
}

/* true if the filters' bytes are equal; different sizes are told apart unread */
static bool
cfpg_equal(FunctionCallInfo fcinfo)
{
	Datum		da = PG_GETARG_DATUM(0);
	Datum		db = PG_GETARG_DATUM(1);
	struct varlena *a,
			   *b;
	bool		eq;

	if (toast_raw_datum_size(da) != toast_raw_datum_size(db))
		return false;
	a = cfpg_bytes(da);
	b = cfpg_bytes(db);
	eq = VARSIZE_ANY_EXHDR(a) == VARSIZE_ANY_EXHDR(b) &&
		memcmp(VARDATA_ANY(a), VARDATA_ANY(b), VARSIZE_ANY_EXHDR(a)) == 0;
	PG_FREE_IF_COPY(a, 0);
	PG_FREE_IF_COPY(b, 1);
	return eq;
}

/* a = b: the same bytes */
PG_FUNCTION_INFO_V1(cuckoofilter_eq);
Datum
cuckoofilter_eq(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(cfpg_equal(fcinfo));
}

/* a <> b: different bytes */
PG_FUNCTION_INFO_V1(cuckoofilter_ne);
Datum
cuckoofilter_ne(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(!cfpg_equal(fcinfo));
}

/* a < b in the byte order */
PG_FUNCTION_INFO_V1(cuckoofilter_lt);
Datum
cuckoofilter_lt(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(cfpg_cmp(fcinfo) < 0);
}

/* a <= b in the byte order */
PG_FUNCTION_INFO_V1(cuckoofilter_le);
Datum
cuckoofilter_le(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(cfpg_cmp(fcinfo) <= 0);
}

/* a >= b in the byte order */
PG_FUNCTION_INFO_V1(cuckoofilter_ge);
Datum
cuckoofilter_ge(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(cfpg_cmp(fcinfo) >= 0);
}

/* a > b in the byte order */
PG_FUNCTION_INFO_V1(cuckoofilter_gt);
Datum
cuckoofilter_gt(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(cfpg_cmp(fcinfo) > 0);
}

/* btree support: -1, 0 or 1 in the byte order */
PG_FUNCTION_INFO_V1(cuckoofilter_cmp);
Datum
cuckoofilter_cmp(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT32(cfpg_cmp(fcinfo));
}

/* hash support: a 32-bit hash of the bytes (never stored, so hash_any serves) */
PG_FUNCTION_INFO_V1(cuckoofilter_hash);
Datum
cuckoofilter_hash(PG_FUNCTION_ARGS)
{
	struct varlena *a = cfpg_bytes(PG_GETARG_DATUM(0));
	Datum		h = hash_any((const unsigned char *) VARDATA_ANY(a),
							 (int) VARSIZE_ANY_EXHDR(a));

	PG_FREE_IF_COPY(a, 0);
	return h;
}

/* hash support: a seeded 64-bit hash of the bytes (hash partitioning) */
PG_FUNCTION_INFO_V1(cuckoofilter_hash_extended);
Datum
cuckoofilter_hash_extended(PG_FUNCTION_ARGS)
{
	struct varlena *a = cfpg_bytes(PG_GETARG_DATUM(0));
	Datum		h = hash_any_extended((const unsigned char *) VARDATA_ANY(a),
									  (int) VARSIZE_ANY_EXHDR(a), PG_GETARG_INT64(1));

	PG_FREE_IF_COPY(a, 0);
	return h;
}

/* ---------------------------------------------------------------------
 * casts
 * ------------------------------------------------------------------- */

/* cuckoofilter(bytea), the cast from bytea: the bytes, validated as binary input is */
PG_FUNCTION_INFO_V1(cuckoofilter_from_bytea);
Datum
cuckoofilter_from_bytea(PG_FUNCTION_ARGS)
{
	bytea	   *b = PG_GETARG_BYTEA_P(0);
	size_t		n = VARSIZE(b) - VARHDRSZ;
	struct varlena *v;

	(void) cfpg_validate((const uint8 *) VARDATA(b), n, true, NULL);
	v = (struct varlena *) palloc(VARHDRSZ + n);
	SET_VARSIZE(v, VARHDRSZ + n);
	memcpy(VARDATA(v), VARDATA(b), n);
	PG_RETURN_CUCKOOFILTER_P(v);
}

/* ---------------------------------------------------------------------
 * cf_describe
 * ------------------------------------------------------------------- */

/*
 * cf_describe(filter): one line for people, for example
 * "cuckoo filter: 1234 items, capacity 10000 (12% full), expected fpr
 * 0.096% (target 0.78%), 1 sub-filter, 13 kB"
 */
PG_FUNCTION_INFO_V1(cuckoo_describe);
Datum
cuckoo_describe(PG_FUNCTION_ARGS)
{
	cf_filter	f;
	cf_stats	s;
	StringInfoData buf;
	char	   *size;

	cfpg_open(&f, cfpg_bytes(PG_GETARG_DATUM(0)));
	cf_get_stats(&f, &s);
	size = text_to_cstring(DatumGetTextPP(DirectFunctionCall1(pg_size_pretty,
															  Int64GetDatum((int64) (s.bytes + VARHDRSZ)))));
	initStringInfo(&buf);
	appendStringInfo(&buf, "cuckoo filter: %llu item%s, capacity %llu (",
					 (unsigned long long) s.items, s.items == 1 ? "" : "s",
					 (unsigned long long) s.capacity);
	appendStringInfo(&buf, "%.0f%% full), expected fpr ",
					 s.capacity ? floor(100.0 * (double) s.items / (double) s.capacity + 0.5) : 0.0);
	cfpg_append_percent(&buf, s.fpr);
	appendStringInfoString(&buf, " (target ");
	cfpg_append_percent(&buf, cfpg_target_fpr(&f));
	appendStringInfo(&buf, "), %u sub-filter%s, %s", s.subfilters,
					 s.subfilters == 1 ? "" : "s", size);
	PG_RETURN_TEXT_P(cstring_to_text_with_len(buf.data, buf.len));
}

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
 * Join selectivity of filter @> value (args: the filter, the value): the
 * fraction of (filter row, value row) pairs that pass.  A pair passes if the
 * value is one of the filter's items or a false positive, so with the mean
 * items and rate of the filter column (or of a constant filter) and the
 * value's distinct count it is (hit + (1 - hit) fpr), hit = min(1, items /
 * distinct), as cf_contains_sel estimates it; NULLs on either side never
 * pass.  Without those statistics: CF_DEFAULT_JOIN_SEL.  Semi and anti
 * joins turn it into the fraction of outer rows with a match.
 */
double
cfpg_contains_joinsel(PlannerInfo *root, List *args, int jointype,
					  SpecialJoinInfo *sjinfo)
{
	VariableStatData fvar,
				kvar;
	double		sel = CF_DEFAULT_JOIN_SEL;
	double		items = -1.0,
				fpr = 0.0,
				fnullfrac = 0.0;
	Node	   *farg;

	if (list_length(args) != 2)
		return sel;
	farg = (Node *) linitial(args);
	examine_variable(root, farg, 0, &fvar);
	examine_variable(root, (Node *) lsecond(args), 0, &kvar);

	if (IsA(farg, Const))
	{
		Const	   *c = (Const *) farg;

		if (c->constisnull)
			fnullfrac = 1.0;
		else
		{
			cf_filter	f;
			cf_stats	s;

			cfpg_open(&f, DatumGetCuckooFilterP(c->constvalue));
			cf_get_stats(&f, &s);
			items = (double) s.items;
			fpr = s.fpr;
		}
	}
	else if (HeapTupleIsValid(fvar.statsTuple))
	{
		/* only numbers are read, no stored value is passed to a function */
		AttStatsSlot sslot;

		fnullfrac = cfpg_nullfrac(&fvar);
		if (get_attstatsslot(&sslot, fvar.statsTuple, CF_STATISTIC_KIND, InvalidOid,
							 ATTSTATSSLOT_NUMBERS))
		{
			if (sslot.nnumbers == 2)
			{
				items = sslot.numbers[0];
				fpr = sslot.numbers[1];
			}
			free_attstatsslot(&sslot);
		}
	}
	if (items >= 0.0)
	{
		bool		isdefault;
		double		ndistinct = get_variable_numdistinct(&kvar, &isdefault);

		if (!isdefault && ndistinct >= 1.0)
		{
			double		hit = Min(1.0, items / ndistinct);

			sel = hit + (1.0 - hit) * fpr;
		}
	}
	sel *= (1.0 - cfpg_nullfrac(&kvar)) * (1.0 - fnullfrac);

	/*
	 * EXISTS / NOT EXISTS (semi and anti joins) want the fraction of outer
	 * rows with at least one match among the inner side's rows: with pairs
	 * passing independently, 1 - (1 - sel)^inner rows.
	 */
	if ((jointype == JOIN_SEMI || jointype == JOIN_ANTI) && sjinfo != NULL)
	{
		double		inner = cfpg_rel_rows(root, sjinfo->min_righthand);

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
