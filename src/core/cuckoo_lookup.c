/*
 * cuckoo_lookup.c - cf_contains: the lookup paths and the choice among
 * them, made once per filter when it is opened.
 */
#include "cuckoo_lookup.h"

/*
 * The general path: newest (largest) sub-filter first, stopping at the
 * first match.  The tables of a chain family share the base key fp0 (the
 * top basebits bits of g), so H(fp0) is computed once per family, not once
 * per table.
 */
static bool
contains_any(const cf_filter *f, uint64_t h)
{
	uint32_t	fam_m0 = 0,
				fam_bits = 0,
				g = 0,
				hm = 0;

	for (uint32_t k = f->nstages; k-- > 0;)
	{
		const cf_stage *st = &f->stages[k];
		uint32_t	i1,
					fp,
					j,
					a0;

		if (st->geom != CF_GEOM_CHAIN)
		{
			if (stage_has(st, f->bucket_size, h))
				return true;
			continue;
		}
		if (st->base_nbuckets != fam_m0 || st->basebits != fam_bits)
		{
			fam_m0 = st->base_nbuckets;
			fam_bits = st->basebits;
			g = chain_bits(st, h);
			hm = (uint32_t) (((uint64_t) mix32(g >> ENG(st)->base_shift) * fam_m0) >> 32);
		}
		i1 = primary_bucket(st, h);
		fp = (uint32_t) ((uint64_t) g >> ENG(st)->fp_shift);
		j = i1 >> st->level;
		a0 = hm >= j ? hm - j : hm + fam_m0 - j;
		if (pair_has(st, f->bucket_size, i1,
					 (a0 << st->level) | ((i1 ^ (fp >> ENG(st)->mask_shift)) & ENG(st)->lowmask), fp))
			return true;
	}
	return false;
}

/*
 * What the tables of a run of one chain family share for h: g (the low
 * word with its top basebits made non-zero), the primary bucket at the
 * run's highest level, and the base alternate a0 = (H(fp0) - j) mod m0 of
 * the level-0 bucket j.  Primary buckets nest (range reduction by m0 * 2^L
 * is the one by m0 * 2^Lmax shifted right by Lmax - L), so j and a0 are the
 * same for every table of the family.
 */
typedef struct run_key
{
	uint32_t	g;
	uint32_t	top;
	uint32_t	a0;
} run_key;

#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline void
chain_key(const cf_stage *st, uint64_t h, run_key *rk)
{
	uint32_t	m0 = st->base_nbuckets;
	uint32_t	hm,
				j;

	rk->g = chain_bits(st, h);
	hm = (uint32_t) (((uint64_t) mix32(rk->g >> ENG(st)->base_shift) * m0) >> 32);
	rk->top = (uint32_t) (((h >> 32) * ((uint64_t) m0 << ENG(st)->run_level)) >> 32);
	j = rk->top >> ENG(st)->run_level;
	/* (hm - j) mod m0 with a mask, not a branch: it goes either way at random */
	rk->a0 = hm - j + (m0 & (0u - (uint32_t) (hm < j)));
}

/*
 * bucket_word, shorter where buckets take whole bytes (even widths with
 * bucket size 4, all with 8): the 8 bytes that end with the bucket, shifted
 * down by a per-table constant.  A branch every lookup takes the same way.
 */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline uint64_t
stage_word(const cf_stage *st, uint32_t i)
{
	if (ENG(st)->bucket_bytes)
		return get_le64(ENG(st)->word_base + (size_t) i * ENG(st)->bucket_bytes) >> ENG(st)->word_shift;
	return bucket_word(st, i);
}

/*
 * Which slots of h's two buckets in chain table st (swar) hold h's
 * fingerprint: non-zero iff some do.  No branch: both bucket loads are
 * issued at once, and the loads of the next table (or lookup) need not wait
 * for a mispredicted "found in the first bucket?".
 */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline uint64_t
chain_probe(const cf_stage *st, const run_key *rk)
{
	uint32_t	i1 = rk->top >> ENG(st)->drop;
	uint32_t	fp = rk->g >> ENG(st)->fp_shift;
	uint32_t	i2 = (rk->a0 << st->level) | ((i1 ^ (fp >> ENG(st)->mask_shift)) & ENG(st)->lowmask);
	uint64_t	fpl = fp * ENG(st)->lanes_lo;

	return bucket_match(st, stage_word(st, i1), fpl) |
		bucket_match(st, stage_word(st, i2), fpl);
}

/*
 * Chain tables whose buckets are one load each, newest (largest) first:
 * the loads of a table's two buckets go out together, and a lookup stops at
 * the first table with a match (absent values, which probe every table,
 * take no branch they could mispredict).
 */
static bool
contains_swar(const cf_filter *f, uint64_t h)
{
	run_key		rk = {0, 0, 0};

	for (uint32_t k = f->nstages; k-- > 0;)
	{
		const cf_stage *st = &f->stages[k];

		if (ENG(st)->rekey)
			chain_key(st, h, &rk);
		if (chain_probe(st, &rk))
			return true;
	}
	return false;
}

/*
 * One level-0 chain table whose base key is its whole fingerprint (every
 * new filter up to 16-bit fingerprints), with bucket size B and width F
 * known at compile time, so every shift, mask and lane constant is an
 * immediate.  The same answers as chain_key + chain_probe: fp0 = fp, g's
 * top F bits made non-zero is fp = max(top, 1), i2 = (H(fp) - i1) mod m.
 */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline bool
one_table(const cf_filter *f, uint64_t h, const uint32_t B, const uint32_t F)
{
	const cf_stage *st = &f->stages[0];
	const uint32_t bb = B * F;
	const uint64_t mask = bb >= 64 ? UINT64_MAX : (UINT64_C(1) << bb) - 1;
	uint64_t	lo = 0;
	uint64_t	m = st->nbuckets;
	uint32_t	fp = (uint32_t) h >> (32 - F);
	uint32_t	i1,
				hm,
				i2;
	uint64_t	w1,
				w2,
				x1,
				x2;

	for (uint32_t s = 0; s < B; s++)
		lo |= UINT64_C(1) << (s * F);
	fp += fp == 0;
	i1 = (uint32_t) (((h >> 32) * m) >> 32);
	hm = (uint32_t) (((uint64_t) mix32(fp) * m) >> 32);
	i2 = hm - i1 + ((uint32_t) m & (0u - (uint32_t) (hm < i1)));
	if (bb % 8 == 0)
	{
		/*
		 * Whole bytes: the 8 bytes that end with the bucket hold it in
		 * their top bb bits, and the lanes are compared there, with no
		 * shift and no mask (the constant offset folds into the load's
		 * address).  The bits below the lanes cannot disturb them: lo has
		 * no bit there, so the subtraction borrows nothing from them.
		 */
		const uint32_t sh = 64 - bb;
		const uint64_t los = lo << sh;
		const uint8_t *t = st->table + (ptrdiff_t) (bb / 8) - 8;

		w1 = get_le64(t + (ptrdiff_t) ((uint64_t) i1 * (bb / 8)));
		w2 = get_le64(t + (ptrdiff_t) ((uint64_t) i2 * (bb / 8)));
		x1 = w1 ^ (fp * los);
		x2 = w2 ^ (fp * los);
		return (((x1 - los) & ~x1) | ((x2 - los) & ~x2)) & (los << (F - 1));
	}
	w1 = bucket_word(st, i1);
	w2 = bucket_word(st, i2);
	x1 = (w1 & mask) ^ (fp * lo);
	x2 = (w2 & mask) ^ (fp * lo);
	return (((x1 - lo) & ~x1) | ((x2 - lo) & ~x2)) & (lo << (F - 1));
}

/*
 * one_table for each (B, F) it serves: F 4 .. 16 with B 2 and 4, 4 .. 8
 * with B 8; and the same with the value's hash (cf_hash_int64) inlined, so
 * that a bigint lookup is one call (cf_contains_int64)
 */
#define ONE_TABLE(B, F) \
static bool \
one_table_##B##_##F(const cf_filter *f, uint64_t h) \
{ \
	return one_table(f, h, B, F); \
} \
static bool \
one_table_int64_##B##_##F(const cf_filter *f, int64_t v) \
{ \
	return one_table(f, cf_hash_int64_inline(v), B, F); \
}
#define ONE_TABLE_4_TO_8(B) \
	ONE_TABLE(B, 4) ONE_TABLE(B, 5) ONE_TABLE(B, 6) ONE_TABLE(B, 7) ONE_TABLE(B, 8)
#define ONE_TABLE_9_TO_16(B) \
	ONE_TABLE(B, 9) ONE_TABLE(B, 10) ONE_TABLE(B, 11) ONE_TABLE(B, 12) \
	ONE_TABLE(B, 13) ONE_TABLE(B, 14) ONE_TABLE(B, 15) ONE_TABLE(B, 16)

ONE_TABLE_4_TO_8(2)
ONE_TABLE_9_TO_16(2)
ONE_TABLE_4_TO_8(4)
ONE_TABLE_9_TO_16(4)
ONE_TABLE_4_TO_8(8)

/* one chain table at any level, with any base key (widths over 16 bits) */
static bool
contains_one(const cf_filter *f, uint64_t h)
{
	run_key		rk;

	chain_key(&f->stages[0], h, &rk);
	return chain_probe(&f->stages[0], &rk) != 0;
}

/*
 * One split table whose buckets are one load each (bucket_size * width <= 64
 * bits), bucket size B, base width F0 and width W known at compile time
 * (W = 0: read from the table): both bucket loads go out together, then one
 * branch-free compare of each bucket's lanes against h's query
 * (split_word_match).  The stash, when there is one, is read after a miss.
 */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline bool
split_one(const cf_filter *f, uint64_t h, const uint32_t B, const uint32_t F0, const uint32_t W)
{
	const cf_stage *st = &f->stages[0];
	const uint32_t w = W ? W : st->fpbits;
	const uint32_t R = w - 1 - F0;
	split_probe p;
	uint64_t	w1,
				w2,
				lo = ENG(st)->lanes_lo;

	(void) B;
	split_probe_at(st->base_nbuckets, st->level, F0, R, h, &p);
	if (W && (B * W) % 8 == 0)
	{
		const uint32_t bb = B * W / 8;

		w1 = get_le64(st->table + (ptrdiff_t) ((uint64_t) p.i1 * bb) + bb - 8) >> (64 - 8 * bb);
		w2 = get_le64(st->table + (ptrdiff_t) ((uint64_t) p.i2 * bb) + bb - 8) >> (64 - 8 * bb);
	}
	else
	{
		w1 = stage_word(st, p.i1);
		w2 = stage_word(st, p.i2);
	}
	if ((split_word_match(st, w1, p.q1 * lo) | split_word_match(st, w2, p.q2 * lo)) != 0)
		return true;
	return st->nstash != 0 && cfi_split_stash_has(st, h);
}

static bool
split_one_any(const cf_filter *f, uint64_t h)
{
	return split_one(f, h, f->bucket_size, f->stages[0].basebits, 0);
}

#define SPLIT_ONE(W) \
static bool \
split_one_4_##W(const cf_filter *f, uint64_t h) \
{ \
	return split_one(f, h, 4, CF_SPLIT_F0, W); \
}
SPLIT_ONE(12) SPLIT_ONE(13) SPLIT_ONE(14) SPLIT_ONE(15) SPLIT_ONE(16)

/*
 * Semi-sorted chain tables of width <= 16 (encoding 1), newest first: both
 * buckets of a table as one word each, their values rebuilt and compared
 * at once (semi_word_has).
 */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline bool
semi_probe(const cf_stage *st, uint32_t i1, uint32_t i2, uint32_t fp)
{
	uint32_t	lw = st->fpbits - 4;
	uint64_t	fpl = fp * SEMI_LANES_LO;
	uint64_t	x1 = semi_word(st, i1),
				x2 = semi_word(st, i2);

	return (semi_word_has(x1, lw, fpl) | semi_word_has(x2, lw, fpl)) != 0;
}

static bool
contains_semi(const cf_filter *f, uint64_t h)
{
	run_key		rk = {0, 0, 0};

	for (uint32_t k = f->nstages; k-- > 0;)
	{
		const cf_stage *st = &f->stages[k];
		uint32_t	i1,
					fp;

		if (ENG(st)->rekey)
			chain_key(st, h, &rk);
		i1 = rk.top >> ENG(st)->drop;
		fp = rk.g >> ENG(st)->fp_shift;
		if (semi_probe(st, i1, (rk.a0 << st->level) | ((i1 ^ (fp >> ENG(st)->mask_shift)) & ENG(st)->lowmask), fp))
			return true;
	}
	return false;
}

/*
 * One level-0 semi-sorted table whose base key is its whole fingerprint
 * (every new semi-sorted filter up to 16-bit fingerprints), width W known
 * at compile time: the bucket pair as one_table computes it, the buckets as
 * semi_word, with every shift an immediate.
 */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline void
semi_one_pair(const cf_stage *st, uint64_t h, const uint32_t W,
			  uint32_t *i1, uint32_t *i2, uint32_t *fp)
{
	uint64_t	m = st->nbuckets;
	uint32_t	f = (uint32_t) h >> (32 - W);
	uint32_t	a,
				hm;

	f += f == 0;
	a = (uint32_t) (((h >> 32) * m) >> 32);
	hm = (uint32_t) (((uint64_t) mix32(f) * m) >> 32);
	*i1 = a;
	*i2 = hm - a + ((uint32_t) m & (0u - (uint32_t) (hm < a)));
	*fp = f;
}

#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline uint64_t
semi_one_word(const uint8_t *table, uint32_t i, const uint32_t W)
{
	const uint32_t bb = 4 * W - 4;
	uint64_t	bit = (uint64_t) i * bb;
	uint64_t	end = (bit + bb + 7) >> 3;

	return (get_le64(table + (ptrdiff_t) end - 8) >> (bit + 64 - (end << 3))) &
		((UINT64_C(1) << bb) - 1);
}

#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline bool
semi_one(const cf_filter *f, uint64_t h, const uint32_t W)
{
	const cf_stage *st = &f->stages[0];
	uint32_t	i1,
				i2,
				fp;
	uint64_t	fpl;

	semi_one_pair(st, h, W, &i1, &i2, &fp);
	fpl = fp * SEMI_LANES_LO;
	return (semi_word_has(semi_one_word(st->table, i1, W), W - 4, fpl) |
			semi_word_has(semi_one_word(st->table, i2, W), W - 4, fpl)) != 0;
}

/* semi_one for a block of hashes at a time, as contains_many_one */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline size_t
semi_one_many(const cf_filter *f, const uint64_t *h, size_t n, bool *found, const uint32_t W)
{
	const cf_stage *st = &f->stages[0];
	size_t		hits = 0;

	for (size_t b = 0; b < n; b += 16)
	{
		size_t		m = n - b < 16 ? n - b : 16;
		uint32_t	i1[16],
					i2[16],
					fp[16];

		for (size_t j = 0; j < m; j++)
		{
			semi_one_pair(st, h[b + j], W, &i1[j], &i2[j], &fp[j]);
#if defined(__GNUC__)
			__builtin_prefetch(st->table + (((uint64_t) i1[j] * (4 * W - 4)) >> 3));
			__builtin_prefetch(st->table + (((uint64_t) i2[j] * (4 * W - 4)) >> 3));
#endif
		}
		for (size_t j = 0; j < m; j++)
		{
			uint64_t	fpl = fp[j] * SEMI_LANES_LO;
			bool		in = (semi_word_has(semi_one_word(st->table, i1[j], W), W - 4, fpl) |
							  semi_word_has(semi_one_word(st->table, i2[j], W), W - 4, fpl)) != 0;

			found[b + j] = in;
			hits += in;
		}
	}
	return hits;
}

#define SEMI_MIN_W	5
#define SEMI_ONE(W) \
static bool \
semi_one_##W(const cf_filter *f, uint64_t h) \
{ \
	return semi_one(f, h, W); \
} \
static size_t \
semi_one_many_##W(const cf_filter *f, const uint64_t *h, size_t n, bool *found) \
{ \
	return semi_one_many(f, h, n, found, W); \
}
SEMI_ONE(5) SEMI_ONE(6) SEMI_ONE(7) SEMI_ONE(8) SEMI_ONE(9) SEMI_ONE(10)
SEMI_ONE(11) SEMI_ONE(12) SEMI_ONE(13) SEMI_ONE(14) SEMI_ONE(15) SEMI_ONE(16)

/* a list (geometry 4): binary search of its sorted hashes */
static bool
list_one(const cf_filter *f, uint64_t h)
{
	return list_has(&f->stages[0], h);
}

/* the general paths for a bigint: its hash, then the path */
static bool
int64_any(const cf_filter *f, int64_t v)
{
	return contains_any(f, cf_hash_int64_inline(v));
}

static bool
int64_one(const cf_filter *f, int64_t v)
{
	return contains_one(f, cf_hash_int64_inline(v));
}

static bool
int64_swar(const cf_filter *f, int64_t v)
{
	return contains_swar(f, cf_hash_int64_inline(v));
}

/* lookups a batch works on at once: their bucket loads are in flight together */
#define MANY_BLOCK	16

/*
 * The first half of a block of a one-chain-table batch: the bucket pair and
 * fingerprint of each of the m hashes, both buckets prefetched.
 */
static inline void
many_block_pairs(const cf_stage *st, const uint64_t *h, size_t m,
				 uint32_t *i1, uint32_t *i2, uint32_t *fp)
{
	for (size_t j = 0; j < m; j++)
	{
		run_key		rk;

		chain_key(st, h[j], &rk);
		i1[j] = rk.top >> ENG(st)->drop;
		fp[j] = rk.g >> ENG(st)->fp_shift;
		i2[j] = (rk.a0 << st->level) | ((i1[j] ^ (fp[j] >> ENG(st)->mask_shift)) & ENG(st)->lowmask);
#if defined(__GNUC__)
		__builtin_prefetch(st->table + (((uint64_t) i1[j] * st->bucket_bits) >> 3));
		__builtin_prefetch(st->table + (((uint64_t) i2[j] * st->bucket_bits) >> 3));
#endif
	}
}

/*
 * cf_contains of one chain table, a block of hashes at a time: first the
 * bucket pairs of every hash of the block, prefetching both buckets, then
 * the compares, by which time the loads have arrived or are on their way.
 */
static size_t
contains_many_one(const cf_filter *f, const uint64_t *h, size_t n, bool *found)
{
	const cf_stage *st = &f->stages[0];
	size_t		hits = 0;

	for (size_t b = 0; b < n; b += MANY_BLOCK)
	{
		size_t		m = n - b < MANY_BLOCK ? n - b : MANY_BLOCK;
		uint32_t	i1[MANY_BLOCK],
					i2[MANY_BLOCK],
					fp[MANY_BLOCK];

		many_block_pairs(st, h + b, m, i1, i2, fp);
		for (size_t j = 0; j < m; j++)
		{
			uint64_t	fpl = fp[j] * ENG(st)->lanes_lo;
			bool		in = (bucket_match(st, stage_word(st, i1[j]), fpl) |
							  bucket_match(st, stage_word(st, i2[j]), fpl)) != 0;

			found[b + j] = in;
			hits += in;
		}
	}
	return hits;
}

/* contains_many_one for one semi-sorted table (the semi-sorted path) */
static size_t
contains_many_semi(const cf_filter *f, const uint64_t *h, size_t n, bool *found)
{
	const cf_stage *st = &f->stages[0];
	size_t		hits = 0;

	for (size_t b = 0; b < n; b += MANY_BLOCK)
	{
		size_t		m = n - b < MANY_BLOCK ? n - b : MANY_BLOCK;
		uint32_t	i1[MANY_BLOCK],
					i2[MANY_BLOCK],
					fp[MANY_BLOCK];

		many_block_pairs(st, h + b, m, i1, i2, fp);
		for (size_t j = 0; j < m; j++)
		{
			bool		in = semi_probe(st, i1[j], i2[j], fp[j]);

			found[b + j] = in;
			hits += in;
		}
	}
	return hits;
}

/*
 * cf_contains of one split table (one load per bucket), a block at a time:
 * every probe of the block and its two prefetches first, then the compares.
 */
static size_t
contains_many_split(const cf_filter *f, const uint64_t *h, size_t n, bool *found)
{
	const cf_stage *st = &f->stages[0];
	size_t		hits = 0;

	for (size_t b = 0; b < n; b += MANY_BLOCK)
	{
		size_t		m = n - b < MANY_BLOCK ? n - b : MANY_BLOCK;
		split_probe p[MANY_BLOCK];

		for (size_t j = 0; j < m; j++)
		{
			split_probe_of(st, h[b + j], &p[j]);
#if defined(__GNUC__)
			__builtin_prefetch(st->table + (((uint64_t) p[j].i1 * st->bucket_bits) >> 3));
			__builtin_prefetch(st->table + (((uint64_t) p[j].i2 * st->bucket_bits) >> 3));
#endif
		}
		for (size_t j = 0; j < m; j++)
		{
			bool		in = (split_word_match(st, stage_word(st, p[j].i1), p[j].q1 * ENG(st)->lanes_lo) |
							  split_word_match(st, stage_word(st, p[j].i2), p[j].q2 * ENG(st)->lanes_lo)) != 0;

			if (!in && st->nstash != 0)
				in = cfi_split_stash_has(st, h[b + j]);
			found[b + j] = in;
			hits += in;
		}
	}
	return hits;
}

/* cf_contains_many of any filter: one lookup after another */
static size_t
contains_many_each(const cf_filter *f, const uint64_t *h, size_t n, bool *found)
{
	size_t		hits = 0;

	for (size_t j = 0; j < n; j++)
	{
		found[j] = cf_contains(f, h[j]);
		hits += found[j];
	}
	return hits;
}

/* semi-sorted chain tables: batched when there is one */
static size_t
contains_many_semis(const cf_filter *f, const uint64_t *h, size_t n, bool *found)
{
	if (f->nstages == 1)
		return contains_many_semi(f, h, n, found);
	return contains_many_each(f, h, n, found);
}

/* ---------------------------------------------------------------------
 * the lookup paths
 * ------------------------------------------------------------------- */

/* what a path reads */
typedef enum cfi_path_kind
{
	CFI_PATH_ANY,				/* any filter, slot by slot if need be */
	CFI_PATH_CHAIN,				/* one chain table, one load per bucket */
	CFI_PATH_CHAINS,			/* chain tables only, one load per bucket */
	CFI_PATH_TABLE,				/* one level-0 table of the path's bucket size and width */
	CFI_PATH_SPLIT,				/* one bit-packed split table (bucket size, width 0: any) */
	CFI_PATH_LIST,				/* a list's sorted hashes */
	CFI_PATH_SEMI,				/* semi-sorted chain tables, width <= 16 */
	CFI_PATH_SEMI_TABLE			/* one semi-sorted level-0 table of the path's width */
} cfi_path_kind;

/* a lookup path: what it reads, and its functions */
typedef struct cfi_lookup_path
{
	const char *name;
	cfi_path_kind kind;
	uint32_t	geom;			/* CF_GEOM_* of the tables it reads (0: any) */
	uint32_t	bucket_size;	/* 0: any */
	uint32_t	width;			/* 0: any */
	uint32_t	enc;			/* CF_ENC_* of the tables it reads */
	bool		(*contains) (const cf_filter *f, uint64_t h);
	bool		(*contains_int64) (const cf_filter *f, int64_t v);	/* NULL: hash, then contains */
	size_t		(*many) (const cf_filter *f, const uint64_t *h, size_t n, bool *found);
} cfi_lookup_path;

#define SPEC_MIN_F	4
#define SPEC_MAX_F	16
#define SPEC(B, F) \
	{"table", CFI_PATH_TABLE, CF_GEOM_CHAIN, B, F, CF_ENC_PACKED, one_table_##B##_##F, \
	 one_table_int64_##B##_##F, contains_many_one}
#define SPEC_ROW(B) SPEC(B, 4), SPEC(B, 5), SPEC(B, 6), SPEC(B, 7), SPEC(B, 8)
#define SPEC_ROW_WIDE(B) \
	SPEC(B, 9), SPEC(B, 10), SPEC(B, 11), SPEC(B, 12), SPEC(B, 13), SPEC(B, 14), SPEC(B, 15), \
	SPEC(B, 16)
#define SPLIT_4(W) \
	{"split", CFI_PATH_SPLIT, CF_GEOM_SPLIT, 4, W, CF_ENC_PACKED, split_one_4_##W, NULL, \
	 contains_many_split}
#define SEMI(W) \
	{"semi-sorted table", CFI_PATH_SEMI_TABLE, CF_GEOM_CHAIN, 4, W, CF_ENC_SEMISORT, semi_one_##W, \
	 NULL, semi_one_many_##W}

/* where each kind's paths start in paths[] (its rows follow, in order) */
enum
{
	FIRST_ANY = 0,
	FIRST_CHAIN = 1,
	FIRST_CHAINS = 2,
	FIRST_TABLE = 3,			/* b = 2, 4 (widths 4 .. 16), 8 (4 .. 8) */
	FIRST_SPLIT = FIRST_TABLE + 2 * (SPEC_MAX_F - SPEC_MIN_F + 1) + 5,	/* any; b = 4, widths 12 .. 16 */
	FIRST_LIST = FIRST_SPLIT + 6,
	FIRST_SEMI = FIRST_LIST + 1,
	FIRST_SEMI_TABLE = FIRST_SEMI + 1,	/* widths 5 .. 16 */
	NPATHS = FIRST_SEMI_TABLE + 12
};

static const uint8_t kind_first[] = {
	[CFI_PATH_ANY] = FIRST_ANY,
	[CFI_PATH_CHAIN] = FIRST_CHAIN,
	[CFI_PATH_CHAINS] = FIRST_CHAINS,
	[CFI_PATH_TABLE] = FIRST_TABLE,
	[CFI_PATH_SPLIT] = FIRST_SPLIT,
	[CFI_PATH_LIST] = FIRST_LIST,
	[CFI_PATH_SEMI] = FIRST_SEMI,
	[CFI_PATH_SEMI_TABLE] = FIRST_SEMI_TABLE,
};

/*
 * Every path, indexed by cf_filter.lookup (cfi_setup_lookup picks one when
 * a filter is opened): the three general ones, the one-table paths of
 * bucket sizes 2 and 4 (widths 4 .. 16) and 8 (widths 4 .. 8), the split
 * paths, the list's, the semi-sorted ones.  (-Woverride-init and the size
 * check below catch a row out of place.)
 */
static const cfi_lookup_path paths[] = {
	[FIRST_ANY] = {"any", CFI_PATH_ANY, 0, 0, 0, CF_ENC_PACKED, contains_any, int64_any, contains_many_each},
	[FIRST_CHAIN] = {"chain", CFI_PATH_CHAIN, CF_GEOM_CHAIN, 0, 0, CF_ENC_PACKED, contains_one, int64_one,
	 contains_many_one},
	[FIRST_CHAINS] = {"chains", CFI_PATH_CHAINS, CF_GEOM_CHAIN, 0, 0, CF_ENC_PACKED, contains_swar, int64_swar,
	 contains_many_each},
	[FIRST_TABLE] = SPEC_ROW(2), SPEC_ROW_WIDE(2),
	SPEC_ROW(4), SPEC_ROW_WIDE(4),
	SPEC_ROW(8),
	[FIRST_SPLIT] = {"split", CFI_PATH_SPLIT, CF_GEOM_SPLIT, 0, 0, CF_ENC_PACKED, split_one_any, NULL,
	 contains_many_split},
	SPLIT_4(12), SPLIT_4(13), SPLIT_4(14), SPLIT_4(15), SPLIT_4(16),
	[FIRST_LIST] = {"list", CFI_PATH_LIST, CF_GEOM_LIST, 0, 0, CF_ENC_PACKED, list_one, NULL, contains_many_each},
	[FIRST_SEMI] = {"semi-sorted", CFI_PATH_SEMI, CF_GEOM_CHAIN, 4, 0, CF_ENC_SEMISORT, contains_semi, NULL,
	 contains_many_semis},
	[FIRST_SEMI_TABLE] = SEMI(5), SEMI(6), SEMI(7), SEMI(8), SEMI(9), SEMI(10), SEMI(11), SEMI(12), SEMI(13),
	SEMI(14), SEMI(15), SEMI(16)
};

/* every row in its place (a negative array size if not) */
typedef char cfi_paths_complete[sizeof(paths) / sizeof(paths[0]) == NPATHS ? 1 : -1];

bool
cf_contains(const cf_filter *f, uint64_t h)
{
	return paths[f->lookup].contains(f, h);
}

/* the paths without a bigint form take the value's hash */
bool
cf_contains_int64(const cf_filter *f, int64_t v)
{
	const cfi_lookup_path *p = &paths[f->lookup];

	if (p->contains_int64 != NULL)
		return p->contains_int64(f, v);
	return p->contains(f, cf_hash_int64_inline(v));
}

size_t
cf_contains_many(const cf_filter *f, const uint64_t *h, size_t n, bool *found)
{
	return paths[f->lookup].many(f, h, n, found);
}

cf_probe
cf_probe_of(const cf_filter *f)
{
	cf_probe	p;
	const cf_stage *st = &f->stages[0];
	const uint32_t bb = st->bucket_bits;

	memset(&p, 0, sizeof(p));
	p.f = f;
	p.contains = cf_contains;
	p.contains_int64 = cf_contains_int64;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	return p;
#endif
	/* the one-table paths' filters (one level-0 table, base key = fingerprint), whole bytes */
	if (f->nstages != 1 || paths[f->lookup].kind != CFI_PATH_TABLE || bb % 8 != 0 || bb > 64)
		return p;
	p.bucket_bytes = bb / 8;
	p.base = st->table + (ptrdiff_t) p.bucket_bytes - 8;
	p.nbuckets = st->nbuckets;
	p.lanes_lo = ENG(st)->lanes_lo << (64 - bb);
	p.lanes_hi = ENG(st)->lanes_hi << (64 - bb);
	p.fp_shift = 32 - st->fpbits;
	return p;
}

/* the path of this kind, bucket size and width (0: any), or 0 (any) if none */
static uint32_t
path_for(cfi_path_kind kind, uint32_t b, uint32_t w)
{
	uint32_t	k = kind_first[kind];

	/* the one-table rows: straight to (b, w)'s place, checked below (cf_open is hot) */
	if (kind == CFI_PATH_TABLE && w >= SPEC_MIN_F)
		k += (b == 4 ? SPEC_MAX_F - SPEC_MIN_F + 1 : b == 8 ? 2 * (SPEC_MAX_F - SPEC_MIN_F + 1) : 0) +
			w - SPEC_MIN_F;
	for (; k < NPATHS && paths[k].kind == kind; k++)
		if (paths[k].bucket_size == b && paths[k].width == w)
			return k;
	return 0;
}

/* do all tables of f take contains_semi: semi-sorted chain tables, w <= 16? */
static bool
semi_path(const cf_filter *f)
{
	for (uint32_t k = 0; k < f->nstages; k++)
		if (f->stages[k].geom != CF_GEOM_CHAIN || f->stages[k].enc != CF_ENC_SEMISORT ||
			f->stages[k].fpbits > SEMI_WORD_MAX_W)
			return false;
	return true;
}

void
cfi_setup_lookup(cf_filter *f)
{
	const cf_stage *st0 = &f->stages[0];
	bool		swar = true;

	cf_stage   *first = NULL;	/* the rekey stage of the current run */

	if (filter_is_list(f))
	{
		/* never read as a table: its own path (cf_probe_of declines it) */
		f->lookup = path_for(CFI_PATH_LIST, 0, 0);
		return;
	}

	for (uint32_t k = f->nstages; k-- > 0;)
	{
		cf_stage   *st = &f->stages[k];

		ENG(st)->rekey = st->geom == CF_GEOM_CHAIN &&
			(first == NULL || first->base_nbuckets != st->base_nbuckets ||
			 first->basebits != st->basebits);
		if (st->geom != CF_GEOM_CHAIN)
			first = NULL;
		else if (ENG(st)->rekey)
		{
			first = st;
			ENG(st)->run_level = st->level;
		}
		else if (st->level > ENG(first)->run_level)
			ENG(first)->run_level = st->level;
		swar = swar && st->geom == CF_GEOM_CHAIN && ENG(st)->swar;
		ENG(st)->bucket_bytes = ENG(st)->swar && st->bucket_bits % 8 == 0 ? st->bucket_bits / 8 : 0;
		ENG(st)->word_shift = 64 - st->bucket_bits;
		/* before the table: the header or an earlier table (see bucket_word) */
		ENG(st)->word_base = ENG(st)->bucket_bytes ? st->table + (ptrdiff_t) ENG(st)->bucket_bytes - 8 : NULL;
	}
	/* each table's shift from its run's highest level */
	for (uint32_t k = f->nstages; k-- > 0;)
	{
		cf_stage   *st = &f->stages[k];

		if (st->geom != CF_GEOM_CHAIN)
			continue;
		if (ENG(st)->rekey)
			first = st;
		ENG(st)->drop = ENG(first)->run_level - st->level;
	}
	if (!swar && semi_path(f))
		f->lookup = f->nstages == 1 && st0->level == 0 && st0->basebits == st0->fpbits &&
			st0->fpbits >= SEMI_MIN_W ? path_for(CFI_PATH_SEMI_TABLE, 4, st0->fpbits) :
			path_for(CFI_PATH_SEMI, 4, 0);
	else if (f->nstages == 1 && st0->geom == CF_GEOM_SPLIT && ENG(st0)->swar)
	{
		/*
		 * one bit-packed split table: its own path, specialized for the
		 * common widths (a semi-sorted one takes contains_any, whose
		 * stage_has reads it through the codec)
		 */
		f->lookup = st0->basebits == CF_SPLIT_F0 ?
			path_for(CFI_PATH_SPLIT, f->bucket_size, st0->fpbits) : 0;
		if (f->lookup == 0)
			f->lookup = path_for(CFI_PATH_SPLIT, 0, 0);
	}
	else if (!swar)
		f->lookup = path_for(CFI_PATH_ANY, 0, 0);
	else if (f->nstages > 1)
		f->lookup = path_for(CFI_PATH_CHAINS, 0, 0);
	else
	{
		f->lookup = st0->level == 0 && st0->basebits == st0->fpbits ?
			path_for(CFI_PATH_TABLE, f->bucket_size, st0->fpbits) : 0;
		if (f->lookup == 0)
			f->lookup = path_for(CFI_PATH_CHAIN, 0, 0);
	}
}
