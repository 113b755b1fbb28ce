/*
 * cuckoo_unionagg.c - cf_union_agg (1.3): an internal state that absorbs
 * each part in place and builds the union once, in linear time.
 *
 * Lists (a growing filter's start: the exact 64-bit hashes of its values)
 * of one family give their hashes to a hash set, the one cf_agg collects
 * (cuckoo_agghashes.c); the final function inserts the distinct hashes, in
 * sorted order, into one new filter of the parts' parameters (that of the
 * largest capacity), so the union is what one filter that had every value
 * added would be: one exact list while they fit it, else one table, whose
 * deletes are exact.  Every other part (a table, a list holding copies of
 * a value, a list of other parameters) goes through the core's pairwise
 * union, as before, but in a binary counter of partial unions: slot i
 * holds the union of 2^i parts, so each part is copied O(log n) times
 * instead of once per later part (the executor copied the whole union on
 * every row: quadratic).
 *
 * Memory: 8 bytes per distinct hash of the list parts (the hash set's
 * bound), plus the tables' union, at most twice the bytes of the table
 * parts while two slots are being united.
 */
#include "postgres.h"

#include "miscadmin.h"
#include "utils/memutils.h"

#include "cuckoo_args.h"
#include "cuckoo_agghashes.h"

/* slots of the binary counter: 2^40 parts are more than any query has */
#define CFU_SLOTS			40

/* the serialized state (cf_union_agg_serial) */
#define CFU_SERIAL_VERSION	1
#define CFU_SERIAL_HEADER	32

typedef struct CfUnionState
{
	CfAggState *hs;				/* hashes of the absorbed lists, or NULL */
	struct varlena *model;		/* the absorbed list of the largest capacity */
	uint32		kind;			/* value kind of the absorbed lists */
	uint64		deletes;		/* their header counters, summed */
	uint64		retained;
	struct varlena *slot[CFU_SLOTS];	/* slot i: the union of 2^i other parts */
} CfUnionState;

static const char cfpg_unionagg_errmsg[] = "cf_union_agg cannot combine these cuckoo filters";

/* the per-call-site cache of the final function: cf_agg's, and a flag */
typedef struct CfUnionFinalCache
{
	CfAggCache	agg;			/* first: cfpg_agg_cache reads fn_extra as one */
	bool		noticed;		/* the NOTICE was given at this call site */
} CfUnionFinalCache;

static bool
cfpg_unionagg_kinds_meet(uint32 a, uint32 b)
{
	return a == b || a == CF_KIND_NONE || b == CF_KIND_NONE ||
		a == CF_KIND_ANY || b == CF_KIND_ANY;
}

/* the kind of a union of kinds a (so far) and b, as the core's union writes it */
static uint32
cfpg_unionagg_kind_union(uint32 a, uint32 b)
{
	return a == CF_KIND_NONE || b == CF_KIND_ANY ? b : a;
}

/* is f a list of distinct hashes, written with cuckoo 1.2's hashing? */
static bool
cfpg_unionagg_is_exact_list(const cf_filter *f)
{
	uint64		h[CF_LIST_MAX];
	size_t		n;

	if (f->version < 2 || !cf_is_list(f) || f->hashing != CF_HASHING_V2)
		return false;
	n = Min(cf_list_hashes(f, h, CF_LIST_MAX), CF_LIST_MAX);
	/* a list is sorted: copies of a value sit side by side */
	for (size_t i = 1; i < n; i++)
		if (h[i] == h[i - 1])
			return false;
	return true;
}

/*
 * lists a and b of one family: their hashes make one filter of either's
 * parameters (as cf_union merges them: the growth settings, expansion and
 * max_kicks, are the model's, as the merged list takes the first part's)
 */
static bool
cfpg_unionagg_same_family(const cf_filter *a, const cf_filter *b)
{
	return a->bucket_size == b->bucket_size && a->target_fpr == b->target_fpr &&
		a->fpbits == b->fpbits && cf_encoding_of(a) == cf_encoding_of(b);
}

static CfUnionState *
cfpg_unionagg_new(MemoryContext cxt)
{
	return (CfUnionState *) MemoryContextAllocZero(cxt, sizeof(CfUnionState));
}

/* a copy of v in cxt */
static struct varlena *
cfpg_unionagg_copy(MemoryContext cxt, const struct varlena *v)
{
	struct varlena *c = MemoryContextAlloc(cxt, VARSIZE_ANY(v));

	memcpy(c, v, VARSIZE_ANY(v));
	return c;
}

/* the union of the filters a and b, a new varlena in cxt */
static struct varlena *
cfpg_unionagg_union2(MemoryContext cxt, struct varlena *a, struct varlena *b)
{
	MemoryContext old = MemoryContextSwitchTo(cxt);
	cf_filter	fa,
				fb;
	struct varlena *r;

	cfpg_open(&fa, a);
	cfpg_open(&fb, b);
	r = cfpg_union(&fa, &fb, cfpg_unionagg_errmsg);
	MemoryContextSwitchTo(old);
	return r;
}

/*
 * Adds v (owned by the state, in cxt) to the binary counter: carries up
 * through the occupied slots, uniting as it goes.
 */
static void
cfpg_unionagg_push(CfUnionState *st, MemoryContext cxt, struct varlena *v)
{
	for (int i = 0; i < CFU_SLOTS; i++)
	{
		struct varlena *u;

		if (st->slot[i] == NULL)
		{
			st->slot[i] = v;
			return;
		}
		u = cfpg_unionagg_union2(cxt, st->slot[i], v);
		pfree(st->slot[i]);
		pfree(v);
		st->slot[i] = NULL;
		v = u;
	}
	elog(ERROR, "cf_union_agg: too many parts");
}

/*
 * Can lists like model, of value kind kind, join the state's hash set?  They
 * must be of the state's model's family, and of a kind the others meet.
 */
static bool
cfpg_unionagg_list_fits(const CfUnionState *st, const cf_filter *model, uint32 kind)
{
	cf_filter	m;

	if (st->model == NULL)
		return true;
	cfpg_open(&m, st->model);
	return cfpg_unionagg_same_family(&m, model) && cfpg_unionagg_kinds_meet(st->kind, kind);
}

/*
 * Takes lists like model (varlena v) into the state: their kind and header
 * counters, and model as the state's model if its parameters are larger.
 */
static void
cfpg_unionagg_take_header(CfUnionState *st, MemoryContext cxt, const cf_filter *model,
				const struct varlena *v, uint32 kind, uint64 deletes, uint64 retained)
{
	cf_filter	m;

	st->kind = st->model == NULL ? kind : cfpg_unionagg_kind_union(st->kind, kind);
	st->deletes += deletes;
	st->retained += retained;
	if (st->model != NULL)
		cfpg_open(&m, st->model);
	/* the largest (capacity, expansion, max_kicks): the same whatever the order */
	if (st->model == NULL || model->capacity > m.capacity ||
		(model->capacity == m.capacity &&
		 (model->expansion > m.expansion ||
		  (model->expansion == m.expansion && model->max_kicks > m.max_kicks))))
	{
		if (st->model != NULL)
			pfree(st->model);
		st->model = cfpg_unionagg_copy(cxt, v);
	}
}

/* the hashes of the exact list f into the state's hash set */
static void
cfpg_unionagg_absorb_list(CfUnionState *st, MemoryContext cxt, CfAggCache *cache,
				const cf_filter *f, const struct varlena *v)
{
	uint64		h[CF_LIST_MAX];
	size_t		n = Min(cf_list_hashes(f, h, CF_LIST_MAX), CF_LIST_MAX);

	if (st->hs == NULL)
		st->hs = cfpg_agg_new(cxt, f->target_fpr, 0);
	cfpg_unionagg_take_header(st, cxt, f, v, f->kind, f->deletes, f->retained);
	for (size_t i = 0; i < n; i++)
		cfpg_agg_add(st->hs, h[i], cache);
}

/* adds the filter datum d to the state */
static void
cfpg_unionagg_add_part(CfUnionState *st, MemoryContext cxt, CfAggCache *cache, Datum d)
{
	cf_filter	f;

	cfpg_open_datum(&d, &f);
	if (cfpg_unionagg_is_exact_list(&f) && cfpg_unionagg_list_fits(st, &f, f.kind))
	{
		/* an expanded datum opened in place: its bytes sit at f.buf */
		struct varlena *v = (struct varlena *) (f.buf - VARHDRSZ);

		if (VARATT_IS_EXTERNAL_EXPANDED(DatumGetPointer(d)) ||
			VARATT_IS_SHORT(DatumGetPointer(d)))
		{
			/* a copy with a 4-byte header, for the model */
			v = palloc(VARHDRSZ + f.len);
			SET_VARSIZE(v, VARHDRSZ + f.len);
			memcpy(VARDATA(v), f.buf, f.len);
			cfpg_open(&f, v);
		}
		cfpg_unionagg_absorb_list(st, cxt, cache, &f, v);
		return;
	}
	{
		struct varlena *c = MemoryContextAlloc(cxt, VARHDRSZ + f.len);

		SET_VARSIZE(c, VARHDRSZ + f.len);
		memcpy(VARDATA(c), f.buf, f.len);
		cfpg_unionagg_push(st, cxt, c);
	}
}

/* writes the value kind and the header counters of the lists into f */
static void
cfpg_unionagg_set_header(const CfUnionState *st, cf_filter *f)
{
	cf_set_kind(f, st->kind);
	cf_set_counters(f, st->deletes, st->retained);
}

/*
 * cf_agg's table for the n sorted hashes of runs, at the model's target
 * rate and encoding (cfpg_agg_build sizes it to n)
 */
static struct varlena *
cfpg_unionagg_build_table(CfUnionState *st, CfAggCache *cache, const cf_filter *m,
				const cf_run *runs, size_t nruns, uint64 n)
{
	st->hs->fpr = m->target_fpr;
	st->hs->capacity = 0;
	st->hs->encoding = (uint8) cf_encoding_of(m);
	return cfpg_agg_build(st->hs, cache, runs, nruns, n);
}

/*
 * The filter of the state's distinct hashes.  While they fit one list of
 * the model's parameters, that list (the hashes inserted in ascending
 * order: exact, and of the parts' family).  Beyond, the table cf_agg
 * builds for the same values (cfpg_agg_build: one table sized once at the
 * target rate, bulk-built from the sorted hashes), where the model has
 * cf_agg's bucket size; else the hashes are inserted one at a time into a
 * filter of the model's parameters, which grows.
 */
static struct varlena *
cfpg_unionagg_build_lists(CfUnionState *st, CfAggCache *cache)
{
	cf_filter	m,
				f;
	cf_params	p;
	const cf_run *runs;
	size_t		nruns;
	uint64		n;
	struct varlena *v;
	char		err[CF_ERRLEN];

	cfpg_open(&m, st->model);
	runs = cfpg_agg_sorted(st->hs, cache, &nruns, &n);
	if (n > CF_LIST_MAX && m.bucket_size == CF_DEFAULT_BUCKET_SIZE)
	{
		v = cfpg_unionagg_build_table(st, cache, &m, runs, nruns, n);
		cfpg_open(&f, v);
		cfpg_unionagg_set_header(st, &f);
		return v;
	}
	cfpg_params(&p, m.capacity, m.target_fpr);
	p.bucket_size = (int) m.bucket_size;
	p.max_kicks = (int) m.max_kicks;
	p.expansion = (int) m.expansion;
	p.encoding = cf_encoding_of(&m);
	p.geometry = CF_GROWING;
	v = cfpg_agg_insert_runs(&p, runs, nruns, &f, err);
	if (v == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s", cfpg_unionagg_errmsg),
				 errdetail("A filter of the parts' parameters cannot hold their " UINT64_FORMAT " distinct values: %s",
						   n, cfpg_sentence(err)),
				 errhint("Build the union from the values with cf_agg(value), which sizes one filter for all of them.")));
	if (!cf_is_list(&f) && m.bucket_size == CF_DEFAULT_BUCKET_SIZE)
	{
		/* the hashes outgrew the list: cf_agg's table instead */
		pfree(v);
		v = cfpg_unionagg_build_table(st, cache, &m, runs, nruns, n);
		cfpg_open(&f, v);
	}
	cfpg_unionagg_set_header(st, &f);
	return v;
}

/* ---------------------------------------------------------------------
 * the aggregate's functions
 * ------------------------------------------------------------------- */

/* cf_union_agg transition (1.3): absorbs one filter into the state */
PG_FUNCTION_INFO_V1(cf_union_agg_acc);
Datum
cf_union_agg_acc(PG_FUNCTION_ARGS)
{
	MemoryContext cxt = cfpg_agg_context(fcinfo, "cf_union_agg_acc");
	CfUnionState *st = PG_ARGISNULL(0) ? NULL : (CfUnionState *) PG_GETARG_POINTER(0);

	if (PG_ARGISNULL(1))
	{
		if (st == NULL)
			PG_RETURN_NULL();
		PG_RETURN_POINTER(st);
	}
	if (st == NULL)
		st = cfpg_unionagg_new(cxt);
	cfpg_unionagg_add_part(st, cxt, cfpg_agg_cache(fcinfo), PG_GETARG_DATUM(1));
	PG_RETURN_POINTER(st);
}

/* cf_union_agg combine (1.3): b's parts into a (b is never kept) */
PG_FUNCTION_INFO_V1(cf_union_agg_combine);
Datum
cf_union_agg_combine(PG_FUNCTION_ARGS)
{
	MemoryContext cxt = cfpg_agg_context(fcinfo, "cf_union_agg_combine");
	CfUnionState *a = PG_ARGISNULL(0) ? NULL : (CfUnionState *) PG_GETARG_POINTER(0);
	CfUnionState *b = PG_ARGISNULL(1) ? NULL : (CfUnionState *) PG_GETARG_POINTER(1);
	CfAggCache *cache = cfpg_agg_cache(fcinfo);

	if (b == NULL)
	{
		if (a == NULL)
			PG_RETURN_NULL();
		PG_RETURN_POINTER(a);
	}
	if (a == NULL)
		a = cfpg_unionagg_new(cxt);
	if (b->model != NULL)
	{
		cf_filter	mb;

		cfpg_open(&mb, b->model);
		if (cfpg_unionagg_list_fits(a, &mb, b->kind))
		{
			if (a->hs == NULL)
				a->hs = cfpg_agg_new(cxt, mb.target_fpr, 0);
			cfpg_unionagg_take_header(a, cxt, &mb, b->model, b->kind, b->deletes, b->retained);
			cfpg_agg_add_state(a->hs, b->hs, cache);
		}
		else
		{
			/* lists of another family: their filter, as a part */
			MemoryContext old = MemoryContextSwitchTo(cxt);
			struct varlena *v = cfpg_unionagg_build_lists(b, cache);

			MemoryContextSwitchTo(old);
			cfpg_unionagg_push(a, cxt, v);
		}
	}
	for (int i = 0; i < CFU_SLOTS; i++)
		if (b->slot[i] != NULL)
			cfpg_unionagg_push(a, cxt, cfpg_unionagg_copy(cxt, b->slot[i]));
	PG_RETURN_POINTER(a);
}

/*
 * cf_union_agg final (1.3): the filter of the lists' hashes united with the
 * union of the other parts; a NOTICE (once per call site) if its expected
 * false-positive rate is over twice its target.
 */
PG_FUNCTION_INFO_V1(cf_union_agg_finish);
Datum
cf_union_agg_finish(PG_FUNCTION_ARGS)
{
	MemoryContext cxt = cfpg_agg_context(fcinfo, "cf_union_agg_finish");
	CfUnionState *st;
	CfUnionFinalCache *fc = (CfUnionFinalCache *) fcinfo->flinfo->fn_extra;
	struct varlena *lists = NULL,
			   *tables,
			   *r;
	cf_filter	f;

	if (fc == NULL)
	{
		fc = MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, sizeof(CfUnionFinalCache));
		fc->agg.mcxt = fcinfo->flinfo->fn_mcxt;
		fcinfo->flinfo->fn_extra = fc;
	}
	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	st = (CfUnionState *) PG_GETARG_POINTER(0);

	/*
	 * The final function may run more than once on one state (a window, a
	 * shared aggregate): nothing here changes it but the hash set's sort,
	 * which leaves it a valid state; the slots are united into a copy.
	 */
	if (st->model != NULL)
		lists = cfpg_unionagg_build_lists(st, &fc->agg);
	tables = NULL;
	for (int i = 0; i < CFU_SLOTS; i++)
	{
		if (st->slot[i] == NULL)
			continue;
		if (tables == NULL)
			tables = st->slot[i];
		else
			tables = cfpg_unionagg_union2(CurrentMemoryContext, tables, st->slot[i]);
	}
	(void) cxt;
	if (lists == NULL && tables == NULL)
		PG_RETURN_NULL();
	if (lists == NULL)
		r = cfpg_unionagg_copy(CurrentMemoryContext, tables);
	else if (tables == NULL)
		r = lists;
	else
		r = cfpg_unionagg_union2(CurrentMemoryContext, lists, tables);
	cfpg_open(&f, r);
	if (!fc->noticed && cfpg_union_notice(&f))
		fc->noticed = true;
	PG_RETURN_CUCKOOFILTER_P(r);
}

/*
 * cf_union_agg serialize (1.3), little-endian: version, kind, flags 0, the
 * number of table parts, the hashes' count, deletes, retained; the model
 * list (4-byte length, bytes) if there are hashes, the sorted distinct
 * hashes, then each table part (4-byte length, bytes).
 */
PG_FUNCTION_INFO_V1(cf_union_agg_serial);
Datum
cf_union_agg_serial(PG_FUNCTION_ARGS)
{
	CfUnionState *st;
	const cf_run *runs = NULL;
	size_t		nruns = 0;
	uint64		n = 0;
	uint64		len = CFU_SERIAL_HEADER;
	uint32		nslots = 0;
	StringInfoData buf;
	uint8		hdr[CFU_SERIAL_HEADER];
	uint64		x;
	bytea	   *out;

	cfpg_agg_context(fcinfo, "cf_union_agg_serial");
	st = (CfUnionState *) PG_GETARG_POINTER(0);
	if (st->model != NULL)
	{
		runs = cfpg_agg_sorted(st->hs, cfpg_agg_cache(fcinfo), &nruns, &n);
		len += 4 + VARSIZE(st->model) - VARHDRSZ + n * 8;
	}
	for (int i = 0; i < CFU_SLOTS; i++)
		if (st->slot[i] != NULL)
		{
			nslots++;
			len += 4 + VARSIZE(st->slot[i]) - VARHDRSZ;
		}
	if (len > MaxAllocSize - VARHDRSZ)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("cf_union_agg state of " UINT64_FORMAT " bytes is too large to pass between parallel workers", len),
				 errhint("Run the query with max_parallel_workers_per_gather = 0.")));
	memset(hdr, 0, sizeof(hdr));
	hdr[0] = CFU_SERIAL_VERSION;
	hdr[1] = (uint8) st->kind;
	hdr[2] = st->model != NULL;
	hdr[4] = (uint8) nslots;
	x = n;
	cfpg_agg_put_le64s(hdr + 8, &x, 1);
	cfpg_agg_put_le64s(hdr + 16, &st->deletes, 1);
	cfpg_agg_put_le64s(hdr + 24, &st->retained, 1);
	initStringInfo(&buf);
	enlargeStringInfo(&buf, (int) len);
	appendBinaryStringInfo(&buf, (char *) hdr, sizeof(hdr));
	if (st->model != NULL)
	{
		uint32		ml = VARSIZE(st->model) - VARHDRSZ;
		uint8		l4[4] = {ml, ml >> 8, ml >> 16, ml >> 24};

		appendBinaryStringInfo(&buf, (char *) l4, 4);
		appendBinaryStringInfo(&buf, VARDATA(st->model), ml);
		for (size_t r = 0; r < nruns; r++)
		{
			size_t		at = buf.len;

			enlargeStringInfo(&buf, (int) (runs[r].n * 8));
			cfpg_agg_put_le64s((uint8 *) buf.data + at, runs[r].h, runs[r].n);
			buf.len += (int) (runs[r].n * 8);
		}
	}
	for (int i = 0; i < CFU_SLOTS; i++)
		if (st->slot[i] != NULL)
		{
			uint32		sl = VARSIZE(st->slot[i]) - VARHDRSZ;
			uint8		l4[4] = {sl, sl >> 8, sl >> 16, sl >> 24};

			appendBinaryStringInfo(&buf, (char *) l4, 4);
			appendBinaryStringInfo(&buf, VARDATA(st->slot[i]), sl);
		}
	out = palloc(VARHDRSZ + buf.len);
	SET_VARSIZE(out, VARHDRSZ + buf.len);
	memcpy(VARDATA(out), buf.data, buf.len);
	pfree(buf.data);
	PG_RETURN_BYTEA_P(out);
}

static void
cfpg_unionagg_bad_state(const char *detail)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
			 errmsg("invalid cf_union_agg state"),
			 errdetail("%s", detail)));
}

/* reads a 4-byte length and that many bytes of a valid filter at *p */
static struct varlena *
cfpg_unionagg_read_filter(const uint8 **p, const uint8 *end)
{
	uint32		l;
	struct varlena *v;

	if (end - *p < 4)
		cfpg_unionagg_bad_state("A filter's length is cut off.");
	l = (uint32) (*p)[0] | (uint32) (*p)[1] << 8 | (uint32) (*p)[2] << 16 | (uint32) (*p)[3] << 24;
	*p += 4;
	if ((uint64) (end - *p) < l)
		cfpg_unionagg_bad_state("A filter is cut off.");
	if (!cfpg_validate(*p, l, true, NULL))
		cfpg_unionagg_bad_state("A part is not a valid cuckoo filter.");
	v = palloc(VARHDRSZ + l);
	SET_VARSIZE(v, VARHDRSZ + l);
	memcpy(VARDATA(v), *p, l);
	*p += l;
	return v;
}

/* cf_union_agg deserialize (1.3): checks every length and filter */
PG_FUNCTION_INFO_V1(cf_union_agg_deserial);
Datum
cf_union_agg_deserial(PG_FUNCTION_ARGS)
{
	bytea	   *in;
	const uint8 *p,
			   *end;
	uint64		n;
	uint32		nslots;
	bool		has_model;
	CfUnionState *st;
	MemoryContext cxt = CurrentMemoryContext;

	cfpg_agg_context(fcinfo, "cf_union_agg_deserial");
	in = PG_GETARG_BYTEA_PP(0);
	p = (const uint8 *) VARDATA_ANY(in);
	end = p + VARSIZE_ANY_EXHDR(in);
	if (end - p < CFU_SERIAL_HEADER || p[0] != CFU_SERIAL_VERSION || p[2] > 1 || p[3] != 0)
		cfpg_unionagg_bad_state("The header is not that of a version-1 state.");
	st = cfpg_unionagg_new(cxt);
	st->kind = p[1];
	nslots = p[4];
	cfpg_agg_get_le64s(&n, p + 8, 1);
	cfpg_agg_get_le64s(&st->deletes, p + 16, 1);
	cfpg_agg_get_le64s(&st->retained, p + 24, 1);
	has_model = p[2] == 1;
	if (!has_model && n != 0)
		cfpg_unionagg_bad_state("Hashes without a model list.");
	p += CFU_SERIAL_HEADER;
	if (has_model)
	{
		cf_filter	m;

		st->model = cfpg_unionagg_read_filter(&p, end);
		cfpg_open(&m, st->model);
		if (!cfpg_unionagg_is_exact_list(&m))
			cfpg_unionagg_bad_state("The model is not a list.");
		if ((uint64) (end - p) / 8 < n)
			cfpg_unionagg_bad_state("The hashes are cut off.");
		st->hs = cfpg_agg_new(cxt, m.target_fpr, 0);
		if (n > 0)
		{
			cfpg_agg_to_array(st->hs, cxt);
			cfpg_agg_raise_limit(st->hs, n);
			cfpg_agg_array_append(st->hs, p, n, true);
			p += n * 8;
		}
	}
	if (nslots > CFU_SLOTS)
		cfpg_unionagg_bad_state("More table parts than slots.");
	for (uint32 i = 0; i < nslots; i++)
		st->slot[i] = cfpg_unionagg_read_filter(&p, end);
	if (p != end)
		cfpg_unionagg_bad_state("Bytes follow the last part.");
	PG_RETURN_POINTER(st);
}
