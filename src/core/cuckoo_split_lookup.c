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
 * each, or two (bucket size 4, widths 17 .. 24)
 * ------------------------------------------------------------------- */

/*
 * A bucket of bucket size 4 and width W (17 <= W <= 24, known) in two
 * words, each two slots in its low 2W bits: *s01 slots 0 and 1, from the
 * 8 bytes that start with the bucket's first byte, *s23 slots 2 and 3,
 * from the 8 that end with its last.  The bucket takes at least 9 bytes
 * (4W >= 68 bits), so both loads stay inside it: none reads past the
 * table's end or before its start.
 */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline void
split_bucket_halves(const cf_stage *st, uint32_t i, const uint32_t W, uint64_t *s01, uint64_t *s23)
{
	const uint64_t two = (UINT64_C(1) << (2 * W)) - 1;

	if (W % 2 == 0)
	{
		/* whole bytes: the bucket at byte i * W / 2, the shifts constants */
		const uint8_t *b = st->table + (size_t) i * (W / 2);

		*s01 = get_le64(b) & two;
		*s23 = get_le64(b + W / 2 - 8) >> (64 - 2 * W);
	}
	else
	{
		uint64_t	bit = (uint64_t) i * (4 * W);
		uint64_t	end = (bit + 4 * W + 7) >> 3;

		*s01 = (get_le64(st->table + (size_t) (bit >> 3)) >> (bit & 7)) & two;
		*s23 = (get_le64(st->table + (size_t) end - 8) >> (bit + 2 * W + 64 - (end << 3))) & two;
	}
}

#ifndef SPLIT_SIMD
/* 1 if one of the two slots in the low 2W bits of s matches q (split_slot_matches), else 0 */
static inline uint32_t
split_two_match(uint64_t s, uint32_t q, const uint32_t W)
{
	const uint64_t one = (UINT64_C(1) << W) - 1;

	return (uint32_t) split_slot_matches((uint32_t) (s & one), q) |
		(uint32_t) split_slot_matches((uint32_t) (s >> W), q);
}
#endif

/*
 * One split table whose buckets are one load each (bucket_size * width <= 64
 * bits), bucket size B, base width F0 and width W known at compile time
 * (W = 0: read from the table), or two loads each (B = 4 and W = 17 .. 24,
 * known: split_bucket_halves).  split_words: the bucket loads of a probe
 * (they go out together); w[0] and w[2] bucket i1's and i2's word, or its
 * slots 0 and 1 and then w[1] and w[3] its slots 2 and 3; split_pair_in:
 * one branch-free compare of both buckets' lanes against the probe's
 * queries (with W known and SSE2, the eight lanes at once:
 * split_pair_match16, split_pair_match32; else each bucket's:
 * split_word_match, or each slot's: split_slot_matches).
 */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline void
split_words(const cf_stage *st, const split_probe *p, const uint32_t B, const uint32_t W,
			uint64_t w[4])
{
	uint64_t   *w1 = &w[0],
			   *w2 = &w[2];

	if (B * W > 64)
	{
		split_bucket_halves(st, p->i1, W, &w[0], &w[1]);
		split_bucket_halves(st, p->i2, W, &w[2], &w[3]);
	}
	else if (W && (B * W) % 8 == 0)
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
split_pair_in(const cf_stage *st, const uint64_t w[4], const split_probe *p,
			  const uint32_t B, const uint32_t W)
{
	if (B * W > 64)
	{
#ifdef SPLIT_SIMD
		return split_pair_match32(w[0], w[1], w[2], w[3], p->q1, p->q2, W);
#else
		return (split_two_match(w[0], p->q1, W) | split_two_match(w[1], p->q1, W) |
				split_two_match(w[2], p->q2, W) | split_two_match(w[3], p->q2, W)) != 0;
#endif
	}
#ifdef SPLIT_SIMD
	if (W && B == 4 && W <= 16)
		return split_pair_match16(w[0], w[2], p->q1, p->q2, W);
#endif
	return (split_word_match(st, w[0], p->q1 * ENG(st)->lanes_lo) |
			split_word_match(st, w[2], p->q2 * ENG(st)->lanes_lo)) != 0;
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
	uint64_t	wd[4];

	split_probe_at(st->base_nbuckets, st->level, F0, w - 1 - F0, h, &p);
	split_words(st, &p, B, W, wd);
	if (split_pair_in(st, wd, &p, B, W))
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
			uint64_t	wd[4];
			bool		in;

			split_words(st, &p[j], B, W, wd);
			in = split_pair_in(st, wd, &p[j], B, W);
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

/*
 * Bucket size 4, width W: a table with a stash takes split_one_any (one
 * load a bucket), or its own compare with the stash read after a miss (two).
 */
#define SPLIT_ONE(W) \
static bool \
split_one_4_##W(const cf_filter *f, uint64_t h) \
{ \
	if (f->stages[0].nstash != 0) \
		return 4 * (W) <= 64 ? split_one_any(f, h) : split_one(f, h, 4, CF_SPLIT_F0, W, true); \
	return split_one(f, h, 4, CF_SPLIT_F0, W, false); \
} \
static size_t \
split_many_4_##W(const cf_filter *f, const uint64_t *h, size_t n, bool *found) \
{ \
	return split_many(f, h, n, found, 4, CF_SPLIT_F0, W); \
}
SPLIT_ONE(12) SPLIT_ONE(13) SPLIT_ONE(14) SPLIT_ONE(15) SPLIT_ONE(16)
SPLIT_ONE(17) SPLIT_ONE(18) SPLIT_ONE(19) SPLIT_ONE(20)
SPLIT_ONE(21) SPLIT_ONE(22) SPLIT_ONE(23) SPLIT_ONE(24)


/*
 * The paths, numbered as cf_filter.lookup shows them: 34 any bucket size
 * and width (one load a bucket), 35 .. 39 bucket size 4 with the base
 * width CF_SPLIT_F0 and widths 12 .. 16, 54 .. 61 the same with widths
 * 17 .. 24 (two loads a bucket: the widths a growing filter reaches at
 * rates from 0.05% down to 0.01%, 0.1%'s 16, 18 and 19 among them).
 */
#define SPLIT_4(W)	{"split", (W) <= 16 ? 35 + (W) - 12 : 54 + (W) - 17, false, \
					 split_one_4_##W, NULL, split_many_4_##W}
#define SPLIT_WIDE_MIN	17
#define SPLIT_WIDE_MAX	24

static const cfi_lookup_path split_any = {"split", 34, false, split_one_any, NULL, contains_many_split};
static const cfi_lookup_path split_4[] = {SPLIT_4(12), SPLIT_4(13), SPLIT_4(14), SPLIT_4(15), SPLIT_4(16)};
static const cfi_lookup_path split_4_wide[] = {
	SPLIT_4(17), SPLIT_4(18), SPLIT_4(19), SPLIT_4(20), SPLIT_4(21), SPLIT_4(22), SPLIT_4(23), SPLIT_4(24)
};

/* every wide width has its path (a negative array size if not) */
typedef char split_wide_complete[sizeof(split_4_wide) / sizeof(split_4_wide[0]) ==
								 SPLIT_WIDE_MAX - SPLIT_WIDE_MIN + 1 ? 1 : -1];

/*
 * One bit-packed split table: its own path, specialized for the common
 * widths; any other split filter (a semi-sorted table, which has reads
 * through the codec, a bit-packed one of two-load buckets and a width or
 * base width without a path, or several tables) the general path.
 */
const cfi_lookup_path *
cfi_split_lookup(cf_filter *f)
{
	cf_stage   *st0 = &f->stages[0];

	if (f->nstages != 1)
		return NULL;
	if (!ENG(st0)->swar)
	{
		if (!codec_is_semisorted(st0) && st0->basebits == CF_SPLIT_F0 && f->bucket_size == 4 &&
			st0->fpbits >= SPLIT_WIDE_MIN && st0->fpbits <= SPLIT_WIDE_MAX)
			return &split_4_wide[st0->fpbits - SPLIT_WIDE_MIN];
		return NULL;
	}
	stage_word_setup(st0);
	if (st0->basebits == CF_SPLIT_F0 && f->bucket_size == 4 && st0->fpbits >= 12 && st0->fpbits <= 16)
		return &split_4[st0->fpbits - 12];
	return &split_any;
}
