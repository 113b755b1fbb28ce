/*
 * cuckoo_split_lookup.c - the lookup paths of a filter of one bit-packed
 * split table (geometry 3, cf_contains, cf_contains_many), chosen by
 * cfi_split_lookup when the filter is opened (cuckoo_geom_split.c's
 * lookup operation), one per bucket size and width where it pays.  Lookup
 * paths only: nothing here writes a table.  Plain C99.
 */
#include "cuckoo_split.h"

/* ---------------------------------------------------------------------
 * the paths of one bit-packed split table whose buckets are one load
 * each
 * ------------------------------------------------------------------- */

/*
 * One split table whose buckets are one load each (bucket_size * width <= 64
 * bits), bucket size B, base width F0 and width W known at compile time
 * (W = 0: read from the table).  split_words: both bucket loads of a probe
 * (they go out together); split_pair_in: one branch-free compare of both
 * buckets' lanes against the probe's queries (with W known and SSE2, the
 * eight lanes at once: split_pair_match16; else each bucket's:
 * split_word_match).
 */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline void
split_words(const cf_stage *st, const split_probe *p, const uint32_t B, const uint32_t W,
			uint64_t *w1, uint64_t *w2)
{
	if (W && (B * W) % 8 == 0)
	{
		const uint32_t bb = B * W / 8;

		*w1 = get_le64(st->table + (ptrdiff_t) ((uint64_t) p->i1 * bb) + bb - 8) >> (64 - 8 * bb);
		*w2 = get_le64(st->table + (ptrdiff_t) ((uint64_t) p->i2 * bb) + bb - 8) >> (64 - 8 * bb);
	}
	else if (W)
	{
		*w1 = bucket_word_bits(st, p->i1, B * W);
		*w2 = bucket_word_bits(st, p->i2, B * W);
	}
	else
	{
		*w1 = stage_word(st, p->i1);
		*w2 = stage_word(st, p->i2);
	}
}

#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline bool
split_pair_in(const cf_stage *st, uint64_t w1, uint64_t w2, const split_probe *p,
			  const uint32_t B, const uint32_t W)
{
#ifdef SPLIT_SIMD
	if (W && B == 4 && W <= 16)
		return split_pair_match16(w1, w2, p->q1, p->q2, W);
#endif
	(void) B;
	(void) W;
	return (split_word_match(st, w1, p->q1 * ENG(st)->lanes_lo) |
			split_word_match(st, w2, p->q2 * ENG(st)->lanes_lo)) != 0;
}

/*
 * cf_contains of such a table.  The stash, when there is one (stash), is
 * read after a miss; the paths of a known width go to split_one_any when
 * the table has one, so that theirs needs neither h nor f after the probe.
 */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline bool
split_one(const cf_filter *f, uint64_t h, const uint32_t B, const uint32_t F0, const uint32_t W, const bool stash)
{
	const cf_stage *st = &f->stages[0];
	const uint32_t w = W ? W : st->fpbits;
	split_probe p;
	uint64_t	w1,
				w2;

	split_probe_at(st->base_nbuckets, st->level, F0, w - 1 - F0, h, &p);
	split_words(st, &p, B, W, &w1, &w2);
	if (split_pair_in(st, w1, w2, &p, B, W))
		return true;
	return stash && st->nstash != 0 && cfi_split_stash_has(st, h);
}

static bool
split_one_any(const cf_filter *f, uint64_t h)
{
	return split_one(f, h, f->bucket_size, f->stages[0].basebits, 0, true);
}

/*
 * cf_contains_many of such a table, a block at a time: every probe of the
 * block and its two prefetches first, then the loads and compares; the
 * stash, when there is one, after a miss.
 */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline size_t
split_many(const cf_filter *f, const uint64_t *h, size_t n, bool *found,
		   const uint32_t B, const uint32_t F0, const uint32_t W)
{
	const cf_stage *st = &f->stages[0];
	const uint32_t w = W ? W : st->fpbits;
	const uint32_t bb = W ? B * W : st->bucket_bits;
	size_t		hits = 0;

	for (size_t b = 0; b < n; b += CFI_MANY_BLOCK)
	{
		size_t		m = n - b < CFI_MANY_BLOCK ? n - b : CFI_MANY_BLOCK;
		split_probe p[CFI_MANY_BLOCK];

		for (size_t j = 0; j < m; j++)
		{
			split_probe_at(st->base_nbuckets, st->level, F0, w - 1 - F0, h[b + j], &p[j]);
#if defined(__GNUC__)
			__builtin_prefetch(st->table + (((uint64_t) p[j].i1 * bb) >> 3));
			__builtin_prefetch(st->table + (((uint64_t) p[j].i2 * bb) >> 3));
#endif
		}
		for (size_t j = 0; j < m; j++)
		{
			uint64_t	w1,
						w2;
			bool		in;

			split_words(st, &p[j], B, W, &w1, &w2);
			in = split_pair_in(st, w1, w2, &p[j], B, W);
			if (!in && st->nstash != 0)
				in = cfi_split_stash_has(st, h[b + j]);
			found[b + j] = in;
			hits += in;
		}
	}
	return hits;
}

static size_t
contains_many_split(const cf_filter *f, const uint64_t *h, size_t n, bool *found)
{
	return split_many(f, h, n, found, f->bucket_size, f->stages[0].basebits, 0);
}

#define SPLIT_ONE(W) \
static bool \
split_one_4_##W(const cf_filter *f, uint64_t h) \
{ \
	if (f->stages[0].nstash != 0) \
		return split_one_any(f, h); \
	return split_one(f, h, 4, CF_SPLIT_F0, W, false); \
} \
static size_t \
split_many_4_##W(const cf_filter *f, const uint64_t *h, size_t n, bool *found) \
{ \
	return split_many(f, h, n, found, 4, CF_SPLIT_F0, W); \
}
SPLIT_ONE(12) SPLIT_ONE(13) SPLIT_ONE(14) SPLIT_ONE(15) SPLIT_ONE(16)


/*
 * The paths, numbered as cf_filter.lookup shows them: 34 any bucket size
 * and width, 35 .. 39 bucket size 4 with the base width CF_SPLIT_F0 and
 * widths 12 .. 16.
 */
#define SPLIT_4(W)	{"split", 35 + (W) - 12, false, split_one_4_##W, NULL, split_many_4_##W}

static const cfi_lookup_path split_any = {"split", 34, false, split_one_any, NULL, contains_many_split};
static const cfi_lookup_path split_4[] = {SPLIT_4(12), SPLIT_4(13), SPLIT_4(14), SPLIT_4(15), SPLIT_4(16)};

/*
 * One bit-packed split table: its own path, specialized for the common
 * widths; any other split filter (a semi-sorted table, which has reads
 * through the codec, or several tables) the general path.
 */
const cfi_lookup_path *
cfi_split_lookup(cf_filter *f)
{
	cf_stage   *st0 = &f->stages[0];

	if (f->nstages != 1 || !ENG(st0)->swar)
		return NULL;
	stage_word_setup(st0);
	if (st0->basebits == CF_SPLIT_F0 && f->bucket_size == 4 && st0->fpbits >= 12 && st0->fpbits <= 16)
		return &split_4[st0->fpbits - 12];
	return &split_any;
}
