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

/* columns of cf_info in extension version 1.1 (1.0 has the first 9) */
#define CFPG_INFO_COLUMNS	19

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
 * Opens filter *d: the newest state of an expanded filter in place, anything
 * else detoasted, with *d then pointing at the flat value (so an update,
 * cf_add or cf_delete, does not detoast it a second time).
 */
static void
cfpg_open_update_arg(Datum *d, cf_filter *f)
{
	struct varlena *v;

	if (VARATT_IS_EXTERNAL_EXPANDED(DatumGetPointer(*d)) && cfx_open_current(*d, f))
		return;
	v = (struct varlena *) PG_DETOAST_DATUM_PACKED(*d);
	cfpg_open(f, v);
	*d = PointerGetDatum(v);
}

/* Opens any cuckoofilter datum for reading (see cfpg_open_update_arg). */
static void
cfpg_read_datum(Datum d, cf_filter *f)
{
	cfpg_open_update_arg(&d, f);
}

/* ---------------------------------------------------------------------
 * type I/O
 * ------------------------------------------------------------------- */

/*
 * Checks the bytes of a filter with the core's full validation; bad bytes
 * are reported into escontext when the caller gave one (soft errors, 16+),
 * else raised.  Returns whether they are valid.
 */
bool
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
	size_t		len;
	char	   *str = cfpg_base64_strip(PG_GETARG_CSTRING(0), &len);	/* white space */
	Node	   *escontext = fcinfo->context;
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
 * cf_contains and cf_count run once per row, with the same filter every
 * time (a constant, a parameter, a subquery's value) or with one of a few
 * stored filters in turn (a nested loop over a table of filters, one per
 * user).  The cache in fn_extra keeps the value's hash info and up to
 * CFPG_CACHE_ENTRIES detoasted filters (at most CFPG_CACHE_BYTES), least
 * recently used out first, each
 * keyed by what identifies the stored value: the toast pointer of an
 * on-disk value, or the compressed bytes of an inline compressed one.  So a
 * switch back to a filter this call site has already detoasted costs a key
 * comparison, not a detoast.  A plain in-memory value is read in place.
 *
 * Opening a filter never scans its tables: cf_open checks the header and
 * lengths only (O(sub-filters)); the full cf_validate runs where bytes enter
 * (text input, binary receive).  The only O(size) work left on a switch to a
 * filter not in the cache is the detoast itself.
 * ------------------------------------------------------------------- */

/* detoasted filters one call site keeps */
#define CFPG_CACHE_ENTRIES	64
/* bytes they may hold beyond the newest one */
#define CFPG_CACHE_BYTES	((Size) 64 * 1024 * 1024)

typedef enum CfCacheKind
{
	CFC_NONE = 0,
	CFC_ONDISK,					/* keyed by the toast pointer */
	CFC_COMPRESSED				/* keyed by the compressed bytes */
} CfCacheKind;

typedef struct CfCacheEntry
{
	CfCacheKind kind;			/* which key below is valid; CFC_NONE: free */
	uint64		used;			/* CfCallCache.clock at the last hit */
	struct varatt_external toast;	/* CFC_ONDISK */
	char	   *cbytes;			/* CFC_COMPRESSED: a copy of the datum */
	Size		clen;
	struct varlena *value;		/* the detoasted filter, in fn_mcxt */
	cf_filter	f;				/* opened on value */
} CfCacheEntry;

struct CfCallCache
{
	CfHashInfo	hi;				/* hi.typid is InvalidOid until set */

	/*
	 * Detoasted filters: entries[0 .. nentries) are allocated (in fn_mcxt,
	 * on first need), hint[i] is entries[i]'s toast value id or compressed
	 * length, so a lookup scans one small array before comparing keys.
	 */
	CfCacheEntry *entries[CFPG_CACHE_ENTRIES];
	uint32		hint[CFPG_CACHE_ENTRIES];
	int			nentries;
	int			last;			/* entry of the last hit or load, -1 if none */
	uint64		clock;			/* ticks once per lookup */
	Size		bytes;			/* held by the entries in use */

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
	uint8		plain_hdr[CF_MAX_HEADER_BYTES];
};

CfCallCache *
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
		c->last = -1;
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

/* The cache's hash info, for values of typid (set up on first use). */
CfHashInfo *
cfpg_type_hashinfo(FunctionCallInfo fcinfo, CfCallCache *c, Oid typid)
{
	if (unlikely(c->hi.typid != typid))
		cf_hashinfo_init(&c->hi, typid, PG_GET_COLLATION(), fcinfo->flinfo->fn_mcxt);
	return &c->hi;
}

/* the bytes an entry in use holds */
static inline Size
cfpg_entry_bytes(const CfCacheEntry *e)
{
	return VARSIZE(e->value) + e->clen;
}

/* drops one cached filter */
static void
cfpg_cache_drop(CfCallCache *c, CfCacheEntry *e)
{
	if (e->kind != CFC_NONE)
		c->bytes -= cfpg_entry_bytes(e);
	e->kind = CFC_NONE;
	if (e->value)
		pfree(e->value);
	e->value = NULL;
	if (e->cbytes)
		pfree(e->cbytes);
	e->cbytes = NULL;
	e->clen = 0;
}

/* the hint of a toasted datum: its value id on disk, its size compressed */
static inline uint32
cfpg_cache_hint(const struct varlena *raw, const struct varatt_external *toast)
{
	return toast != NULL ? toast->va_valueid : (uint32) VARSIZE(raw);
}

/* does entry e hold the value of the toasted datum raw? */
static inline bool
cfpg_cache_match(const CfCacheEntry *e, const struct varlena *raw,
				 const struct varatt_external *toast)
{
	if (toast != NULL)
		return e->kind == CFC_ONDISK &&
			e->toast.va_valueid == toast->va_valueid &&
			e->toast.va_toastrelid == toast->va_toastrelid &&
			e->toast.va_rawsize == toast->va_rawsize &&
			e->toast.va_extinfo == toast->va_extinfo;
	return e->kind == CFC_COMPRESSED && e->clen == VARSIZE(raw) &&
		memcmp(e->cbytes, raw, e->clen) == 0;
}

/*
 * An empty entry for a filter about to be loaded: a new one while fewer than
 * CFPG_CACHE_ENTRIES exist, else the least recently used one; and more go,
 * least recently used first, while the rest would hold more than
 * CFPG_CACHE_BYTES.
 */
static int
cfpg_cache_victim(FunctionCallInfo fcinfo, CfCallCache *c)
{
	int			victim = -1;

	for (;;)
	{
		int			lru = -1;

		for (int i = 0; i < c->nentries; i++)
		{
			CfCacheEntry *e = c->entries[i];

			if (e->kind == CFC_NONE)
			{
				if (victim < 0)
					victim = i;
				continue;
			}
			if (lru < 0 || e->used < c->entries[lru]->used)
				lru = i;
		}
		if (c->bytes <= CFPG_CACHE_BYTES || lru < 0)
			break;
		cfpg_cache_drop(c, c->entries[lru]);
		if (victim < 0)
			victim = lru;
	}
	if (victim >= 0)
		return victim;
	if (c->nentries < CFPG_CACHE_ENTRIES)
	{
		c->entries[c->nentries] = MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt,
														 sizeof(CfCacheEntry));
		return c->nentries++;
	}
	/* all in use: the least recently used goes */
	victim = 0;
	for (int i = 1; i < c->nentries; i++)
		if (c->entries[i]->used < c->entries[victim]->used)
			victim = i;
	cfpg_cache_drop(c, c->entries[victim]);
	return victim;
}

/*
 * Detoasts d into the empty entry e and opens it; compressed: also keep a
 * copy of the compressed datum as the key.  An error leaves e empty.
 */
static void
cfpg_cache_fill(FunctionCallInfo fcinfo, CfCallCache *c, CfCacheEntry *e, Datum d,
				bool compressed)
{
	MemoryContext old = MemoryContextSwitchTo(fcinfo->flinfo->fn_mcxt);

	PG_TRY();
	{
		e->value = (struct varlena *) PG_DETOAST_DATUM(d);
		if (compressed)
		{
			Size		clen = VARSIZE(DatumGetPointer(d));

			e->cbytes = palloc(clen);
			memcpy(e->cbytes, DatumGetPointer(d), clen);
			e->clen = clen;
		}
		cfpg_open(&e->f, e->value);
	}
	PG_CATCH();
	{
		MemoryContextSwitchTo(old);
		cfpg_cache_drop(c, e);
		PG_RE_THROW();
	}
	PG_END_TRY();
	MemoryContextSwitchTo(old);
}

/*
 * The cached view of a toasted filter (toast: its pointer if on disk, NULL
 * if inline compressed), detoasting it into a cache entry on a miss.
 */
static const cf_filter *
cfpg_cache_lookup(FunctionCallInfo fcinfo, CfCallCache *c, Datum d,
				  const struct varatt_external *toast)
{
	struct varlena *raw = (struct varlena *) DatumGetPointer(d);
	uint32		hint = cfpg_cache_hint(raw, toast);
	CfCacheEntry *e;
	int			i;

	c->clock++;
	/* the common case: the same filter as last time */
	if (c->last >= 0 && c->hint[c->last] == hint &&
		cfpg_cache_match(c->entries[c->last], raw, toast))
	{
		e = c->entries[c->last];
		e->used = c->clock;
		return &e->f;
	}
	for (i = 0; i < c->nentries; i++)
	{
		if (c->hint[i] == hint && cfpg_cache_match(c->entries[i], raw, toast))
		{
			e = c->entries[i];
			e->used = c->clock;
			c->last = i;
			return &e->f;
		}
	}

	/* a miss: detoast into an empty entry */
	c->last = -1;
	i = cfpg_cache_victim(fcinfo, c);
	e = c->entries[i];
	cfpg_cache_fill(fcinfo, c, e, d, toast == NULL);
	if (toast != NULL)
	{
		e->toast = *toast;
		e->kind = CFC_ONDISK;
	}
	else
		e->kind = CFC_COMPRESSED;
	e->used = c->clock;
	c->bytes += cfpg_entry_bytes(e);
	c->hint[i] = hint;
	c->last = i;
	return &e->f;
}

/*
 * A read-only view of a filter argument, without detoasting or copying it
 * more than once per distinct stored value (while it stays among the
 * cached ones).  The view stays valid until the next call.
 */
const cf_filter *
cfpg_read_filter(FunctionCallInfo fcinfo, CfCallCache *c, Datum d)
{
	struct varlena *raw = (struct varlena *) DatumGetPointer(d);

	if (VARATT_IS_EXTERNAL_ONDISK(raw))
	{
		struct varatt_external toast;

		VARATT_EXTERNAL_GET_POINTER(toast, raw);
		return cfpg_cache_lookup(fcinfo, c, d, &toast);
	}
	if (VARATT_IS_COMPRESSED(raw))
		return cfpg_cache_lookup(fcinfo, c, d, NULL);
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
		c->plain_hdrlen = c->scratch.hdrlen;
		memcpy(c->plain_hdr, buf, c->plain_hdrlen);
		c->plain_buf = buf;
		c->plain_len = len;
	}
	return &c->scratch;
}

/* items in all sub-filters */
uint64
cfpg_items_of(const cf_filter *f)
{
	uint64		n = 0;

	for (uint32 k = 0; k < f->nstages; k++)
		n += f->stages[k].nitems;
	return n;
}

/* The error for a value of another kind than filter f holds (cfpg_check_kind). */
void
cfpg_kind_mismatch(const cf_filter *f, const CfHashInfo *hi)
{
	ereport(ERROR,
			(errcode(ERRCODE_DATATYPE_MISMATCH),
			 errmsg("cuckoo filter holds %s values, not %s",
					cf_kind_name((int) f->kind), format_type_be(hi->typid)),
			 errdetail("Values of kind %s are never found in a filter of %s values, so the answer would be wrong.",
					   cf_kind_name(hi->vkind), cf_kind_name((int) f->kind)),
			 errhint("Cast the value to the type the filter was built from (an untyped literal or parameter is text: write $1::bigint), or mark a filter that really holds several kinds with cf_set_kind(filter, 'any').")));
	pg_unreachable();
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
						   (unsigned long long) cfpg_items_of(f)),
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
	hi = cfpg_hashinfo(fcinfo, c, 1);
	if (!PG_ARGISNULL(0))
	{
		Datum		d = PG_GETARG_DATUM(0);
		cf_filter	f;

		cfpg_open_update_arg(&d, &f);
		cfpg_check_kind(&f, hi);
		h = cf_hash_datum(hi, PG_GETARG_DATUM(1), (int) f.hashing);
		/* a value already present leaves a flat filter as it is: return it uncopied */
		if (op == CFX_ADD_UNIQUE &&
			!VARATT_IS_EXTERNAL_EXPANDED(DatumGetPointer(PG_GETARG_DATUM(0))) &&
			cf_contains(&f, h))
			PG_RETURN_DATUM(PG_GETARG_DATUM(0));
		/* the result is an expanded object: see cuckoo_expanded.c */
		PG_RETURN_DATUM(cfx_modify(d, false, NULL, h, op, hi->vkind));
	}
	h = cf_hash_datum(hi, PG_GETARG_DATUM(1), hashing);
	cfpg_params(&p, CFPG_DEFAULT_CAPACITY, CF_DEFAULT_FPR);
	PG_RETURN_DATUM(cfx_modify((Datum) 0, true, &p, h, op, hi->vkind));
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
 * A private copy of the filter d that the core can write: detoasted, and a
 * version-1 filter rewritten as version 2 (its answers unchanged).
 */
struct varlena *
cfpg_writable_copy(Datum d)
{
	struct varlena *v = (struct varlena *) PG_DETOAST_DATUM_COPY(d);
	struct varlena *w;
	cf_filter	f;
	size_t		len;

	cfpg_open(&f, v);
	if (f.version >= 2)
		return v;
	len = cf_upgrade_size(&f);
	w = (struct varlena *) palloc(VARHDRSZ + len);
	SET_VARSIZE(w, VARHDRSZ + len);
	cf_upgrade(&f, CF_VARDATA(w), &f);
	pfree(v);
	return w;
}

/* allocator for cf_insert's growth: the payload of a new varlena */
void *
cfpg_alloc_varlena(size_t size, void *ctx)
{
	char	   *p = palloc(VARHDRSZ + size);

	SET_VARSIZE(p, VARHDRSZ + size);
	return p + VARHDRSZ;
}

/* cf_contains(filter, value) and the @> operator: is value (probably) in it */
PG_FUNCTION_INFO_V1(cuckoo_contains);
Datum
cuckoo_contains(PG_FUNCTION_ARGS)
{
	CfCallCache *c = cfpg_call_cache(fcinfo);
	CfHashInfo *hi = cfpg_hashinfo(fcinfo, c, 1);
	const cf_filter *f = cfpg_read_filter(fcinfo, c, PG_GETARG_DATUM(0));

	cfpg_check_kind(f, hi);
	PG_RETURN_BOOL(cf_contains(f, cf_hash_datum(hi, PG_GETARG_DATUM(1), (int) f->hashing)));
}

/* cf_count(filter, value): how many copies of value's fingerprint it holds */
PG_FUNCTION_INFO_V1(cuckoo_count);
Datum
cuckoo_count(PG_FUNCTION_ARGS)
{
	CfCallCache *c = cfpg_call_cache(fcinfo);
	CfHashInfo *hi = cfpg_hashinfo(fcinfo, c, 1);
	const cf_filter *f = cfpg_read_filter(fcinfo, c, PG_GETARG_DATUM(0));
	uint32		n;

	cfpg_check_kind(f, hi);
	n = cf_count(f, cf_hash_datum(hi, PG_GETARG_DATUM(1), (int) f->hashing));

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
	hi = cfpg_hashinfo(fcinfo, c, 1);
	cfpg_open_update_arg(&d, &f);

	cfpg_check_kind(&f, hi);
	h = cf_hash_datum(hi, PG_GETARG_DATUM(1), (int) f.hashing);
	/* a flat filter without the value: keep it as it is */
	if (!VARATT_IS_EXTERNAL_EXPANDED(DatumGetPointer(PG_GETARG_DATUM(0))) && !cf_contains(&f, h))
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	PG_RETURN_DATUM(cfx_modify(d, false, NULL, h, CFX_DELETE, 0));
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

	if (a->kind != b->kind && a->kind != CF_KIND_NONE && b->kind != CF_KIND_NONE &&
		a->kind != CF_KIND_ANY && b->kind != CF_KIND_ANY)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("%s", errmsg_text),
				 errdetail("The filters hold values of different kinds (%s and %s).",
						   cf_kind_name((int) a->kind), cf_kind_name((int) b->kind)),
				 errhint("Mark a filter that really holds several kinds with cf_set_kind(filter, 'any').")));
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
				 errdetail("%s Parts of one capacity fold into one table; parts of different capacities each keep their own.",
						   cfpg_sentence(err)),
				 errhint("Build every part with one capacity, at least the number of values in the whole union (more than " UINT64_FORMAT " here), with cf_agg(value, fpr, capacity) or cf_create(capacity, fpr); or build the union from the values themselves with cf_agg(value).",
						 cfpg_items_of(a) + cfpg_items_of(b))));
	SET_VARSIZE(v, VARHDRSZ + len);
	return v;
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
	cf_filter	a,
				b,
				r;
	struct varlena *v;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
	{
		if (PG_ARGISNULL(0) && PG_ARGISNULL(1))
			PG_RETURN_NULL();
		PG_RETURN_DATUM(PG_GETARG_DATUM(PG_ARGISNULL(0) ? 1 : 0));
	}
	cfpg_read_datum(PG_GETARG_DATUM(0), &a);
	cfpg_read_datum(PG_GETARG_DATUM(1), &b);
	v = cfpg_union(&a, &b, "cannot combine these cuckoo filters");
	cfpg_open(&r, v);
	cfpg_union_check_fpr(fcinfo->flinfo, &a, &b, &r, false);
	PG_RETURN_CUCKOOFILTER_P(v);
}

/* cf_info(filter): its parameters and statistics, as one row */
PG_FUNCTION_INFO_V1(cuckoo_info);
Datum
cuckoo_info(PG_FUNCTION_ARGS)
{
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
	if (cf_kind_name((int) s.kind) != NULL)
		values[18] = CStringGetTextDatum(cf_kind_name((int) s.kind));
	else
		nulls[18] = true;
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
	char	   *name = text_to_cstring(PG_GETARG_TEXT_PP(1));
	int			kind = cf_kind_from_name(name);
	struct varlena *v;
	cf_filter	f;

	if (kind < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unknown value kind \"%s\"", name),
				 errhint("Use any, number, text, bytea, uuid, boolean, datetime, interval, jsonb, array, record, range, multirange, char or other.")));
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
						f.kind == CF_KIND_NONE ? "unrecorded" : cf_kind_name((int) f.kind), name),
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
	CfHashInfo *hi = cfpg_hashinfo(fcinfo, c, 0);

	PG_RETURN_INT64((int64) cf_hash_datum(hi, PG_GETARG_DATUM(0), CF_HASHING_V2));
}
