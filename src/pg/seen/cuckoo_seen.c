/*
 * cuckoo_seen.c - the "seen" recipe in two columns: a large filter (base)
 * that a mark leaves untouched, and a small array of the newest marks
 * (delta) that a mark prepends to and that is folded into base when full.
 *
 * Every function takes (base, delta, ...) and sees the old values of both,
 * so that one UPDATE sets both columns:
 *
 *     UPDATE seen SET base  = cf_mark_base(base, delta, $2),
 *                     delta = cf_mark_delta(base, delta, $2) WHERE ...
 *
 * cf_mark_base returns its base argument itself (an on-disk toast pointer
 * stays the same pointer, so PostgreSQL writes none of the filter again)
 * unless the mark folds; both functions decide to fold from the same facts
 * (delta's new size, base's size read from its toast pointer without
 * fetching it), so they always agree.  docs/seen.md is the guide.
 *
 * Semantics: a multiset, like cf_add and cf_delete.  A mark stores one
 * copy of the item (in delta; a fold adds delta's items to base with
 * cf_add, oldest first, so base is byte for byte what one cf_add per mark
 * gives).  An unsee removes one copy: the newest one in delta if delta has
 * the item (exact: no other item loses anything), else one from base with
 * cf_delete, which is safe because a copy of the item was stored there.
 * An item that base already reports twice stays in delta at the fold,
 * after a NULL element that separates such items from the newest marks
 * (only the newest marks count towards the fold limit): nothing is lost,
 * nothing is refused, and repeated marks of one item do not pile up copies
 * in base.
 *
 * The three-column recipe (cuckoo_seen3.c) takes the same steps with the
 * routines of this file that cuckoo_seen.h exports (cfpg_seen_mark_prepare,
 * cfpg_seen_fold_column, cfpg_seen_base_unsee, cfpg_seen_unseen, ...).
 */
#include "postgres.h"

#include "access/detoast.h"
#include "catalog/pg_type.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"

#include "cuckoo_args.h"
#include "cuckoo_hashval_hash.h"
#include "cuckoo_seen.h"

/*
 * When delta is folded: when the array would take more bytes than
 * base's bytes / CF_SEEN_FOLD_RATIO, kept between CF_SEEN_FOLD_MIN and
 * CF_SEEN_FOLD_MAX.  A fold writes base again (its size B) every
 * (limit / item size) marks, and a mark writes the row with delta
 * (PostgreSQL's update record logs only the bytes that changed when the
 * row stays on its page, and a prepend changes only the array's head), so
 * a larger limit is cheaper in WAL until the row no longer fits inline:
 * CF_SEEN_FOLD_MAX keeps the row (key, toast pointer, delta) under
 * PostgreSQL's 2 kB toast threshold, so delta itself is never toasted.
 */
#define CF_SEEN_FOLD_RATIO	16
#define CF_SEEN_FOLD_MIN	256
#define CF_SEEN_FOLD_MAX	1600


/*
 * Reads base (untouched) and delta (argument 1, deconstructed); elemtype is
 * the items' type, known from the call even when delta is NULL.
 */
static void
cfpg_seen_args(FunctionCallInfo fcinfo, SeenArgs *a, Oid elemtype, bool isarray)
{
	cfpg_seen_args_at(fcinfo, a, elemtype, isarray, 1, 2);
}

/* cfpg_seen_args with delta in argument deltaarg and the item(s) in itemarg */
void
cfpg_seen_args_at(FunctionCallInfo fcinfo, SeenArgs *a, Oid elemtype, bool isarray,
				  int deltaarg, int itemarg)
{
	a->c = cfpg_call_cache(fcinfo);
	a->basenull = PG_ARGISNULL(0);
	a->base = a->basenull ? (Datum) 0 : PG_GETARG_DATUM(0);
	if (!OidIsValid(elemtype))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("could not determine the type of the seen items")));
	a->elemtype = elemtype;
	get_typlenbyvalalign(elemtype, &a->elmlen, &a->elmbyval, &a->elmalign);
	/* one item: refused if it reached the call through a relabeling cast */
	if (!isarray && fcinfo->flinfo->fn_expr != NULL)
		a->hi = cfpg_arg_hashinfo(fcinfo, a->c, itemarg);
	else
		a->hi = cfpg_type_hashinfo(fcinfo, a->c, elemtype);
	cfpg_seen_deconstruct(fcinfo, a, deltaarg, "delta", &a->elems, &a->enulls, &a->n);
}

/*
 * Array argument argno (named what in errors) deconstructed into *elems,
 * *nulls, *n: none for NULL; refused if of another element type or of
 * more than one dimension.
 */
void
cfpg_seen_deconstruct(FunctionCallInfo fcinfo, SeenArgs *a, int argno, const char *what,
					  Datum **elems, bool **nulls, int *n)
{
	*elems = NULL;
	*nulls = NULL;
	*n = 0;
	if (!PG_ARGISNULL(argno))
	{
		ArrayType  *d = PG_GETARG_ARRAYTYPE_P(argno);

		if (ARR_ELEMTYPE(d) != a->elemtype)
			ereport(ERROR,
					(errcode(ERRCODE_DATATYPE_MISMATCH),
					 errmsg("%s holds %s values, not %s", what, format_type_be(ARR_ELEMTYPE(d)),
							format_type_be(a->elemtype))));
		if (ARR_NDIM(d) > 1)
			ereport(ERROR,
					(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
					 errmsg("%s must be a one-dimensional array", what),
					 errdetail("It has %d dimensions.", ARR_NDIM(d))));
		deconstruct_array(d, a->elemtype, a->elmlen, a->elmbyval, a->elmalign,
						  elems, nulls, n);
	}
}

/*
 * base unchanged: the argument itself (an on-disk toast pointer stays the
 * same pointer, so nothing of it is written again), but an expanded object
 * (a PL/pgSQL variable) as a flat copy, as cf_add_unique returns it
 */
static Datum
cfpg_seen_same_base(SeenArgs *a)
{
	if (VARATT_IS_EXTERNAL_EXPANDED(DatumGetPointer(a->base)))
		return PointerGetDatum(PG_DETOAST_DATUM(a->base));
	return a->base;
}

/*
 * Column argno (0: base, else an array) as the call got it: NULL, base
 * unchanged (cfpg_seen_same_base) or the array argument itself
 */
Datum
cfpg_seen_same(FunctionCallInfo fcinfo, SeenArgs *a, int argno)
{
	if (PG_ARGISNULL(argno))
		PG_RETURN_NULL();
	if (argno == 0)
		return cfpg_seen_same_base(a);
	return PG_GETARG_DATUM(argno);
}

/* the item type of a call's argument argno (an element or an array) */
static Oid
cfpg_seen_item_type(FunctionCallInfo fcinfo, int argno, bool isarray)
{
	return cfpg_seen_item_type_at(fcinfo, argno, isarray, 1);
}

/* the same, with delta (whose element type is the fallback) in deltaarg */
Oid
cfpg_seen_item_type_at(FunctionCallInfo fcinfo, int argno, bool isarray, int deltaarg)
{
	Oid			t = get_fn_expr_argtype(fcinfo->flinfo, argno);

	if (isarray && OidIsValid(t))
		t = get_element_type(t);
	if (!OidIsValid(t))
	{
		/* no call expression: delta's own element type */
		t = get_fn_expr_argtype(fcinfo->flinfo, deltaarg);
		if (OidIsValid(t))
			t = get_element_type(t);
	}
	return t;
}

/*
 * A one-dimensional array of the n elements (nulls[i]: the separator; nulls
 * may be NULL for none), or NULL when it would hold no item.
 */
ArrayType *
cfpg_seen_array(SeenArgs *a, Datum *elems, bool *nulls, int n)
{
	int			dims[1];
	int			lbs[1] = {1};
	bool		any = false;

	for (int i = 0; i < n && !any; i++)
		any = nulls == NULL || !nulls[i];
	if (!any)
		return NULL;
	dims[0] = n;
	return construct_md_array(elems, nulls, 1, dims, lbs, a->elemtype, a->elmlen,
							  a->elmbyval, a->elmalign);
}

/* an array column's new value: r, or NULL when r holds no item (is NULL) */
Datum
cfpg_seen_array_or_null(FunctionCallInfo fcinfo, ArrayType *r)
{
	if (r == NULL)
		PG_RETURN_NULL();
	PG_RETURN_ARRAYTYPE_P(r);
}

/*
 * The marks of a call: argument argno, one item or (isarray) an array of
 * them, in the order marked; NULL items are skipped.  Sets *items to a
 * palloc'd array, returns how many.
 */
static int
cfpg_seen_new_items(FunctionCallInfo fcinfo, SeenArgs *a, bool isarray, int argno,
					   Datum **items)
{
	int			n = 0;

	*items = NULL;
	if (PG_ARGISNULL(argno))
		return 0;
	if (!isarray)
	{
		*items = palloc(sizeof(Datum));
		(*items)[0] = PG_GETARG_DATUM(argno);
		return 1;
	}
	else
	{
		ArrayType  *arr = PG_GETARG_ARRAYTYPE_P(argno);
		Datum	   *el;
		bool	   *nulls;
		int			m;

		deconstruct_array(arr, a->elemtype, a->elmlen, a->elmbyval, a->elmalign,
						  &el, &nulls, &m);
		*items = palloc(sizeof(Datum) * Max(m, 1));
		for (int i = 0; i < m; i++)
			if (!nulls[i])
				(*items)[n++] = el[i];
	}
	return n;
}

/*
 * delta after the marks items[0 .. k): the newest first, so items in
 * reverse, then the old elements as they are (the separator included);
 * *nout gets its length, *nulls its separator flags.
 */
static Datum *
cfpg_seen_prepend(SeenArgs *a, Datum *items, int k, int *nout, bool **nulls)
{
	Datum	   *out = palloc(sizeof(Datum) * Max(k + a->n, 1));
	bool	   *nl = palloc(sizeof(bool) * Max(k + a->n, 1));
	int			n = 0;

	for (int i = k - 1; i >= 0; i--)
	{
		nl[n] = false;
		out[n++] = items[i];
	}
	for (int i = 0; i < a->n; i++)
	{
		nl[n] = a->enulls[i];
		out[n++] = a->elems[i];
	}
	*nout = n;
	*nulls = nl;
	return out;
}

/* how many elements come before the separator (all, if there is none) */
static int
cfpg_seen_fresh(const bool *nulls, int n)
{
	for (int i = 0; i < n; i++)
		if (nulls[i])
			return i;
	return n;
}

/*
 * The bytes delta may take before it is folded.  Reads base's size from
 * its toast pointer (or header) without fetching its data.
 */
static Size
cfpg_seen_delta_limit(SeenArgs *a)
{
	Size		limit = cfpg_seen_base_bytes(a) / CF_SEEN_FOLD_RATIO;

	limit = Max(limit, CF_SEEN_FOLD_MIN);
	limit = Min(limit, CF_SEEN_FOLD_MAX);
	return limit;
}

/* base's size (0 for NULL), from its toast pointer or header */
Size
cfpg_seen_base_bytes(SeenArgs *a)
{
	return a->basenull ? 0 : toast_raw_datum_size(a->base);
}

/*
 * A mark's first step, the same in both recipes: the marks of argument
 * argno (one item or, isarray, an array of them) prepended to delta, and
 * whether the marks since the last fold outgrow delta's limit.  False when
 * there is nothing to mark.
 */
bool
cfpg_seen_mark_prepare(FunctionCallInfo fcinfo, SeenArgs *a, bool isarray, int argno,
					   SeenMark *m)
{
	Datum	   *items;
	int			k = cfpg_seen_new_items(fcinfo, a, isarray, argno, &items);
	ArrayType  *fresh;

	if (k == 0)
		return false;
	m->elems = cfpg_seen_prepend(a, items, k, &m->n, &m->nulls);
	m->nfresh = cfpg_seen_fresh(m->nulls, m->n);
	/* the limit applies to the items marked since the last fold */
	fresh = cfpg_seen_array(a, m->elems, NULL, m->nfresh);
	m->full = VARSIZE(fresh) > cfpg_seen_delta_limit(a);
	return true;
}

/*
 * The fold: base with one cf_add of each item of elems[0 .. n) (newest
 * first; nulls[i] marks the separator), oldest first.  An item that base
 * already reports CF_SEEN_MAX_COPIES times (its own copies, or another
 * item's entries) is not added, nor one whose copies fill its bucket pair:
 * left[i] is set and it stays in delta, so a value marked again and again
 * does not pile up copies in base (a split table cannot spread the copies
 * of one value: they would make it grow for nothing).  Returns the new base
 * (a new varlena), or NULL if no item was added.
 */
#define CF_SEEN_MAX_COPIES	2

static struct varlena *
cfpg_seen_fold(SeenArgs *a, Datum *elems, bool *nulls, int n, bool *left)
{
	struct varlena *v;
	cf_filter	f;
	int			added = 0;

	if (a->basenull)
	{
		cf_params	p;

		cfpg_params(&p, CFPG_DEFAULT_CAPACITY, CF_DEFAULT_FPR);
		v = cfpg_create(&p);
	}
	else
		v = cfpg_writable_copy(a->base);
	cfpg_open(&f, v);
	cfpg_check_kind(&f, a->hi);
	for (int i = n - 1; i >= 0; i--)
	{
		cf_status	st;
		uint64		h;

		left[i] = false;
		if (nulls[i])
			continue;
		CHECK_FOR_INTERRUPTS();
		h = cfpg_hash_datum(a->hi, elems[i], (int) f.hashing);
		if (cf_count(&f, h) >= CF_SEEN_MAX_COPIES)
		{
			left[i] = true;
			continue;
		}
		st = cfpg_insert(&f, &v, h);
		left[i] = (st == CF_TOO_MANY_COPIES);
		if (st != CF_OK && st != CF_TOO_MANY_COPIES)
			cfpg_report_insert_failure(&f, st);
		added += (st == CF_OK);
	}
	if (added == 0)
	{
		pfree(v);
		return NULL;
	}
	/* an add records the kind of value in a filter that has none yet */
	if (f.hashing >= CF_HASHING_V2 && f.kind == CF_KIND_NONE && cfpg_items_of(&f) > 0)
		cf_set_kind(&f, (uint32) a->hi->vkind);
	return v;
}

/*
 * The fold of elems[0 .. n) (newest first; nulls[i]: the separator) into
 * base, for column base (wantbase) or delta: base with the items added (base
 * unchanged if none was), delta with what the fold did not add, after the
 * separator, in its order (NULL if it added all)
 */
Datum
cfpg_seen_fold_column(FunctionCallInfo fcinfo, SeenArgs *a, Datum *elems, bool *nulls, int n,
					  bool wantbase)
{
	bool	   *left = palloc(sizeof(bool) * n);
	struct varlena *nb = cfpg_seen_fold(a, elems, nulls, n, left);
	Datum	   *nd;
	bool	   *nn;
	int			nl = 0;

	if (wantbase)
	{
		if (nb != NULL)
			PG_RETURN_POINTER(nb);
		return cfpg_seen_same(fcinfo, a, 0);
	}
	nd = palloc(sizeof(Datum) * (n + 1));
	nn = palloc(sizeof(bool) * (n + 1));
	nd[0] = (Datum) 0;
	nn[0] = true;
	for (int i = 0; i < n; i++)
		if (left[i])
		{
			nd[++nl] = elems[i];
			nn[nl] = false;
		}
	if (nl == 0)
		PG_RETURN_NULL();
	PG_RETURN_ARRAYTYPE_P(cfpg_seen_array(a, nd, nn, nl + 1));
}

/*
 * A mark (isarray: of a page of items) for column which (0: base, 1:
 * delta): the new value of that column.
 */
static Datum
cfpg_seen_mark(FunctionCallInfo fcinfo, bool isarray, int which)
{
	SeenArgs	a;
	SeenMark	m;
	ArrayType  *newdelta;

	cfpg_seen_args(fcinfo, &a, cfpg_seen_item_type(fcinfo, 2, isarray), isarray);
	if (!cfpg_seen_mark_prepare(fcinfo, &a, isarray, 2, &m))
		return cfpg_seen_same(fcinfo, &a, which);	/* nothing to mark */
	/* built for either column: a delta too large for an array fails both alike */
	newdelta = cfpg_seen_array(&a, m.elems, m.nulls, m.n);
	if (!m.full)
	{
		if (which == 1)
			PG_RETURN_ARRAYTYPE_P(newdelta);
		/* base itself: the same toast pointer, nothing of it written again */
		return cfpg_seen_same(fcinfo, &a, 0);
	}
	return cfpg_seen_fold_column(fcinfo, &a, m.elems, m.nulls, m.n, which == 0);
}

/* cf_mark_base(base, delta, item): base after marking item (see cf_mark_delta) */
PG_FUNCTION_INFO_V1(cuckoo_mark_base);
Datum
cuckoo_mark_base(PG_FUNCTION_ARGS)
{
	return cfpg_seen_mark(fcinfo, false, 0);
}

/* cf_mark_delta(base, delta, item): delta after marking item */
PG_FUNCTION_INFO_V1(cuckoo_mark_delta);
Datum
cuckoo_mark_delta(PG_FUNCTION_ARGS)
{
	return cfpg_seen_mark(fcinfo, false, 1);
}

/* cf_mark_all_base(base, delta, items): base after marking every item */
PG_FUNCTION_INFO_V1(cuckoo_mark_all_base);
Datum
cuckoo_mark_all_base(PG_FUNCTION_ARGS)
{
	return cfpg_seen_mark(fcinfo, true, 0);
}

/* cf_mark_all_delta(base, delta, items): delta after marking every item */
PG_FUNCTION_INFO_V1(cuckoo_mark_all_delta);
Datum
cuckoo_mark_all_delta(PG_FUNCTION_ARGS)
{
	return cfpg_seen_mark(fcinfo, true, 1);
}

/* an item's hash, as the arrays compare items (value hashing 2) */
uint64
cfpg_seen_hash(SeenArgs *a, Datum value)
{
	return cfpg_hash_datum(a->hi, value, CF_HASHING_V2);
}

/* the position of the first (newest) element of elems equal to h, or -1 */
int
cfpg_seen_find(SeenArgs *a, Datum *elems, bool *nulls, int n, uint64 h)
{
	for (int i = 0; i < n; i++)
		if (!nulls[i] && cfpg_seen_hash(a, elems[i]) == h)
			return i;
	return -1;
}

/* the position of the newest element of delta equal to value (by hash), or -1 */
static int
cfpg_seen_in_delta(SeenArgs *a, Datum value)
{
	if (a->n == 0)
		return -1;
	return cfpg_seen_find(a, a->elems, a->enulls, a->n, cfpg_seen_hash(a, value));
}

/* an array column after an unsee: elems without element pos (NULL when no item is left) */
Datum
cfpg_seen_without(FunctionCallInfo fcinfo, SeenArgs *a, Datum *elems, bool *nulls, int n, int pos)
{
	Datum	   *nd = palloc(sizeof(Datum) * Max(n, 1));
	bool	   *nn = palloc(sizeof(bool) * Max(n, 1));
	int			m = 0;

	for (int i = 0; i < n; i++)
		if (i != pos)
		{
			nd[m] = elems[i];
			nn[m++] = nulls[i];
		}
	return cfpg_seen_array_or_null(fcinfo, cfpg_seen_array(a, nd, nn, m));
}

/*
 * An unsee of argument 2 for column which: one copy less, from delta if it
 * holds the item, else from base.
 */
static Datum
cfpg_seen_unsee(FunctionCallInfo fcinfo, int which)
{
	SeenArgs	a;
	int			pos;

	cfpg_seen_args(fcinfo, &a, cfpg_seen_item_type(fcinfo, 2, false), false);
	if (PG_ARGISNULL(2))
		return cfpg_seen_same(fcinfo, &a, which);
	pos = cfpg_seen_in_delta(&a, PG_GETARG_DATUM(2));
	if (which == 1)
	{
		if (pos < 0)
			return cfpg_seen_same(fcinfo, &a, 1);
		return cfpg_seen_without(fcinfo, &a, a.elems, a.enulls, a.n, pos);
	}
	/* base: unchanged when delta had the item */
	if (pos >= 0)
		return cfpg_seen_same(fcinfo, &a, 0);
	return cfpg_seen_base_unsee(fcinfo, &a, PG_GETARG_DATUM(2));
}

/*
 * Column base after one unsee of item that no array holds: a copy with one
 * copy of the item's hash deleted (or retained: FORMAT.md, "Deletes"), or
 * base unchanged when it is NULL or does not report the item
 */
Datum
cfpg_seen_base_unsee(FunctionCallInfo fcinfo, SeenArgs *a, Datum item)
{
	Datum		d = a->base;
	cf_filter	f;
	uint64		h;
	struct varlena *v;

	if (a->basenull)
		PG_RETURN_NULL();
	cfpg_open_datum(&d, &f);
	cfpg_check_kind(&f, a->hi);
	if (!cfpg_find_value(&f, a->hi, item, &h))
		return cfpg_seen_same(fcinfo, a, 0);
	v = cfpg_writable_copy(a->base);
	cfpg_open(&f, v);
	(void) cf_delete(&f, h);	/* present: one copy goes, or is retained */
	PG_RETURN_POINTER(v);
}

/* cf_unsee_base(base, delta, item): base after one unsee of item */
PG_FUNCTION_INFO_V1(cuckoo_unsee_base);
Datum
cuckoo_unsee_base(PG_FUNCTION_ARGS)
{
	return cfpg_seen_unsee(fcinfo, 0);
}

/* cf_unsee_delta(base, delta, item): delta after one unsee of item */
PG_FUNCTION_INFO_V1(cuckoo_unsee_delta);
Datum
cuckoo_unsee_delta(PG_FUNCTION_ARGS)
{
	return cfpg_seen_unsee(fcinfo, 1);
}

/* ascending uint64, for bsearch */
int
cfpg_seen_cmp_u64(const void *x, const void *y)
{
	uint64		a = *(const uint64 *) x,
				b = *(const uint64 *) y;

	return a < b ? -1 : a > b;
}

/* delta's hashes (value hashing 2), sorted; *n gets how many */
static uint64 *
cfpg_seen_delta_hashes(SeenArgs *a, int *n)
{
	uint64	   *hs = palloc(sizeof(uint64) * Max(a->n, 1));
	int			k = 0;

	for (int i = 0; i < a->n; i++)
		if (!a->enulls[i])
			hs[k++] = cfpg_seen_hash(a, a->elems[i]);
	qsort(hs, k, sizeof(uint64), cfpg_seen_cmp_u64);
	*n = k;
	return hs;
}

/* base as a filter to read (its kind checked), or NULL when it is NULL */
const cf_filter *
cfpg_seen_read_base(FunctionCallInfo fcinfo, SeenArgs *a)
{
	const cf_filter *f;

	if (a->basenull)
		return NULL;
	f = cfpg_read_filter(fcinfo, a->c, a->base);
	cfpg_check_kind(f, a->hi);
	return f;
}

/* whether base (false if NULL) reports item */
bool
cfpg_seen_base_has(FunctionCallInfo fcinfo, SeenArgs *a, Datum item)
{
	const cf_filter *f = cfpg_seen_read_base(fcinfo, a);
	uint64		h;

	/* also under the hashes an equal value may be stored under (cfpg_find_value) */
	return f != NULL && cfpg_find_value(f, a->hi, item, &h);
}

/* cf_seen(base, delta, item): whether item is reported seen (NULL item: NULL) */
PG_FUNCTION_INFO_V1(cuckoo_seen);
Datum
cuckoo_seen(PG_FUNCTION_ARGS)
{
	SeenArgs	a;

	if (PG_ARGISNULL(2))
		PG_RETURN_NULL();
	cfpg_seen_args(fcinfo, &a, cfpg_seen_item_type(fcinfo, 2, false), false);
	if (cfpg_seen_in_delta(&a, PG_GETARG_DATUM(2)) >= 0)
		PG_RETURN_BOOL(true);
	PG_RETURN_BOOL(cfpg_seen_base_has(fcinfo, &a, PG_GETARG_DATUM(2)));
}

#define SEEN_BLOCK	64			/* candidates probed together */

/*
 * cf_unseen's answer, the same in both recipes: the elements of el[0 .. m)
 * (NULL ones dropped) that the arrays do not hold, held(arg, i, el[i], &h)
 * telling (and setting h, the element's hash as the arrays compare items),
 * and that base (read after the caller's arrays) does not report, in order.
 */
Datum
cfpg_seen_unseen(FunctionCallInfo fcinfo, SeenArgs *a, Datum *el, bool *nulls, int m,
				 SeenHeldFn held, void *arg)
{
	const cf_filter *f = cfpg_seen_read_base(fcinfo, a);
	Datum	   *out = palloc(sizeof(Datum) * Max(m, 1));
	int			nout = 0;
	ArrayType  *r;

	for (int i0 = 0; i0 < m; i0 += SEEN_BLOCK)
	{
		uint64		hs[SEEN_BLOCK];
		bool		found[SEEN_BLOCK];
		int			pos[SEEN_BLOCK];
		int			nb = 0;

		CHECK_FOR_INTERRUPTS();
		for (int i = i0; i < m && i < i0 + SEEN_BLOCK; i++)
		{
			uint64		h;

			if (nulls[i])
				continue;
			if (held(arg, i, el[i], &h))
				continue;		/* in an array: seen */
			/* base: the hash it holds for an equal value, if any (cfpg_value_hash) */
			hs[nb] = f == NULL ? h : cfpg_value_hash(f, a->hi, el[i]);
			pos[nb++] = i;
		}
		if (f != NULL && nb > 0)
			cf_contains_many(f, hs, (size_t) nb, found);
		for (int k = 0; k < nb; k++)
			if (f == NULL || !found[k])
				out[nout++] = el[pos[k]];
	}
	r = cfpg_seen_array(a, out, NULL, nout);
	PG_RETURN_ARRAYTYPE_P(r != NULL ? r : construct_empty_array(a->elemtype));
}

/* delta's sorted hashes, for cfpg_seen_in_hashes */
typedef struct SeenHashes
{
	SeenArgs   *a;
	uint64	   *hs;
	int			n;
} SeenHashes;

/* SeenHeldFn: whether delta has value (its hash among arg's, a SeenHashes) */
static bool
cfpg_seen_in_hashes(void *arg, int i, Datum value, uint64 *h)
{
	SeenHashes *d = arg;

	*h = cfpg_seen_hash(d->a, value);
	return d->n > 0 && bsearch(h, d->hs, d->n, sizeof(uint64), cfpg_seen_cmp_u64) != NULL;
}

/*
 * cf_unseen(base, delta, candidates): the candidates not reported seen, in
 * their order (repeats kept, NULL elements dropped); NULL candidates: NULL.
 */
PG_FUNCTION_INFO_V1(cuckoo_unseen);
Datum
cuckoo_unseen(PG_FUNCTION_ARGS)
{
	SeenArgs	a;
	SeenHashes	d;
	ArrayType  *arr;
	Datum	   *el;
	bool	   *nulls;
	int			m;

	if (PG_ARGISNULL(2))
		PG_RETURN_NULL();
	cfpg_seen_args(fcinfo, &a, cfpg_seen_item_type(fcinfo, 2, true), true);
	arr = PG_GETARG_ARRAYTYPE_P(2);
	deconstruct_array(arr, a.elemtype, a.elmlen, a.elmbyval, a.elmalign, &el, &nulls, &m);
	d.a = &a;
	d.hs = cfpg_seen_delta_hashes(&a, &d.n);
	return cfpg_seen_unseen(fcinfo, &a, el, nulls, m, cfpg_seen_in_hashes, &d);
}
