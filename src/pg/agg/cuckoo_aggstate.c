/*
 * cuckoo_aggstate.c - cf_aggstate, the state of the typed cf_agg overloads: a
 * real type (text and binary I/O) that Citus can ship, its transition and combine.
 */
#include "postgres.h"

#include "libpq/pqformat.h"
#include "utils/expandeddatum.h"
#include "utils/memutils.h"

#include "cuckoo_agghashes.h"
#include "cuckoo_hashval_hash.h"
#include "cuckoo_rice.h"

/* ---------------------------------------------------------------------
 * cf_aggstate: a transition state that can leave the process
 *
 * The typed overloads of cf_agg (cf_agg(bigint), cf_agg(uuid), cf_agg(text),
 * ...) keep their state in a real type, cf_aggstate, instead of internal,
 * so that engines which split an aggregate into partials and a combine
 * (Citus runs the transition on the workers and ships the state through its
 * text form) can do so.  The hashes are the same as cf_agg(anyelement)'s and
 * the final function builds the same filter from their sorted set.
 *
 * The flat form (the text form is its base64, the binary form its bytes):
 *
 *   0  version (1)            1  value kind          2  value hashing (2)
 *   3  flags (0)              4  n, uint32           8  fpr, IEEE double
 *  16  capacity, uint64 (0: sized by the data)      24  n hashes, uint64
 *
 * all little-endian: version 1, the form a state has in memory and on disk.
 * Written states hold their hashes sorted and distinct; read states are
 * trusted for neither.  The external forms (text and binary output) are
 * version 2 (issue 28): the same header with version 2, one byte k at 24,
 * then the sorted distinct hashes delta-encoded with a Rice code of
 * parameter k (FORMAT.md, "cf_aggstate"), about log2(2^64 / n) + 1.5 bits a
 * hash instead of 64.  Input reads both versions into the version 1 form.  In an aggregate a group's state
 * starts as a small flat value whose hashes are kept sorted and distinct
 * (flag CFAS_FLAG_OURS, never written out), with room for a few more: a
 * value is found by binary search and a new one inserted in place.  When
 * it is full it is copied into one of twice the size (chunks of 256 bytes
 * to 2 kB), and past CFAS_FLAT_MAX hashes it becomes an expanded object
 * that wraps a CfAggState (cuckoo_agghashes.h), also changed in place: the executor
 * keeps a read-write expanded object whose context is a child of the
 * aggregate context instead of copying it.  A group of 10 values costs one
 * 256-byte chunk, of 100 one 1 kB chunk.
 * ------------------------------------------------------------------- */

#define CFAS_VERSION	1
#define CFAS_HEADER		24
#define CFAS_VERSION_RICE	2	/* external form: Rice-coded deltas */
#define CFAS_HEADER_RICE	25	/* the header, then k */
#define CFAS_FLAG_OURS	0x01	/* in memory: sorted, distinct, ours to change */
/* slots of a flat state that fills a chunk of 2^k bytes */
#define CFAS_SLOTS(k)	((((Size) 1 << (k)) - VARHDRSZ - CFAS_HEADER) / sizeof(uint64))
#define CFAS_FLAT_MIN	CFAS_SLOTS(8)	/* 28 hashes, 256 bytes */
#define CFAS_FLAT_MAX	CFAS_SLOTS(11)	/* 252 hashes, 2 kB: then expanded */

/* largest flat state: one value's size limit */
#define CFAS_MAX_HASHES	((MaxAllocSize - VARHDRSZ - CFAS_HEADER) / sizeof(uint64))

typedef struct CfAggExpanded
{
	ExpandedObjectHeader hdr;
	CfAggState *st;				/* in hdr.eoh_context */
	uint8		kind;			/* value kind of the column */
	uint8		hashing;		/* value hashing */
	CfAggCache	cache;			/* sort space for flattening */
	const cf_run *runs;			/* between get_flat_size and flatten_into */
	size_t		nruns;
	uint64		nsorted;
} CfAggExpanded;

/* the fields of a flat state's header */
typedef struct CfAggFlat
{
	uint8		kind;
	uint8		hashing;
	uint32		n;
	double		fpr;
	uint64		capacity;
	const uint8 *hashes;		/* n little-endian uint64s */
	size_t		slots;			/* room for this many hashes */
} CfAggFlat;

static inline uint32
cfpg_aggstate_get32(const uint8 *p)
{
	return (uint32) p[0] | (uint32) p[1] << 8 | (uint32) p[2] << 16 | (uint32) p[3] << 24;
}

static inline void
cfpg_aggstate_put32(uint8 *p, uint32 x)
{
	p[0] = (uint8) x;
	p[1] = (uint8) (x >> 8);
	p[2] = (uint8) (x >> 16);
	p[3] = (uint8) (x >> 24);
}

static void
cfpg_aggstate_put_header(uint8 *p, uint8 kind, uint8 hashing, uint32 n, double fpr, uint64 capacity)
{
	uint64		bits;

	p[0] = CFAS_VERSION;
	p[1] = kind;
	p[2] = hashing;
	p[3] = 0;
	cfpg_aggstate_put32(p + 4, n);
	memcpy(&bits, &fpr, sizeof(bits));
	cfpg_agg_put_le64s(p + 8, &bits, 1);
	cfpg_agg_put_le64s(p + 16, &capacity, 1);
}

/* the header of a flat state whose bytes were checked (or written by us) */
static void
cfpg_aggstate_read_header(const struct varlena *v, CfAggFlat *fl)
{
	const uint8 *p = (const uint8 *) VARDATA(v);
	uint64		bits;

	fl->kind = p[1];
	fl->hashing = p[2];
	fl->n = cfpg_aggstate_get32(p + 4);
	cfpg_agg_get_le64s(&bits, p + 8, 1);
	memcpy(&fl->fpr, &bits, sizeof(fl->fpr));
	cfpg_agg_get_le64s(&fl->capacity, p + 16, 1);
	fl->hashes = p + CFAS_HEADER;
	fl->slots = (VARSIZE(v) - VARHDRSZ - CFAS_HEADER) / sizeof(uint64);
}

/*
 * The message of a bad external state, as PostgreSQL's own types word it and
 * as the base64 decoding of the text form already does: one message for
 * each of the two input paths (badcode: text or binary representation).
 */
#define CFAS_BAD_INPUT(badcode) \
	errmsg((badcode) == ERRCODE_INVALID_TEXT_REPRESENTATION ? \
		   "invalid input syntax for type %s" : "invalid binary data for type %s", \
		   "cf_aggstate")

/*
 * Checks the header fields every version has (kind, hashing, flags, rate,
 * capacity) of a state from outside; false after reporting to escontext.
 */
static bool
cfpg_aggstate_check_fields(const uint8 *p, int badcode, Node *escontext)
{
	uint64		bits;
	double		fpr;
	uint64		capacity;
	char		err[CF_ERRLEN];
	cf_params	params;

	if (p[2] != CF_HASHING_V2 || p[3] != 0 || p[1] == CF_KIND_ANY || cfpg_kind_name(p[1]) == NULL)
		ereturn(escontext, false,
				(errcode(badcode),
				 CFAS_BAD_INPUT(badcode),
				 errdetail("The header has value kind %u, value hashing %u and flags %u.",
						   p[1], p[2], p[3])));
	cfpg_agg_get_le64s(&bits, p + 8, 1);
	memcpy(&fpr, &bits, sizeof(fpr));
	cfpg_agg_get_le64s(&capacity, p + 16, 1);
	cfpg_params(&params, capacity == 0 ? 1 : capacity, fpr);
	if (capacity > PG_INT64_MAX || cf_create_size(&params, err, sizeof(err)) == 0)
		ereturn(escontext, false,
				(errcode(badcode),
				 CFAS_BAD_INPUT(badcode),
				 errdetail("The state asks for a false-positive rate of %g and a capacity of " UINT64_FORMAT ": %s",
						   fpr, capacity, cfpg_sentence(capacity > PG_INT64_MAX ? "capacity out of range" : err))));
	return true;
}

/* ---- the external form of version 2: Rice-coded deltas ---- */

/*
 * The hashes of a flat state are 28 bytes into its allocation (VARHDRSZ +
 * CFAS_HEADER): 4 bytes off an 8-byte boundary.  The codec of the core
 * (cuckoo_rice.h) takes and gives them as aligned uint64s, so they are moved
 * by 4 bytes within the state's own allocation, in ascending order (the
 * hash written overlaps only its own source, read before), instead of being
 * copied: a state of up to 1 GB needs no second copy of its hashes.
 */
StaticAssertDecl((VARHDRSZ + CFAS_HEADER) % sizeof(uint64) == sizeof(uint32),
				 "the hashes of a flat state sit 4 bytes off an 8-byte boundary");

/*
 * The version 2 bytes of the canonical state v (sorted distinct hashes; a
 * new value of ours, which this overwrites), in a new palloc'd buffer of
 * *len bytes: the header, k, then the core's Rice code of the hashes.
 */
static uint8 *
cfpg_aggstate_encode_rice(struct varlena *v, size_t *len)
{
	uint8	   *src = (uint8 *) VARDATA(v);
	uint32		n = cfpg_aggstate_get32(src + 4);
	int			k = cf_rice_param(n);
	uint64	   *h = (uint64 *) (src + CFAS_HEADER - sizeof(uint32));
	size_t		blen;
	uint8	   *out;
	uint8		header[CFAS_HEADER];
	char		err[CF_ERRLEN];

	Assert(VARATT_IS_4B_U(v) && (uintptr_t) h % sizeof(uint64) == 0);
	memcpy(header, src, CFAS_HEADER);
	/* down 4 bytes, as uint64s (over the header's last 4 bytes, kept above) */
	for (uint32 i = 0; i < n; i++)
	{
		uint64		x;

		cfpg_agg_get_le64s(&x, src + CFAS_HEADER + (size_t) i * sizeof(uint64), 1);
		h[i] = x;
	}
	if (!cf_rice_encoded_len(h, n, k, &blen, err, sizeof(err)))
		elog(ERROR, "cf_aggstate: a canonical state cannot be Rice-coded: %s", err);
	*len = CFAS_HEADER_RICE + blen;
	out = palloc(*len);
	memcpy(out, header, CFAS_HEADER);
	out[0] = CFAS_VERSION_RICE;
	out[3] = 0;
	out[CFAS_HEADER] = (uint8) k;
	cf_rice_encode(h, n, k, out + CFAS_HEADER_RICE, blen);
	return out;
}

/*
 * Decodes the version 2 bytes p[0..len) (the header checked by the caller)
 * into a new version 1 state; NULL after reporting to escontext.  Hostile
 * input is refused: a k other than the writer's, a count the bytes cannot
 * hold; and by the core's decoder (cuckoo_rice.h) a hash past 2^64 - 1,
 * bits missing, bits or bytes left over.
 */
static struct varlena *
cfpg_aggstate_decode_rice(const uint8 *p, size_t len, int badcode, Node *escontext)
{
	uint32		n = cfpg_aggstate_get32(p + 4);
	int			k;
	uint64		total;
	struct varlena *v;
	Size		size;
	uint64	   *h;
	uint8	   *hs;
	char		err[CF_ERRLEN];

	if (len < CFAS_HEADER_RICE)
		ereturn(escontext, NULL,
				(errcode(badcode),
				 CFAS_BAD_INPUT(badcode),
				 errdetail("A state of version 2 has a header of %d bytes, this value has %zu bytes.",
						   CFAS_HEADER_RICE, len)));
	k = p[CFAS_HEADER];
	total = (uint64) (len - CFAS_HEADER_RICE) * 8;
	/* one encoding per state: the writer's k, which bounds n by the length */
	if (k != cf_rice_param(n))
		ereturn(escontext, NULL,
				(errcode(badcode),
				 CFAS_BAD_INPUT(badcode),
				 errdetail("A state of %u hashes has Rice parameter %d, not %d.", n, k, cf_rice_param(n))));
	/* every hash takes at least k + 1 bits */
	if ((uint64) n * (uint64) (k + 1) > total || n > CFAS_MAX_HASHES)
		ereturn(escontext, NULL,
				(errcode(badcode),
				 CFAS_BAD_INPUT(badcode),
				 errdetail("A state of %u hashes with Rice parameter %d cannot fit in %zu bytes.",
						   n, k, len)));
	/* decoded 4 bytes past their place (aligned), then moved down into it */
	size = VARHDRSZ + CFAS_HEADER + (Size) n * sizeof(uint64);
	v = palloc_extended(size + sizeof(uint32), MCXT_ALLOC_HUGE);
	h = (uint64 *) ((uint8 *) v + VARHDRSZ + CFAS_HEADER + sizeof(uint32));
	if (!cf_rice_decode(p + CFAS_HEADER_RICE, len - CFAS_HEADER_RICE, k, n, h, err, sizeof(err)))
	{
		pfree(v);
		ereturn(escontext, NULL,
				(errcode(badcode),
				 CFAS_BAD_INPUT(badcode),
				 errdetail("%s", cfpg_sentence(err))));
	}
	hs = (uint8 *) VARDATA(v) + CFAS_HEADER;
	for (uint32 i = 0; i < n; i++)
	{
		uint64		x = h[i];

		cfpg_agg_put_le64s(hs + (size_t) i * sizeof(uint64), &x, 1);
	}
	SET_VARSIZE(v, size);
	memcpy(VARDATA(v), p, CFAS_HEADER);
	((uint8 *) VARDATA(v))[0] = CFAS_VERSION;
	return v;
}

/*
 * A state from outside (text or binary input), version 1 or 2, checked:
 * a new version 1 state, or NULL after reporting to escontext.  The
 * hashes of version 1 can be any values, in any order.
 */
static struct varlena *
cfpg_aggstate_read_external(const uint8 *p, size_t len, int badcode, Node *escontext)
{
	uint32		n;
	struct varlena *v;

	if (len < CFAS_HEADER)
		ereturn(escontext, NULL,
				(errcode(badcode),
				 CFAS_BAD_INPUT(badcode),
				 errdetail("A state has a header of %d bytes, this value has %zu bytes.",
						   CFAS_HEADER, len)));
	n = cfpg_aggstate_get32(p + 4);
	if (p[0] != CFAS_VERSION && p[0] != CFAS_VERSION_RICE)
		ereturn(escontext, NULL,
				(errcode(badcode),
				 errmsg("unsupported cf_aggstate version %u", p[0]),
				 errdetail("This version of cuckoo reads versions %d and %d.", CFAS_VERSION, CFAS_VERSION_RICE),
				 errhint("Run the partial and the final aggregation with the same version of the cuckoo extension.")));
	if (!cfpg_aggstate_check_fields(p, badcode, escontext))
		return NULL;
	if (p[0] == CFAS_VERSION_RICE)
		return cfpg_aggstate_decode_rice(p, len, badcode, escontext);
	if ((len - CFAS_HEADER) / sizeof(uint64) != n || (len - CFAS_HEADER) % sizeof(uint64) != 0)
		ereturn(escontext, NULL,
				(errcode(badcode),
				 CFAS_BAD_INPUT(badcode),
				 errdetail("A state of %u hashes has %zu bytes, not %zu.",
						   n, (size_t) CFAS_HEADER + (size_t) n * sizeof(uint64), len)));
	v = (struct varlena *) palloc(VARHDRSZ + len);
	SET_VARSIZE(v, VARHDRSZ + len);
	memcpy(VARDATA(v), p, len);
	return v;
}

/* ---- the expanded form ---- */

static Size cfpg_aggstate_get_flat_size(ExpandedObjectHeader *eohptr);
static void cfpg_aggstate_flatten_into(ExpandedObjectHeader *eohptr, void *result, Size allocated_size);

static const ExpandedObjectMethods cfpg_aggstate_methods = {
	cfpg_aggstate_get_flat_size,
	cfpg_aggstate_flatten_into
};

/* the sorted distinct hashes of an expanded state, sized for its flat form */
static Size
cfpg_aggstate_get_flat_size(ExpandedObjectHeader *eohptr)
{
	CfAggExpanded *x = (CfAggExpanded *) eohptr;

	x->runs = cfpg_agg_sorted(x->st, &x->cache, &x->nruns, &x->nsorted);
	if (x->nsorted > CFAS_MAX_HASHES || x->nsorted > PG_UINT32_MAX)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("cf_agg state of " UINT64_FORMAT " distinct values is too large to pass on", x->nsorted),
				 errdetail("A state travels as one value of at most 1 GB."),
				 errhint("Aggregate smaller parts, or use cf_agg without splitting the aggregate.")));
	return VARHDRSZ + CFAS_HEADER + (Size) x->nsorted * sizeof(uint64);
}

static void
cfpg_aggstate_flatten_into(ExpandedObjectHeader *eohptr, void *result, Size allocated_size)
{
	CfAggExpanded *x = (CfAggExpanded *) eohptr;
	struct varlena *v = (struct varlena *) result;
	uint8	   *p = (uint8 *) VARDATA(v);

	Assert(allocated_size == VARHDRSZ + CFAS_HEADER + x->nsorted * sizeof(uint64));
	SET_VARSIZE(v, allocated_size);
	cfpg_aggstate_put_header(p, x->kind, x->hashing, (uint32) x->nsorted, x->st->fpr, x->st->capacity);
	p += CFAS_HEADER;
	for (size_t r = 0; r < x->nruns; r++)
	{
		cfpg_agg_put_le64s(p, x->runs[r].h, x->runs[r].n);
		p += x->runs[r].n * sizeof(uint64);
	}
}

/* an empty expanded state in a new child context of parent */
static CfAggExpanded *
cfpg_aggstate_new_expanded(MemoryContext parent, uint8 kind, uint8 hashing, double fpr, uint64 capacity)
{
	MemoryContext cxt = AllocSetContextCreate(parent, "cf_agg state", ALLOCSET_SMALL_SIZES);
	CfAggExpanded *x = MemoryContextAllocZero(cxt, sizeof(CfAggExpanded));

	EOH_init_header(&x->hdr, &cfpg_aggstate_methods, cxt);
	x->st = cfpg_agg_new(cxt, fpr, capacity);
	x->kind = kind;
	x->hashing = hashing;
	x->cache.mcxt = cxt;
	return x;
}

/* adds the n little-endian hashes at p to an expanded state */
static void
cfpg_aggstate_add_le(CfAggExpanded *x, const uint8 *p, size_t n, CfAggCache *cache)
{
	CfAggState *st = x->st;

	if (n > CFAS_FLAT_MIN)
	{
		/* a partial's state, sorted: appended whole, then the limit checked */
		if (st->form != CFAGG_FORM_ARRAY)
			cfpg_agg_to_array(st, CFAGG_CXT(st));
		cfpg_agg_raise_limit(st, Min((uint64) st->n + n, (uint64) CFAGG_MAX_HASHES));
		cfpg_agg_array_append(st, p, n, true);
		return;
	}
	for (size_t i = 0; i < n; i++)
		cfpg_agg_add(st, cfpg_agg_read_hash(p + i * sizeof(uint64), true), cache);
}

/*
 * The expanded state behind a datum, read-write (ours to change) or, with
 * read_only, read-only too (the executor hands a final function a
 * read-only pointer: reading it in place saves flattening it); else NULL.
 */
static inline CfAggExpanded *
cfpg_aggstate_expanded_of(Datum d, bool read_only)
{
	if (read_only ? VARATT_IS_EXTERNAL_EXPANDED(DatumGetPointer(d))
		: VARATT_IS_EXTERNAL_EXPANDED_RW(DatumGetPointer(d)))
	{
		/* DatumGetEOHP, inline: it is a call into the server every row */
		varatt_expanded ptr;
		ExpandedObjectHeader *eoh;

		memcpy(&ptr, VARDATA_EXTERNAL(DatumGetPointer(d)), sizeof(ptr));
		eoh = ptr.eohptr;
		if (eoh->eoh_methods == &cfpg_aggstate_methods)
			return (CfAggExpanded *) eoh;
	}
	return NULL;
}

#define cfpg_aggstate_expanded_rw(d)	cfpg_aggstate_expanded_of((d), false)

/*
 * A state datum's flat form without copying when it is flat already (the
 * executor hands a transition function its own copy; an expanded one that
 * is not ours to change, read-only, is flattened).
 */
static struct varlena *
cfpg_aggstate_flat(Datum d)
{
	struct varlena *v = (struct varlena *) DatumGetPointer(d);

	if (VARATT_IS_EXTERNAL_EXPANDED(v) || VARATT_IS_EXTENDED(v))
		v = (struct varlena *) PG_DETOAST_DATUM(d);
	return v;
}

/* ---- the transition ---- */

/* a flat state of ours with room for slots hashes, holding the n at h (sorted) */
static struct varlena *
cfpg_aggstate_new_flat(MemoryContext cxt, const CfAggFlat *fl, const uint8 *h, uint32 n, size_t slots)
{
	Size		size = VARHDRSZ + CFAS_HEADER + slots * sizeof(uint64);
	struct varlena *v = MemoryContextAllocZero(cxt, size);
	uint8	   *p = (uint8 *) VARDATA(v);

	SET_VARSIZE(v, size);
	cfpg_aggstate_put_header(p, fl->kind, fl->hashing, n, fl->fpr, fl->capacity);
	p[3] = CFAS_FLAG_OURS;
	memcpy(p + CFAS_HEADER, h, (size_t) n * sizeof(uint64));
	return v;
}

/*
 * An expanded state (child of aggcxt) holding the hashes of flat state v.
 * A transition's own small state (one_by_one) gives them one at a time, so
 * that the state starts as a hash set, which drops repeated values in cache
 * as they come; a partial's state, which may be large, is appended whole to
 * the array of parts.
 */
static CfAggExpanded *
cfpg_aggstate_expand(struct varlena *v, MemoryContext aggcxt, CfAggCache *cache, bool one_by_one)
{
	CfAggFlat	fl;
	CfAggExpanded *x;

	cfpg_aggstate_read_header(v, &fl);
	x = cfpg_aggstate_new_expanded(aggcxt, fl.kind, fl.hashing, fl.fpr, fl.capacity);
	if (one_by_one)
		for (size_t i = 0; i < fl.n; i++)
			cfpg_agg_add(x->st, cfpg_agg_read_hash(fl.hashes + i * sizeof(uint64), true), cache);
	else
		cfpg_aggstate_add_le(x, fl.hashes, fl.n, cache);
	return x;
}

/*
 * Adds h to a flat state of ours in place: 1 if done (or h was there), 0 if
 * it is full, -1 if it is not ours to change (read from outside: neither
 * sorted nor distinct for sure) or too large to search.
 */
static int
cfpg_aggstate_small_add(struct varlena *v, uint64 h)
{
	uint8	   *p = (uint8 *) VARDATA(v);
	uint32		n = cfpg_aggstate_get32(p + 4);
	size_t		slots = (VARSIZE(v) - VARHDRSZ - CFAS_HEADER) / sizeof(uint64);
	uint8	   *hs = p + CFAS_HEADER;
	uint32		lo = 0,
				hi = n;

	if (p[3] != CFAS_FLAG_OURS || n > CFAS_FLAT_MAX)
		return -1;
	while (lo < hi)
	{
		uint32		mid = lo + (hi - lo) / 2;
		uint64		x = cfpg_agg_read_hash(hs + (size_t) mid * sizeof(uint64), true);

		if (x == h)
			return 1;
		if (x < h)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (n >= slots)
		return 0;
	memmove(hs + ((size_t) lo + 1) * sizeof(uint64), hs + (size_t) lo * sizeof(uint64),
			(size_t) (n - lo) * sizeof(uint64));
	cfpg_agg_put_le64s(hs + (size_t) lo * sizeof(uint64), &h, 1);
	cfpg_aggstate_put32(p + 4, n + 1);
	return 1;
}

/* is plain varlena v a small state of ours for this rate and capacity? */
static inline bool
cfpg_aggstate_small_ours(const struct varlena *v, double fpr, uint64 capacity)
{
	const uint8 *p = (const uint8 *) VARDATA(v);
	uint64		bits;

	memcpy(&bits, &fpr, sizeof(bits));
	return p[3] == CFAS_FLAG_OURS && cfpg_agg_read_hash(p + 8, true) == bits &&
		cfpg_agg_read_hash(p + 16, true) == capacity;
}

/*
 * Adds h to the flat state v: in place if it can, else into a copy twice
 * the size (in the per-call context: the executor keeps a copy of the
 * result), else NULL: the state must expand.
 */
static struct varlena *
cfpg_aggstate_flat_add(struct varlena *v, bool ours, uint64 h)
{
	int			r;
	int			k;
	CfAggFlat	fl;
	struct varlena *w;

	if (!ours)
		return NULL;
	r = cfpg_aggstate_small_add(v, h);
	if (r > 0)
		return v;
	if (r < 0)
		return NULL;
	cfpg_aggstate_read_header(v, &fl);
	if (fl.slots >= CFAS_FLAT_MAX)
		return NULL;
	for (k = 9; CFAS_SLOTS(k) <= fl.slots; k++)
		;
	w = cfpg_aggstate_new_flat(CurrentMemoryContext, &fl, fl.hashes, fl.n, CFAS_SLOTS(k));
	(void) cfpg_aggstate_small_add(w, h);
	return w;
}

static void
cfpg_aggstate_check_same(const char *what, uint8 kind1, double fpr1, uint64 cap1,
				uint8 kind2, double fpr2, uint64 cap2)
{
	if (fpr1 != fpr2)
		cfpg_agg_fpr_mismatch(fpr1, fpr2);
	if (cap1 != cap2)
		cfpg_agg_capacity_mismatch(cap1, cap2);
	if (kind1 != kind2)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("%s cannot combine states of values of kind %s and %s",
						what, cfpg_kind_label(kind1), cfpg_kind_label(kind2))));
}

/*
 * The transition of the typed cf_agg overloads, all but the common row:
 * the first row makes a small state in the per-row context, which the
 * executor copies into the aggregate context; a small state takes the
 * value in place, or grows into a copy, or expands.
 */
static pg_noinline Datum
cfpg_aggstate_trans_slow(FunctionCallInfo fcinfo, double fpr, uint64 capacity)
{
	MemoryContext aggcxt;
	CfAggCache *cache;
	CfAggExpanded *x;
	struct varlena *v;
	struct varlena *w;
	uint64		h;
	uint8		hb[sizeof(uint64)];
	CfAggFlat	fl;

	if (!AggCheckCallContext(fcinfo, &aggcxt))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("%s can only be called as part of an aggregate", "cuckoo_aggstate_trans")));
	cache = cfpg_agg_cache(fcinfo);
	if (PG_ARGISNULL(0))
	{
		cfpg_agg_check_fpr(fpr);
		if (PG_ARGISNULL(1))
			PG_RETURN_NULL();
		h = cfpg_hash_datum(cfpg_agg_hashinfo(fcinfo, cache), PG_GETARG_DATUM(1), CF_HASHING_V2);
		fl.kind = (uint8) cfpg_agg_hashinfo(fcinfo, cache)->vkind;
		fl.hashing = CF_HASHING_V2;
		fl.fpr = fpr;
		fl.capacity = capacity;
		cfpg_agg_put_le64s(hb, &h, 1);
		PG_RETURN_POINTER(cfpg_aggstate_new_flat(CurrentMemoryContext, &fl, hb, 1, CFAS_FLAT_MIN));
	}
	x = cfpg_aggstate_expanded_rw(PG_GETARG_DATUM(0));
	if (x != NULL)
	{
		/* only a rate or capacity that differs from the state's comes here */
		cfpg_aggstate_check_same("cf_agg", 0, x->st->fpr, x->st->capacity, 0, fpr, capacity);
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	}
	v = cfpg_aggstate_flat(PG_GETARG_DATUM(0));
	cfpg_aggstate_read_header(v, &fl);
	if (fl.fpr != fpr || fl.capacity != capacity)
		cfpg_aggstate_check_same("cf_agg", 0, fl.fpr, fl.capacity, 0, fpr, capacity);
	if (PG_ARGISNULL(1))
		PG_RETURN_POINTER(v);
	h = cfpg_hash_datum(cfpg_agg_hashinfo(fcinfo, cache), PG_GETARG_DATUM(1), CF_HASHING_V2);
	w = cfpg_aggstate_flat_add(v, v == (struct varlena *) DatumGetPointer(PG_GETARG_DATUM(0)), h);
	if (w != NULL)
		PG_RETURN_POINTER(w);
	x = cfpg_aggstate_expand(v, aggcxt, cache, fl.n <= CFAS_FLAT_MAX);
	cfpg_agg_add(x->st, h, cache);
	PG_RETURN_DATUM(EOHPGetRWDatum(&x->hdr));
}

/*
 * The common row: an expanded state (one our transition made, so we are in
 * an aggregate: a read-write expanded state never leaves one) with the same
 * rate and capacity takes the value in place.
 */
static pg_attribute_always_inline Datum
cfpg_aggstate_trans_common(FunctionCallInfo fcinfo, double fpr, uint64 capacity)
{
	CfAggExpanded *x;
	CfAggCache *cache;

	if (unlikely(PG_ARGISNULL(0)))
		return cfpg_aggstate_trans_slow(fcinfo, fpr, capacity);
	x = cfpg_aggstate_expanded_rw(PG_GETARG_DATUM(0));
	if (x == NULL)
	{
		/* a small state of ours, in an aggregate, with room: in place */
		struct varlena *v = (struct varlena *) DatumGetPointer(PG_GETARG_DATUM(0));

		if (!PG_ARGISNULL(1) && VARATT_IS_4B_U(v) && cfpg_aggstate_small_ours(v, fpr, capacity) &&
			AggCheckCallContext(fcinfo, NULL))
		{
			cache = cfpg_agg_cache(fcinfo);
			if (cfpg_aggstate_small_add(v, cfpg_hash_datum(cfpg_agg_hashinfo(fcinfo, cache), PG_GETARG_DATUM(1),
												CF_HASHING_V2)) > 0)
				PG_RETURN_POINTER(v);
		}
		return cfpg_aggstate_trans_slow(fcinfo, fpr, capacity);
	}
	if (unlikely(x->st->fpr != fpr || x->st->capacity != capacity))
		return cfpg_aggstate_trans_slow(fcinfo, fpr, capacity);
	if (!PG_ARGISNULL(1))
	{
		cache = cfpg_agg_cache(fcinfo);
		cfpg_agg_add(x->st, cfpg_hash_datum(cfpg_agg_hashinfo(fcinfo, cache), PG_GETARG_DATUM(1), CF_HASHING_V2),
				  cache);
	}
	PG_RETURN_DATUM(PG_GETARG_DATUM(0));
}

/* cf_agg(value) transition of the typed overloads */
PG_FUNCTION_INFO_V1(cf_agg_state_trans);
Datum
cf_agg_state_trans(PG_FUNCTION_ARGS)
{
	/* no rate or capacity argument: the defaults (cfpg_agg_row_params, inline) */
	return cfpg_aggstate_trans_common(fcinfo, CF_DEFAULT_FPR, 0);
}

/* cf_agg(value, fpr) transition of the typed overloads */
PG_FUNCTION_INFO_V1(cf_agg_state_trans_fpr);
Datum
cf_agg_state_trans_fpr(PG_FUNCTION_ARGS)
{
	double		fpr;
	uint64		capacity;

	cfpg_agg_row_params(fcinfo, 1, &fpr, &capacity);
	return cfpg_aggstate_trans_common(fcinfo, fpr, capacity);
}

/* cf_agg(value, fpr, capacity) transition of the typed overloads */
PG_FUNCTION_INFO_V1(cf_agg_state_trans_capacity);
Datum
cf_agg_state_trans_capacity(PG_FUNCTION_ARGS)
{
	double		fpr;
	uint64		capacity;

	cfpg_agg_row_params(fcinfo, 2, &fpr, &capacity);
	return cfpg_aggstate_trans_common(fcinfo, fpr, capacity);
}

/*
 * cf_agg combine of the typed overloads (strict: the executor starts from
 * a copy of the first partial): adds b's hashes to a, in place when a is
 * an expanded state or a small one with room for them.
 */
PG_FUNCTION_INFO_V1(cf_agg_state_combine);
Datum
cf_agg_state_combine(PG_FUNCTION_ARGS)
{
	MemoryContext aggcxt;
	CfAggCache *cache;
	CfAggExpanded *xa;
	CfAggExpanded *xb;
	struct varlena *va = NULL;
	CfAggFlat	fa;
	CfAggFlat	fb;

	if (!AggCheckCallContext(fcinfo, &aggcxt))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("%s can only be called as part of an aggregate", "cuckoo_aggstate_combine")));
	cache = cfpg_agg_cache(fcinfo);
	xa = cfpg_aggstate_expanded_rw(PG_GETARG_DATUM(0));
	xb = cfpg_aggstate_expanded_of(PG_GETARG_DATUM(1), true);
	if (xa == NULL)
	{
		va = cfpg_aggstate_flat(PG_GETARG_DATUM(0));
		cfpg_aggstate_read_header(va, &fa);
	}
	if (xb == NULL)
		cfpg_aggstate_read_header(cfpg_aggstate_flat(PG_GETARG_DATUM(1)), &fb);
	cfpg_aggstate_check_same("cf_agg",
					xa ? xa->kind : fa.kind, xa ? xa->st->fpr : fa.fpr, xa ? xa->st->capacity : fa.capacity,
					xb ? xb->kind : fb.kind, xb ? xb->st->fpr : fb.fpr, xb ? xb->st->capacity : fb.capacity);

	/* two small states: a's in place while b's hashes fit */
	if (xa == NULL && xb == NULL && fb.n <= CFAS_FLAT_MIN &&
		va == (struct varlena *) DatumGetPointer(PG_GETARG_DATUM(0)))
	{
		uint32		k;

		for (k = 0; k < fb.n; k++)
			if (cfpg_aggstate_small_add(va, cfpg_agg_read_hash(fb.hashes + (size_t) k * sizeof(uint64), true)) <= 0)
				break;
		if (k == fb.n)
			PG_RETURN_POINTER(va);
	}
	if (xa == NULL)
		xa = cfpg_aggstate_expand(va, aggcxt, cache, false);
	if (xb != NULL)
	{
		/* another group's state in this process: copied, never kept */
		size_t		nruns;
		uint64		n;
		const cf_run *runs = cfpg_agg_runs(xb->st, cache, &nruns, &n);

		for (size_t r = 0; r < nruns; r++)
			for (size_t k = 0; k < runs[r].n; k++)
				cfpg_agg_add(xa->st, runs[r].h[k], cache);
	}
	else
	{
		cfpg_aggstate_add_le(xa, fb.hashes, fb.n, cache);
		if (xa->st->form == CFAGG_FORM_ARRAY && xa->st->n >= xa->st->cap && fb.n > 0)
			cfpg_agg_make_room(xa->st, cache, cfpg_agg_read_hash(fb.hashes, true));
	}
	PG_RETURN_DATUM(EOHPGetRWDatum(&xa->hdr));
}

/* the sorted distinct hashes of a flat state, in the call site's buffers */
static const cf_run *
cfpg_aggstate_flat_sorted(const CfAggFlat *fl, CfAggCache *cache, size_t *nruns, uint64 *n)
{
	uint64	   *h = cfpg_agg_buffer(cache, &cache->gather, &cache->gather_len, Max(fl->n, 1));

	cfpg_agg_get_le64s(h, fl->hashes, fl->n);
	cf_sort_hashes(h, cfpg_agg_buffer(cache, &cache->scratch, &cache->scratch_len, Max(fl->n, 1)), fl->n);
	*n = cf_unique_hashes(h, fl->n);
	if (cache->runs_len == 0)
	{
		cache->runs = MemoryContextAlloc(cache->mcxt, sizeof(cf_run));
		cache->runs_len = 1;
	}
	cache->runs[0].h = h;
	cache->runs[0].n = *n;
	*nruns = 1;
	return cache->runs;
}

/* cf_agg final of the typed overloads: the filter, with the state's value kind */
PG_FUNCTION_INFO_V1(cf_agg_state_final);
Datum
cf_agg_state_final(PG_FUNCTION_ARGS)
{
	CfAggCache *cache = cfpg_agg_cache(fcinfo);
	CfAggExpanded *x = cfpg_aggstate_expanded_of(PG_GETARG_DATUM(0), true);
	CfAggState	tmp;
	CfAggState *st;
	const cf_run *runs;
	size_t		nruns;
	uint64		n;
	uint8		kind;
	struct varlena *v;
	cf_filter	f;

	if (x != NULL)
	{
		st = x->st;
		kind = x->kind;
		runs = cfpg_agg_sorted(st, cache, &nruns, &n);
	}
	else
	{
		CfAggFlat	fl;

		cfpg_aggstate_read_header(cfpg_aggstate_flat(PG_GETARG_DATUM(0)), &fl);
		memset(&tmp, 0, sizeof(tmp));
		tmp.fpr = fl.fpr;
		tmp.capacity = fl.capacity;
		st = &tmp;
		kind = fl.kind;
		runs = cfpg_aggstate_flat_sorted(&fl, cache, &nruns, &n);
	}
	if (n == 0)
		PG_RETURN_NULL();
	v = cfpg_agg_build(st, cache, runs, nruns, n);
	cfpg_open(&f, v);
	cf_set_kind(&f, kind);
	PG_RETURN_CUCKOOFILTER_P(v);
}

/* ---- type I/O ---- */

/*
 * A state's canonical flat form: the sorted distinct hashes (always a new
 * value, 4-byte header: cfpg_aggstate_encode_rice overwrites it)
 */
static struct varlena *
cfpg_aggstate_canonical(Datum d, CfAggCache *cache)
{
	struct varlena *v = cfpg_aggstate_flat(d);
	CfAggFlat	fl;
	const cf_run *runs;
	size_t		nruns;
	uint64		n;
	struct varlena *out;

	/* flattened from an expanded state: sorted and distinct (a detoasted one is not) */
	if (VARATT_IS_EXTERNAL_EXPANDED(DatumGetPointer(d)))
		return v;
	cfpg_aggstate_read_header(v, &fl);
	runs = cfpg_aggstate_flat_sorted(&fl, cache, &nruns, &n);
	out = palloc(VARHDRSZ + CFAS_HEADER + n * sizeof(uint64));
	SET_VARSIZE(out, VARHDRSZ + CFAS_HEADER + n * sizeof(uint64));
	cfpg_aggstate_put_header((uint8 *) VARDATA(out), fl.kind, fl.hashing, (uint32) n, fl.fpr, fl.capacity);
	cfpg_agg_put_le64s((uint8 *) VARDATA(out) + CFAS_HEADER, runs[0].h, n);
	return out;
}

/* text input: base64 of the flat form (version 1 or 2), checked */
PG_FUNCTION_INFO_V1(cf_aggstate_in);
Datum
cf_aggstate_in(PG_FUNCTION_ARGS)
{
	char	   *str = PG_GETARG_CSTRING(0);	/* as written: no white space */
	Node	   *escontext = fcinfo->context;
	struct varlena *v = cfpg_base64_decode(str, strlen(str), MaxAllocSize - VARHDRSZ,
										   "cf_aggstate", "cf_agg state", escontext);

	if (v == NULL)
		return (Datum) 0;
	v = cfpg_aggstate_read_external((const uint8 *) VARDATA(v), VARSIZE(v) - VARHDRSZ,
						   ERRCODE_INVALID_TEXT_REPRESENTATION, escontext);
	if (v == NULL)
		return (Datum) 0;
	PG_RETURN_POINTER(v);
}

/* text output: base64 of the canonical state, version 2 */
PG_FUNCTION_INFO_V1(cf_aggstate_out);
Datum
cf_aggstate_out(PG_FUNCTION_ARGS)
{
	CfAggCache	cache = {0};
	uint8	   *bytes;
	size_t		len;
	char	   *out;

	cache.mcxt = CurrentMemoryContext;
	bytes = cfpg_aggstate_encode_rice(cfpg_aggstate_canonical(PG_GETARG_DATUM(0), &cache), &len);
	out = cfpg_base64_encode(bytes, len, "cf_agg state", "Aggregate smaller parts.");
	PG_RETURN_CSTRING(out);
}

/* binary input: the flat form (version 1 or 2), checked */
PG_FUNCTION_INFO_V1(cf_aggstate_recv);
Datum
cf_aggstate_recv(PG_FUNCTION_ARGS)
{
	StringInfo	buf = (StringInfo) PG_GETARG_POINTER(0);
	Node	   *escontext = fcinfo->context;
	size_t		n = (size_t) (buf->len - buf->cursor);
	struct varlena *v;

	v = cfpg_aggstate_read_external((const uint8 *) buf->data + buf->cursor, n,
						   ERRCODE_INVALID_BINARY_REPRESENTATION, escontext);
	if (v == NULL)
		return (Datum) 0;
	buf->cursor = buf->len;
	PG_RETURN_POINTER(v);
}

/* binary output: the canonical state, version 2 */
PG_FUNCTION_INFO_V1(cf_aggstate_send);
Datum
cf_aggstate_send(PG_FUNCTION_ARGS)
{
	CfAggCache	cache = {0};
	uint8	   *bytes;
	size_t		len;
	StringInfoData buf;

	cache.mcxt = CurrentMemoryContext;
	bytes = cfpg_aggstate_encode_rice(cfpg_aggstate_canonical(PG_GETARG_DATUM(0), &cache), &len);
	pq_begintypsend(&buf);
	pq_sendbytes(&buf, (const char *) bytes, (int) len);
	PG_RETURN_BYTEA_P(pq_endtypsend(&buf));
}
