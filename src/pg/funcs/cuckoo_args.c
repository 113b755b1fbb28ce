/*
 * cuckoo_args.c - the arguments of an SQL call: opens a filter argument of
 * any form, caches detoasted filters and hash info per call site.
 */
#include "postgres.h"

#include "access/detoast.h"
#include "access/htup_details.h"
#include "funcapi.h"
#include "utils/memutils.h"

#include "cuckoo_args.h"
#include "cuckoo_expanded.h"

/* Opens any cuckoofilter datum (see cuckoo_args.h). */
void
cfpg_open_datum(Datum *d, cf_filter *f)
{
	struct varlena *v;

	if (VARATT_IS_EXTERNAL_EXPANDED(DatumGetPointer(*d)) && cfpg_expanded_open_current(*d, f))
		return;
	v = (struct varlena *) PG_DETOAST_DATUM_PACKED(*d);
	cfpg_open(f, v);
	*d = PointerGetDatum(v);
}

/* The union of filter arguments 0 and 1 (see cuckoo_args.h). */
struct varlena *
cfpg_union_args(FunctionCallInfo fcinfo, const char *errmsg_text, bool only_on_crossing)
{
	Datum		da = PG_GETARG_DATUM(0),
				db = PG_GETARG_DATUM(1);
	cf_filter	a,
				b,
				r;
	struct varlena *v;

	cfpg_open_datum(&da, &a);
	cfpg_open_datum(&db, &b);
	v = cfpg_union(&a, &b, errmsg_text);
	cfpg_open(&r, v);
	cfpg_union_check_fpr(fcinfo->flinfo, &a, &b, &r, only_on_crossing);
	return v;
}

/* ---------------------------------------------------------------------
 * per-call caches
 *
 * cf_contains and cf_count run once per row, with the same filter every
 * time (a constant, a parameter, a subquery's value) or with one of a few
 * stored filters in turn (a nested loop over a table of filters, one per
 * user).  The cache in fn_extra keeps the value's hash info and up to
 * CFPG_CACHE_ENTRIES detoasted filters (at most CFPG_CACHE_BYTES), least
 * recently used out first, each keyed by what identifies the stored value:
 * the toast pointer of an on-disk value, or the compressed bytes of an
 * inline compressed one.  So a
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

	/*
	 * The last toast pointer looked up, at its address, and its cached view:
	 * a scan probing one stored filter (an InitPlan's value) passes the same
	 * pointer every row, and 18 equal bytes name the same stored value, as
	 * cfpg_cache_match's fields do.  Cleared whenever an entry may go.
	 */
	const struct varlena *fast_raw;
	uint8		fast_ptr[VARHDRSZ_EXTERNAL + sizeof(struct varatt_external)];
	const cf_filter *fast_f;
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
 * The hash info for values of typid.  The type of an argument is fixed for
 * a given call site (fn_expr), and fn_extra belongs to that call site, so it
 * is looked up once; an array's element type can change between calls.
 */
CfHashInfo *
cfpg_type_hashinfo(FunctionCallInfo fcinfo, CfCallCache *c, Oid typid)
{
	if (unlikely(c->hi.typid != typid || !OidIsValid(typid)))
		cfpg_hashinfo_init(&c->hi, typid, PG_GET_COLLATION(), fcinfo->flinfo->fn_mcxt);
	return &c->hi;
}

/* The hash info for argument argno (looked up on the call site's first call). */
CfHashInfo *
cfpg_arg_hashinfo(FunctionCallInfo fcinfo, CfCallCache *c, int argno)
{
	if (unlikely(!OidIsValid(c->hi.typid)))
	{
		cfpg_check_value_expr(cfpg_call_arg(fcinfo->flinfo->fn_expr, argno), PG_GET_COLLATION());
		return cfpg_type_hashinfo(fcinfo, c, get_fn_expr_argtype(fcinfo->flinfo, argno));
	}
	return &c->hi;
}

/* are the 18 bytes of an on-disk toast pointer at a and b the same? (no call to memcmp) */
static inline bool
cfpg_same_toast_ptr(const void *a, const void *b)
{
	uint64		a0,
				a1,
				b0,
				b1;
	uint16		a2,
				b2;

	StaticAssertStmt(VARHDRSZ_EXTERNAL + sizeof(struct varatt_external) == 18,
					 "an on-disk toast pointer should be 18 bytes");
	memcpy(&a0, a, 8);
	memcpy(&a1, (const char *) a + 8, 8);
	memcpy(&a2, (const char *) a + 16, 2);
	memcpy(&b0, b, 8);
	memcpy(&b1, (const char *) b + 8, 8);
	memcpy(&b2, (const char *) b + 16, 2);
	return ((a0 ^ b0) | (a1 ^ b1) | (uint64) (a2 ^ b2)) == 0;
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
	c->fast_raw = NULL;
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
static pg_noinline const cf_filter *
cfpg_read_filter_slow(FunctionCallInfo fcinfo, CfCallCache *c, Datum d)
{
	struct varlena *raw = (struct varlena *) DatumGetPointer(d);

	if (VARATT_IS_EXTERNAL_ONDISK(raw))
	{
		struct varatt_external toast;
		const cf_filter *f;

		VARATT_EXTERNAL_GET_POINTER(toast, raw);
		c->fast_raw = NULL;
		f = cfpg_cache_lookup(fcinfo, c, d, &toast);
		c->fast_raw = raw;
		memcpy(c->fast_ptr, raw, sizeof(c->fast_ptr));
		c->fast_f = f;
		return f;
	}
	if (VARATT_IS_COMPRESSED(raw))
	{
		c->fast_raw = NULL;
		return cfpg_cache_lookup(fcinfo, c, d, NULL);
	}
	if (VARATT_IS_EXTERNAL(raw))
	{
		c->plain_buf = NULL;	/* scratch is about to view something else */
		/*
		 * The newest state of an expanded filter is read in place; an
		 * indirect value or an older expanded state, as a flat copy each time.
		 */
		cfpg_open_datum(&d, &c->scratch);
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

/*
 * The same toast pointer as the last lookup, at the same address: its view,
 * with no stack frame to set up (a scan probing a stored filter comes here
 * every row); anything else, cfpg_read_filter_slow.
 */
const cf_filter *
cfpg_read_filter(FunctionCallInfo fcinfo, CfCallCache *c, Datum d)
{
	const struct varlena *raw = (const struct varlena *) DatumGetPointer(d);

	/* an on-disk toast pointer is 18 bytes: tested first, so all 18 are there to read */
	if (raw == c->fast_raw && VARATT_IS_EXTERNAL_ONDISK(raw) &&
		cfpg_same_toast_ptr(raw, c->fast_ptr))
		return c->fast_f;
	return cfpg_read_filter_slow(fcinfo, c, d);
}

/*
 * cfpg_call_cache, cfpg_arg_hashinfo(argno) and cfpg_read_filter(d) in one
 * call (here they inline into it): what a per-row probe needs.
 */
const cf_filter *
cfpg_probe_filter(FunctionCallInfo fcinfo, Datum d, int argno, CfHashInfo **hi)
{
	CfCallCache *c = cfpg_call_cache(fcinfo);

	*hi = cfpg_arg_hashinfo(fcinfo, c, argno);
	return cfpg_read_filter(fcinfo, c, d);
}

Datum
cfpg_result_pair(FunctionCallInfo fcinfo, Datum first, bool firstnull,
				 Datum second, bool secondnull)
{
	TupleDesc	tupdesc;
	Datum		values[2] = {first, second};
	bool		nulls[2] = {firstnull, secondnull};

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	tupdesc = BlessTupleDesc(tupdesc);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}
