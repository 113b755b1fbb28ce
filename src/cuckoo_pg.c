/*
 * cuckoo_pg.c - the cuckoofilter SQL type: text and binary I/O, creation,
 * add / contains / delete / count / union / info and the per-call caches.
 */
#include "postgres.h"

#include "access/detoast.h"
#include "access/htup_details.h"
#include "catalog/pg_type.h"
#include "funcapi.h"
#include "libpq/pqformat.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/memutils.h"

#include "cuckoo_pg.h"

PG_MODULE_MAGIC;

/* lets a statement timeout or cancel stop the core's long loops */
static void
cfpg_check_interrupts(void)
{
	CHECK_FOR_INTERRUPTS();
}

void		_PG_init(void);

void
_PG_init(void)
{
	cf_interrupt_hook = cfpg_check_interrupts;
	DefineCustomIntVariable("cuckoo.agg_probe_limit",
							"Longest probe of cf_agg's hash set before it turns into an array.",
							"A testing aid: 0 sends every cf_agg through the array.",
							&cfagg_probe_limit, 64, 0, 1024, PGC_USERSET,
							GUC_NOT_IN_SAMPLE, NULL, NULL, NULL);
	MarkGUCPrefixReserved("cuckoo");
}

/* what cf_add(NULL, v) creates */
#define CFPG_DEFAULT_CAPACITY	1000

/*
 * Turns a core message ("lower case, no period") into an errdetail
 * sentence: capital first letter, final period.
 */
char *
cfpg_sentence(const char *msg)
{
	size_t		len = strlen(msg);
	char	   *s = palloc(len + 2);

	memcpy(s, msg, len + 1);
	if (len > 0 && s[0] >= 'a' && s[0] <= 'z')
		s[0] = (char) (s[0] - 'a' + 'A');
	if (len == 0 || s[len - 1] != '.')
	{
		s[len] = '.';
		s[len + 1] = '\0';
	}
	return s;
}

/*
 * Opens a detoasted cuckoofilter datum as a core view; raises
 * ERRCODE_DATA_CORRUPTED if its header is not a valid filter.
 */
void
cfpg_open(cf_filter *f, struct varlena *v)
{
	char		err[CF_ERRLEN];

	if (!cf_open(f, (uint8 *) VARDATA_ANY(v), VARSIZE_ANY_EXHDR(v), err, sizeof(err)))
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("stored cuckoo filter is corrupted"),
				 errdetail("%s", cfpg_sentence(err))));
}

/* p with capacity, fpr and the default bucket size, kicks and expansion */
void
cfpg_params(cf_params *p, uint64 capacity, double fpr)
{
	p->capacity = capacity;
	p->fpr = fpr;
	p->bucket_size = CF_DEFAULT_BUCKET_SIZE;
	p->max_kicks = CF_DEFAULT_MAX_KICKS;
	p->expansion = CF_DEFAULT_EXPANSION;
}

/* A new varlena holding an empty filter for p (raises on bad parameters). */
struct varlena *
cfpg_create(const cf_params *p)
{
	char		err[CF_ERRLEN];
	size_t		size;
	struct varlena *v;

	size = cf_create_size(p, err, sizeof(err));
	if (size == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s", err)));
	v = (struct varlena *) palloc(VARHDRSZ + size);
	SET_VARSIZE(v, VARHDRSZ + size);
	cf_create(CF_VARDATA(v), p);
	return v;
}

/*
 * Opens any cuckoofilter datum for reading: the newest state of an expanded
 * filter in place, anything else detoasted (a flat value in place).
 */
static void
cfpg_read_datum(Datum d, cf_filter *f)
{
	if (VARATT_IS_EXTERNAL_EXPANDED(DatumGetPointer(d)) && cfx_open_current(d, f))
		return;
	cfpg_open(f, (struct varlena *) PG_DETOAST_DATUM_PACKED(d));
}

/* ---------------------------------------------------------------------
 * type I/O
 * ------------------------------------------------------------------- */

/*
 * Checks the bytes of a filter with the core's full validation; bad bytes
 * are reported into escontext when the caller gave one (soft errors, 16+),
 * else raised.  Returns whether they are valid.
 */
static bool
cfpg_validate(const uint8 *buf, size_t len, bool binary, Node *escontext)
{
	char		err[CF_ERRLEN];

	if (!cf_validate(buf, len, err, sizeof(err)))
	{
		if (binary)
			ereturn(escontext, false,
					(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
					 errmsg("invalid binary data for type %s", "cuckoofilter"),
					 errdetail("%s", cfpg_sentence(err))));
		else
			ereturn(escontext, false,
					(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
					 errmsg("invalid input syntax for type %s", "cuckoofilter"),
					 errdetail("%s", cfpg_sentence(err))));
	}
	return true;
}

/*
 * text input: strict base64 of the filter's bytes; bad input is a soft
 * error where the caller offers an error context (pg_input_is_valid)
 */
PG_FUNCTION_INFO_V1(cuckoofilter_in);
Datum
cuckoofilter_in(PG_FUNCTION_ARGS)
{
	char	   *str = PG_GETARG_CSTRING(0);
	Node	   *escontext = fcinfo->context;
	size_t		len = strlen(str);
	size_t		n;
	char		err[CF_ERRLEN];
	struct varlena *v;

	n = cf_base64_decoded_len(str, len);
	if (n == SIZE_MAX)
		ereturn(escontext, (Datum) 0,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("invalid input syntax for type %s", "cuckoofilter"),
				 errdetail("Base64 text has %zu characters, not a positive multiple of 4.", len)));
	if (n > CF_MAX_SIZE)
		ereturn(escontext, (Datum) 0,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("cuckoo filter text is too long")));
	v = (struct varlena *) palloc(VARHDRSZ + n);
	if (cf_base64_decode(str, len, CF_VARDATA(v), err, sizeof(err)) != n)
		ereturn(escontext, (Datum) 0,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("invalid input syntax for type %s", "cuckoofilter"),
				 errdetail("%s", cfpg_sentence(err))));
	SET_VARSIZE(v, VARHDRSZ + n);
	if (!cfpg_validate(CF_VARDATA(v), n, false, escontext))
		return (Datum) 0;
	PG_RETURN_CUCKOOFILTER_P(v);
}

/* text output: strict base64 of the filter's bytes */
PG_FUNCTION_INFO_V1(cuckoofilter_out);
Datum
cuckoofilter_out(PG_FUNCTION_ARGS)
{
	cf_filter	f;
	char	   *out;

	cfpg_read_datum(PG_GETARG_DATUM(0), &f);
	if (cf_base64_len(f.len) + 1 > MaxAllocSize)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("cuckoo filter is too large for its text form"),
				 errdetail("The filter has %zu bytes; its base64 text would exceed the 1 GB limit of a value.",
						   f.len),
				 errhint("Use the binary form (COPY ... WITH (FORMAT binary) or a binary driver), or a smaller filter.")));
	out = palloc(cf_base64_len(f.len) + 1);
	cf_base64_encode(f.buf, f.len, out);
	PG_RETURN_CSTRING(out);
}

/*
 * binary input: the filter's bytes, fully validated; errors go to the
 * caller's error context when it offers one, as in cuckoofilter_in
 */
PG_FUNCTION_INFO_V1(cuckoofilter_recv);
Datum
cuckoofilter_recv(PG_FUNCTION_ARGS)
{
	StringInfo	buf = (StringInfo) PG_GETARG_POINTER(0);
	Node	   *escontext = fcinfo->context;
	size_t		n = (size_t) (buf->len - buf->cursor);
	struct varlena *v;

	if (n > CF_MAX_SIZE)
		ereturn(escontext, (Datum) 0,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("cuckoo filter binary value is too long")));
	if (!cfpg_validate((const uint8 *) buf->data + buf->cursor, n, true, escontext))
		return (Datum) 0;
	v = (struct varlena *) palloc(VARHDRSZ + n);
	SET_VARSIZE(v, VARHDRSZ + n);
	pq_copymsgbytes(buf, VARDATA(v), (int) n);
	PG_RETURN_CUCKOOFILTER_P(v);
}

/* binary output: the filter's bytes */
PG_FUNCTION_INFO_V1(cuckoofilter_send);
Datum
cuckoofilter_send(PG_FUNCTION_ARGS)
{
	cf_filter	f;
	StringInfoData buf;

	cfpg_read_datum(PG_GETARG_DATUM(0), &f);
	pq_begintypsend(&buf);
	pq_sendbytes(&buf, (const char *) f.buf, (int) f.len);
	PG_RETURN_BYTEA_P(pq_endtypsend(&buf));
}

/* ---------------------------------------------------------------------
 * per-call caches
 *
 * cf_contains and cf_count run once per row with, typically, the same
 * filter every time (a constant, a parameter, a subquery's value).  The
 * cache in fn_extra keeps the value's hash info and, when the filter had to
 * be detoasted, the detoasted copy, keyed by what identifies the stored
 * value: the toast pointer of an on-disk value, or the compressed bytes of
 * an inline compressed one.  A plain in-memory value is read in place.
 * ------------------------------------------------------------------- */

typedef enum CfCacheKind
{
	CFC_NONE = 0,
	CFC_ONDISK,					/* keyed by the toast pointer */
	CFC_COMPRESSED				/* keyed by the compressed bytes */
} CfCacheKind;

typedef struct CfCallCache
{
	CfHashInfo	hi;				/* hi.typid is InvalidOid until set */

	CfCacheKind kind;			/* which key below is valid */
	struct varatt_external toast;	/* CFC_ONDISK */
	char	   *cbytes;			/* CFC_COMPRESSED: a copy of the datum */
	Size		clen;
	struct varlena *value;		/* the detoasted filter, in fn_mcxt */
	cf_filter	f;				/* opened on value */

	cf_filter	scratch;		/* view of an uncached, in-place filter */

	/*
	 * A plain in-memory value (a constant, a parameter) is read in place; its
	 * view is reused while the value has the same address, length and
	 * header.  That is safe even if another filter now lives at that
	 * address: the view holds only what the header determines (the table
	 * addresses follow from the buffer's), and the tables are always read
	 * from the buffer itself.
	 */
	const uint8 *plain_buf;		/* scratch views this plain value, or NULL */
	size_t		plain_len;
	size_t		plain_hdrlen;
	uint8		plain_hdr[CF_HEADER_SIZE + CF_STAGE_SIZE * CF_MAX_STAGES];
} CfCallCache;

static CfCallCache *
cfpg_call_cache(FunctionCallInfo fcinfo)
{
	CfCallCache *c;

	/* called without an FmgrInfo (DirectFunctionCall): no cache, no types */
	if (fcinfo->flinfo == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cuckoo filter functions need a call context to find their argument types")));
	c = (CfCallCache *) fcinfo->flinfo->fn_extra;

	if (c == NULL)
	{
		c = MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, sizeof(CfCallCache));
		fcinfo->flinfo->fn_extra = c;
	}
	return c;
}

/*
 * The hash info for argument argno.  An argument's type is fixed for a
 * given call site (fn_expr), and fn_extra belongs to that call site, so it
 * is looked up once.
 */
static inline CfHashInfo *
cfpg_hashinfo(FunctionCallInfo fcinfo, CfCallCache *c, int argno)
{
	if (unlikely(!OidIsValid(c->hi.typid)))
	{
		cf_hashinfo_init(&c->hi, get_fn_expr_argtype(fcinfo->flinfo, argno),
						 PG_GET_COLLATION(), fcinfo->flinfo->fn_mcxt);
	}
	return &c->hi;
}

/* drops the cached filter */
static void
cfpg_cache_reset(CfCallCache *c)
{
	c->kind = CFC_NONE;
	if (c->value)
		pfree(c->value);
	c->value = NULL;
	if (c->cbytes)
		pfree(c->cbytes);
	c->cbytes = NULL;
	c->clen = 0;
}

/* detoasts d into the cache's memory and opens it */
static void
cfpg_cache_load(FunctionCallInfo fcinfo, CfCallCache *c, Datum d)
{
	MemoryContext old = MemoryContextSwitchTo(fcinfo->flinfo->fn_mcxt);

	c->value = (struct varlena *) PG_DETOAST_DATUM(d);
	MemoryContextSwitchTo(old);
	cfpg_open(&c->f, c->value);
}

/*
 * A read-only view of a filter argument, without detoasting or copying it
 * more than once per distinct stored value.  The view stays valid until the
 * next call.
 */
static const cf_filter *
cfpg_read_filter(FunctionCallInfo fcinfo, CfCallCache *c, Datum d)
{
	struct varlena *raw = (struct varlena *) DatumGetPointer(d);

	if (VARATT_IS_EXTERNAL_ONDISK(raw))
	{
		struct varatt_external toast;

		VARATT_EXTERNAL_GET_POINTER(toast, raw);
		if (c->kind == CFC_ONDISK &&
			c->toast.va_valueid == toast.va_valueid &&
			c->toast.va_toastrelid == toast.va_toastrelid &&
			c->toast.va_rawsize == toast.va_rawsize &&
			c->toast.va_extinfo == toast.va_extinfo)
			return &c->f;
		cfpg_cache_reset(c);
		cfpg_cache_load(fcinfo, c, d);
		c->toast = toast;
		c->kind = CFC_ONDISK;
		return &c->f;
	}
	if (VARATT_IS_COMPRESSED(raw))
	{
		Size		clen = VARSIZE(raw);

		if (c->kind == CFC_COMPRESSED && c->clen == clen &&
			memcmp(c->cbytes, raw, clen) == 0)
			return &c->f;
		cfpg_cache_reset(c);
		cfpg_cache_load(fcinfo, c, d);
		c->cbytes = MemoryContextAlloc(fcinfo->flinfo->fn_mcxt, clen);
		memcpy(c->cbytes, raw, clen);
		c->clen = clen;
		c->kind = CFC_COMPRESSED;
		return &c->f;
	}
	if (VARATT_IS_EXTERNAL(raw))
	{
		c->plain_buf = NULL;	/* scratch is about to view something else */
		/* the newest state of an expanded filter: read in place */
		if (VARATT_IS_EXTERNAL_EXPANDED(raw) && cfx_open_current(d, &c->scratch))
			return &c->scratch;
		/* indirect, or an older expanded state: read a flat copy each time */
		cfpg_open(&c->scratch, (struct varlena *) PG_DETOAST_DATUM(d));
		return &c->scratch;
	}
	/* a plain value, 1- or 4-byte header: read in place */
	{
		const uint8 *buf = (const uint8 *) VARDATA_ANY(raw);
		size_t		len = VARSIZE_ANY_EXHDR(raw);

		if (c->plain_buf == buf && c->plain_len == len &&
			memcmp(c->plain_hdr, buf, c->plain_hdrlen) == 0)
			return &c->scratch;
		cfpg_open(&c->scratch, raw);
		c->plain_hdrlen = CF_HEADER_SIZE + (size_t) CF_STAGE_SIZE * c->scratch.nstages;
		memcpy(c->plain_hdr, buf, c->plain_hdrlen);
		c->plain_buf = buf;
		c->plain_len = len;
	}
	return &c->scratch;
}

/* items in all sub-filters */
static uint64
cfpg_items(const cf_filter *f)
{
	uint64		n = 0;

	for (uint32 k = 0; k < f->nstages; k++)
		n += f->stages[k].nitems;
	return n;
}

/* Raises the error for a failed insert (CF_FULL or CF_CANNOT_GROW) into f. */
void
cfpg_report_insert_failure(cf_filter *f, cf_status st)
{
	char		err[CF_ERRLEN];

	if (st == CF_FULL)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("cuckoo filter is full"),
				 errdetail("The filter holds %llu items and was created with expansion 0, so it cannot grow.",
						   (unsigned long long) cfpg_items(f)),
				 errhint("Create the filter with a larger capacity, or with a non-zero expansion so that it grows.")));
	if (cf_grow_size(f, err, sizeof(err)) != 0)
		strlcpy(err, "growth limit reached", sizeof(err));
	ereport(ERROR,
			(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
			 errmsg("cuckoo filter cannot grow any more"),
			 errdetail("%s", cfpg_sentence(err)),
			 errhint("Create the filter with a larger capacity or a larger expansion.")));
	pg_unreachable();
}

/* ---------------------------------------------------------------------
 * SQL functions
 * ------------------------------------------------------------------- */

/* cf_create(capacity, fpr, bucket_size, max_kicks, expansion): an empty filter */
PG_FUNCTION_INFO_V1(cuckoo_create);
Datum
cuckoo_create(PG_FUNCTION_ARGS)
{
	int64		capacity = PG_GETARG_INT64(0);
	cf_params	p;

	if (capacity < 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("capacity must be at least 1, not " INT64_FORMAT, capacity)));
	p.capacity = (uint64) capacity;
	p.fpr = PG_GETARG_FLOAT8(1);
	p.bucket_size = PG_GETARG_INT32(2);
	p.max_kicks = PG_GETARG_INT32(3);
	p.expansion = PG_GETARG_INT32(4);
	PG_RETURN_CUCKOOFILTER_P(cfpg_create(&p));
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
	cf_params	p;
	uint64		h;

	if (PG_ARGISNULL(1))
	{
		if (PG_ARGISNULL(0))
			PG_RETURN_NULL();
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	}
	h = cf_hash_datum(cfpg_hashinfo(fcinfo, c, 1), PG_GETARG_DATUM(1));

	/* a value already present leaves a flat filter as it is: return it uncopied */
	if (op == CFX_ADD_UNIQUE && !PG_ARGISNULL(0) &&
		!VARATT_IS_EXTERNAL_EXPANDED(DatumGetPointer(PG_GETARG_DATUM(0))) &&
		cf_contains(cfpg_read_filter(fcinfo, c, PG_GETARG_DATUM(0)), h))
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));

	cfpg_params(&p, CFPG_DEFAULT_CAPACITY, CF_DEFAULT_FPR);
	/* the result is an expanded object: see cuckoo_expanded.c */
	PG_RETURN_DATUM(cfx_modify(PG_ARGISNULL(0) ? (Datum) 0 : PG_GETARG_DATUM(0),
							   PG_ARGISNULL(0), &p, h, op));
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

/* allocator for cf_insert's growth: the payload of a new varlena */
void *
cfpg_alloc_varlena(size_t size, void *ctx)
{
	char	   *p = palloc(VARHDRSZ + size);

	SET_VARSIZE(p, VARHDRSZ + size);
	return p + VARHDRSZ;
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
	CfCallCache *c = cfpg_call_cache(fcinfo);
	ArrayType  *arr;
	ArrayIterator it;
	struct varlena *v;
	cf_filter	f;
	Datum		value;
	bool		isnull;

	if (PG_ARGISNULL(1))
	{
		if (PG_ARGISNULL(0))
			PG_RETURN_NULL();
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	}
	arr = PG_GETARG_ARRAYTYPE_P(1);
	if (unlikely(!OidIsValid(c->hi.typid)))
	{
		cf_hashinfo_init(&c->hi, ARR_ELEMTYPE(arr), PG_GET_COLLATION(),
						 fcinfo->flinfo->fn_mcxt);
	}
	if (PG_ARGISNULL(0))
	{
		cf_params	p;

		cfpg_params(&p, CFPG_DEFAULT_CAPACITY, CF_DEFAULT_FPR);
		v = cfpg_create(&p);
	}
	else
		v = (struct varlena *) PG_DETOAST_DATUM_COPY(PG_GETARG_DATUM(0));
	cfpg_open(&f, v);

	it = array_create_iterator(arr, 0, NULL);
	while (array_iterate(it, &value, &isnull))
	{
		uint8	   *before = f.buf;
		cf_status	st;

		if (isnull)
			continue;
		CHECK_FOR_INTERRUPTS();
		st = cf_insert(&f, cf_hash_datum(&c->hi, value), cfpg_alloc_varlena, NULL);
		if (st != CF_OK)
			cfpg_report_insert_failure(&f, st);
		if (f.buf != before)
		{
			/* it grew into a new varlena; the old one is ours to free */
			pfree(v);
			v = (struct varlena *) (f.buf - VARHDRSZ);
		}
	}
	array_free_iterator(it);
	PG_RETURN_CUCKOOFILTER_P(v);
}

/* cf_contains(filter, value) and the @> operator: is value (probably) in it */
PG_FUNCTION_INFO_V1(cuckoo_contains);
Datum
cuckoo_contains(PG_FUNCTION_ARGS)
{
	CfCallCache *c = cfpg_call_cache(fcinfo);
	CfHashInfo *hi = cfpg_hashinfo(fcinfo, c, 1);
	const cf_filter *f = cfpg_read_filter(fcinfo, c, PG_GETARG_DATUM(0));

	PG_RETURN_BOOL(cf_contains(f, cf_hash_datum(hi, PG_GETARG_DATUM(1))));
}

/* cf_count(filter, value): how many copies of value's fingerprint it holds */
PG_FUNCTION_INFO_V1(cuckoo_count);
Datum
cuckoo_count(PG_FUNCTION_ARGS)
{
	CfCallCache *c = cfpg_call_cache(fcinfo);
	CfHashInfo *hi = cfpg_hashinfo(fcinfo, c, 1);
	const cf_filter *f = cfpg_read_filter(fcinfo, c, PG_GETARG_DATUM(0));
	uint32		n = cf_count(f, cf_hash_datum(hi, PG_GETARG_DATUM(1)));

	PG_RETURN_INT32((int32) Min(n, (uint32) PG_INT32_MAX));
}

/* cf_delete(filter, value): the filter with one copy of value removed */
PG_FUNCTION_INFO_V1(cuckoo_delete);
Datum
cuckoo_delete(PG_FUNCTION_ARGS)
{
	Datum		d = PG_GETARG_DATUM(0);
	uint64		h = cf_hash_datum(cfpg_hashinfo(fcinfo, cfpg_call_cache(fcinfo), 1),
								  PG_GETARG_DATUM(1));

	if (!VARATT_IS_EXTERNAL_EXPANDED(DatumGetPointer(d)))
	{
		/* a flat filter: detoast it once; if the value is absent, keep it */
		struct varlena *v = (struct varlena *) PG_DETOAST_DATUM_PACKED(d);
		cf_filter	f;

		cfpg_open(&f, v);
		if (!cf_contains(&f, h))
			PG_RETURN_DATUM(d);
		d = PointerGetDatum(v);
	}
	PG_RETURN_DATUM(cfx_modify(d, false, NULL, h, CFX_DELETE));
}

/*
 * A new varlena holding the union of a and b; errors carry errmsg_text and
 * the core's reason (incompatible filters, or too many sub-filters).
 */
struct varlena *
cfpg_union(const cf_filter *a, const cf_filter *b, const char *errmsg_text)
{
	cf_filter	r;
	char		err[CF_ERRLEN];
	size_t		cap,
				len;
	struct varlena *v;

	cap = cf_union_size(a, b, err, sizeof(err));
	if (cap == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s", errmsg_text),
				 errdetail("%s", cfpg_sentence(err))));
	v = (struct varlena *) palloc(VARHDRSZ + cap);
	len = cf_union(a, b, CF_VARDATA(v), cap, &r, err, sizeof(err));
	if (len == 0)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s", errmsg_text),
				 errdetail("%s", cfpg_sentence(err))));
	SET_VARSIZE(v, VARHDRSZ + len);
	return v;
}

/* cf_union(a, b): a filter holding the items of both */
PG_FUNCTION_INFO_V1(cuckoo_union);
Datum
cuckoo_union(PG_FUNCTION_ARGS)
{
	cf_filter	a,
				b;

	cfpg_read_datum(PG_GETARG_DATUM(0), &a);
	cfpg_read_datum(PG_GETARG_DATUM(1), &b);
	PG_RETURN_CUCKOOFILTER_P(cfpg_union(&a, &b, "cannot combine these cuckoo filters"));
}

/* cf_info(filter): its parameters and statistics, as one row */
PG_FUNCTION_INFO_V1(cuckoo_info);
Datum
cuckoo_info(PG_FUNCTION_ARGS)
{
	cf_filter	f;
	cf_stats	s;
	TupleDesc	tupdesc;
	Datum		values[9];
	bool		nulls[9] = {0};

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	tupdesc = BlessTupleDesc(tupdesc);
	cfpg_read_datum(PG_GETARG_DATUM(0), &f);
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
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}

/* cf_hash(value): the 64-bit hash a filter uses for value */
PG_FUNCTION_INFO_V1(cuckoo_hash);
Datum
cuckoo_hash(PG_FUNCTION_ARGS)
{
	CfCallCache *c = cfpg_call_cache(fcinfo);
	CfHashInfo *hi = cfpg_hashinfo(fcinfo, c, 0);

	PG_RETURN_INT64((int64) cf_hash_datum(hi, PG_GETARG_DATUM(0)));
}
