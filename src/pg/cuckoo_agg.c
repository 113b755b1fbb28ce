/*
 * cuckoo_agg.c - the aggregates: cf_agg builds a filter sized to the
 * distinct values of a column, cf_union_agg merges stored filters.
 */
#include "postgres.h"

#include "miscadmin.h"
#include "port/pg_bitutils.h"
#include "nodes/primnodes.h"
#include "port/pg_bswap.h"
#include "catalog/pg_type.h"
#include "libpq/pqformat.h"
#include "utils/builtins.h"
#include "utils/expandeddatum.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"

#include "cuckoo_agg.h"

/*
 * cf_agg's transition state: the 64-bit hashes of the values seen, with
 * duplicates dropped, in one of three forms chosen by how many there are.
 *
 *  - INLINE: up to CFAGG_INLINE hashes inside the state itself, which is
 *    64 bytes, so a GROUP BY with many small groups costs one small chunk
 *    per group.
 *  - SET: an open-addressing hash table (linear probing, at most half
 *    full) of up to CFAGG_SET_MAX_SLOTS slots, 2 MB: small enough to stay
 *    in cache, so a repeated value costs one probe and is gone.  This is
 *    the common case of a column that repeats a modest number of values.
 *    New hashes wait in a batch behind the table (up to CFAGG_BATCH, a
 *    quarter of the slots for small tables), their home slots prefetched
 *    as they come, and are probed together when it fills: the table's
 *    cache misses then overlap instead of stalling each row
 *    (docs/performance.md, "cf_agg's design figures").
 *  - ARRAY: beyond that (or if probes ever run long), the hashes are
 *    appended to one of CFAGG_NPARTS parts by their top bits (the radix
 *    sort's first pass, done as they arrive), each part a chain of blocks
 *    of up to CFAGG_BLOCK_MAX hashes.  A part sorts in cache on its own, and
 *    the parts in order are the sorted whole, with no second copy of it.
 *    When the hashes held pass a limit (checked as blocks fill), the part
 *    the next hash goes to drops its duplicates: the share it keeps says
 *    whether the whole is mostly distinct (the parts split the hashes at
 *    random).  If so, the limit doubles, and the one sort happens at the
 *    end; otherwise every part drops its duplicates, and the limit doubles
 *    only if that did not free half of it.  Memory: 8 bytes per hash held,
 *    and the unused end of each part's last block.
 *
 * The final function sorts the distinct hashes and bulk-builds a filter for
 * them (see cfagg_build).  Its input depends only on the set of values, not on
 * their order or on how the work was split, so serial and parallel plans
 * give byte-identical filters.
 */
#define CFAGG_INLINE		3
#define CFAGG_MAX_HASHES	((uint32) 1 << 31)	/* array slots, a hard limit */
#define CFAGG_SET_MIN_SLOTS	16
#define CFAGG_SET_MAX_SLOTS	((uint32) 1 << 18)	/* 2 MB of table */

/*
 * The longest probe of the hash set (cuckoo.agg_probe_limit, 64): random
 * hashes at half load never get near it, so a longer one means chosen
 * values, and the state turns into the array of parts, which no input slows
 * down.  Tests set it to 0 to run every aggregate through the array.
 */
int			cfagg_probe_limit = 64;
#define CFAGG_BATCH			64		/* SET: hashes probed together, at most */
#define CFAGG_PART_BITS		8		/* ARRAY: parts by the top 8 bits */
#define CFAGG_NPARTS		(1 << CFAGG_PART_BITS)
#define CFAGG_BLOCK_MIN		16		/* hashes in a part's first block */
#define CFAGG_BLOCK_MAX		1024	/* and in its largest: 8 kB */
#define CFAGG_SAMPLE_MIN	256		/* a part that tells how distinct the whole is */

typedef enum CfAggForm
{
	CFAGG_FORM_INLINE = 0,
	CFAGG_FORM_SET,
	CFAGG_FORM_ARRAY
} CfAggForm;

/* ARRAY: a block of one part's hashes */
typedef struct CfAggBlock
{
	struct CfAggBlock *next;
	uint32		n;				/* hashes in h (the part's last block: see pos) */
	uint32		cap;
	uint64		h[FLEXIBLE_ARRAY_MEMBER];
} CfAggBlock;

/* ARRAY: the parts */
typedef struct CfAggArray
{
	uint64	   *pos[CFAGG_NPARTS];	/* free end of each part's last block */
	uint64	   *end[CFAGG_NPARTS];	/* and where it ends (pos == end: full) */
	CfAggBlock *first[CFAGG_NPARTS];
	CfAggBlock *last[CFAGG_NPARTS];
	uint32		sorted_n;		/* the state's n when every part was last sorted
								 * and distinct (adds only raise n); UINT32_MAX:
								 * one part was sorted since */
} CfAggArray;

typedef struct CfAggState
{
	uint64	   *hashes;			/* INLINE: inline_buf; SET: the table */
	uint32		n;				/* distinct hashes held (ARRAY: hashes held) */
	uint32		cap;			/* SET: slots in hashes; ARRAY: the limit */
	uint32		nbatch;			/* SET: hashes waiting in the batch */
	uint8		form;			/* CfAggForm */
	double		fpr;			/* target false-positive rate */
	uint64		capacity;		/* filter capacity; 0: sized by the data */
	union
	{
		uint64		inline_buf[CFAGG_INLINE];	/* INLINE */
		CfAggArray *arr;		/* ARRAY */
	}			u;
} CfAggState;

StaticAssertDecl(sizeof(CfAggState) == 64, "CfAggState should stay one 64-byte chunk");

/* serialized state: fpr (IEEE double), capacity, then the hashes, all little-endian */
#define CFAGG_SERIAL_HEADER	16

/* writes n uint64s little-endian to dst (unaligned) */
static void
cfagg_put_le64s(uint8 *dst, const uint64 *src, size_t n)
{
#ifdef WORDS_BIGENDIAN
	for (size_t i = 0; i < n; i++)
	{
		uint64		x = pg_bswap64(src[i]);

		memcpy(dst + i * sizeof(uint64), &x, sizeof(x));
	}
#else
	memcpy(dst, src, n * sizeof(uint64));
#endif
}

/* reads n little-endian uint64s from src (unaligned) */
static void
cfagg_get_le64s(uint64 *dst, const uint8 *src, size_t n)
{
	memcpy(dst, src, n * sizeof(uint64));
#ifdef WORDS_BIGENDIAN
	for (size_t i = 0; i < n; i++)
		dst[i] = pg_bswap64(dst[i]);
#endif
}

#define CFAGG_FILL_CHUNK	65536	/* inserts between interrupt checks */

/* largest state that fits one bytea */
#define CFAGG_MAX_SERIAL_HASHES	((MaxAllocSize - VARHDRSZ - CFAGG_SERIAL_HEADER) / sizeof(uint64))

/*
 * Per-call-site cache in fn_extra: the column's hashing info, and a scratch
 * buffer that every sort of this call site reuses, so that repeated
 * compactions do not each map (and the kernel zero) fresh memory.
 */
typedef struct CfAggCache
{
	MemoryContext mcxt;			/* fn_mcxt: lives as long as the query */
	bool		hi_valid;
	CfHashInfo	hi;
	uint64	   *scratch;		/* sort space, cf_build's work space */
	size_t		scratch_len;	/* elements */
	uint64	   *gather;			/* the hashes of a small state, to sort */
	size_t		gather_len;
	cf_run	   *runs;			/* the blocks of an ARRAY state, for cf_build_runs */
	size_t		runs_len;
} CfAggCache;

static CfAggCache *
cfagg_cache(FunctionCallInfo fcinfo)
{
	CfAggCache *c = (CfAggCache *) fcinfo->flinfo->fn_extra;

	if (c == NULL)
	{
		c = MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, sizeof(CfAggCache));
		c->mcxt = fcinfo->flinfo->fn_mcxt;
		fcinfo->flinfo->fn_extra = c;
	}
	return c;
}

/* a buffer of at least m elements in fn_mcxt, kept for the next call */
static uint64 *
cfagg_buffer(CfAggCache *c, uint64 **buf, size_t *len, size_t m)
{
	if (*len < m)
	{
		if (*buf != NULL)
			pfree(*buf);
		*buf = NULL;
		*len = 0;
		*buf = MemoryContextAllocHuge(c->mcxt, Max(m, 64) * sizeof(uint64));
		*len = Max(m, 64);
	}
	return *buf;
}

/* ---------------------------------------------------------------------
 * the state
 * ------------------------------------------------------------------- */

/* raises sqlstate with the core's message unless such a filter can be made */
static void
cfagg_check_params(uint64 capacity, double fpr, int sqlstate)
{
	char		err[CF_ERRLEN];
	cf_params	p;

	cfpg_params(&p, capacity, fpr);
	if (cf_create_size(&p, err, sizeof(err)) == 0)
		ereport(ERROR,
				(errcode(sqlstate),
				 errmsg("%s", err)));
}

static void
cfagg_check_fpr(double fpr)
{
	cfagg_check_params(1, fpr, ERRCODE_INVALID_PARAMETER_VALUE);
}

static CfAggState *
cfagg_new(MemoryContext cxt, double fpr, uint64 capacity)
{
	CfAggState *st = MemoryContextAllocZero(cxt, sizeof(CfAggState));

	st->hashes = st->u.inline_buf;
	st->cap = CFAGG_INLINE;
	st->form = CFAGG_FORM_INLINE;
	st->fpr = fpr;
	st->capacity = capacity;
	return st;
}

/* a capacity given to cf_agg: 1 .. what fits a filter (0 means none given) */
static void
cfagg_check_capacity(int64 capacity, double fpr)
{
	if (capacity < 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("cf_agg capacity must be at least 1, not " INT64_FORMAT, capacity)));
	cfagg_check_params((uint64) capacity, fpr, ERRCODE_PROGRAM_LIMIT_EXCEEDED);
}

/* ---- ARRAY ---- */

/*
 * The aggregate memory context a state lives in, where its arrays go too:
 * looked up only when something must be allocated.
 */
#define CFAGG_CXT(st)	GetMemoryChunkContext(st)

static inline int
cfagg_part(uint64 h)
{
	return (int) (h >> (64 - CFAGG_PART_BITS));
}

/* hashes in blk, one of part p's blocks (the last one fills up to pos) */
static inline uint32
cfagg_block_len(const CfAggArray *a, int p, const CfAggBlock *blk)
{
	return blk == a->last[p] ? (uint32) (a->pos[p] - blk->h) : blk->n;
}

/* hashes in part p */
static size_t
cfagg_part_size(const CfAggArray *a, int p)
{
	size_t		m = 0;

	for (const CfAggBlock *blk = a->first[p]; blk != NULL; blk = blk->next)
		m += cfagg_block_len(a, p, blk);
	return m;
}

/* starts a new last block for part p, twice the size of the one before */
static pg_noinline void
cfagg_new_block(CfAggState *st, int p)
{
	CfAggArray *a = st->u.arr;
	uint32		cap = a->last[p] ? Min(2 * a->last[p]->cap, CFAGG_BLOCK_MAX) : CFAGG_BLOCK_MIN;
	CfAggBlock *blk = MemoryContextAlloc(CFAGG_CXT(st),
										 offsetof(CfAggBlock, h) + cap * sizeof(uint64));

	blk->next = NULL;
	blk->n = 0;
	blk->cap = cap;
	if (a->last[p] != NULL)
	{
		a->last[p]->n = a->last[p]->cap;
		a->last[p]->next = blk;
	}
	else
		a->first[p] = blk;
	a->last[p] = blk;
	a->pos[p] = blk->h;
	a->end[p] = blk->h + cap;
}

/*
 * Sorts part p and drops its duplicates, in place: the part is copied into
 * the call site's scratch, sorted there (in cache: a part is a
 * CFAGG_NPARTS-th of the hashes), and written back into its first blocks;
 * the blocks it no longer needs are freed.  Returns how many it keeps.
 */
static size_t
cfagg_part_compact(CfAggState *st, CfAggCache *cache, int p)
{
	CfAggArray *a = st->u.arr;
	size_t		m = cfagg_part_size(a, p),
				kept,
				k;
	uint64	   *buf,
			   *out;
	CfAggBlock *blk;

	if (m == 0)
		return 0;
	buf = cfagg_buffer(cache, &cache->scratch, &cache->scratch_len, 2 * m);
	out = buf + m;
	m = 0;
	for (blk = a->first[p]; blk != NULL; blk = blk->next)
	{
		uint32		len = cfagg_block_len(a, p, blk);

		memcpy(buf + m, blk->h, len * sizeof(uint64));
		m += len;
	}
	cf_sort_hashes_below(buf, out, m, 64 - CFAGG_PART_BITS);
	kept = cf_unique_hashes(out, m);

	k = 0;
	for (blk = a->first[p];; blk = blk->next)
	{
		blk->n = (uint32) Min(blk->cap, kept - k);
		memcpy(blk->h, out + k, blk->n * sizeof(uint64));
		k += blk->n;
		if (k == kept)
			break;
		Assert(blk->next != NULL);
	}
	a->last[p] = blk;
	a->pos[p] = blk->h + blk->n;
	a->end[p] = blk->h + blk->cap;
	for (CfAggBlock *next = blk->next; next != NULL;)
	{
		CfAggBlock *dead = next;

		next = next->next;
		pfree(dead);
	}
	blk->next = NULL;
	st->n -= (uint32) (m - kept);
	a->sorted_n = PG_UINT32_MAX;
	return kept;
}

/* sorts every part and drops its duplicates: the canonical form */
static void
cfagg_array_compact(CfAggState *st, CfAggCache *cache)
{
	CfAggArray *a = st->u.arr;
	size_t		largest = 0;

	if (a->sorted_n == st->n)
		return;
	/* the scratch at its largest from the start, so it is allocated once */
	for (int p = 0; p < CFAGG_NPARTS; p++)
		largest = Max(largest, cfagg_part_size(a, p));
	(void) cfagg_buffer(cache, &cache->scratch, &cache->scratch_len, 2 * largest);
	for (int p = 0; p < CFAGG_NPARTS; p++)
	{
		cfagg_part_compact(st, cache, p);
		CHECK_FOR_INTERRUPTS();
	}
	a->sorted_n = st->n;
}

/* an ARRAY state holds at most CFAGG_MAX_HASHES */
static void
cfagg_check_count(uint64 need)
{
	if (need > CFAGG_MAX_HASHES)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("cf_agg cannot hold more than %u distinct values", CFAGG_MAX_HASHES)));
}

/* raises the limit of an ARRAY state to at least need hashes */
static void
cfagg_raise_limit(CfAggState *st, uint64 need)
{
	uint64		limit = st->cap;

	if (need <= limit)
		return;
	cfagg_check_count(need);
	while (limit < need)
		limit *= 2;
	st->cap = (uint32) Min(limit, CFAGG_MAX_HASHES);
}

/*
 * The hashes held reached the limit.  One part, the one h goes to, drops
 * its duplicates first: the parts split the hashes at random, so the share
 * it keeps is the share of the whole that is distinct.  If that is most of
 * it, the limit doubles at once (sorting the rest now would find little to
 * drop); otherwise every part drops its duplicates, and the limit doubles
 * if the state is still over half of it.  Too small a part to tell (a young
 * state, or chosen values) is compacted with the rest.
 */
static void
cfagg_make_room(CfAggState *st, CfAggCache *cache, uint64 h)
{
	CfAggArray *a = st->u.arr;
	uint32		limit = st->cap;
	int			p = cfagg_part(h);
	size_t		before = cfagg_part_size(a, p);

	if (limit < CFAGG_MAX_HASHES && before >= CFAGG_SAMPLE_MIN &&
		cfagg_part_compact(st, cache, p) >= 0.7 * before)
	{
		cfagg_raise_limit(st, (uint64) limit + 1);
		return;
	}
	cfagg_array_compact(st, cache);
	if (st->n > limit / 2)
		cfagg_raise_limit(st, (uint64) limit + 1);
}

/* appends h to its part of an ARRAY state, whatever the limit */
static inline void
cfagg_array_put(CfAggState *st, uint64 h)
{
	CfAggArray *a = st->u.arr;
	int			p = cfagg_part(h);

	if (unlikely(a->pos[p] == a->end[p]))
		cfagg_new_block(st, p);
#if defined(__GNUC__)
	/* the part's next cache line, for writing: 256 streams defeat hardware prefetch */
	__builtin_prefetch(a->pos[p] + 8, 1);
#endif
	*a->pos[p]++ = h;
	st->n++;
}

/* cfagg_array_put, and the limit, checked when h's part needs a new block */
static inline void
cfagg_array_add(CfAggState *st, uint64 h, CfAggCache *cache)
{
	CfAggArray *a = st->u.arr;
	int			p = cfagg_part(h);

	if (unlikely(a->pos[p] == a->end[p]) && st->n >= st->cap)
		cfagg_make_room(st, cache, h);
	cfagg_array_put(st, h);
}

/* the hash at s: little-endian bytes if le, else a uint64 (unaligned) */
static inline uint64
cfagg_read_hash(const uint8 *s, bool le)
{
	uint64		h;

	if (le)
		cfagg_get_le64s(&h, s, 1);
	else
		memcpy(&h, s, sizeof(h));
	return h;
}

/*
 * Appends the n hashes at src (little-endian bytes if le, else uint64s) to
 * an ARRAY state, a run of one part at a time copied block by block: how a
 * worker's state, which comes sorted, joins the leader's.  No limit check.
 */
static void
cfagg_array_append(CfAggState *st, const void *src, size_t n, bool le)
{
	CfAggArray *a = st->u.arr;
	const uint8 *s = src;

	cfagg_check_count((uint64) st->n + n);
	while (n > 0)
	{
		int			p;
		size_t		run = 1;

		/* the run of hashes of one part */
		p = cfagg_part(cfagg_read_hash(s, le));
		while (run < n && cfagg_part(cfagg_read_hash(s + run * sizeof(uint64), le)) == p)
			run++;
		n -= run;
		while (run > 0)
		{
			size_t		take;

			if (a->pos[p] == a->end[p])
				cfagg_new_block(st, p);
			take = Min((size_t) (a->end[p] - a->pos[p]), run);
			if (le)
				cfagg_get_le64s(a->pos[p], s, take);
			else
				memcpy(a->pos[p], s, take * sizeof(uint64));
			a->pos[p] += take;
			st->n += (uint32) take;
			s += take * sizeof(uint64);
			run -= take;
		}
		CHECK_FOR_INTERRUPTS();
	}
}

/* ---- SET ---- */

/* the home slot of h in a table of cap slots: its top bits, scaled */
static inline uint32
cfagg_home(uint64 h, uint32 cap)
{
	return (uint32) (((h >> 32) * cap) >> 32);
}

static inline uint32
cfagg_set_home(const CfAggState *st, uint64 h)
{
	return cfagg_home(h, st->cap);
}

/*
 * Is h in slot pos or the next of table t (mask = slots - 1)?  At most half
 * full, a present hash is one of the two 97% of the time: both are tested
 * at once, so that a column of repeated values takes a branch that is
 * nearly always predicted right.
 */
static inline bool
cfagg_set_near(const uint64 *t, uint32 mask, uint32 pos, uint64 h)
{
	return (t[pos] == h) | (t[(pos + 1) & mask] == h);
}

/*
 * Adds h to a SET state's table; false (and nothing added) if h is 0, the
 * mark of a free slot, or if the probe ran past cfagg_probe_limit slots,
 * which random hashes never do at half load but chosen values could.  The
 * caller then turns the state into an ARRAY, which takes any hash.
 */
static inline bool
cfagg_set_add(CfAggState *st, uint64 h)
{
	uint64	   *t = st->hashes;
	uint32		mask = st->cap - 1;
	uint32		pos = cfagg_set_home(st, h);

	if (unlikely(h == 0))
		return false;
	if (cfagg_set_near(t, mask, pos, h) && cfagg_probe_limit > 0)
		return true;
	for (int probe = 0; probe < cfagg_probe_limit; probe++)
	{
		uint64		x = t[pos];

		if (x == h)
			return true;
		if (x == 0)
		{
			t[pos] = h;
			st->n++;
			return true;
		}
		pos = (pos + 1) & mask;
	}
	return false;
}

/* the hashes a SET state holds that are not in its table yet */
static inline uint64 *
cfagg_batch(const CfAggState *st)
{
	return st->hashes + st->cap;
}

/* how many the batch holds: a small table (a small group) has a small one */
static inline uint32
cfagg_batch_cap(uint32 setcap)
{
	return Min(CFAGG_BATCH, setcap / 4);
}

/* hashes held, an upper bound of the distinct ones */
static inline uint64
cfagg_held(const CfAggState *st)
{
	return (uint64) st->n + (st->form == CFAGG_FORM_SET ? st->nbatch : 0);
}

/*
 * Copies the hashes held by a SET or INLINE state into dst (which has room
 * for cfagg_held); returns how many.  A SET state's batch may repeat some.
 */
static uint32
cfagg_gather(const CfAggState *st, uint64 *dst)
{
	uint32		k = 0;

	if (st->form != CFAGG_FORM_SET)
	{
		memcpy(dst, st->hashes, st->n * sizeof(uint64));
		return st->n;
	}
	for (uint32 i = 0; i < st->cap; i++)
		if (st->hashes[i] != 0)
			dst[k++] = st->hashes[i];
	memcpy(dst + k, cfagg_batch(st), st->nbatch * sizeof(uint64));
	return k + st->nbatch;
}

/*
 * Turns an INLINE or SET state into an ARRAY state of the same hashes,
 * with a limit of twice as many.
 */
static void
cfagg_to_array(CfAggState *st, MemoryContext cxt)
{
	uint64		limit = CFAGG_SET_MIN_SLOTS;
	uint64	   *held = MemoryContextAlloc(cxt, (Size) Max(cfagg_held(st), 1) * sizeof(uint64));
	uint32		n = cfagg_gather(st, held);

	if (st->form == CFAGG_FORM_SET)
		pfree(st->hashes);
	st->hashes = NULL;
	st->n = 0;
	st->nbatch = 0;
	st->form = CFAGG_FORM_ARRAY;
	st->u.arr = MemoryContextAllocZero(cxt, sizeof(CfAggArray));
	while (limit < 2 * (uint64) n)
		limit *= 2;
	st->cap = (uint32) Min(limit, CFAGG_MAX_HASHES);
	for (uint32 k = 0; k < n; k++)
		cfagg_array_put(st, held[k]);
	pfree(held);
}

/*
 * Moves an INLINE or SET state's hashes into a SET table of newcap slots.
 * Turns it into an ARRAY state instead if the table would be too large, or
 * if a probe ran long.
 */
static void
cfagg_to_set(CfAggState *st, uint32 newcap, MemoryContext cxt)
{
	uint64		held[CFAGG_INLINE];
	uint64	   *old = st->hashes;
	uint32		oldcap = st->cap;
	CfAggForm	oldform = st->form;
	uint32		n = st->n;
	bool		ok = true;

	if (newcap > CFAGG_SET_MAX_SLOTS)
	{
		cfagg_to_array(st, cxt);
		return;
	}
	Assert(oldform == CFAGG_FORM_INLINE || st->nbatch == 0);
	if (oldform == CFAGG_FORM_INLINE)
		memcpy(held, old, n * sizeof(uint64));
	st->hashes = MemoryContextAllocZero(cxt, (Size) (newcap + cfagg_batch_cap(newcap)) * sizeof(uint64));
	st->nbatch = 0;
	st->cap = newcap;
	st->form = CFAGG_FORM_SET;
	st->n = 0;
	if (oldform == CFAGG_FORM_INLINE)
		for (uint32 k = 0; k < n; k++)
			ok &= cfagg_set_add(st, held[k]);
	else
	{
		for (uint32 i = 0; i < oldcap && ok; i++)
			if (old[i] != 0)
				ok = cfagg_set_add(st, old[i]);
		if (ok)
			pfree(old);
	}
	if (!ok)
	{
		/* back to the old table, then to an array */
		pfree(st->hashes);
		st->hashes = old;
		st->cap = oldcap;
		st->form = oldform;
		st->n = n;
		cfagg_to_array(st, cxt);
	}
}

/* adds the hash h to the state now, in whatever form it is */
static pg_noinline void
cfagg_add_now(CfAggState *st, uint64 h, CfAggCache *cache)
{
	switch ((CfAggForm) st->form)
	{
		case CFAGG_FORM_INLINE:
			for (uint32 k = 0; k < st->n; k++)
				if (st->hashes[k] == h)
					return;
			if (st->n < CFAGG_INLINE)
			{
				st->hashes[st->n++] = h;
				return;
			}
			cfagg_to_set(st, CFAGG_SET_MIN_SLOTS, CFAGG_CXT(st));
			cfagg_add_now(st, h, cache);
			return;
		case CFAGG_FORM_SET:
			if (likely(cfagg_set_add(st, h)))
			{
				if (st->n > st->cap / 2)
					cfagg_to_set(st, st->cap * 2, CFAGG_CXT(st));
				return;
			}
			cfagg_to_array(st, CFAGG_CXT(st));
			/* FALLTHROUGH */
		case CFAGG_FORM_ARRAY:
			cfagg_array_add(st, h, cache);
			return;
	}
}

/*
 * Probes a SET state's batch into its table, whose slots were prefetched
 * as the hashes came in; adding them may grow the table or turn the state
 * into an ARRAY, so the batch is copied out first.
 */
static pg_noinline void
cfagg_flush(CfAggState *st, CfAggCache *cache)
{
	uint64		batch[CFAGG_BATCH];
	uint32		nb;

	if (st->form != CFAGG_FORM_SET || st->nbatch == 0)
		return;
	nb = st->nbatch;
	memcpy(batch, cfagg_batch(st), nb * sizeof(uint64));
	st->nbatch = 0;
	for (uint32 k = 0; k < nb;)
	{
		/*
		 * The common case in a tight loop: repeats, each in its home slot or
		 * the next (0 would match a free slot: cfagg_set_add refuses it).
		 * The first hash that needs more takes the full path, which may
		 * change the table, and the loop starts over.
		 */
		if (st->form == CFAGG_FORM_SET && cfagg_probe_limit > 0)
		{
			const uint64 *t = st->hashes;
			uint32		cap = st->cap;

			for (; k < nb; k++)
			{
				uint64		h = batch[k];

				if (h == 0 || !cfagg_set_near(t, cap - 1, cfagg_home(h, cap), h))
					break;
			}
			if (k == nb)
				break;
		}
		cfagg_add_now(st, batch[k++], cache);
	}
}

/* adds the hash h to the state: a SET state batches it */
static inline void
cfagg_add(CfAggState *st, uint64 h, CfAggCache *cache)
{
	if (likely(st->form == CFAGG_FORM_SET))
	{
#if defined(__GNUC__)
		__builtin_prefetch(&st->hashes[cfagg_set_home(st, h)]);
#endif
		cfagg_batch(st)[st->nbatch++] = h;
		if (st->nbatch == cfagg_batch_cap(st->cap))
			cfagg_flush(st, cache);
		return;
	}
	if (likely(st->form == CFAGG_FORM_ARRAY))
	{
		cfagg_array_add(st, h, cache);
		return;
	}
	cfagg_add_now(st, h, cache);
}

/*
 * The hashes a state holds, as runs in the call site's buffers: an ARRAY
 * state's blocks part by part (sorted if the state is compacted), another
 * state's copied into one run.  Sets *n to how many hashes.
 */
static const cf_run *
cfagg_runs(const CfAggState *st, CfAggCache *cache, size_t *nruns, uint64 *n)
{
	size_t		k = 0;

	*n = 0;
	if (st->form == CFAGG_FORM_ARRAY)
	{
		const CfAggArray *a = st->u.arr;
		size_t		nblocks = 0;

		for (int p = 0; p < CFAGG_NPARTS; p++)
			for (const CfAggBlock *blk = a->first[p]; blk != NULL; blk = blk->next)
				nblocks++;
		if (cache->runs_len < Max(nblocks, 1))
		{
			if (cache->runs != NULL)
				pfree(cache->runs);
			cache->runs = NULL;
			cache->runs_len = 0;
			cache->runs = MemoryContextAllocHuge(cache->mcxt, Max(nblocks, 1) * sizeof(cf_run));
			cache->runs_len = Max(nblocks, 1);
		}
		for (int p = 0; p < CFAGG_NPARTS; p++)
			for (const CfAggBlock *blk = a->first[p]; blk != NULL; blk = blk->next)
			{
				cache->runs[k].h = blk->h;
				cache->runs[k].n = cfagg_block_len(a, p, blk);
				*n += cache->runs[k++].n;
			}
	}
	else
	{
		if (cache->runs_len == 0)
		{
			cache->runs = MemoryContextAlloc(cache->mcxt, sizeof(cf_run));
			cache->runs_len = 1;
		}
		cache->runs[0].h = cfagg_buffer(cache, &cache->gather, &cache->gather_len, cfagg_held(st));
		cache->runs[0].n = cfagg_gather(st, (uint64 *) cache->runs[0].h);
		*n = cache->runs[k++].n;
	}
	*nruns = k;
	return cache->runs;
}

/* adds every hash of src to dst */
static void
cfagg_add_state(CfAggState *dst, const CfAggState *src, CfAggCache *cache)
{
	size_t		nruns;
	uint64		n;
	const cf_run *runs = cfagg_runs(src, cache, &nruns, &n);

	for (size_t r = 0; r < nruns; r++)
	{
		for (size_t k = 0; k < runs[r].n; k++)
			cfagg_add(dst, runs[r].h[k], cache);
		CHECK_FOR_INTERRUPTS();
	}
}

/*
 * The state's distinct hashes, sorted, as runs: an ARRAY state is compacted
 * in place (it stays a valid state); another is copied into the call
 * site's buffer and sorted there.  Sets *n to how many.
 */
static const cf_run *
cfagg_sorted(CfAggState *st, CfAggCache *cache, size_t *nruns, uint64 *n)
{
	cf_run	   *runs;

	if (st->form == CFAGG_FORM_ARRAY)
	{
		cfagg_array_compact(st, cache);
		return cfagg_runs(st, cache, nruns, n);
	}
	runs = (cf_run *) cfagg_runs(st, cache, nruns, n);
	cf_sort_hashes((uint64 *) runs[0].h, cfagg_buffer(cache, &cache->scratch, &cache->scratch_len, *n), *n);
	runs[0].n = *n = cf_unique_hashes((uint64 *) runs[0].h, *n);
	return runs;
}

/* the hashing info for the aggregated column, cached in fn_extra */
static CfHashInfo *
cfagg_hashinfo(FunctionCallInfo fcinfo, CfAggCache *c)
{
	if (!c->hi_valid)
	{
		Oid			typid = get_fn_expr_argtype(fcinfo->flinfo, 1);

		if (!OidIsValid(typid))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("could not determine the data type of the cf_agg input")));
		cf_hashinfo_init(&c->hi, typid, PG_GET_COLLATION(), c->mcxt);
		c->hi_valid = true;
	}
	return &c->hi;
}

static MemoryContext
cfagg_context(FunctionCallInfo fcinfo, const char *fname)
{
	MemoryContext cxt;

	if (!AggCheckCallContext(fcinfo, &cxt))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("%s can only be called as part of an aggregate", fname)));
	return cxt;
}

static void
cfagg_fpr_mismatch(double a, double b)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("cf_agg needs the same false-positive rate for every row"),
			 errdetail("Rows gave %g and %g.", a, b)));
}

/* all rows of one cf_agg must give the same capacity */
static void
cfagg_capacity_mismatch(uint64 a, uint64 b)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("cf_agg needs the same capacity for every row"),
			 errdetail("Rows gave " UINT64_FORMAT " and " UINT64_FORMAT ".", a, b)));
}

/*
 * The transition: the first row, a row whose fpr or capacity differs (an
 * error), and NULLs before any value take cfagg_trans_slow, out of line,
 * so that the common row's path stays short.
 */
static pg_noinline Datum
cfagg_trans_slow(FunctionCallInfo fcinfo, double fpr, uint64 capacity)
{
	CfAggState *st = PG_ARGISNULL(0) ? NULL : (CfAggState *) PG_GETARG_POINTER(0);
	CfAggCache *cache = cfagg_cache(fcinfo);
	MemoryContext cxt = NULL;
	uint64		h;

	/* an internal state only ever comes from an aggregate: check once */
	if (st == NULL)
		cxt = cfagg_context(fcinfo, "cf_agg_trans");
	if (st == NULL || st->fpr != fpr)
	{
		cfagg_check_fpr(fpr);
		if (st != NULL)
			cfagg_fpr_mismatch(st->fpr, fpr);
	}
	if (st != NULL && st->capacity != capacity)
		cfagg_capacity_mismatch(st->capacity, capacity);
	if (PG_ARGISNULL(1))
	{
		if (st == NULL)
			PG_RETURN_NULL();
		PG_RETURN_POINTER(st);
	}
	h = cf_hash_datum(cfagg_hashinfo(fcinfo, cache), PG_GETARG_DATUM(1), CF_HASHING_V2);
	if (st == NULL)
		st = cfagg_new(cxt, fpr, capacity);
	cfagg_add(st, h, cache);
	PG_RETURN_POINTER(st);
}

static inline Datum
cfagg_trans_common(FunctionCallInfo fcinfo, double fpr, uint64 capacity)
{
	CfAggState *st;
	CfAggCache *cache;

	if (unlikely(PG_ARGISNULL(0)))
		return cfagg_trans_slow(fcinfo, fpr, capacity);
	st = (CfAggState *) PG_GETARG_POINTER(0);
	if (unlikely(st->fpr != fpr || st->capacity != capacity))
		return cfagg_trans_slow(fcinfo, fpr, capacity);
	if (PG_ARGISNULL(1))
		PG_RETURN_POINTER(st);
	cache = cfagg_cache(fcinfo);
	cfagg_add(st, cf_hash_datum(cfagg_hashinfo(fcinfo, cache), PG_GETARG_DATUM(1), CF_HASHING_V2),
			  cache);
	PG_RETURN_POINTER(st);
}

/* ---------------------------------------------------------------------
 * building the filter
 * ------------------------------------------------------------------- */

/*
 * The one-at-a-time fallback: inserts the n sorted hashes of runs into a
 * filter of the given capacity, which grows as needed, so nothing is lost.
 */
static struct varlena *
cfagg_fill(const cf_run *runs, size_t nruns, uint64 n, uint64 capacity, double fpr)
{
	cf_params	p;
	cf_filter	f;
	struct varlena *v;

	cfpg_params(&p, capacity, fpr);
	v = cfpg_create(&p);
	cfpg_open(&f, v);
	for (size_t r = 0; r < nruns; r++)
		for (size_t i = 0; i < runs[r].n; i++)
		{
			char		err[CF_ERRLEN];

			if ((i & (CFAGG_FILL_CHUNK - 1)) == 0)
				CHECK_FOR_INTERRUPTS();
			if (cfpg_insert(&f, &v, runs[r].h[i]) != CF_OK)
			{
				if (cf_grow_size(&f, err, sizeof(err)) != 0)
					strlcpy(err, "growth limit reached", sizeof(err));
				ereport(ERROR,
						(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
						 errmsg("cf_agg cannot build a filter of " UINT64_FORMAT " distinct values", n),
						 errdetail("%s", cfpg_sentence(err))));
			}
		}
	return v;
}

/*
 * The filter for the state's sorted distinct hashes: capacity n + n/16
 * unless the call gave one, so a large filter sits at 94% of the core's
 * design load (a load of 0.90 with buckets of 4).  That costs 6% more bytes
 * than capacity n, and buys a faster build (fewer items wait for a second
 * round; docs/performance.md, "cf_agg's design figures") and room for n/16
 * more cf_adds before the filter grows.  The core's bulk build
 * (cf_build_runs) places them all in one sub-filter; its input is the
 * sorted set, so the filter depends on the set alone.  Small filters (a few
 * buckets) now and then do not fit at the first size: 1 in 6,000 random
 * sets of 1 to 3,000 values (test_build_small_sets; 15 at capacity n), and
 * none at n + n/16 + n/25 + 8, so that is the one rebuild.  If even that
 * fails, or a given capacity is too small, the hashes go in one at a time
 * and the filter grows into more sub-filters: no value is ever lost.
 */
static struct varlena *
cfagg_build(CfAggState *st, CfAggCache *cache, const cf_run *runs, size_t nruns, uint64 n)
{
	uint64		sizes[2];
	int			nsizes = 0;

	if (st->capacity > 0)
		sizes[nsizes++] = st->capacity;
	else
	{
		sizes[nsizes++] = n + n / 16;
		sizes[nsizes++] = n + n / 16 + n / 25 + 8;
	}
	for (int k = 0; k < nsizes; k++)
	{
		cf_params	p;
		cf_filter	f;
		struct varlena *v;
		size_t		worklen;

		cfpg_params(&p, sizes[k], st->fpr);
		v = cfpg_create(&p);
		cfpg_open(&f, v);
		worklen = cf_build_work_size(&f, n);
		if (cf_build_runs(&f, runs, nruns,
						  cfagg_buffer(cache, &cache->scratch, &cache->scratch_len,
									   (worklen + 7) / sizeof(uint64)),
						  worklen))
			return v;
		pfree(v);
	}
	return cfagg_fill(runs, nruns, n, sizes[nsizes - 1], st->fpr);
}

/* ---------------------------------------------------------------------
 * cf_agg
 * ------------------------------------------------------------------- */

/* cf_agg(value) transition: remembers the value's hash */
PG_FUNCTION_INFO_V1(cf_agg_trans);
Datum
cf_agg_trans(PG_FUNCTION_ARGS)
{
	return cfagg_trans_common(fcinfo, CF_DEFAULT_FPR, 0);
}

/* cf_agg(value, fpr) transition: the same with an explicit fpr */
PG_FUNCTION_INFO_V1(cf_agg_trans_fpr);
Datum
cf_agg_trans_fpr(PG_FUNCTION_ARGS)
{
	if (PG_ARGISNULL(2))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("cf_agg false-positive rate must not be null")));
	return cfagg_trans_common(fcinfo, PG_GETARG_FLOAT8(2), 0);
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
	if (PG_ARGISNULL(2) || PG_ARGISNULL(3))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("cf_agg false-positive rate and capacity must not be null")));
	/* checked on every row: cheap, and a per-row value must be in range too */
	cfagg_check_fpr(PG_GETARG_FLOAT8(2));
	cfagg_check_capacity(PG_GETARG_INT64(3), PG_GETARG_FLOAT8(2));
	return cfagg_trans_common(fcinfo, PG_GETARG_FLOAT8(2), (uint64) PG_GETARG_INT64(3));
}

/*
 * cf_agg final: the filter of the distinct hashes, inserted in sorted order.
 * It sorts the state in place, which keeps it a valid state.
 */
/*
 * Records the value kind of the aggregated column in the new filter v (the
 * final function sees the column's type only through the Aggref).
 */
static struct varlena *
cfagg_set_kind(FunctionCallInfo fcinfo, struct varlena *v)
{
	Aggref	   *aggref = AggGetAggref(fcinfo);
	cf_filter	f;

	if (aggref == NULL || aggref->aggargtypes == NIL)
		return v;
	cfpg_open(&f, v);
	cf_set_kind(&f, (uint32) cf_type_value_kind(linitial_oid(aggref->aggargtypes)));
	return v;
}

PG_FUNCTION_INFO_V1(cf_agg_final);
Datum
cf_agg_final(PG_FUNCTION_ARGS)
{
	CfAggState *st;
	CfAggCache *cache = cfagg_cache(fcinfo);
	const cf_run *runs;
	size_t		nruns;
	uint64		n;

	cfagg_context(fcinfo, "cf_agg_final");
	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	st = (CfAggState *) PG_GETARG_POINTER(0);
	if (cfagg_held(st) == 0)
		PG_RETURN_NULL();
	runs = cfagg_sorted(st, cache, &nruns, &n);
	PG_RETURN_CUCKOOFILTER_P(cfagg_set_kind(fcinfo, cfagg_build(st, cache, runs, nruns, n)));
}

/* cf_agg combine: the union of two states (either may be NULL) */
PG_FUNCTION_INFO_V1(cf_agg_combine);
Datum
cf_agg_combine(PG_FUNCTION_ARGS)
{
	MemoryContext cxt = cfagg_context(fcinfo, "cf_agg_combine");
	CfAggState *a = PG_ARGISNULL(0) ? NULL : (CfAggState *) PG_GETARG_POINTER(0);
	CfAggState *b = PG_ARGISNULL(1) ? NULL : (CfAggState *) PG_GETARG_POINTER(1);
	CfAggCache *cache = cfagg_cache(fcinfo);

	if (b == NULL || cfagg_held(b) == 0)
	{
		if (a == NULL)
			PG_RETURN_NULL();
		PG_RETURN_POINTER(a);
	}
	/* b may live in another node's memory: copy it, never keep it */
	if (a == NULL)
		a = cfagg_new(cxt, b->fpr, b->capacity);
	if (a->fpr != b->fpr)
		cfagg_fpr_mismatch(a->fpr, b->fpr);
	if (a->capacity != b->capacity)
		cfagg_capacity_mismatch(a->capacity, b->capacity);
	if (b->form == CFAGG_FORM_ARRAY)
	{
		/*
		 * A large state (a worker's, deserialized): its blocks are copied
		 * whole, then the limit is checked once.
		 */
		size_t		nruns;
		uint64		n;
		const cf_run *runs = cfagg_runs(b, cache, &nruns, &n);

		if (a->form != CFAGG_FORM_ARRAY)
			cfagg_to_array(a, cxt);
		for (size_t r = 0; r < nruns; r++)
			cfagg_array_append(a, runs[r].h, runs[r].n, false);
		if (a->n >= a->cap && nruns > 0)
			cfagg_make_room(a, cache, runs[nruns - 1].h[0]);
	}
	else
		cfagg_add_state(a, b, cache);
	PG_RETURN_POINTER(a);
}

/* cf_agg serialize: fpr and the sorted distinct hashes, little-endian */
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

	cfagg_context(fcinfo, "cf_agg_serial");
	st = (CfAggState *) PG_GETARG_POINTER(0);
	runs = cfagg_sorted(st, cfagg_cache(fcinfo), &nruns, &n);
	if (n > CFAGG_MAX_SERIAL_HASHES)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("cf_agg state of " UINT64_FORMAT " distinct values is too large to pass between parallel workers", n),
				 errhint("Run the query with max_parallel_workers_per_gather = 0.")));
	out = palloc(VARHDRSZ + CFAGG_SERIAL_HEADER + (Size) n * sizeof(uint64));
	SET_VARSIZE(out, VARHDRSZ + CFAGG_SERIAL_HEADER + (Size) n * sizeof(uint64));
	p = (uint8 *) VARDATA(out);
	memcpy(&bits, &st->fpr, sizeof(bits));
	cfagg_put_le64s(p, &bits, 1);
	cfagg_put_le64s(p + 8, &st->capacity, 1);
	p += CFAGG_SERIAL_HEADER;
	for (size_t r = 0; r < nruns; r++)
	{
		cfagg_put_le64s(p, runs[r].h, runs[r].n);
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
	size_t		n;
	CfAggState *st;

	cfagg_context(fcinfo, "cf_agg_deserial");
	in = PG_GETARG_BYTEA_PP(0);
	len = VARSIZE_ANY_EXHDR(in);
	p = (const uint8 *) VARDATA_ANY(in);
	if (len < CFAGG_SERIAL_HEADER || (len - CFAGG_SERIAL_HEADER) % sizeof(uint64) != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("invalid cf_agg state"),
				 errdetail("A state is 16 bytes plus 8 per value, not %zu bytes.", len)));
	cfagg_get_le64s(&bits, p, 1);
	memcpy(&fpr, &bits, sizeof(fpr));
	cfagg_check_fpr(fpr);
	cfagg_get_le64s(&capacity, p + 8, 1);
	if (capacity > 0)
		cfagg_check_capacity(capacity > PG_INT64_MAX ? -1 : (int64) capacity, fpr);
	n = (len - CFAGG_SERIAL_HEADER) / sizeof(uint64);
	p += CFAGG_SERIAL_HEADER;

	/*
	 * In the current (per-tuple) context: the combine function reads it and
	 * never keeps it.  An ARRAY state of the hashes as they are: nothing
	 * about them (sorted, distinct) is trusted.
	 */
	st = cfagg_new(CurrentMemoryContext, fpr, capacity);
	cfagg_to_array(st, CurrentMemoryContext);
	cfagg_raise_limit(st, n);
	cfagg_array_append(st, p, n, true);
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
	/* the NOTICE once, when the rate goes over */
	struct varlena *v = cfpg_union_args(fcinfo, "cf_union_agg cannot combine these cuckoo filters",
										true);

	PG_RETURN_CUCKOOFILTER_P(v);
}

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
 * all little-endian.  Written states hold their hashes sorted and distinct;
 * read states are trusted for neither.  In an aggregate a group's state
 * starts as a small flat value whose hashes are kept sorted and distinct
 * (flag CFAS_FLAG_OURS, never written out), with room for a few more: a
 * value is found by binary search and a new one inserted in place.  When
 * it is full it is copied into one of twice the size (chunks of 256 bytes
 * to 2 kB), and past CFAS_FLAT_MAX hashes it becomes an expanded object
 * that wraps the CfAggState above, also changed in place: the executor
 * keeps a read-write expanded object whose context is a child of the
 * aggregate context instead of copying it.  A group of 10 values costs one
 * 256-byte chunk, of 100 one 1 kB chunk.
 * ------------------------------------------------------------------- */

#define CFAS_VERSION	1
#define CFAS_HEADER		24
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
cfas_get32(const uint8 *p)
{
	return (uint32) p[0] | (uint32) p[1] << 8 | (uint32) p[2] << 16 | (uint32) p[3] << 24;
}

static inline void
cfas_put32(uint8 *p, uint32 x)
{
	p[0] = (uint8) x;
	p[1] = (uint8) (x >> 8);
	p[2] = (uint8) (x >> 16);
	p[3] = (uint8) (x >> 24);
}

static void
cfas_put_header(uint8 *p, uint8 kind, uint8 hashing, uint32 n, double fpr, uint64 capacity)
{
	uint64		bits;

	p[0] = CFAS_VERSION;
	p[1] = kind;
	p[2] = hashing;
	p[3] = 0;
	cfas_put32(p + 4, n);
	memcpy(&bits, &fpr, sizeof(bits));
	cfagg_put_le64s(p + 8, &bits, 1);
	cfagg_put_le64s(p + 16, &capacity, 1);
}

/* the header of a flat state whose bytes were checked (or written by us) */
static void
cfas_read_header(const struct varlena *v, CfAggFlat *fl)
{
	const uint8 *p = (const uint8 *) VARDATA(v);
	uint64		bits;

	fl->kind = p[1];
	fl->hashing = p[2];
	fl->n = cfas_get32(p + 4);
	cfagg_get_le64s(&bits, p + 8, 1);
	memcpy(&fl->fpr, &bits, sizeof(fl->fpr));
	cfagg_get_le64s(&fl->capacity, p + 16, 1);
	fl->hashes = p + CFAS_HEADER;
	fl->slots = (VARSIZE(v) - VARHDRSZ - CFAS_HEADER) / sizeof(uint64);
}

/*
 * Checks the bytes of a flat state from outside (text or binary input);
 * false after reporting to escontext.  The hashes can be any values.
 */
static bool
cfas_validate(const uint8 *p, size_t len, int badcode, Node *escontext)
{
	uint64		bits;
	double		fpr;
	uint64		capacity;
	uint32		n;
	char		err[CF_ERRLEN];
	cf_params	params;

	if (len < CFAS_HEADER)
		ereturn(escontext, false,
				(errcode(badcode),
				 errmsg("invalid cf_aggstate"),
				 errdetail("A state has a header of %d bytes, this value has %zu bytes.",
						   CFAS_HEADER, len)));
	n = cfas_get32(p + 4);
	if (p[0] != CFAS_VERSION)
		ereturn(escontext, false,
				(errcode(badcode),
				 errmsg("unsupported cf_aggstate version %u", p[0]),
				 errdetail("This version of cuckoo reads version %d.", CFAS_VERSION),
				 errhint("Run the partial and the final aggregation with the same version of the cuckoo extension.")));
	if (p[2] != CF_HASHING_V2 || p[3] != 0 || p[1] == CF_KIND_ANY || cf_kind_name(p[1]) == NULL)
		ereturn(escontext, false,
				(errcode(badcode),
				 errmsg("invalid cf_aggstate"),
				 errdetail("The header has value kind %u, value hashing %u and flags %u.",
						   p[1], p[2], p[3])));
	if ((len - CFAS_HEADER) / sizeof(uint64) != n || (len - CFAS_HEADER) % sizeof(uint64) != 0)
		ereturn(escontext, false,
				(errcode(badcode),
				 errmsg("invalid cf_aggstate"),
				 errdetail("A state of %u hashes has %zu bytes, not %zu.",
						   n, (size_t) CFAS_HEADER + (size_t) n * sizeof(uint64), len)));
	cfagg_get_le64s(&bits, p + 8, 1);
	memcpy(&fpr, &bits, sizeof(fpr));
	cfagg_get_le64s(&capacity, p + 16, 1);
	cfpg_params(&params, capacity == 0 ? 1 : capacity, fpr);
	if (capacity > PG_INT64_MAX || cf_create_size(&params, err, sizeof(err)) == 0)
		ereturn(escontext, false,
				(errcode(badcode),
				 errmsg("invalid cf_aggstate"),
				 errdetail("The state asks for a false-positive rate of %g and a capacity of " UINT64_FORMAT ": %s",
						   fpr, capacity, cfpg_sentence(capacity > PG_INT64_MAX ? "capacity out of range" : err))));
	return true;
}

/* ---- the expanded form ---- */

static Size cfas_get_flat_size(ExpandedObjectHeader *eohptr);
static void cfas_flatten_into(ExpandedObjectHeader *eohptr, void *result, Size allocated_size);

static const ExpandedObjectMethods cfas_methods = {
	cfas_get_flat_size,
	cfas_flatten_into
};

/* the sorted distinct hashes of an expanded state, sized for its flat form */
static Size
cfas_get_flat_size(ExpandedObjectHeader *eohptr)
{
	CfAggExpanded *x = (CfAggExpanded *) eohptr;

	x->runs = cfagg_sorted(x->st, &x->cache, &x->nruns, &x->nsorted);
	if (x->nsorted > CFAS_MAX_HASHES || x->nsorted > PG_UINT32_MAX)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("cf_agg state of " UINT64_FORMAT " distinct values is too large to pass on", x->nsorted),
				 errdetail("A state travels as one value of at most 1 GB."),
				 errhint("Aggregate smaller parts, or use cf_agg without splitting the aggregate.")));
	return VARHDRSZ + CFAS_HEADER + (Size) x->nsorted * sizeof(uint64);
}

static void
cfas_flatten_into(ExpandedObjectHeader *eohptr, void *result, Size allocated_size)
{
	CfAggExpanded *x = (CfAggExpanded *) eohptr;
	struct varlena *v = (struct varlena *) result;
	uint8	   *p = (uint8 *) VARDATA(v);

	Assert(allocated_size == VARHDRSZ + CFAS_HEADER + x->nsorted * sizeof(uint64));
	SET_VARSIZE(v, allocated_size);
	cfas_put_header(p, x->kind, x->hashing, (uint32) x->nsorted, x->st->fpr, x->st->capacity);
	p += CFAS_HEADER;
	for (size_t r = 0; r < x->nruns; r++)
	{
		cfagg_put_le64s(p, x->runs[r].h, x->runs[r].n);
		p += x->runs[r].n * sizeof(uint64);
	}
}

/* an empty expanded state in a new child context of parent */
static CfAggExpanded *
cfas_new_expanded(MemoryContext parent, uint8 kind, uint8 hashing, double fpr, uint64 capacity)
{
	MemoryContext cxt = AllocSetContextCreate(parent, "cf_agg state", ALLOCSET_SMALL_SIZES);
	CfAggExpanded *x = MemoryContextAllocZero(cxt, sizeof(CfAggExpanded));

	EOH_init_header(&x->hdr, &cfas_methods, cxt);
	x->st = cfagg_new(cxt, fpr, capacity);
	x->kind = kind;
	x->hashing = hashing;
	x->cache.mcxt = cxt;
	return x;
}

/* adds the n little-endian hashes at p to an expanded state */
static void
cfas_add_le(CfAggExpanded *x, const uint8 *p, size_t n, CfAggCache *cache)
{
	CfAggState *st = x->st;

	if (n > CFAS_FLAT_MIN)
	{
		/* a partial's state, sorted: appended whole, then the limit checked */
		if (st->form != CFAGG_FORM_ARRAY)
			cfagg_to_array(st, CFAGG_CXT(st));
		cfagg_raise_limit(st, Min((uint64) st->n + n, (uint64) CFAGG_MAX_HASHES));
		cfagg_array_append(st, p, n, true);
		return;
	}
	for (size_t i = 0; i < n; i++)
		cfagg_add(st, cfagg_read_hash(p + i * sizeof(uint64), true), cache);
}

/* the expanded state of a datum: itself if it is one we may change */
static CfAggExpanded *
cfas_expanded_rw(Datum d)
{
	if (VARATT_IS_EXTERNAL_EXPANDED_RW(DatumGetPointer(d)))
	{
		ExpandedObjectHeader *eoh = DatumGetEOHP(d);

		if (eoh->eoh_methods == &cfas_methods)
			return (CfAggExpanded *) eoh;
	}
	return NULL;
}

/*
 * A state datum's flat form without copying when it is flat already (the
 * executor hands a transition function its own copy; an expanded one that
 * is not ours to change, read-only, is flattened).
 */
static struct varlena *
cfas_flat(Datum d)
{
	struct varlena *v = (struct varlena *) DatumGetPointer(d);

	if (VARATT_IS_EXTERNAL_EXPANDED(v) || VARATT_IS_EXTENDED(v))
		v = (struct varlena *) PG_DETOAST_DATUM(d);
	return v;
}

/* ---- the transition ---- */

/* the column's type: the call's, or the transition function's own */
static Oid
cfas_value_type(FunctionCallInfo fcinfo)
{
	Oid			typid = get_fn_expr_argtype(fcinfo->flinfo, 1);

	if (!OidIsValid(typid))
	{
		/* called without an expression (e.g. by Citus): the declared type */
		Oid		   *argtypes;
		int			nargs;

		(void) get_func_signature(fcinfo->flinfo->fn_oid, &argtypes, &nargs);
		if (nargs >= 2 && !IsPolymorphicType(argtypes[1]))
			typid = argtypes[1];
	}
	return typid;
}

static CfHashInfo *
cfas_hashinfo(FunctionCallInfo fcinfo, CfAggCache *c)
{
	if (!c->hi_valid)
	{
		Oid			typid = cfas_value_type(fcinfo);

		if (!OidIsValid(typid))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("could not determine the data type of the cf_agg input")));
		cf_hashinfo_init(&c->hi, typid, PG_GET_COLLATION(), c->mcxt);
		c->hi_valid = true;
	}
	return &c->hi;
}

/* a flat state of ours with room for slots hashes, holding the n at h (sorted) */
static struct varlena *
cfas_new_flat(MemoryContext cxt, const CfAggFlat *fl, const uint8 *h, uint32 n, size_t slots)
{
	Size		size = VARHDRSZ + CFAS_HEADER + slots * sizeof(uint64);
	struct varlena *v = MemoryContextAllocZero(cxt, size);
	uint8	   *p = (uint8 *) VARDATA(v);

	SET_VARSIZE(v, size);
	cfas_put_header(p, fl->kind, fl->hashing, n, fl->fpr, fl->capacity);
	p[3] = CFAS_FLAG_OURS;
	memcpy(p + CFAS_HEADER, h, (size_t) n * sizeof(uint64));
	return v;
}

/* an expanded state (child of aggcxt) holding the hashes of flat state v */
static CfAggExpanded *
cfas_expand(struct varlena *v, MemoryContext aggcxt, CfAggCache *cache)
{
	CfAggFlat	fl;
	CfAggExpanded *x;

	cfas_read_header(v, &fl);
	x = cfas_new_expanded(aggcxt, fl.kind, fl.hashing, fl.fpr, fl.capacity);
	cfas_add_le(x, fl.hashes, fl.n, cache);
	return x;
}

/*
 * Adds h to a flat state of ours in place: 1 if done (or h was there), 0 if
 * it is full, -1 if it is not ours to change (read from outside: neither
 * sorted nor distinct for sure) or too large to search.
 */
static int
cfas_small_add(struct varlena *v, uint64 h)
{
	uint8	   *p = (uint8 *) VARDATA(v);
	uint32		n = cfas_get32(p + 4);
	size_t		slots = (VARSIZE(v) - VARHDRSZ - CFAS_HEADER) / sizeof(uint64);
	uint8	   *hs = p + CFAS_HEADER;
	uint32		lo = 0,
				hi = n;

	if (p[3] != CFAS_FLAG_OURS || n > CFAS_FLAT_MAX)
		return -1;
	while (lo < hi)
	{
		uint32		mid = lo + (hi - lo) / 2;
		uint64		x = cfagg_read_hash(hs + (size_t) mid * sizeof(uint64), true);

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
	cfagg_put_le64s(hs + (size_t) lo * sizeof(uint64), &h, 1);
	cfas_put32(p + 4, n + 1);
	return 1;
}

/*
 * Adds h to the flat state v: in place if it can, else into a copy twice
 * the size (in the per-call context: the executor keeps a copy of the
 * result), else NULL: the state must expand.
 */
static struct varlena *
cfas_flat_add(struct varlena *v, bool ours, uint64 h)
{
	int			r;
	int			k;
	CfAggFlat	fl;
	struct varlena *w;

	if (!ours)
		return NULL;
	r = cfas_small_add(v, h);
	if (r > 0)
		return v;
	if (r < 0)
		return NULL;
	cfas_read_header(v, &fl);
	if (fl.slots >= CFAS_FLAT_MAX)
		return NULL;
	for (k = 9; CFAS_SLOTS(k) <= fl.slots; k++)
		;
	w = cfas_new_flat(CurrentMemoryContext, &fl, fl.hashes, fl.n, CFAS_SLOTS(k));
	(void) cfas_small_add(w, h);
	return w;
}

static void
cfas_check_same(const char *what, uint8 kind1, double fpr1, uint64 cap1,
				uint8 kind2, double fpr2, uint64 cap2)
{
	if (fpr1 != fpr2)
		cfagg_fpr_mismatch(fpr1, fpr2);
	if (cap1 != cap2)
		cfagg_capacity_mismatch(cap1, cap2);
	if (kind1 != kind2)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("%s cannot combine states of values of kind %s and %s",
						what, cf_kind_name(kind1), cf_kind_name(kind2))));
}

/*
 * The transition of the typed cf_agg overloads.  The common row (an
 * expanded state, or a small one with room) changes the state in place and
 * returns it; the first row makes a small state in the per-row context,
 * which the executor copies into the aggregate context.
 */
static inline Datum
cfas_trans_common(FunctionCallInfo fcinfo, double fpr, uint64 capacity)
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
				 errmsg("%s can only be called as part of an aggregate", "cf_agg_state_trans")));
	cache = cfagg_cache(fcinfo);
	if (PG_ARGISNULL(0))
	{
		cfagg_check_fpr(fpr);
		if (PG_ARGISNULL(1))
			PG_RETURN_NULL();
		h = cf_hash_datum(cfas_hashinfo(fcinfo, cache), PG_GETARG_DATUM(1), CF_HASHING_V2);
		fl.kind = (uint8) cfas_hashinfo(fcinfo, cache)->vkind;
		fl.hashing = CF_HASHING_V2;
		fl.fpr = fpr;
		fl.capacity = capacity;
		cfagg_put_le64s(hb, &h, 1);
		PG_RETURN_POINTER(cfas_new_flat(CurrentMemoryContext, &fl, hb, 1, CFAS_FLAT_MIN));
	}
	x = cfas_expanded_rw(PG_GETARG_DATUM(0));
	if (likely(x != NULL))
	{
		if (unlikely(x->st->fpr != fpr || x->st->capacity != capacity))
			cfas_check_same("cf_agg", 0, x->st->fpr, x->st->capacity, 0, fpr, capacity);
		if (!PG_ARGISNULL(1))
			cfagg_add(x->st, cf_hash_datum(cfas_hashinfo(fcinfo, cache), PG_GETARG_DATUM(1), CF_HASHING_V2),
					  cache);
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	}
	v = cfas_flat(PG_GETARG_DATUM(0));
	cfas_read_header(v, &fl);
	if (fl.fpr != fpr || fl.capacity != capacity)
		cfas_check_same("cf_agg", 0, fl.fpr, fl.capacity, 0, fpr, capacity);
	if (PG_ARGISNULL(1))
		PG_RETURN_POINTER(v);
	h = cf_hash_datum(cfas_hashinfo(fcinfo, cache), PG_GETARG_DATUM(1), CF_HASHING_V2);
	w = cfas_flat_add(v, v == (struct varlena *) DatumGetPointer(PG_GETARG_DATUM(0)), h);
	if (w != NULL)
		PG_RETURN_POINTER(w);
	x = cfas_expand(v, aggcxt, cache);
	cfagg_add(x->st, h, cache);
	PG_RETURN_DATUM(EOHPGetRWDatum(&x->hdr));
}

/* cf_agg(value) transition of the typed overloads */
PG_FUNCTION_INFO_V1(cf_agg_state_trans);
Datum
cf_agg_state_trans(PG_FUNCTION_ARGS)
{
	return cfas_trans_common(fcinfo, CF_DEFAULT_FPR, 0);
}

/* cf_agg(value, fpr) transition of the typed overloads */
PG_FUNCTION_INFO_V1(cf_agg_state_trans_fpr);
Datum
cf_agg_state_trans_fpr(PG_FUNCTION_ARGS)
{
	if (PG_ARGISNULL(2))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("cf_agg false-positive rate must not be null")));
	return cfas_trans_common(fcinfo, PG_GETARG_FLOAT8(2), 0);
}

/* cf_agg(value, fpr, capacity) transition of the typed overloads */
PG_FUNCTION_INFO_V1(cf_agg_state_trans_capacity);
Datum
cf_agg_state_trans_capacity(PG_FUNCTION_ARGS)
{
	if (PG_ARGISNULL(2) || PG_ARGISNULL(3))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("cf_agg false-positive rate and capacity must not be null")));
	cfagg_check_fpr(PG_GETARG_FLOAT8(2));
	cfagg_check_capacity(PG_GETARG_INT64(3), PG_GETARG_FLOAT8(2));
	return cfas_trans_common(fcinfo, PG_GETARG_FLOAT8(2), (uint64) PG_GETARG_INT64(3));
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
	struct varlena *va = NULL;
	struct varlena *vb;
	CfAggFlat	fb;
	CfAggExpanded *xb;

	if (!AggCheckCallContext(fcinfo, &aggcxt))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("%s can only be called as part of an aggregate", "cf_agg_state_combine")));
	cache = cfagg_cache(fcinfo);
	xa = cfas_expanded_rw(PG_GETARG_DATUM(0));
	xb = cfas_expanded_rw(PG_GETARG_DATUM(1));
	if (xa == NULL)
	{
		CfAggFlat	fa;

		va = cfas_flat(PG_GETARG_DATUM(0));
		cfas_read_header(va, &fa);
		if (xb != NULL)
			cfas_check_same("cf_agg", fa.kind, fa.fpr, fa.capacity, xb->kind, xb->st->fpr, xb->st->capacity);
	}
	else if (xb != NULL)
		cfas_check_same("cf_agg", xa->kind, xa->st->fpr, xa->st->capacity, xb->kind, xb->st->fpr, xb->st->capacity);
	if (xb != NULL)
	{
		/* another group's state in this process: copied, never kept */
		size_t		nruns;
		uint64		n;
		const cf_run *runs = cfagg_runs(xb->st, cache, &nruns, &n);

		if (xa == NULL)
			xa = cfas_expand(va, aggcxt, cache);
		for (size_t r = 0; r < nruns; r++)
			for (size_t k = 0; k < runs[r].n; k++)
				cfagg_add(xa->st, runs[r].h[k], cache);
		PG_RETURN_DATUM(EOHPGetRWDatum(&xa->hdr));
	}
	vb = cfas_flat(PG_GETARG_DATUM(1));
	cfas_read_header(vb, &fb);
	if (xa == NULL)
	{
		CfAggFlat	fa;
		uint32		k;

		cfas_read_header(va, &fa);
		cfas_check_same("cf_agg", fa.kind, fa.fpr, fa.capacity, fb.kind, fb.fpr, fb.capacity);
		/* two small states: a's in place while they fit */
		if (va == (struct varlena *) DatumGetPointer(PG_GETARG_DATUM(0)) && fb.n <= CFAS_FLAT_MIN)
		{
			for (k = 0; k < fb.n; k++)
				if (cfas_small_add(va, cfagg_read_hash(fb.hashes + (size_t) k * sizeof(uint64), true)) <= 0)
					break;
			if (k == fb.n)
				PG_RETURN_POINTER(va);
		}
		xa = cfas_expand(va, aggcxt, cache);
	}
	else
		cfas_check_same("cf_agg", xa->kind, xa->st->fpr, xa->st->capacity, fb.kind, fb.fpr, fb.capacity);
	cfas_add_le(xa, fb.hashes, fb.n, cache);
	if (xa->st->form == CFAGG_FORM_ARRAY && xa->st->n >= xa->st->cap && fb.n > 0)
		cfagg_make_room(xa->st, cache, cfagg_read_hash(fb.hashes, true));
	PG_RETURN_DATUM(EOHPGetRWDatum(&xa->hdr));
}

/* the sorted distinct hashes of a flat state, in the call site's buffers */
static const cf_run *
cfas_flat_sorted(const CfAggFlat *fl, CfAggCache *cache, size_t *nruns, uint64 *n)
{
	uint64	   *h = cfagg_buffer(cache, &cache->gather, &cache->gather_len, Max(fl->n, 1));

	cfagg_get_le64s(h, fl->hashes, fl->n);
	cf_sort_hashes(h, cfagg_buffer(cache, &cache->scratch, &cache->scratch_len, Max(fl->n, 1)), fl->n);
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
	CfAggCache *cache = cfagg_cache(fcinfo);
	CfAggExpanded *x = cfas_expanded_rw(PG_GETARG_DATUM(0));
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
		runs = cfagg_sorted(st, cache, &nruns, &n);
	}
	else
	{
		CfAggFlat	fl;

		cfas_read_header(cfas_flat(PG_GETARG_DATUM(0)), &fl);
		memset(&tmp, 0, sizeof(tmp));
		tmp.fpr = fl.fpr;
		tmp.capacity = fl.capacity;
		st = &tmp;
		kind = fl.kind;
		runs = cfas_flat_sorted(&fl, cache, &nruns, &n);
	}
	if (n == 0)
		PG_RETURN_NULL();
	v = cfagg_build(st, cache, runs, nruns, n);
	cfpg_open(&f, v);
	cf_set_kind(&f, kind);
	PG_RETURN_CUCKOOFILTER_P(v);
}

/* ---- type I/O ---- */

/* a state's canonical flat form: the sorted distinct hashes (a new value) */
static struct varlena *
cfas_canonical(Datum d, CfAggCache *cache)
{
	struct varlena *v = cfas_flat(d);
	CfAggFlat	fl;
	const cf_run *runs;
	size_t		nruns;
	uint64		n;
	struct varlena *out;

	if ((Pointer) v != DatumGetPointer(d))
		return v;				/* flattened from an expanded state: sorted */
	cfas_read_header(v, &fl);
	runs = cfas_flat_sorted(&fl, cache, &nruns, &n);
	out = palloc(VARHDRSZ + CFAS_HEADER + n * sizeof(uint64));
	SET_VARSIZE(out, VARHDRSZ + CFAS_HEADER + n * sizeof(uint64));
	cfas_put_header((uint8 *) VARDATA(out), fl.kind, fl.hashing, (uint32) n, fl.fpr, fl.capacity);
	cfagg_put_le64s((uint8 *) VARDATA(out) + CFAS_HEADER, runs[0].h, n);
	return out;
}

/* text input: base64 of the flat form, checked */
PG_FUNCTION_INFO_V1(cf_aggstate_in);
Datum
cf_aggstate_in(PG_FUNCTION_ARGS)
{
	char	   *str = PG_GETARG_CSTRING(0);	/* as written: no white space */
	size_t		len = strlen(str);
	Node	   *escontext = fcinfo->context;
	size_t		n;
	char		err[CF_ERRLEN];
	struct varlena *v;

	n = cf_base64_decoded_len(str, len);
	if (n == SIZE_MAX)
		ereturn(escontext, (Datum) 0,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("invalid input syntax for type %s", "cf_aggstate"),
				 errdetail("Base64 text has %zu characters, not a positive multiple of 4.", len)));
	if (n > MaxAllocSize - VARHDRSZ)
		ereturn(escontext, (Datum) 0,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("cf_aggstate text is too long")));
	v = (struct varlena *) palloc(VARHDRSZ + n);
	if (cf_base64_decode(str, len, (uint8 *) VARDATA(v), err, sizeof(err)) != n)
		ereturn(escontext, (Datum) 0,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("invalid input syntax for type %s", "cf_aggstate"),
				 errdetail("%s", cfpg_sentence(err))));
	SET_VARSIZE(v, VARHDRSZ + n);
	if (!cfas_validate((const uint8 *) VARDATA(v), n, ERRCODE_INVALID_TEXT_REPRESENTATION, escontext))
		return (Datum) 0;
	PG_RETURN_POINTER(v);
}

/* text output: base64 of the canonical flat form */
PG_FUNCTION_INFO_V1(cf_aggstate_out);
Datum
cf_aggstate_out(PG_FUNCTION_ARGS)
{
	CfAggCache	cache = {0};
	struct varlena *v;
	size_t		len;
	char	   *out;

	cache.mcxt = CurrentMemoryContext;
	v = cfas_canonical(PG_GETARG_DATUM(0), &cache);
	len = VARSIZE(v) - VARHDRSZ;
	if (cf_base64_len(len) + 1 > MaxAllocSize)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("cf_agg state is too large for its text form"),
				 errdetail("The state has %zu bytes; its base64 text would exceed the 1 GB limit of a value.", len),
				 errhint("Aggregate smaller parts.")));
	out = palloc(cf_base64_len(len) + 1);
	cf_base64_encode((const uint8 *) VARDATA(v), len, out);
	PG_RETURN_CSTRING(out);
}

/* binary input: the flat form, checked */
PG_FUNCTION_INFO_V1(cf_aggstate_recv);
Datum
cf_aggstate_recv(PG_FUNCTION_ARGS)
{
	StringInfo	buf = (StringInfo) PG_GETARG_POINTER(0);
	Node	   *escontext = fcinfo->context;
	size_t		n = (size_t) (buf->len - buf->cursor);
	struct varlena *v;

	if (!cfas_validate((const uint8 *) buf->data + buf->cursor, n,
					   ERRCODE_INVALID_BINARY_REPRESENTATION, escontext))
		return (Datum) 0;
	v = (struct varlena *) palloc(VARHDRSZ + n);
	SET_VARSIZE(v, VARHDRSZ + n);
	pq_copymsgbytes(buf, VARDATA(v), (int) n);
	PG_RETURN_POINTER(v);
}

/* binary output: the canonical flat form */
PG_FUNCTION_INFO_V1(cf_aggstate_send);
Datum
cf_aggstate_send(PG_FUNCTION_ARGS)
{
	CfAggCache	cache = {0};
	struct varlena *v;
	StringInfoData buf;

	cache.mcxt = CurrentMemoryContext;
	v = cfas_canonical(PG_GETARG_DATUM(0), &cache);
	pq_begintypsend(&buf);
	pq_sendbytes(&buf, VARDATA(v), (int) (VARSIZE(v) - VARHDRSZ));
	PG_RETURN_BYTEA_P(pq_endtypsend(&buf));
}
