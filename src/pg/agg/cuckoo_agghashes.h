/*
 * cuckoo_agghashes.h - the distinct 64-bit hashes an aggregate collects, and the
 * filter built from them: what cf_agg's two state types share.
 */
#ifndef CUCKOO_HASHSET_H
#define CUCKOO_HASHSET_H

#include "port/pg_bswap.h"

#include "cuckoo_hashval.h"

CFPG_HIDDEN_BEGIN

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
 * them (see cfpg_agg_build).  Its input depends only on the set of values, not on
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
extern int	cfpg_agg_probe_limit;
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
	uint8		encoding;		/* the filter's table encoding (CF_ENC_*) */
	double		fpr;			/* target false-positive rate */
	uint64		capacity;		/* filter capacity; 0: sized by the data */
	union
	{
		uint64		inline_buf[CFAGG_INLINE];	/* INLINE */
		CfAggArray *arr;		/* ARRAY */
	}			u;
} CfAggState;

StaticAssertDecl(sizeof(CfAggState) == 64, "CfAggState should stay one 64-byte chunk");

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

/*
 * The aggregate memory context a state lives in, where its arrays go too:
 * looked up only when something must be allocated.
 */
#define CFAGG_CXT(st)	GetMemoryChunkContext(st)

/* The per-call-site cache in fn_extra, made on first use (out of line). */
extern CfAggCache *cfpg_agg_cache_make(FunctionCallInfo fcinfo);

/* The per-call-site cache in fn_extra: inline, every row asks for it. */
static inline CfAggCache *
cfpg_agg_cache(FunctionCallInfo fcinfo)
{
	CfAggCache *c = (CfAggCache *) fcinfo->flinfo->fn_extra;

	return likely(c != NULL) ? c : cfpg_agg_cache_make(fcinfo);
}
/* A buffer of at least m elements in the cache, kept for the next call. */
extern uint64 *cfpg_agg_buffer(CfAggCache *c, uint64 **buf, size_t *len, size_t m);
/* Raises unless fpr is a rate a filter can be made for. */
extern void cfpg_agg_check_fpr(double fpr);
/* An empty (INLINE) state in cxt. */
extern CfAggState *cfpg_agg_new(MemoryContext cxt, double fpr, uint64 capacity);
/* Raises unless capacity (given to cf_agg) is 1 .. what a filter can hold. */
extern void cfpg_agg_check_capacity(int64 capacity, double fpr);
/* ARRAY: a new last block for part p (out of line: the rare path). */
extern void cfpg_agg_new_block(CfAggState *st, int p);
/* ARRAY: raises the limit to at least need hashes. */
extern void cfpg_agg_raise_limit(CfAggState *st, uint64 need);
/* ARRAY: the limit was reached: drops duplicates, or doubles it. */
extern void cfpg_agg_make_room(CfAggState *st, CfAggCache *cache, uint64 h);
/* ARRAY: appends n hashes (little-endian bytes if le); no limit check. */
extern void cfpg_agg_array_append(CfAggState *st, const void *src, size_t n, bool le);
/* Turns an INLINE or SET state into an ARRAY state of the same hashes. */
extern void cfpg_agg_to_array(CfAggState *st, MemoryContext cxt);
/* Adds h now, whatever the form (the slow path of cfpg_agg_add). */
extern void cfpg_agg_add_now(CfAggState *st, uint64 h, CfAggCache *cache);
/* SET: probes the waiting batch into the table. */
extern void cfpg_agg_flush(CfAggState *st, CfAggCache *cache);
/* The hashes held, as runs in the cache's buffers; *n how many. */
extern const cf_run *cfpg_agg_runs(const CfAggState *st, CfAggCache *cache, size_t *nruns, uint64 *n);
/* Adds every hash of src to dst. */
extern void cfpg_agg_add_state(CfAggState *dst, const CfAggState *src, CfAggCache *cache);
/* The distinct hashes, sorted, as runs (an ARRAY state compacts in place). */
extern const cf_run *cfpg_agg_sorted(CfAggState *st, CfAggCache *cache, size_t *nruns, uint64 *n);
/*
 * The hash info of the aggregated column (argument 1), cached: its type from
 * the call, or, called without an expression (Citus), from the transition
 * function's declared argument.
 */
extern CfHashInfo *cfpg_agg_hashinfo_make(FunctionCallInfo fcinfo, CfAggCache *c);

static inline CfHashInfo *
cfpg_agg_hashinfo(FunctionCallInfo fcinfo, CfAggCache *c)
{
	return likely(c->hi_valid) ? &c->hi : cfpg_agg_hashinfo_make(fcinfo, c);
}
/* The aggregate context; raises if fname was not called as an aggregate. */
extern MemoryContext cfpg_agg_context(FunctionCallInfo fcinfo, const char *fname);
/*
 * The rate and capacity of a cf_agg row with nparams of them after the value
 * (0: the defaults, 1: fpr, 2: fpr and capacity), checked; NULLs raise.
 */
extern void cfpg_agg_row_params(FunctionCallInfo fcinfo, int nparams, double *fpr, uint64 *capacity);
/* Raises: rows of one cf_agg gave rates a and b. */
extern void cfpg_agg_fpr_mismatch(double a, double b);
/* Raises: rows of one cf_agg gave capacities a and b. */
extern void cfpg_agg_capacity_mismatch(uint64 a, uint64 b);
/*
 * A new filter of parameters p with the hashes of runs inserted one at a
 * time, in order (it grows as p allows), opened in *f; NULL when one cannot
 * be stored, with why in err (a sentence's start, CF_ERRLEN bytes).
 */
extern struct varlena *cfpg_agg_insert_runs(const cf_params *p, const cf_run *runs, size_t nruns,
										 cf_filter *f, char *err);
/* The filter of n sorted distinct hashes, sized as cf_agg sizes it. */
extern struct varlena *cfpg_agg_build(CfAggState *st, CfAggCache *cache, const cf_run *runs, size_t nruns, uint64 n);

/* ---- the hot path, inline: one hash added per row ---- */

/* writes n uint64s little-endian to dst (unaligned) */
static inline void
cfpg_agg_put_le64s(uint8 *dst, const uint64 *src, size_t n)
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
static inline void
cfpg_agg_get_le64s(uint64 *dst, const uint8 *src, size_t n)
{
	memcpy(dst, src, n * sizeof(uint64));
#ifdef WORDS_BIGENDIAN
	for (size_t i = 0; i < n; i++)
		dst[i] = pg_bswap64(dst[i]);
#endif
}

static inline int
cfpg_agg_part(uint64 h)
{
	return (int) (h >> (64 - CFAGG_PART_BITS));
}

/* the hash at s: little-endian bytes if le, else a uint64 (unaligned) */
static inline uint64
cfpg_agg_read_hash(const uint8 *s, bool le)
{
	uint64		h;

	if (le)
		cfpg_agg_get_le64s(&h, s, 1);
	else
		memcpy(&h, s, sizeof(h));
	return h;
}

/* the home slot of h in a table of cap slots: its top bits, scaled */
static inline uint32
cfpg_agg_home(uint64 h, uint32 cap)
{
	return (uint32) (((h >> 32) * cap) >> 32);
}

static inline uint32
cfpg_agg_set_home(const CfAggState *st, uint64 h)
{
	return cfpg_agg_home(h, st->cap);
}

/* the hashes a SET state holds that are not in its table yet */
static inline uint64 *
cfpg_agg_batch(const CfAggState *st)
{
	return st->hashes + st->cap;
}

/* how many the batch holds: a small table (a small group) has a small one */
static inline uint32
cfpg_agg_batch_cap(uint32 setcap)
{
	return Min(CFAGG_BATCH, setcap / 4);
}

/* hashes held, an upper bound of the distinct ones */
static inline uint64
cfpg_agg_held(const CfAggState *st)
{
	return (uint64) st->n + (st->form == CFAGG_FORM_SET ? st->nbatch : 0);
}

/* appends h to its part of an ARRAY state, whatever the limit */
static inline void
cfpg_agg_array_put(CfAggState *st, uint64 h)
{
	CfAggArray *a = st->u.arr;
	int			p = cfpg_agg_part(h);

	if (unlikely(a->pos[p] == a->end[p]))
		cfpg_agg_new_block(st, p);
#if defined(__GNUC__)
	/* the part's next cache line, for writing: 256 streams defeat hardware prefetch */
	__builtin_prefetch(a->pos[p] + 8, 1);
#endif
	*a->pos[p]++ = h;
	st->n++;
}

/* cfpg_agg_array_put, and the limit, checked when h's part needs a new block */
static inline void
cfpg_agg_array_add(CfAggState *st, uint64 h, CfAggCache *cache)
{
	CfAggArray *a = st->u.arr;
	int			p = cfpg_agg_part(h);

	if (unlikely(a->pos[p] == a->end[p]) && st->n >= st->cap)
		cfpg_agg_make_room(st, cache, h);
	cfpg_agg_array_put(st, h);
}

/* adds the hash h to the state: a SET state batches it */
static inline void
cfpg_agg_add(CfAggState *st, uint64 h, CfAggCache *cache)
{
	if (likely(st->form == CFAGG_FORM_SET))
	{
#if defined(__GNUC__)
		__builtin_prefetch(&st->hashes[cfpg_agg_set_home(st, h)]);
#endif
		cfpg_agg_batch(st)[st->nbatch++] = h;
		if (st->nbatch == cfpg_agg_batch_cap(st->cap))
			cfpg_agg_flush(st, cache);
		return;
	}
	if (likely(st->form == CFAGG_FORM_ARRAY))
	{
		cfpg_agg_array_add(st, h, cache);
		return;
	}
	cfpg_agg_add_now(st, h, cache);
}

CFPG_HIDDEN_END

#endif							/* CUCKOO_HASHSET_H */
