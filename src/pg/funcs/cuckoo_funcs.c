/*
 * cuckoo_funcs.c - the filter functions: cf_create, cf_add(_unique),
 * cf_contains (@>), cf_count, cf_delete, cf_union (||), cf_info, cf_set_kind, cf_hash.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/pg_type.h"
#include "utils/array.h"
#include "funcapi.h"
#include "utils/builtins.h"

#include "cuckoo_args.h"
#include "cuckoo_expanded.h"
#include "cuckoo_hashval_hash.h"

/*
 * columns of cf_info_all in extension version 1.3 (layout, list_max); cf_info
 * has the first 19 (1.1), or the first 9 where a view kept those of 1.0
 */
#define CFPG_INFO_COLUMNS	21

/* ---------------------------------------------------------------------
 * SQL functions
 * ------------------------------------------------------------------- */

/*
 * The one path of both cf_create forms: capacity, fpr, [encoding,]
 * bucket_size, max_kicks, expansion, every field taken as given (0 kicks,
 * expansion 0: a fixed size), the default geometry.  Not strict from 1.2: a
 * NULL parameter is an error, as in cf_agg (the encoding form is strict).
 */
static Datum
cfpg_create_call(FunctionCallInfo fcinfo, bool with_encoding)
{
	int			a = with_encoding ? 3 : 2;	/* the first of bucket_size, max_kicks, expansion */
	int64		capacity;
	cf_params	p;

	for (int i = 0; i < PG_NARGS(); i++)
		if (PG_ARGISNULL(i))
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("cf_create parameters must not be null")));
	capacity = PG_GETARG_INT64(0);
	cfpg_check_capacity(capacity);
	p = cf_params_default((uint64) capacity);
	p.fpr = PG_GETARG_FLOAT8(1);
	if (with_encoding)
		p.encoding = cfpg_encoding(PG_GETARG_TEXT_PP(2));
	p.bucket_size = PG_GETARG_INT32(a);
	p.max_kicks = PG_GETARG_INT32(a + 1);
	p.expansion = PG_GETARG_INT32(a + 2);
	PG_RETURN_CUCKOOFILTER_P(cfpg_create(&p));
}

/* cf_create(capacity, fpr, bucket_size, max_kicks, expansion): an empty filter */
PG_FUNCTION_INFO_V1(cuckoo_create);
Datum
cuckoo_create(PG_FUNCTION_ARGS)
{
	return cfpg_create_call(fcinfo, false);
}

/*
 * cf_create(capacity, fpr, encoding, bucket_size, max_kicks, expansion): an
 * empty filter whose tables use the named encoding ('semisorted': buckets
 * of 4 in 4w - 4 bits, one bit an item less than 'packed')
 */
PG_FUNCTION_INFO_V1(cuckoo_create_encoding);
Datum
cuckoo_create_encoding(PG_FUNCTION_ARGS)
{
	return cfpg_create_call(fcinfo, true);
}

/* cf_encoding(filter): its table encoding, 'packed', 'semisorted' or 'mixed' */
PG_FUNCTION_INFO_V1(cuckoo_encoding);
Datum
cuckoo_encoding(PG_FUNCTION_ARGS)
{
	Datum		d = PG_GETARG_DATUM(0);
	cf_filter	f;

	cfpg_open_datum(&d, &f);
	PG_RETURN_TEXT_P(cstring_to_text(cfpg_encoding_name(&f)));
}

/*
 * cf_add and cf_add_unique: op (CFX_ADD or CFX_ADD_UNIQUE) of the value to
 * the filter.  Not strict: a NULL filter starts a default one, a NULL value
 * changes nothing.
 */
static Datum
cfpg_add(FunctionCallInfo fcinfo, CfxOp op)
{
	CfCallCache *c = cfpg_call_cache(fcinfo);
	CfHashInfo *hi;
	cf_params	p;
	uint64		h;
	int			hashing = CF_HASHING_V2;	/* a new filter's */

	if (PG_ARGISNULL(1))
	{
		if (PG_ARGISNULL(0))
			PG_RETURN_NULL();
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	}
	hi = cfpg_arg_hashinfo(fcinfo, c, 1);
	if (!PG_ARGISNULL(0))
	{
		Datum		d = PG_GETARG_DATUM(0);
		cf_filter	f;

		cfpg_open_datum(&d, &f);
		cfpg_check_kind(&f, hi);
		/* add_unique: the hash an equal value is stored under, if any (cfpg_find_value) */
		h = op == CFX_ADD_UNIQUE ? cfpg_value_hash(&f, hi, PG_GETARG_DATUM(1)) :
			cfpg_hash_datum(hi, PG_GETARG_DATUM(1), (int) f.hashing);
		/* a value already present leaves a flat filter as it is: return it uncopied */
		if (op == CFX_ADD_UNIQUE &&
			!VARATT_IS_EXTERNAL_EXPANDED(DatumGetPointer(PG_GETARG_DATUM(0))) &&
			cf_contains(&f, h))
			PG_RETURN_DATUM(PG_GETARG_DATUM(0));
		/* the result is an expanded object: see cuckoo_expanded.c */
		PG_RETURN_DATUM(cfpg_expanded_modify(d, false, NULL, &f, h, op, hi->vkind));
	}
	h = cfpg_hash_datum(hi, PG_GETARG_DATUM(1), hashing);
	cfpg_params(&p, CFPG_DEFAULT_CAPACITY, CF_DEFAULT_FPR);
	PG_RETURN_DATUM(cfpg_expanded_modify((Datum) 0, true, &p, NULL, h, op, hi->vkind));
}

/* cf_add(filter, value): the filter with one more copy of value */
PG_FUNCTION_INFO_V1(cuckoo_add);
Datum
cuckoo_add(PG_FUNCTION_ARGS)
{
	return cfpg_add(fcinfo, CFX_ADD);
}

/* cf_add_unique(filter, value): value added only if not already reported present */
PG_FUNCTION_INFO_V1(cuckoo_add_unique);
Datum
cuckoo_add_unique(PG_FUNCTION_ARGS)
{
	return cfpg_add(fcinfo, CFX_ADD_UNIQUE);
}

/*
 * cf_try_add(filter, value): cf_add that reports "no room" without raising:
 * a filter that is full (expansion 0) or cannot grow any more comes back
 * unchanged, so cf_items(result) tells whether the value was stored.  A
 * PL/pgSQL loop that fills a fixed-size filter needs no EXCEPTION block,
 * and so keeps the in-place path.
 */
PG_FUNCTION_INFO_V1(cuckoo_try_add);
Datum
cuckoo_try_add(PG_FUNCTION_ARGS)
{
	return cfpg_add(fcinfo, CFX_TRY_ADD);
}

/* cf_items(filter): the items it holds (adds less deletes), read in place */
PG_FUNCTION_INFO_V1(cuckoo_items);
Datum
cuckoo_items(PG_FUNCTION_ARGS)
{
	CfCallCache *c = cfpg_call_cache(fcinfo);
	const cf_filter *f = cfpg_read_filter(fcinfo, c, PG_GETARG_DATUM(0));

	PG_RETURN_INT64((int64) cfpg_items_of(f));
}

/* the row (filter, changed) the _status functions return */
static Datum
cfpg_status_row(FunctionCallInfo fcinfo, struct varlena *v, bool changed)
{
	return cfpg_result_pair(fcinfo, PointerGetDatum(v), v == NULL, BoolGetDatum(changed), false);
}

/*
 * cf_add_unique_status(filter, value): (filter, stored), the result of
 * cf_add_unique and whether it stored anything, like RedisBloom's CF.ADDNX
 * (1 or 0).  stored is false when the filter already reports the value (it
 * holds it, or a false positive): then nothing is stored for it, and a later
 * cf_delete of it would remove another value's entry.  A NULL filter starts
 * a default one; a NULL value gives (filter, false).  No room raises, as
 * cf_add_unique does.
 */
PG_FUNCTION_INFO_V1(cuckoo_add_unique_status);
Datum
cuckoo_add_unique_status(PG_FUNCTION_ARGS)
{
	CfCallCache *c;
	CfHashInfo *hi;
	struct varlena *v;
	cf_filter	f;
	cf_params	p;
	uint64		h;
	cf_status	st;

	if (PG_ARGISNULL(1))
		return cfpg_status_row(fcinfo, PG_ARGISNULL(0) ? NULL :
							   (struct varlena *) PG_DETOAST_DATUM(PG_GETARG_DATUM(0)), false);
	c = cfpg_call_cache(fcinfo);
	hi = cfpg_arg_hashinfo(fcinfo, c, 1);
	if (PG_ARGISNULL(0))
	{
		cfpg_params(&p, CFPG_DEFAULT_CAPACITY, CF_DEFAULT_FPR);
		v = cfpg_create(&p);
		cfpg_open(&f, v);
		h = cfpg_hash_datum(hi, PG_GETARG_DATUM(1), (int) f.hashing);
	}
	else
	{
		Datum		d = PG_GETARG_DATUM(0);

		/* already reported: the filter as it is, not even rewritten */
		cfpg_open_datum(&d, &f);
		cfpg_check_kind(&f, hi);
		if (cfpg_find_value(&f, hi, PG_GETARG_DATUM(1), &h))
			return cfpg_status_row(fcinfo, (struct varlena *) DatumGetPointer(d), false);
		v = cfpg_writable_copy(PG_GETARG_DATUM(0));
		cfpg_open(&f, v);
	}
	st = cfpg_insert(&f, &v, h);
	if (st != CF_OK)
		cfpg_report_insert_failure(&f, st);
	if (f.kind == CF_KIND_NONE && f.hashing >= CF_HASHING_V2)
		cf_set_kind(&f, (uint32) hi->vkind);
	return cfpg_status_row(fcinfo, v, true);
}

/*
 * cf_delete_status(filter, value): (filter, removed), the result of
 * cf_delete and whether it removed an entry (CF.DEL's 1 or 0).  removed is
 * false when the filter does not report the value, and when the delete was
 * retained (left in place and counted, cf_info(f).retained: the value stays
 * reported).  A NULL filter gives (NULL, false), a NULL value (filter, false).
 */
PG_FUNCTION_INFO_V1(cuckoo_delete_status);
Datum
cuckoo_delete_status(PG_FUNCTION_ARGS)
{
	CfCallCache *c;
	CfHashInfo *hi;
	struct varlena *v;
	cf_filter	f;
	uint64		h;

	if (PG_ARGISNULL(0))
		return cfpg_status_row(fcinfo, NULL, false);
	v = (struct varlena *) PG_DETOAST_DATUM(PG_GETARG_DATUM(0));
	if (PG_ARGISNULL(1))
		return cfpg_status_row(fcinfo, v, false);
	c = cfpg_call_cache(fcinfo);
	hi = cfpg_arg_hashinfo(fcinfo, c, 1);
	cfpg_open(&f, v);
	cfpg_check_kind(&f, hi);
	if (!cfpg_find_value(&f, hi, PG_GETARG_DATUM(1), &h))
		return cfpg_status_row(fcinfo, v, false);
	v = cfpg_writable_copy(PG_GETARG_DATUM(0));
	cfpg_open(&f, v);
	return cfpg_status_row(fcinfo, v, cf_delete(&f, h) == CF_OK);
}

/*
 * The arguments of a probe, (filter, value): the filter, read through the
 * call site's cache, and the value's hash as that filter hashes values.
 * Raises if the value is of another kind than the filter holds.
 */
static inline const cf_filter *
cfpg_probe_args(FunctionCallInfo fcinfo, CfHashInfo **hi)
{
	const cf_filter *f = cfpg_probe_filter(fcinfo, PG_GETARG_DATUM(0), 1, hi);

	cfpg_check_kind(f, *hi);
	return f;
}

/*
 * cf_contains(filter, value) and the @> operator: is value (probably) in
 * it, under its own hash or one an equal value of another type has
 * (cfpg_find_value)
 */
PG_FUNCTION_INFO_V1(cuckoo_contains);
Datum
cuckoo_contains(PG_FUNCTION_ARGS)
{
	CfHashInfo *hi;
	const cf_filter *f = cfpg_probe_args(fcinfo, &hi);
	uint64		h;

	PG_RETURN_BOOL(cfpg_find_value(f, hi, PG_GETARG_DATUM(1), &h));
}

/* cf_count(filter, value): how many copies of value's fingerprints it holds */
PG_FUNCTION_INFO_V1(cuckoo_count);
Datum
cuckoo_count(PG_FUNCTION_ARGS)
{
	CfHashInfo *hi;
	const cf_filter *f = cfpg_probe_args(fcinfo, &hi);
	uint32		n = cfpg_count_value(f, hi, PG_GETARG_DATUM(1));

	PG_RETURN_INT32((int32) Min(n, (uint32) PG_INT32_MAX));
}

/*
 * cf_delete(filter, value): the filter with one copy of value removed.  Not
 * strict from 1.1: a NULL value leaves the filter as it is (so an UPDATE
 * with a NULL parameter does not wipe it), a NULL filter stays NULL.
 */
PG_FUNCTION_INFO_V1(cuckoo_delete);
Datum
cuckoo_delete(PG_FUNCTION_ARGS)
{
	Datum		d;
	CfCallCache *c;
	CfHashInfo *hi;
	cf_filter	f;
	uint64		h;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	if (PG_ARGISNULL(1))
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	d = PG_GETARG_DATUM(0);
	c = cfpg_call_cache(fcinfo);
	hi = cfpg_arg_hashinfo(fcinfo, c, 1);
	cfpg_open_datum(&d, &f);

	cfpg_check_kind(&f, hi);
	/* a flat filter without the value: keep it as it is */
	if (!cfpg_find_value(&f, hi, PG_GETARG_DATUM(1), &h) &&
		!VARATT_IS_EXTERNAL_EXPANDED(DatumGetPointer(PG_GETARG_DATUM(0))))
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	PG_RETURN_DATUM(cfpg_expanded_modify(d, false, NULL, &f, h, CFX_DELETE, 0));
}

/*
 * cf_union(a, b) and a || b: a filter holding the items of both.  Not strict
 * from 1.1: a NULL side gives the other one (both NULL: NULL), as hll does.
 * A NOTICE says when the result's false-positive rate is over twice its
 * target.
 */
PG_FUNCTION_INFO_V1(cuckoo_union);
Datum
cuckoo_union(PG_FUNCTION_ARGS)
{
	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
	{
		if (PG_ARGISNULL(0) && PG_ARGISNULL(1))
			PG_RETURN_NULL();
		PG_RETURN_DATUM(PG_GETARG_DATUM(PG_ARGISNULL(0) ? 1 : 0));
	}
	PG_RETURN_CUCKOOFILTER_P(cfpg_union_args(fcinfo, "cannot combine these cuckoo filters", false));
}

/*
 * cf_info(filter), cf_info_all(filter): its parameters and statistics, as
 * one row.  A list (a growing filter's start: its values' exact hashes) says
 * so in layout, and list_max gives the hashes it holds before it becomes a
 * table; the other columns describe the list as FORMAT.md says.
 */
PG_FUNCTION_INFO_V1(cuckoo_info);
Datum
cuckoo_info(PG_FUNCTION_ARGS)
{
	Datum		d = PG_GETARG_DATUM(0);
	cf_filter	f;
	cf_stats	s;
	TupleDesc	tupdesc;
	Datum		values[CFPG_INFO_COLUMNS];
	bool		nulls[CFPG_INFO_COLUMNS] = {0};

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	/* version 1.0's definition has the first 9 columns, 1.1's all of them */
	if (tupdesc->natts > CFPG_INFO_COLUMNS)
		elog(ERROR, "cf_info returns %d columns, this library knows %d",
			 tupdesc->natts, CFPG_INFO_COLUMNS);
	tupdesc = BlessTupleDesc(tupdesc);
	cfpg_open_datum(&d, &f);
	cf_get_stats(&f, &s);
	values[0] = Int64GetDatum((int64) s.capacity);
	values[1] = Int64GetDatum((int64) s.items);
	values[2] = Int64GetDatum((int64) s.buckets);
	values[3] = Int32GetDatum((int32) s.bucket_size);
	values[4] = Int32GetDatum((int32) s.fingerprint_bits);
	values[5] = Float8GetDatum(s.load_factor);
	values[6] = Float8GetDatum(s.fpr);
	values[7] = Int64GetDatum((int64) (s.bytes + VARHDRSZ));
	values[8] = Int32GetDatum((int32) s.subfilters);
	/* 1.1 */
	values[9] = Float8GetDatum(s.target_fpr);
	values[10] = Int32GetDatum((int32) s.expansion);
	values[11] = Int32GetDatum((int32) s.max_kicks);
	values[12] = BoolGetDatum(s.expansion > 0);
	values[13] = Int32GetDatum((int32) s.version);
	values[14] = Int32GetDatum((int32) s.hashing);
	values[15] = Int64GetDatum((int64) s.deletes);
	values[16] = Int64GetDatum((int64) s.retained);
	values[17] = Int32GetDatum((int32) s.families);
	if (cfpg_kind_name((int) s.kind) != NULL)
		values[18] = CStringGetTextDatum(cfpg_kind_name((int) s.kind));
	else
		nulls[18] = true;
	/* 1.3 */
	values[19] = CStringGetTextDatum(cf_list_bound(&f) > 0 ? "list" : "table");
	values[20] = Int64GetDatum((int64) cf_list_bound(&f));
	nulls[20] = cf_list_bound(&f) == 0;
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}

/*
 * cf_set_kind(filter, kind): the filter recording value kind kind.  'any'
 * turns the kind checks off for a filter that really holds values of several
 * kinds; a named kind can be set on an empty filter (or one of that kind).
 */
PG_FUNCTION_INFO_V1(cuckoo_set_kind);
Datum
cuckoo_set_kind(PG_FUNCTION_ARGS)
{
	char	   *name;
	int			kind;
	struct varlena *v;
	cf_filter	f;

	/* not strict from 1.2: a NULL filter stays NULL, a NULL kind is an error */
	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	if (PG_ARGISNULL(1))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("cf_set_kind kind must not be null")));
	name = text_to_cstring(PG_GETARG_TEXT_PP(1));
	kind = cfpg_kind_from_name(name);

	if (kind < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unknown value kind \"%s\"", name),
				 errhint("Use any, number, text, bytea, uuid, boolean, timestamp, timestamptz, datetime, interval, jsonb, array, record, range, multirange, char or other.")));
	v = cfpg_writable_copy(PG_GETARG_DATUM(0));
	cfpg_open(&f, v);
	/* a filter of cuckoo 1.0 already takes any kind */
	if (f.hashing < CF_HASHING_V2 && kind == CF_KIND_ANY)
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	if (f.hashing < CF_HASHING_V2)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("a filter written by cuckoo 1.0 records no value kind"),
				 errdetail("Its values are hashed as version 1.0 hashed them, and it accepts values of any kind."),
				 errhint("Rebuild the filter (for example with cf_agg) to get kind checks.")));
	if (kind != CF_KIND_ANY && f.kind != (uint32) kind && cfpg_items_of(&f) > 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("cannot mark a filter of %s values as holding %s values",
						f.kind == CF_KIND_NONE ? "unrecorded" : cfpg_kind_label((int) f.kind), name),
				 errdetail("Only an empty filter can be given a kind other than its own, or any.")));
	cf_set_kind(&f, (uint32) kind);
	PG_RETURN_CUCKOOFILTER_P(v);
}

/* cf_hash(value): the 64-bit hash a filter uses for value */
PG_FUNCTION_INFO_V1(cuckoo_hash);
Datum
cuckoo_hash(PG_FUNCTION_ARGS)
{
	CfCallCache *c = cfpg_call_cache(fcinfo);
	CfHashInfo *hi = cfpg_arg_hashinfo(fcinfo, c, 0);

	PG_RETURN_INT64((int64) cfpg_hash_datum(hi, PG_GETARG_DATUM(0), CF_HASHING_V2));
}

/*
 * cf_verify(f): the core's full check (cf_verify), reported as a row (ok,
 * version, subfilters, items, problems) rather than raised, so that it
 * runs over a column of filters, damaged ones included (amcheck's way).
 * The bytes are read as stored: never opened by cfpg_open, which would
 * raise on damage.
 */
PG_FUNCTION_INFO_V1(cuckoo_verify);
Datum
cuckoo_verify(PG_FUNCTION_ARGS)
{
	struct varlena *v = PG_DETOAST_DATUM(PG_GETARG_DATUM(0));
	cf_verify_result *r = palloc(sizeof(cf_verify_result));
	TupleDesc	tupdesc;
	Datum		values[5];
	bool		nulls[5] = {false, false, false, false, false};
	Datum	   *msgs;
	uint32		n;

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "cf_verify must return a composite type");
	tupdesc = BlessTupleDesc(tupdesc);
	cf_verify((const uint8 *) VARDATA_ANY(v), VARSIZE_ANY_EXHDR(v), r);
	n = r->nproblems < CF_VERIFY_MAX ? r->nproblems : CF_VERIFY_MAX;
	msgs = palloc(sizeof(Datum) * (n + 1));
	for (uint32 i = 0; i < n; i++)
		msgs[i] = CStringGetTextDatum(r->problems[i]);
	if (r->nproblems > n)
	{
		msgs[n] = CStringGetTextDatum(psprintf("%u more problems not listed", r->nproblems - n));
		n++;
	}
	values[0] = BoolGetDatum(r->ok);
	values[1] = Int32GetDatum((int32) r->version);
	values[2] = Int32GetDatum((int32) r->nstages);
	values[3] = Int64GetDatum((int64) r->items);
	values[4] = PointerGetDatum(construct_array(msgs, (int) n, TEXTOID, -1, false, TYPALIGN_INT));
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}
