/*
 * cuckoo_batch.c - the array forms of the filter functions: membership of
 * every element (each / any / all), adds and deletes of a whole array.
 *
 * Each opens the filter once for all the elements.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/arrayaccess.h"
#include "utils/lsyscache.h"

#include "cuckoo_args.h"
#include "cuckoo_expanded.h"
#include "cuckoo_hashval_hash.h"

/*
 * The elements of an array argument, in storage order.  An expanded array
 * (a PL/pgSQL variable) is read as it is, not flattened into a copy.
 */
typedef struct CfbElems
{
	AnyArrayType *arr;
	array_iter	it;
	int			n;				/* elements */
	int			i;				/* the next one */
	int16		elmlen;
	bool		elmbyval;
	char		elmalign;
} CfbElems;

/* starts reading the elements of (non-NULL) array argument argno */
static void
cfpg_batch_elems_begin(FunctionCallInfo fcinfo, int argno, CfbElems *e)
{
	e->arr = PG_GETARG_ANY_ARRAY_P(argno);
	e->n = ArrayGetNItems(AARR_NDIM(e->arr), AARR_DIMS(e->arr));
	e->i = 0;
	get_typlenbyvalalign(AARR_ELEMTYPE(e->arr), &e->elmlen, &e->elmbyval, &e->elmalign);
	array_iter_setup(&e->it, e->arr);
}

/* the next element into *value / *isnull; false after the last one */
static inline bool
cfpg_batch_elems_next(CfbElems *e, Datum *value, bool *isnull)
{
	if (e->i >= e->n)
		return false;
	*value = array_iter_next(&e->it, isnull, e->i++, e->elmlen, e->elmbyval, e->elmalign);
	return true;
}

/* what the probes of an array answer */
typedef enum CfbMode
{
	CFB_EACH,					/* boolean[]: one answer per element */
	CFB_ANY,					/* boolean: like filter @> ANY(array) */
	CFB_ALL						/* boolean: like filter @> ALL(array) */
} CfbMode;

/*
 * Probes filter argument 0 for every element of array argument 1 (both
 * non-NULL: the SQL functions are strict).  CFB_ANY and CFB_ALL follow the
 * rules of = ANY / = ALL: the first answer that decides stops the loop; a
 * NULL element makes an undecided answer NULL; an empty array gives false
 * (ANY) or true (ALL).
 */
#define CFB_BLOCK	64			/* values probed together (cf_contains_many) */

/*
 * The answers for the nb hashed values of a block, in array order: stored
 * (CFB_EACH), or *decided set to the first answer that decides ANY / ALL.
 */
static bool
cfpg_batch_probe_block(const cf_filter *f, CfbMode mode, const uint64 *hs, const int *pos, int nb,
				Datum *res, bool *resnulls, bool *decided)
{
	bool		found[CFB_BLOCK];

	cf_contains_many(f, hs, (size_t) nb, found);
	for (int k = 0; k < nb; k++)
	{
		if (mode == CFB_EACH)
		{
			res[pos[k]] = BoolGetDatum(found[k]);
			resnulls[pos[k]] = false;
		}
		else if (found[k] == (mode == CFB_ANY))
		{
			*decided = found[k];	/* ANY: one present; ALL: one absent */
			return true;
		}
	}
	return false;
}

static Datum
cfpg_batch_probe(FunctionCallInfo fcinfo, CfbMode mode)
{
	CfCallCache *c = cfpg_call_cache(fcinfo);
	const cf_filter *f = cfpg_read_filter(fcinfo, c, PG_GETARG_DATUM(0));
	CfbElems	e;
	CfHashInfo *hi;
	Datum	   *res = NULL;
	bool	   *resnulls = NULL;
	bool		sawnull = false;
	bool		decided;
	Datum		value;
	bool		isnull;
	uint64		hs[CFB_BLOCK];
	int			pos[CFB_BLOCK];
	int			nb = 0;

	cfpg_batch_elems_begin(fcinfo, 1, &e);
	hi = cfpg_type_hashinfo(fcinfo, c, AARR_ELEMTYPE(e.arr));
	cfpg_check_kind(f, hi);
	if (mode == CFB_EACH)
	{
		res = palloc(sizeof(Datum) * Max(e.n, 1));
		resnulls = palloc(sizeof(bool) * Max(e.n, 1));
	}
	while (cfpg_batch_elems_next(&e, &value, &isnull))
	{
		if (isnull)
		{
			sawnull = true;
			if (mode == CFB_EACH)
			{
				res[e.i - 1] = BoolGetDatum(false);
				resnulls[e.i - 1] = true;
			}
			continue;
		}
		hs[nb] = cfpg_value_hash(f, hi, value);
		pos[nb++] = e.i - 1;
		if (nb == CFB_BLOCK)
		{
			CHECK_FOR_INTERRUPTS();
			if (cfpg_batch_probe_block(f, mode, hs, pos, nb, res, resnulls, &decided))
				PG_RETURN_BOOL(decided);
			nb = 0;
		}
	}
	if (nb > 0 && cfpg_batch_probe_block(f, mode, hs, pos, nb, res, resnulls, &decided))
		PG_RETURN_BOOL(decided);

	if (mode == CFB_EACH)
		PG_RETURN_ARRAYTYPE_P(construct_md_array(res, resnulls, AARR_NDIM(e.arr),
												 AARR_DIMS(e.arr), AARR_LBOUND(e.arr),
												 BOOLOID, 1, true, TYPALIGN_CHAR));
	if (sawnull)
		PG_RETURN_NULL();
	PG_RETURN_BOOL(mode == CFB_ALL);
}

/* cf_contains_each(filter, values anyarray): cf_contains of every element, same shape */
PG_FUNCTION_INFO_V1(cuckoo_contains_each);
Datum
cuckoo_contains_each(PG_FUNCTION_ARGS)
{
	return cfpg_batch_probe(fcinfo, CFB_EACH);
}

/* cf_contains_any(filter, values anyarray): filter @> ANY(values) */
PG_FUNCTION_INFO_V1(cuckoo_contains_any);
Datum
cuckoo_contains_any(PG_FUNCTION_ARGS)
{
	return cfpg_batch_probe(fcinfo, CFB_ANY);
}

/* cf_contains_all(filter, values anyarray): filter @> ALL(values) */
PG_FUNCTION_INFO_V1(cuckoo_contains_all);
Datum
cuckoo_contains_all(PG_FUNCTION_ARGS)
{
	return cfpg_batch_probe(fcinfo, CFB_ALL);
}

/*
 * op (CFX_ADD, CFX_ADD_UNIQUE or CFX_DELETE) applied to filter argument 0
 * for each non-NULL element of array argument 1, in array order, so the
 * result is byte for byte that of one cf_add / cf_add_unique / cf_delete
 * per element.  The filter is copied once, at the first element that
 * changes it: an add_unique of values all present, or a delete of values
 * all absent, returns the argument itself (a flat copy of an expanded one).
 * A NULL array returns the filter; a NULL filter gives NULL for CFX_DELETE
 * and starts a default filter for the adds.  The result is *res, or NULL.
 *
 * With done (the _status forms): done[i] / donenull[i] receive what element
 * i did, as cf_add_unique_status and cf_delete_status say it (stored: the
 * value was not reported and is now; removed: an entry went, not retained),
 * NULL for a NULL element; *n receives the number of elements (-1 for a
 * NULL array), done and donenull are palloc'd.
 */
static struct varlena *
cfpg_batch_modify_many(FunctionCallInfo fcinfo, CfxOp op, CfbElems *e,
				Datum **done, bool **donenull)
{
	CfCallCache *c = cfpg_call_cache(fcinfo);
	CfHashInfo *hi;
	Datum		d = PG_GETARG_DATUM(0);
	struct varlena *v = NULL;	/* our own copy, once we have one */
	cf_filter	f;
	Datum		value;
	bool		isnull;

	e->n = -1;
	if (PG_ARGISNULL(1))
		return PG_ARGISNULL(0) ? NULL : (struct varlena *) DatumGetPointer(d);
	cfpg_batch_elems_begin(fcinfo, 1, e);
	if (done != NULL)
	{
		*done = palloc0(sizeof(Datum) * Max(e->n, 1));
		*donenull = palloc0(sizeof(bool) * Max(e->n, 1));
	}
	if (PG_ARGISNULL(0) && op == CFX_DELETE)
	{
		/* nothing to delete from: every element removed nothing */
		while (done != NULL && cfpg_batch_elems_next(e, &value, &isnull))
			(*donenull)[e->i - 1] = isnull;
		return NULL;
	}
	hi = cfpg_type_hashinfo(fcinfo, c, AARR_ELEMTYPE(e->arr));
	if (PG_ARGISNULL(0))
	{
		cf_params	p;

		cfpg_params(&p, CFPG_DEFAULT_CAPACITY, CF_DEFAULT_FPR);
		v = cfpg_create(&p);
		cfpg_open(&f, v);
	}
	else
		cfpg_open_datum(&d, &f);
	cfpg_check_kind(&f, hi);

	while (cfpg_batch_elems_next(e, &value, &isnull))
	{
		uint64		h;
		cf_status	st;

		if (isnull)
		{
			if (done != NULL)
				(*donenull)[e->i - 1] = true;
			continue;
		}
		CHECK_FOR_INTERRUPTS();
		h = op == CFX_ADD ? cfpg_hash_datum(hi, value, (int) f.hashing) :
			cfpg_value_hash(&f, hi, value);
		/* add_unique: already reported present; delete: certainly absent */
		if (op != CFX_ADD && cf_contains(&f, h) == (op == CFX_ADD_UNIQUE))
			continue;
		if (v == NULL)
		{
			/* our own copy (a version-1 filter rewritten as version 2) */
			v = cfpg_writable_copy(d);
			cfpg_open(&f, v);
		}
		if (op == CFX_DELETE)
		{
			/* present, so one copy goes (as cf_delete does), or is retained */
			st = cf_delete(&f, h);
			if (done != NULL)
				(*done)[e->i - 1] = BoolGetDatum(st == CF_OK);
			continue;
		}
		st = cfpg_insert(&f, &v, h);
		if (st != CF_OK)
			cfpg_report_insert_failure(&f, st);
		if (done != NULL)
			(*done)[e->i - 1] = BoolGetDatum(true);
	}
	/* an add records the kind of value in a filter that has none yet */
	if (v != NULL && op != CFX_DELETE && f.hashing >= CF_HASHING_V2 &&
		f.kind == CF_KIND_NONE && cfpg_items_of(&f) > 0)
		cf_set_kind(&f, (uint32) hi->vkind);
	if (v != NULL)
		return v;

	/*
	 * Unchanged: the argument itself, unless it is an expanded object (as
	 * cf_add_unique does), which is returned as a flat copy.
	 */
	if (!VARATT_IS_EXTERNAL_EXPANDED(DatumGetPointer(PG_GETARG_DATUM(0))))
		return (struct varlena *) DatumGetPointer(PG_GETARG_DATUM(0));
	return PG_DETOAST_DATUM(PG_GETARG_DATUM(0));
}

/* the filter of cfpg_batch_modify_many, as a function result */
static Datum
cfpg_batch_modify_result(FunctionCallInfo fcinfo, CfxOp op)
{
	CfbElems	e;
	struct varlena *v = cfpg_batch_modify_many(fcinfo, op, &e, NULL, NULL);

	if (v == NULL)
		PG_RETURN_NULL();
	PG_RETURN_CUCKOOFILTER_P(v);
}

/*
 * (result, answers) of the _status forms: the filter of cfpg_batch_modify_many and
 * a boolean array of the argument's shape, what each element did (NULL for
 * a NULL element; a NULL array for a NULL array)
 */
static Datum
cfpg_batch_modify_status(FunctionCallInfo fcinfo, CfxOp op)
{
	CfbElems	e;
	Datum	   *done = NULL;
	bool	   *donenull = NULL;
	struct varlena *v = cfpg_batch_modify_many(fcinfo, op, &e, &done, &donenull);
	Datum		filter = (Datum) 0;
	Datum		answers = (Datum) 0;

	/* the row holds the filter itself, not a toast pointer to it */
	if (v != NULL)
		filter = PointerGetDatum(PG_DETOAST_DATUM(PointerGetDatum(v)));
	if (e.n >= 0)
		answers = PointerGetDatum(construct_md_array(done, donenull, AARR_NDIM(e.arr),
													 AARR_DIMS(e.arr), AARR_LBOUND(e.arr),
													 BOOLOID, 1, true, TYPALIGN_CHAR));
	return cfpg_result_pair(fcinfo, filter, v == NULL, answers, e.n < 0);
}

/*
 * cf_add_all(filter, values anyarray): the filter with one more copy of
 * every non-NULL element, for one copy of the filter instead of one per
 * value.  A NULL filter starts a default one; a NULL array changes nothing.
 */
PG_FUNCTION_INFO_V1(cuckoo_add_all);
Datum
cuckoo_add_all(PG_FUNCTION_ARGS)
{
	return cfpg_batch_modify_result(fcinfo, CFX_ADD);
}

/* cf_add_all_unique(filter, values anyarray): cf_add_unique of every element */
PG_FUNCTION_INFO_V1(cuckoo_add_all_unique);
Datum
cuckoo_add_all_unique(PG_FUNCTION_ARGS)
{
	return cfpg_batch_modify_result(fcinfo, CFX_ADD_UNIQUE);
}

/* cf_delete_all(filter, values anyarray): cf_delete of every element */
PG_FUNCTION_INFO_V1(cuckoo_delete_all);
Datum
cuckoo_delete_all(PG_FUNCTION_ARGS)
{
	return cfpg_batch_modify_result(fcinfo, CFX_DELETE);
}

/*
 * cf_add_all_unique_status(filter, values anyarray): (result, stored), the
 * result of cf_add_all_unique and, per element, whether it stored it, as
 * cf_add_unique_status says it (RedisBloom's CF.INSERTNX): false when the
 * filter already reported the value, also one added earlier in the array.
 */
PG_FUNCTION_INFO_V1(cuckoo_add_all_unique_status);
Datum
cuckoo_add_all_unique_status(PG_FUNCTION_ARGS)
{
	return cfpg_batch_modify_status(fcinfo, CFX_ADD_UNIQUE);
}

/*
 * cf_delete_all_status(filter, values anyarray): (result, removed), the
 * result of cf_delete_all and, per element, whether it removed an entry, as
 * cf_delete_status says it: false when the value was not reported (also
 * after earlier elements removed its copies) or the delete was retained.
 */
PG_FUNCTION_INFO_V1(cuckoo_delete_all_status);
Datum
cuckoo_delete_all_status(PG_FUNCTION_ARGS)
{
	return cfpg_batch_modify_status(fcinfo, CFX_DELETE);
}
