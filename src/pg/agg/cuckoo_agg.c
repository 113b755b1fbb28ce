/*
 * cuckoo_agg.c - the aggregates of cuckoo 1.0's signatures: cf_agg(anyelement)
 * with an internal state (cuckoo_agghashes.c), and cf_union_agg of stored filters.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/pg_aggregate.h"
#include "catalog/pg_type.h"
#include "nodes/primnodes.h"
#include "utils/memutils.h"
#include "utils/syscache.h"

#include "cuckoo_args.h"
#include "cuckoo_agghashes.h"
#include "cuckoo_hashval_hash.h"

/* serialized state: fpr (IEEE double), capacity, then the hashes, all little-endian */
#define CFAGG_SERIAL_HEADER	16

/* largest state that fits one bytea */
#define CFAGG_MAX_SERIAL_HASHES	((MaxAllocSize - VARHDRSZ - CFAGG_SERIAL_HEADER) / sizeof(uint64))

/* Raises: rows of one cf_agg gave encodings a and b. */
static void
cfpg_agg_encoding_mismatch(int a, int b)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("cf_agg needs the same encoding for every row"),
			 errdetail("Rows gave encodings %d and %d.", a, b)));
}

/*
 * The transition: the first row, a row whose fpr or capacity differs (an
 * error), and NULLs before any value take cfpg_agg_trans_slow, out of line,
 * so that the common row's path stays short.
 */
static pg_noinline Datum
cfpg_agg_trans_slow(FunctionCallInfo fcinfo, double fpr, uint64 capacity, int encoding)
{
	CfAggState *st = PG_ARGISNULL(0) ? NULL : (CfAggState *) PG_GETARG_POINTER(0);
	CfAggCache *cache = cfpg_agg_cache(fcinfo);
	MemoryContext cxt = NULL;
	uint64		h;

	/* an internal state only ever comes from an aggregate: check once */
	if (st == NULL)
		cxt = cfpg_agg_context(fcinfo, "cuckoo_agg_trans");
	if (st == NULL || st->fpr != fpr)
	{
		cfpg_agg_check_fpr(fpr);
		if (st != NULL)
			cfpg_agg_fpr_mismatch(st->fpr, fpr);
	}
	if (st != NULL && st->capacity != capacity)
		cfpg_agg_capacity_mismatch(st->capacity, capacity);
	if (st != NULL && st->encoding != encoding)
		cfpg_agg_encoding_mismatch(st->encoding, encoding);
	if (PG_ARGISNULL(1))
	{
		if (st == NULL)
			PG_RETURN_NULL();
		PG_RETURN_POINTER(st);
	}
	h = cfpg_hash_datum(cfpg_agg_hashinfo(fcinfo, cache), PG_GETARG_DATUM(1), CF_HASHING_V2);
	if (st == NULL)
	{
		st = cfpg_agg_new(cxt, fpr, capacity);
		st->encoding = (uint8) encoding;
	}
	cfpg_agg_add(st, h, cache);
	PG_RETURN_POINTER(st);
}

static pg_attribute_always_inline Datum
cfpg_agg_trans_common(FunctionCallInfo fcinfo, double fpr, uint64 capacity, int encoding)
{
	CfAggState *st;
	CfAggCache *cache;

	if (unlikely(PG_ARGISNULL(0)))
		return cfpg_agg_trans_slow(fcinfo, fpr, capacity, encoding);
	st = (CfAggState *) PG_GETARG_POINTER(0);
	if (unlikely(st->fpr != fpr || st->capacity != capacity || st->encoding != encoding))
		return cfpg_agg_trans_slow(fcinfo, fpr, capacity, encoding);
	if (PG_ARGISNULL(1))
		PG_RETURN_POINTER(st);
	cache = cfpg_agg_cache(fcinfo);
	cfpg_agg_add(st, cfpg_hash_datum(cfpg_agg_hashinfo(fcinfo, cache), PG_GETARG_DATUM(1), CF_HASHING_V2),
			  cache);
	PG_RETURN_POINTER(st);
}

/* ---------------------------------------------------------------------
 * cf_agg
 * ------------------------------------------------------------------- */

/* cf_agg(value) transition: remembers the value's hash */
PG_FUNCTION_INFO_V1(cf_agg_trans);
Datum
cf_agg_trans(PG_FUNCTION_ARGS)
{
	/* no rate or capacity argument: the defaults (cfpg_agg_row_params, inline) */
	return cfpg_agg_trans_common(fcinfo, CF_DEFAULT_FPR, 0, CF_ENC_PACKED);
}

/* cf_agg(value, fpr) transition: the same with an explicit fpr */
PG_FUNCTION_INFO_V1(cf_agg_trans_fpr);
Datum
cf_agg_trans_fpr(PG_FUNCTION_ARGS)
{
	double		fpr;
	uint64		capacity;

	cfpg_agg_row_params(fcinfo, 1, &fpr, &capacity);
	return cfpg_agg_trans_common(fcinfo, fpr, capacity, CF_ENC_PACKED);
}

/*
 * cf_agg(value, fpr, capacity) transition: a filter of a given capacity, so
 * that filters built apart (per shard, per day) have one geometry and their
 * union folds them into one table instead of stacking sub-filters.
 */
PG_FUNCTION_INFO_V1(cf_agg_trans_capacity);
Datum
cf_agg_trans_capacity(PG_FUNCTION_ARGS)
{
	double		fpr;
	uint64		capacity;

	cfpg_agg_row_params(fcinfo, 2, &fpr, &capacity);
	return cfpg_agg_trans_common(fcinfo, fpr, capacity, CF_ENC_PACKED);
}

/*
 * cf_agg(value, fpr, capacity, encoding) transition: the same in a table
 * encoding ('semisorted' for one bit an item less); capacity 0 sizes the
 * filter by the data, as cf_agg(value, fpr) does.
 */
PG_FUNCTION_INFO_V1(cf_agg_trans_encoding);
Datum
cf_agg_trans_encoding(PG_FUNCTION_ARGS)
{
	double		fpr;
	uint64		capacity = 0;
	int			encoding;

	if (PG_ARGISNULL(2) || PG_ARGISNULL(3) || PG_ARGISNULL(4))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("cf_agg false-positive rate, capacity and encoding must not be null")));
	fpr = PG_GETARG_FLOAT8(2);
	cfpg_agg_check_fpr(fpr);
	if (PG_GETARG_INT64(3) != 0)
	{
		cfpg_agg_check_capacity(PG_GETARG_INT64(3), fpr);
		capacity = (uint64) PG_GETARG_INT64(3);
	}
	encoding = cfpg_encoding(PG_GETARG_TEXT_PP(4));
	return cfpg_agg_trans_common(fcinfo, fpr, capacity, encoding);
}

/*
 * Records the value kind of the aggregated column in the new filter v (the
 * final function sees the column's type only through the Aggref).
 */
static struct varlena *
cfpg_agg_set_kind(FunctionCallInfo fcinfo, struct varlena *v)
{
	Aggref	   *aggref = AggGetAggref(fcinfo);
	cf_filter	f;

	if (aggref == NULL || aggref->aggargtypes == NIL)
		return v;
	cfpg_open(&f, v);
	cf_set_kind(&f, (uint32) cfpg_type_value_kind(linitial_oid(aggref->aggargtypes)));
	return v;
}

/*
 * cf_agg final: the filter of the distinct hashes, inserted in sorted order.
 * It sorts the state in place, which keeps it a valid state.
 */
PG_FUNCTION_INFO_V1(cf_agg_final);
Datum
cf_agg_final(PG_FUNCTION_ARGS)
{
	CfAggState *st;
	CfAggCache *cache = cfpg_agg_cache(fcinfo);
	const cf_run *runs;
	size_t		nruns;
	uint64		n;

	cfpg_agg_context(fcinfo, "cuckoo_agg_final");
	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	st = (CfAggState *) PG_GETARG_POINTER(0);
	if (cfpg_agg_held(st) == 0)
		PG_RETURN_NULL();
	runs = cfpg_agg_sorted(st, cache, &nruns, &n);
	PG_RETURN_CUCKOOFILTER_P(cfpg_agg_set_kind(fcinfo, cfpg_agg_build(st, cache, runs, nruns, n)));
}

/* cf_agg combine: the union of two states (either may be NULL) */
PG_FUNCTION_INFO_V1(cf_agg_combine);
Datum
cf_agg_combine(PG_FUNCTION_ARGS)
{
	MemoryContext cxt = cfpg_agg_context(fcinfo, "cuckoo_agg_combine");
	CfAggState *a = PG_ARGISNULL(0) ? NULL : (CfAggState *) PG_GETARG_POINTER(0);
	CfAggState *b = PG_ARGISNULL(1) ? NULL : (CfAggState *) PG_GETARG_POINTER(1);
	CfAggCache *cache = cfpg_agg_cache(fcinfo);

	if (b == NULL || cfpg_agg_held(b) == 0)
	{
		if (a == NULL)
			PG_RETURN_NULL();
		PG_RETURN_POINTER(a);
	}
	/* b may live in another node's memory: copy it, never keep it */
	if (a == NULL)
	{
		a = cfpg_agg_new(cxt, b->fpr, b->capacity);
		a->encoding = b->encoding;
	}
	if (a->fpr != b->fpr)
		cfpg_agg_fpr_mismatch(a->fpr, b->fpr);
	if (a->capacity != b->capacity)
		cfpg_agg_capacity_mismatch(a->capacity, b->capacity);
	if (a->encoding != b->encoding)
		cfpg_agg_encoding_mismatch(a->encoding, b->encoding);
	if (b->form == CFAGG_FORM_ARRAY)
	{
		/*
		 * A large state (a worker's, deserialized): its blocks are copied
		 * whole, then the limit is checked once.
		 */
		size_t		nruns;
		uint64		n;
		const cf_run *runs = cfpg_agg_runs(b, cache, &nruns, &n);

		if (a->form != CFAGG_FORM_ARRAY)
			cfpg_agg_to_array(a, cxt);
		for (size_t r = 0; r < nruns; r++)
			cfpg_agg_array_append(a, runs[r].h, runs[r].n, false);
		if (a->n >= a->cap && nruns > 0)
			cfpg_agg_make_room(a, cache, runs[nruns - 1].h[0]);
	}
	else
		cfpg_agg_add_state(a, b, cache);
	PG_RETURN_POINTER(a);
}

/*
 * cf_agg serialize: fpr, capacity and the sorted distinct hashes,
 * little-endian; the table encoding rides in the capacity's top byte (a
 * capacity is below 2^32), so states of 1.1 read the same.
 */
PG_FUNCTION_INFO_V1(cf_agg_serial);
Datum
cf_agg_serial(PG_FUNCTION_ARGS)
{
	CfAggState *st;
	const cf_run *runs;
	size_t		nruns;
	uint64		n;
	bytea	   *out;
	uint8	   *p;
	uint64		bits;
	uint64		capenc;

	cfpg_agg_context(fcinfo, "cuckoo_agg_serial");
	st = (CfAggState *) PG_GETARG_POINTER(0);
	runs = cfpg_agg_sorted(st, cfpg_agg_cache(fcinfo), &nruns, &n);
	if (n > CFAGG_MAX_SERIAL_HASHES)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("cf_agg state of " UINT64_FORMAT " distinct values is too large to pass between parallel workers", n),
				 errhint("Run the query with max_parallel_workers_per_gather = 0.")));
	out = palloc(VARHDRSZ + CFAGG_SERIAL_HEADER + (Size) n * sizeof(uint64));
	SET_VARSIZE(out, VARHDRSZ + CFAGG_SERIAL_HEADER + (Size) n * sizeof(uint64));
	p = (uint8 *) VARDATA(out);
	memcpy(&bits, &st->fpr, sizeof(bits));
	cfpg_agg_put_le64s(p, &bits, 1);
	capenc = st->capacity | (uint64) st->encoding << 56;
	cfpg_agg_put_le64s(p + 8, &capenc, 1);
	p += CFAGG_SERIAL_HEADER;
	for (size_t r = 0; r < nruns; r++)
	{
		cfpg_agg_put_le64s(p, runs[r].h, runs[r].n);
		p += runs[r].n * sizeof(uint64);
	}
	PG_RETURN_BYTEA_P(out);
}

/* cf_agg deserialize: checks the length, fpr and capacity */
PG_FUNCTION_INFO_V1(cf_agg_deserial);
Datum
cf_agg_deserial(PG_FUNCTION_ARGS)
{
	bytea	   *in;
	const uint8 *p;
	size_t		len;
	uint64		bits;
	double		fpr;
	uint64		capacity;
	int			encoding;
	size_t		n;
	CfAggState *st;

	cfpg_agg_context(fcinfo, "cuckoo_agg_deserial");
	in = PG_GETARG_BYTEA_PP(0);
	len = VARSIZE_ANY_EXHDR(in);
	p = (const uint8 *) VARDATA_ANY(in);
	if (len < CFAGG_SERIAL_HEADER || (len - CFAGG_SERIAL_HEADER) % sizeof(uint64) != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("invalid cf_agg state"),
				 errdetail("A state is 16 bytes plus 8 per value, not %zu bytes.", len)));
	cfpg_agg_get_le64s(&bits, p, 1);
	memcpy(&fpr, &bits, sizeof(fpr));
	cfpg_agg_check_fpr(fpr);
	cfpg_agg_get_le64s(&capacity, p + 8, 1);
	encoding = (int) (capacity >> 56);
	capacity &= (UINT64CONST(1) << 56) - 1;
	if (!cf_encoding_valid(encoding))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("invalid cf_agg state"),
				 errdetail("Table encoding %d is not 0 or 1.", encoding)));
	if (capacity > 0)
		cfpg_agg_check_capacity(capacity > PG_INT64_MAX ? -1 : (int64) capacity, fpr);
	n = (len - CFAGG_SERIAL_HEADER) / sizeof(uint64);
	p += CFAGG_SERIAL_HEADER;

	/*
	 * In the current (per-tuple) context: the combine function reads it and
	 * never keeps it.  An ARRAY state of the hashes as they are: nothing
	 * about them (sorted, distinct) is trusted.
	 */
	st = cfpg_agg_new(CurrentMemoryContext, fpr, capacity);
	st->encoding = (uint8) encoding;
	cfpg_agg_to_array(st, CurrentMemoryContext);
	cfpg_agg_raise_limit(st, n);
	cfpg_agg_array_append(st, p, n, true);
	PG_RETURN_POINTER(st);
}

/* ---------------------------------------------------------------------
 * cf_union_agg
 * ------------------------------------------------------------------- */

/*
 * cf_union_agg transition and combine: the union of the state and a filter.
 * The state type is cuckoofilter itself (so Citus can distribute it).  The
 * result is built in the per-call context; the executor copies it into the
 * aggregate context and frees the previous state, which must therefore not
 * be freed here.
 */
PG_FUNCTION_INFO_V1(cf_union_agg_trans);
Datum
cf_union_agg_trans(PG_FUNCTION_ARGS)
{
	static const char msg[] = "cf_union_agg cannot combine these cuckoo filters";
	FmgrInfo   *flinfo = fcinfo->flinfo;

	/*
	 * From 1.2 cf_union_agg has a final function, whose NOTICE describes the
	 * result; without it (a 1.1 aggregate the update could not replace) the
	 * transition says it once, when the rate goes over.  fn_extra: 1 quiet,
	 * 2 not.
	 */
	if (flinfo->fn_extra == NULL)
	{
		Aggref	   *agg = AggGetAggref(fcinfo);
		bool		quiet = false;

		if (agg != NULL)
		{
			HeapTuple	tup = SearchSysCache1(AGGFNOID, ObjectIdGetDatum(agg->aggfnoid));

			if (HeapTupleIsValid(tup))
			{
				quiet = OidIsValid(((Form_pg_aggregate) GETSTRUCT(tup))->aggfinalfn);
				ReleaseSysCache(tup);
			}
		}
		flinfo->fn_extra = MemoryContextAllocZero(flinfo->fn_mcxt, 1);
		*(char *) flinfo->fn_extra = quiet ? 1 : 2;
	}
	if (*(char *) flinfo->fn_extra == 1)
	{
		Datum		da = PG_GETARG_DATUM(0),
					db = PG_GETARG_DATUM(1);
		cf_filter	a,
					b;

		cfpg_open_datum(&da, &a);
		cfpg_open_datum(&db, &b);
		PG_RETURN_CUCKOOFILTER_P(cfpg_union(&a, &b, msg));
	}
	PG_RETURN_CUCKOOFILTER_P(cfpg_union_args(fcinfo, msg, true));
}

/*
 * cf_union_agg's final function (1.2): the union as it is, and the NOTICE
 * if its expected false-positive rate is over twice its target, describing
 * the result (once per call site and query).
 */
PG_FUNCTION_INFO_V1(cf_union_agg_final);
Datum
cf_union_agg_final(PG_FUNCTION_ARGS)
{
	Datum		d = PG_GETARG_DATUM(0);
	cf_filter	f;

	if (fcinfo->flinfo->fn_extra == NULL)
	{
		cfpg_open_datum(&d, &f);
		if (cfpg_union_notice(&f))
			fcinfo->flinfo->fn_extra = MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, 1);
	}
	PG_RETURN_DATUM(PG_GETARG_DATUM(0));
}
