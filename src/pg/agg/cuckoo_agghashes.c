/*
 * cuckoo_agghashes.c - the distinct 64-bit hashes an aggregate collects (a few
 * inline, a hash set, then parts sorted in cache) and the filter built from them.
 */
#include "postgres.h"

#include "miscadmin.h"
#include "catalog/pg_type.h"
#include "nodes/primnodes.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"

#include "cuckoo_agghashes.h"

#define CFAGG_FILL_CHUNK	4096	/* inserts between interrupt checks */

/* cuckoo.agg_probe_limit (cuckoo_agghashes.h) */
int			cfpg_agg_probe_limit = 64;



CfAggCache *
cfpg_agg_cache_make(FunctionCallInfo fcinfo)
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
uint64 *
cfpg_agg_buffer(CfAggCache *c, uint64 **buf, size_t *len, size_t m)
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

/* raises (cfpg_check_params) unless such a filter can be made */
static void
cfpg_agg_check_params(uint64 capacity, double fpr)
{
	cf_params	p;

	cfpg_params(&p, capacity, fpr);
	(void) cfpg_check_params(&p);
}

void
cfpg_agg_check_fpr(double fpr)
{
	cfpg_agg_check_params(1, fpr);
}

CfAggState *
cfpg_agg_new(MemoryContext cxt, double fpr, uint64 capacity)
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
void
cfpg_agg_check_capacity(int64 capacity, double fpr)
{
	cfpg_check_capacity(capacity);
	cfpg_agg_check_params((uint64) capacity, fpr);
}

/* ---- ARRAY ---- */


/* hashes in blk, one of part p's blocks (the last one fills up to pos) */
static inline uint32
cfpg_agg_block_len(const CfAggArray *a, int p, const CfAggBlock *blk)
{
	return blk == a->last[p] ? (uint32) (a->pos[p] - blk->h) : blk->n;
}

/* hashes in part p */
static size_t
cfpg_agg_part_size(const CfAggArray *a, int p)
{
	size_t		m = 0;

	for (const CfAggBlock *blk = a->first[p]; blk != NULL; blk = blk->next)
		m += cfpg_agg_block_len(a, p, blk);
	return m;
}

/* starts a new last block for part p, twice the size of the one before */
pg_noinline void
cfpg_agg_new_block(CfAggState *st, int p)
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
cfpg_agg_part_compact(CfAggState *st, CfAggCache *cache, int p)
{
	CfAggArray *a = st->u.arr;
	size_t		m = cfpg_agg_part_size(a, p),
				kept,
				k;
	uint64	   *buf,
			   *out;
	CfAggBlock *blk;

	if (m == 0)
		return 0;
	buf = cfpg_agg_buffer(cache, &cache->scratch, &cache->scratch_len, 2 * m);
	out = buf + m;
	m = 0;
	for (blk = a->first[p]; blk != NULL; blk = blk->next)
	{
		uint32		len = cfpg_agg_block_len(a, p, blk);

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
cfpg_agg_array_compact(CfAggState *st, CfAggCache *cache)
{
	CfAggArray *a = st->u.arr;
	size_t		largest = 0;

	if (a->sorted_n == st->n)
		return;
	/* the scratch at its largest from the start, so it is allocated once */
	for (int p = 0; p < CFAGG_NPARTS; p++)
		largest = Max(largest, cfpg_agg_part_size(a, p));
	(void) cfpg_agg_buffer(cache, &cache->scratch, &cache->scratch_len, 2 * largest);
	for (int p = 0; p < CFAGG_NPARTS; p++)
	{
		cfpg_agg_part_compact(st, cache, p);
		CHECK_FOR_INTERRUPTS();
	}
	a->sorted_n = st->n;
}

/* an ARRAY state holds at most CFAGG_MAX_HASHES */
static void
cfpg_agg_check_count(uint64 need)
{
	if (need > CFAGG_MAX_HASHES)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("cf_agg cannot hold more than %u distinct values", CFAGG_MAX_HASHES)));
}

/* raises the limit of an ARRAY state to at least need hashes */
void
cfpg_agg_raise_limit(CfAggState *st, uint64 need)
{
	uint64		limit = st->cap;

	if (need <= limit)
		return;
	cfpg_agg_check_count(need);
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
void
cfpg_agg_make_room(CfAggState *st, CfAggCache *cache, uint64 h)
{
	CfAggArray *a = st->u.arr;
	uint32		limit = st->cap;
	int			p = cfpg_agg_part(h);
	size_t		before = cfpg_agg_part_size(a, p);

	if (limit < CFAGG_MAX_HASHES && before >= CFAGG_SAMPLE_MIN &&
		cfpg_agg_part_compact(st, cache, p) >= 0.7 * before)
	{
		cfpg_agg_raise_limit(st, (uint64) limit + 1);
		return;
	}
	cfpg_agg_array_compact(st, cache);
	if (st->n > limit / 2)
		cfpg_agg_raise_limit(st, (uint64) limit + 1);
}

/*
 * Appends the n hashes at src (little-endian bytes if le, else uint64s) to
 * an ARRAY state, a run of one part at a time copied block by block: how a
 * worker's state, which comes sorted, joins the leader's.  No limit check.
 */
void
cfpg_agg_array_append(CfAggState *st, const void *src, size_t n, bool le)
{
	CfAggArray *a = st->u.arr;
	const uint8 *s = src;

	cfpg_agg_check_count((uint64) st->n + n);
	while (n > 0)
	{
		int			p;
		size_t		run = 1;

		/* the run of hashes of one part */
		p = cfpg_agg_part(cfpg_agg_read_hash(s, le));
		while (run < n && cfpg_agg_part(cfpg_agg_read_hash(s + run * sizeof(uint64), le)) == p)
			run++;
		n -= run;
		while (run > 0)
		{
			size_t		take;

			if (a->pos[p] == a->end[p])
				cfpg_agg_new_block(st, p);
			take = Min((size_t) (a->end[p] - a->pos[p]), run);
			if (le)
				cfpg_agg_get_le64s(a->pos[p], s, take);
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

/*
 * Is h in slot pos or the next of table t (mask = slots - 1)?  At most half
 * full, a present hash is one of the two 97% of the time: both are tested
 * at once, so that a column of repeated values takes a branch that is
 * nearly always predicted right.
 */
static inline bool
cfpg_agg_set_near(const uint64 *t, uint32 mask, uint32 pos, uint64 h)
{
	return (t[pos] == h) | (t[(pos + 1) & mask] == h);
}

/*
 * Adds h to a SET state's table; false (and nothing added) if h is 0, the
 * mark of a free slot, or if the probe ran past cfpg_agg_probe_limit slots,
 * which random hashes never do at half load but chosen values could.  The
 * caller then turns the state into an ARRAY, which takes any hash.
 */
static inline bool
cfpg_agg_set_add(CfAggState *st, uint64 h)
{
	uint64	   *t = st->hashes;
	uint32		mask = st->cap - 1;
	uint32		pos = cfpg_agg_set_home(st, h);

	if (unlikely(h == 0))
		return false;
	if (cfpg_agg_set_near(t, mask, pos, h) && cfpg_agg_probe_limit > 0)
		return true;
	for (int probe = 0; probe < cfpg_agg_probe_limit; probe++)
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

/*
 * Copies the hashes held by a SET or INLINE state into dst (which has room
 * for cfpg_agg_held); returns how many.  A SET state's batch may repeat some.
 */
static uint32
cfpg_agg_gather(const CfAggState *st, uint64 *dst)
{
	uint32		k = 0;

	/* memcpy of nothing: dst and the source may be NULL (an empty state) */
	if (st->form != CFAGG_FORM_SET)
	{
		if (st->n > 0)
			memcpy(dst, st->hashes, st->n * sizeof(uint64));
		return st->n;
	}
	for (uint32 i = 0; i < st->cap; i++)
		if (st->hashes[i] != 0)
			dst[k++] = st->hashes[i];
	if (st->nbatch > 0)
		memcpy(dst + k, cfpg_agg_batch(st), st->nbatch * sizeof(uint64));
	return k + st->nbatch;
}

/*
 * Turns an INLINE or SET state into an ARRAY state of the same hashes,
 * with a limit of twice as many.
 */
void
cfpg_agg_to_array(CfAggState *st, MemoryContext cxt)
{
	uint64		limit = CFAGG_SET_MIN_SLOTS;
	uint64	   *held = MemoryContextAlloc(cxt, (Size) Max(cfpg_agg_held(st), 1) * sizeof(uint64));
	uint32		n = cfpg_agg_gather(st, held);

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
		cfpg_agg_array_put(st, held[k]);
	pfree(held);
}

/*
 * Moves an INLINE or SET state's hashes into a SET table of newcap slots.
 * Turns it into an ARRAY state instead if the table would be too large, or
 * if a probe ran long.
 */
static void
cfpg_agg_to_set(CfAggState *st, uint32 newcap, MemoryContext cxt)
{
	uint64		held[CFAGG_INLINE];
	uint64	   *old = st->hashes;
	uint32		oldcap = st->cap;
	CfAggForm	oldform = st->form;
	uint32		n = st->n;
	bool		ok = true;

	if (newcap > CFAGG_SET_MAX_SLOTS)
	{
		cfpg_agg_to_array(st, cxt);
		return;
	}
	Assert(oldform == CFAGG_FORM_INLINE || st->nbatch == 0);
	if (oldform == CFAGG_FORM_INLINE)
		memcpy(held, old, n * sizeof(uint64));
	st->hashes = MemoryContextAllocZero(cxt, (Size) (newcap + cfpg_agg_batch_cap(newcap)) * sizeof(uint64));
	st->nbatch = 0;
	st->cap = newcap;
	st->form = CFAGG_FORM_SET;
	st->n = 0;
	if (oldform == CFAGG_FORM_INLINE)
		for (uint32 k = 0; k < n; k++)
			ok &= cfpg_agg_set_add(st, held[k]);
	else
	{
		for (uint32 i = 0; i < oldcap && ok; i++)
			if (old[i] != 0)
				ok = cfpg_agg_set_add(st, old[i]);
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
		cfpg_agg_to_array(st, cxt);
	}
}

/* adds the hash h to the state now, in whatever form it is */
pg_noinline void
cfpg_agg_add_now(CfAggState *st, uint64 h, CfAggCache *cache)
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
			cfpg_agg_to_set(st, CFAGG_SET_MIN_SLOTS, CFAGG_CXT(st));
			cfpg_agg_add_now(st, h, cache);
			return;
		case CFAGG_FORM_SET:
			if (likely(cfpg_agg_set_add(st, h)))
			{
				if (st->n > st->cap / 2)
					cfpg_agg_to_set(st, st->cap * 2, CFAGG_CXT(st));
				return;
			}
			cfpg_agg_to_array(st, CFAGG_CXT(st));
			/* FALLTHROUGH */
		case CFAGG_FORM_ARRAY:
			cfpg_agg_array_add(st, h, cache);
			return;
	}
}

/*
 * Probes a SET state's batch into its table, whose slots were prefetched
 * as the hashes came in; adding them may grow the table or turn the state
 * into an ARRAY, so the batch is copied out first.
 */
pg_noinline void
cfpg_agg_flush(CfAggState *st, CfAggCache *cache)
{
	uint64		batch[CFAGG_BATCH];
	uint32		nb;

	if (st->form != CFAGG_FORM_SET || st->nbatch == 0)
		return;
	nb = st->nbatch;
	memcpy(batch, cfpg_agg_batch(st), nb * sizeof(uint64));
	st->nbatch = 0;
	for (uint32 k = 0; k < nb;)
	{
		/*
		 * The common case in a tight loop: repeats, each in its home slot or
		 * the next (0 would match a free slot: cfpg_agg_set_add refuses it).
		 * The first hash that needs more takes the full path, which may
		 * change the table, and the loop starts over.
		 */
		if (st->form == CFAGG_FORM_SET && cfpg_agg_probe_limit > 0)
		{
			const uint64 *t = st->hashes;
			uint32		cap = st->cap;

			for (; k < nb; k++)
			{
				uint64		h = batch[k];

				if (h == 0 || !cfpg_agg_set_near(t, cap - 1, cfpg_agg_home(h, cap), h))
					break;
			}
			if (k == nb)
				break;
		}
		cfpg_agg_add_now(st, batch[k++], cache);
	}
}

/*
 * The hashes a state holds, as runs in the call site's buffers: an ARRAY
 * state's blocks part by part (sorted if the state is compacted), another
 * state's copied into one run.  Sets *n to how many hashes.
 */
const cf_run *
cfpg_agg_runs(const CfAggState *st, CfAggCache *cache, size_t *nruns, uint64 *n)
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
				cache->runs[k].n = cfpg_agg_block_len(a, p, blk);
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
		cache->runs[0].h = cfpg_agg_buffer(cache, &cache->gather, &cache->gather_len, cfpg_agg_held(st));
		cache->runs[0].n = cfpg_agg_gather(st, (uint64 *) cache->runs[0].h);
		*n = cache->runs[k++].n;
	}
	*nruns = k;
	return cache->runs;
}

/* adds every hash of src to dst */
void
cfpg_agg_add_state(CfAggState *dst, const CfAggState *src, CfAggCache *cache)
{
	size_t		nruns;
	uint64		n;
	const cf_run *runs = cfpg_agg_runs(src, cache, &nruns, &n);

	for (size_t r = 0; r < nruns; r++)
	{
		for (size_t k = 0; k < runs[r].n; k++)
			cfpg_agg_add(dst, runs[r].h[k], cache);
		CHECK_FOR_INTERRUPTS();
	}
}

/*
 * The state's distinct hashes, sorted, as runs: an ARRAY state is compacted
 * in place (it stays a valid state); another is copied into the call
 * site's buffer and sorted there.  Sets *n to how many.
 */
const cf_run *
cfpg_agg_sorted(CfAggState *st, CfAggCache *cache, size_t *nruns, uint64 *n)
{
	cf_run	   *runs;

	if (st->form == CFAGG_FORM_ARRAY)
	{
		cfpg_agg_array_compact(st, cache);
		return cfpg_agg_runs(st, cache, nruns, n);
	}
	runs = (cf_run *) cfpg_agg_runs(st, cache, nruns, n);
	cf_sort_hashes((uint64 *) runs[0].h, cfpg_agg_buffer(cache, &cache->scratch, &cache->scratch_len, *n), *n);
	runs[0].n = *n = cf_unique_hashes((uint64 *) runs[0].h, *n);
	return runs;
}

MemoryContext
cfpg_agg_context(FunctionCallInfo fcinfo, const char *fname)
{
	MemoryContext cxt;

	if (!AggCheckCallContext(fcinfo, &cxt))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("%s can only be called as part of an aggregate", fname)));
	return cxt;
}

void
cfpg_agg_fpr_mismatch(double a, double b)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("cf_agg needs the same false-positive rate for every row"),
			 errdetail("Rows gave %g and %g.", a, b)));
}

/* all rows of one cf_agg must give the same capacity */
void
cfpg_agg_capacity_mismatch(uint64 a, uint64 b)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("cf_agg needs the same capacity for every row"),
			 errdetail("Rows gave " UINT64_FORMAT " and " UINT64_FORMAT ".", a, b)));
}

/* ---------------------------------------------------------------------
 * building the filter
 * ------------------------------------------------------------------- */

struct varlena *
cfpg_agg_insert_runs(const cf_params *p, const cf_run *runs, size_t nruns, cf_filter *f, char *err)
{
	struct varlena *v = cfpg_create(p);

	cfpg_open(f, v);
	for (size_t r = 0; r < nruns; r++)
		for (size_t i = 0; i < runs[r].n; i++)
		{
			if ((i & (CFAGG_FILL_CHUNK - 1)) == 0)
				CHECK_FOR_INTERRUPTS();
			if (cfpg_insert(f, &v, runs[r].h[i]) != CF_OK)
			{
				if (cf_grow_size(f, err, CF_ERRLEN) != 0)
					strlcpy(err, "growth limit reached", CF_ERRLEN);
				return NULL;
			}
		}
	return v;
}

/*
 * cf_agg with a capacity too small for its n values grew into more
 * sub-filters: say what the filter became.
 */
static void
cfpg_agg_capacity_notice(const CfAggState *st, uint64 n, struct varlena *v)
{
	cf_filter	f;
	cf_stats	s;

	cfpg_open(&f, v);
	cf_get_stats(&f, &s);
	if (s.subfilters > 1)
		ereport(NOTICE,
				(errmsg("cf_agg capacity " UINT64_FORMAT " is too small for " UINT64_FORMAT " distinct values: the filter grew to %u sub-filters",
						st->capacity, n, s.subfilters),
				 errdetail("Its expected false-positive rate is %.2f%%, against a target of %.2f%%, and it takes %llu bytes.",
						   100.0 * s.fpr, 100.0 * s.target_fpr,
						   (unsigned long long) (s.bytes + VARHDRSZ)),
				 errhint("Give a capacity of at least the number of distinct values, or none: cf_agg(value, fpr) sizes the filter to them.")));
}

/* cf_agg_mem: a filter's buffer, the payload of a new varlena in the current context */
static void
cfpg_agg_release(void *p, void *ctx)
{
	(void) ctx;
	pfree((char *) p - VARHDRSZ);
}

/* cf_agg_mem: the bulk build's scratch, the call site's buffer (cache->scratch) */
static void *
cfpg_agg_scratch(size_t size, void *ctx)
{
	CfAggCache *cache = (CfAggCache *) ctx;

	return cfpg_agg_buffer(cache, &cache->scratch, &cache->scratch_len,
						   (size + sizeof(uint64) - 1) / sizeof(uint64));
}

/*
 * The filter for the state's n sorted distinct hashes: the core's cf_agg
 * build (cf_agg_build, cuckoo_handle.c, which says how it sizes and builds
 * it; cf_filter_build is the same for libcuckoo and Python), its memory
 * from the aggregate's: the filter a new varlena, the bulk build's scratch
 * the call site's buffer.
 */
struct varlena *
cfpg_agg_build(CfAggState *st, CfAggCache *cache, const cf_run *runs, size_t nruns, uint64 n)
{
	cf_agg_mem	mem = {cfpg_alloc_varlena, cfpg_agg_release, cfpg_agg_scratch, cache};
	cf_params	p;
	cf_filter	f;
	char		err[CF_ERRLEN];
	struct varlena *v;

	if (!cf_agg_build(&f, runs, nruns, n, st->capacity, st->fpr, st->encoding, &mem,
					  &p, err, sizeof(err)))
	{
		/* parameters the core refuses: cfpg_check_params's error */
		(void) cfpg_check_params(&p);
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("cf_agg cannot build a filter of " UINT64_FORMAT " distinct values", n),
				 errdetail("%s", cfpg_sentence(err))));
	}
	v = (struct varlena *) (f.buf - VARHDRSZ);
	Assert(VARSIZE(v) == VARHDRSZ + f.len);
	/* a given capacity too small: the filter grew (the bulk build makes one table) */
	if (st->capacity > 0 && f.nstages > 1)
		cfpg_agg_capacity_notice(st, n, v);
	return v;
}

void
cfpg_agg_row_params(FunctionCallInfo fcinfo, int nparams, double *fpr, uint64 *capacity)
{
	*fpr = CF_DEFAULT_FPR;
	*capacity = 0;
	if (nparams == 0)
		return;
	if (PG_ARGISNULL(2) || (nparams == 2 && PG_ARGISNULL(3)))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg(nparams == 1 ? "cf_agg false-positive rate must not be null"
						: "cf_agg false-positive rate and capacity must not be null")));
	*fpr = PG_GETARG_FLOAT8(2);
	if (nparams == 2)
	{
		/* checked on every row: cheap, and a per-row value must be in range too */
		cfpg_agg_check_fpr(*fpr);
		cfpg_agg_check_capacity(PG_GETARG_INT64(3), *fpr);
		*capacity = (uint64) PG_GETARG_INT64(3);
	}
}

/* the column's type: the call's, or the transition function's own */
static Oid
cfpg_agg_value_type(FunctionCallInfo fcinfo)
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

CfHashInfo *
cfpg_agg_hashinfo_make(FunctionCallInfo fcinfo, CfAggCache *c)
{
	if (!c->hi_valid)
	{
		Oid			typid = cfpg_agg_value_type(fcinfo);

		if (!OidIsValid(typid))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("could not determine the data type of the cf_agg input")));
		/* the aggregate's value (citext given to cf_agg(text), say) */
		{
			Aggref	   *agg = AggGetAggref(fcinfo);

			if (agg != NULL && list_length(agg->args) >= 1)
				cfpg_check_value_expr((Node *) ((TargetEntry *) linitial(agg->args))->expr,
									PG_GET_COLLATION());
		}
		cfpg_hashinfo_init(&c->hi, typid, PG_GET_COLLATION(), c->mcxt);
		c->hi_valid = true;
	}
	return &c->hi;
}
