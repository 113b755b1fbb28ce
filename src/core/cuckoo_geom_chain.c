/*
 * cuckoo_geom_chain.c - the geometries of one cuckoo table with a bucket
 * pair per value: chain (geometry 2, FORMAT.md "Hashing": a family of
 * tables whose pairs refine, so deletes are exact) and legacy (geometry 1,
 * version-1 tables, read only).  Their kick-out insertion is
 * cuckoo_table.c's; a filter of them grows by appending a chain table.
 * Plain C99.
 */
#include "cuckoo_chain.h"
#include "cuckoo_check.h"
#include "cuckoo_geom.h"

#include <math.h>
#include <stdlib.h>

/* ---------------------------------------------------------------------
 * reading one table (FORMAT.md, "Table descriptor")
 * ------------------------------------------------------------------- */

/* a chain table: a level its buckets allow, a base key within its width */
static bool
chain_check(const cf_filter *f, cf_stage *st, uint32_t k, char *err, size_t errlen)
{
	if (!cfi_check_slots(f, st, k, err, errlen))
		return false;
	if (st->level > 31 || (st->nbuckets & (uint32_t) ((UINT64_C(1) << st->level) - 1)) != 0)
	{
		cfi_set_err(err, errlen, "sub-filter %u has %u buckets, not a multiple of 2^%u for its level",
				k, st->nbuckets, st->level);
		return false;
	}
	if (st->basebits < CF_MIN_FPBITS || st->basebits + st->level > st->fpbits)
	{
		cfi_set_err(err, errlen, "sub-filter %u has base width %u, level %u and width %u (the base width must be at least %d and at most the width less the level)",
				k, st->basebits, st->level, st->fpbits, CF_MIN_FPBITS);
		return false;
	}
	cfi_stage_setup(st, f->bucket_size);
	return true;
}

/* a legacy table: level 0, its base key the whole fingerprint (else no geometry this build reads) */
static bool
legacy_check(const cf_filter *f, cf_stage *st, uint32_t k, char *err, size_t errlen)
{
	if (!cfi_check_slots(f, st, k, err, errlen))
		return false;
	if (st->level != 0 || st->basebits != st->fpbits)
		return cfi_unknown_geometry(st, k, err, errlen);
	cfi_stage_setup(st, f->bucket_size);
	return true;
}

/* every entry is a fingerprint: any nonzero slot value */
static bool
chain_scan(const cf_filter *f, uint32_t k, char *err, size_t errlen)
{
	return cfi_scan_table(f, k, UINT32_MAX, err, errlen);
}

/* ---------------------------------------------------------------------
 * one table
 * ------------------------------------------------------------------- */

static bool
chain_has(const cf_stage *st, uint32_t b, uint64_t h)
{
	return chain_pair_has(st, b, h);
}

static uint32_t
chain_count(const cf_stage *st, uint32_t b, uint64_t h)
{
	uint32_t	fp = fingerprint(st, h),
				i1 = primary_bucket(st, h),
				i2 = alt_bucket(st, i1, fp),
				n = bucket_count(st, b, i1, fp);

	if (i2 != i1)
		n += bucket_count(st, b, i2, fp);
	return n;
}

/* a kick-out walk of at most max_kicks steps (0: a free slot of the pair or nothing) */
static bool
chain_add(cf_stage *st, uint32_t b, uint32_t max_kicks, uint64_t h)
{
	return cfi_stage_insert(st, b, max_kicks, primary_bucket(st, h), fingerprint(st, h));
}

static bool
chain_remove(cf_stage *st, uint32_t b, uint64_t h)
{
	uint32_t	fp = fingerprint(st, h),
				i1 = primary_bucket(st, h);

	if (!bucket_remove(st, b, i1, fp) && !bucket_remove(st, b, alt_bucket(st, i1, fp), fp))
		return false;
	stage_set_nitems(st, st->nitems - 1);
	return true;
}

/* version-1 tables: each size and width unrelated to the others */
static bool
legacy_refines(const cf_stage *s, const cf_stage *t)
{
	return s->nbuckets == t->nbuckets && s->fpbits == t->fpbits;
}

/*
 * Does sub-filter s refine sub-filter t: do two values that collide in s
 * (same fingerprint, same bucket pair) always collide in t?  In a chain
 * family for a table of no lower level and no narrower fingerprint
 * (FORMAT.md).
 */
static bool
chain_refines(const cf_stage *s, const cf_stage *t)
{
	return s->base_nbuckets == t->base_nbuckets && s->basebits == t->basebits &&
		s->level >= t->level && s->fpbits >= t->fpbits;
}

/*
 * Are both buckets of h in sub-filter st filled with copies of h alone?  Then
 * the add failed for want of room for yet another copy, not for want of
 * space in general.
 */
static bool
chain_full_of_copies(const cf_stage *st, uint32_t b, uint64_t h)
{
	uint32_t	fp = fingerprint(st, h);
	uint32_t	i1 = primary_bucket(st, h);
	uint32_t	i2 = alt_bucket(st, i1, fp);
	uint32_t	n = bucket_count(st, b, i1, fp);

	if (i2 == i1)
		return n == b;
	return n + bucket_count(st, b, i2, fp) == 2 * b;
}

/*
 * Moves every fingerprint of src into dst (same geometry): a slot's bucket
 * and fingerprint are all an insert needs, so no original value is required.
 * Returns false, with dst partly filled, if one does not fit.
 */
static bool
chain_fold(cf_stage *dst, const cf_stage *src, uint32_t bucket_size, uint32_t max_kicks)
{
	for (uint32_t i = 0; i < src->nbuckets; i++)
		for (uint32_t s = 0; s < bucket_size; s++)
		{
			uint32_t	fp = slot_get(src, bucket_size, i, s);

			check_interrupts((uint64_t) i * bucket_size + s);

			if (fp != 0 && !cfi_stage_insert(dst, bucket_size, max_kicks, i, fp))
				return false;
		}
	return true;
}

/* the bulk build of cuckoo_build.c */
static bool
chain_build(cf_filter *f, const cf_run *runs, size_t nruns, uint64_t n, void *work)
{
	return cfi_build_pairs(f, runs, nruns, n, work);
}

static uint64_t
chain_items(const cf_stage *st)
{
	return st->nitems;
}

static void
chain_stats(const cf_filter *f, uint32_t k, cf_stats *s, uint64_t *slots, double *miss)
{
	const cf_stage *st = &f->stages[k];
	uint64_t	n = (uint64_t) st->nbuckets * f->bucket_size;
	double		load = (double) st->nitems / (double) n;

	s->items += st->nitems;
	s->buckets += st->nbuckets;
	*slots += n;
	s->capacity += k == 0 ? f->capacity :
		n * design_load_permille(f->bucket_size) / 1000;
	/* a miss in this sub-filter: no occupied slot of 2 buckets matches */
	*miss *= pow(1.0 - 1.0 / (double) st->fpmax, 2.0 * f->bucket_size * load);
}

/* ---------------------------------------------------------------------
 * growth: a filter without a sub-filter that grows in place (chain and
 * legacy tables only) grows by a new chain table
 * ------------------------------------------------------------------- */

/*
 * The chain family growth extends: stage 0's, else the first chain
 * sub-filter's (a version-1 filter that grew), else none.
 */
static const cf_stage *
home_family(const cf_filter *f)
{
	for (uint32_t k = 0; k < f->nstages; k++)
		if (f->stages[k].geom == CF_GEOM_CHAIN)
			return &f->stages[k];
	return NULL;
}

/*
 * The sub-filter growth appends.  In the home family: expansion times the
 * buckets of its largest table (log2(expansion) levels up; as many when
 * same_size) and one fingerprint bit more than its widest (at least the
 * width its level needs), so false-positive rates form a halving series.
 * A filter with no chain table (version 1) starts a family: expansion times
 * its largest sub-filter, one bit wider than its widest.  Returns false
 * with err set if that exceeds a limit.
 */
static bool
next_stage(const cf_filter *f, bool same_size, cf_stage *out, char *err, size_t errlen)
{
	const cf_stage *home = home_family(f);
	uint64_t	m = 0;
	uint32_t	level = 0,
				width = 0,
				step = 0;

	memset(out, 0, sizeof(*out));
	out->geom = CF_GEOM_CHAIN;
	/* a filter grows in the encoding of its first table (FORMAT.md, "Growth") */
	out->enc = f->stages[0].enc;
	while ((1u << step) < f->expansion)
		step++;
	if (home == NULL)
	{
		for (uint32_t k = 0; k < f->nstages; k++)
		{
			m = f->stages[k].nbuckets > m ? f->stages[k].nbuckets : m;
			width = f->stages[k].fpbits > width ? f->stages[k].fpbits : width;
		}
		m = same_size ? f->stages[f->nstages - 1].nbuckets : m * f->expansion;
		width = width < CF_MAX_FPBITS ? width + 1 : CF_MAX_FPBITS;
		out->basebits = width < CF_CHAIN_KEY_MAX ? width : CF_CHAIN_KEY_MAX;
	}
	else
	{
		for (uint32_t k = 0; k < f->nstages; k++)
		{
			const cf_stage *st = &f->stages[k];

			if (st->geom != CF_GEOM_CHAIN || st->base_nbuckets != home->base_nbuckets ||
				st->basebits != home->basebits)
				continue;
			level = st->level > level ? st->level : level;
			width = st->fpbits > width ? st->fpbits : width;
		}
		level += same_size ? 0 : step;
		width = width < CF_MAX_FPBITS ? width + 1 : CF_MAX_FPBITS;
		if (width < home->basebits + level)
			width = home->basebits + level;
		out->basebits = home->basebits;
		m = level > 31 ? UINT64_MAX : (uint64_t) home->base_nbuckets << level;
	}
	out->level = level;
	out->fpbits = width;
	if (width > CF_MAX_FPBITS)
	{
		cfi_set_err(err, errlen, "growing the filter would need fingerprints wider than %d bits",
				CF_MAX_FPBITS);
		return false;
	}
	if (m > UINT32_MAX)
	{
		cfi_set_err(err, errlen, "growing the filter would need a sub-filter of more than 2^32 buckets");
		return false;
	}
	out->nbuckets = (uint32_t) m;
	return true;
}

/* the filter with one more sub-filter (next_stage) */
static size_t
chain_grow_size(const cf_filter *f, uint32_t k, bool same_size, char *err, size_t errlen)
{
	cf_stage	st;
	uint64_t	len;

	(void) k;
	if (f->nstages >= CF_MAX_STAGES)
	{
		cfi_set_err(err, errlen, "filter already has the maximum of %d sub-filters", CF_MAX_STAGES);
		return 0;
	}
	if (!next_stage(f, same_size, &st, err, errlen))
		return 0;
	len = f->len + CF_V2_STAGE_SIZE + table_bytes_for(st.nbuckets, f->bucket_size, st.fpbits, st.enc);
	if (len > CF_MAX_SIZE)
	{
		cfi_set_err(err, errlen, "growing the filter would exceed the 1 GB a value can hold");
		return 0;
	}
	return (size_t) len;
}

static void
chain_grow(cf_filter *f, uint32_t k, uint8_t *out, bool same_size)
{
	uint8_t		desc[CF_V2_STAGE_SIZE];
	cf_stage	st;

	(void) k;
	if (!next_stage(f, same_size, &st, NULL, 0))
		abort();				/* cannot happen: grow_size checked it */
	cfi_write_desc(desc, &st);
	cfi_splice_stages(f, out, 1, desc, NULL);
}

/* ---------------------------------------------------------------------
 * lookups (cf_contains): the paths of a filter of chain tables, chosen by
 * chain_lookup when it is opened
 * ------------------------------------------------------------------- */

/*
 * Chain tables of any width and encoding, newest (largest) first, stopping
 * at the first match.  The tables of a family share the base key fp0 (the
 * top basebits bits of g), so H(fp0) is computed once per family, not once
 * per table.
 */
static bool
contains_chains_any(const cf_filter *f, uint64_t h)
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

/* the paths for a bigint: its hash, then the path */
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

	for (size_t b = 0; b < n; b += CFI_MANY_BLOCK)
	{
		size_t		m = n - b < CFI_MANY_BLOCK ? n - b : CFI_MANY_BLOCK;
		uint32_t	i1[CFI_MANY_BLOCK],
					i2[CFI_MANY_BLOCK],
					fp[CFI_MANY_BLOCK];

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

	for (size_t b = 0; b < n; b += CFI_MANY_BLOCK)
	{
		size_t		m = n - b < CFI_MANY_BLOCK ? n - b : CFI_MANY_BLOCK;
		uint32_t	i1[CFI_MANY_BLOCK],
					i2[CFI_MANY_BLOCK],
					fp[CFI_MANY_BLOCK];

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

/* semi-sorted chain tables: batched when there is one */
static size_t
contains_many_semis(const cf_filter *f, const uint64_t *h, size_t n, bool *found)
{
	size_t		hits = 0;

	if (f->nstages == 1)
		return contains_many_semi(f, h, n, found);
	for (size_t j = 0; j < n; j++)
	{
		found[j] = contains_semi(f, h[j]);
		hits += found[j];
	}
	return hits;
}


/*
 * The paths, numbered as cf_filter.lookup shows them: 0 the general one
 * (here: chain tables of any width or encoding), 1 one chain table, 2
 * chain tables with one-load buckets, 3 .. 33 one level-0 table per bucket
 * size and width (2 and 4: widths 4 .. 16; 8: 4 .. 8), 41 semi-sorted
 * chain tables of width <= 16, 42 .. 53 one such level-0 table per width.
 */
#define TABLE_MIN_F		4
#define TABLE_MAX_F		16
#define TABLE_ID(B, F)	(3 + ((B) == 2 ? 0 : (B) == 4 ? 13 : 26) + (F) - TABLE_MIN_F)
#define TABLE(B, F) \
	{"table", TABLE_ID(B, F), true, one_table_##B##_##F, one_table_int64_##B##_##F, contains_many_one}
#define TABLE_ROW(B) TABLE(B, 4), TABLE(B, 5), TABLE(B, 6), TABLE(B, 7), TABLE(B, 8)
#define TABLE_ROW_WIDE(B) \
	TABLE(B, 9), TABLE(B, 10), TABLE(B, 11), TABLE(B, 12), TABLE(B, 13), TABLE(B, 14), \
	TABLE(B, 15), TABLE(B, 16)
#define SEMI_TABLE(W) {"semi-sorted table", 42 + (W) - SEMI_MIN_W, false, semi_one_##W, NULL, semi_one_many_##W}

static const cfi_lookup_path chain_any = {"any", 0, false, contains_chains_any, NULL, NULL};
static const cfi_lookup_path chain_one = {"chain", 1, false, contains_one, int64_one, contains_many_one};
static const cfi_lookup_path chain_runs = {"chains", 2, false, contains_swar, int64_swar, NULL};
static const cfi_lookup_path chain_tables[3][TABLE_MAX_F - TABLE_MIN_F + 1] = {
	{TABLE_ROW(2), TABLE_ROW_WIDE(2)},
	{TABLE_ROW(4), TABLE_ROW_WIDE(4)},
	{TABLE_ROW(8)}
};
static const cfi_lookup_path semi_runs = {"semi-sorted", 41, false, contains_semi, NULL, contains_many_semis};
static const cfi_lookup_path semi_tables[] = {
	SEMI_TABLE(5), SEMI_TABLE(6), SEMI_TABLE(7), SEMI_TABLE(8), SEMI_TABLE(9), SEMI_TABLE(10),
	SEMI_TABLE(11), SEMI_TABLE(12), SEMI_TABLE(13), SEMI_TABLE(14), SEMI_TABLE(15), SEMI_TABLE(16)
};

/* every semi-sorted width has its row (a negative array size if not) */
typedef char chain_semi_tables_complete[sizeof(semi_tables) / sizeof(semi_tables[0]) ==
										 SEMI_WORD_MAX_W - SEMI_MIN_W + 1 ? 1 : -1];

/*
 * The path of a filter of chain tables, and what its tables share: where
 * each run of one family starts (newest first) and each table's shift from
 * its run's highest level.
 */
static const cfi_lookup_path *
chain_lookup(cf_filter *f)
{
	const cf_stage *st0 = &f->stages[0];
	cf_stage   *first = NULL;	/* the rekey stage of the current run */
	bool		swar = true,
				semi = true;

	for (uint32_t k = f->nstages; k-- > 0;)
	{
		cf_stage   *st = &f->stages[k];

		ENG(st)->rekey = first == NULL || first->base_nbuckets != st->base_nbuckets ||
			first->basebits != st->basebits;
		if (ENG(st)->rekey)
		{
			first = st;
			ENG(st)->run_level = st->level;
		}
		else if (st->level > ENG(first)->run_level)
			ENG(first)->run_level = st->level;
		swar = swar && ENG(st)->swar;
		semi = semi && bucket_reorders(st) && st->fpbits <= SEMI_WORD_MAX_W;
		stage_word_setup(st);
	}
	for (uint32_t k = f->nstages; k-- > 0;)
	{
		cf_stage   *st = &f->stages[k];

		if (ENG(st)->rekey)
			first = st;
		ENG(st)->drop = ENG(first)->run_level - st->level;
	}
	if (!swar && semi)
		return f->nstages == 1 && st0->level == 0 && st0->basebits == st0->fpbits &&
			st0->fpbits >= SEMI_MIN_W ? &semi_tables[st0->fpbits - SEMI_MIN_W] : &semi_runs;
	if (!swar)
		return &chain_any;
	if (f->nstages > 1)
		return &chain_runs;
	if (st0->level == 0 && st0->basebits == st0->fpbits && st0->fpbits >= TABLE_MIN_F &&
		st0->fpbits <= TABLE_MAX_F && (f->bucket_size == 2 || f->bucket_size == 4 || f->bucket_size == 8))
	{
		const cfi_lookup_path *p = &chain_tables[f->bucket_size / 4][st0->fpbits - TABLE_MIN_F];

		if (p->contains != NULL)
			return p;
	}
	return &chain_one;
}

/* ---------------------------------------------------------------------
 * a new filter: one chain table of level 0 (a fixed size, or one that
 * grows by appended tables), the width the rate asks for
 * ------------------------------------------------------------------- */

/* any parameters cfi_check_params accepts */
static bool
chain_takes(const cf_params *p)
{
	(void) p;
	return true;
}

static size_t
chain_create_size(const cf_params *p, char *err, size_t errlen)
{
	return cfi_create_len(p, cf_nbuckets_for(p->capacity, p->bucket_size),
						  (uint32_t) cf_fpbits_for(p->fpr, p->bucket_size), err, errlen);
}

static void
chain_create(uint8_t *buf, const cf_params *p)
{
	cf_stage	st;

	memset(&st, 0, sizeof(st));
	st.nbuckets = (uint32_t) cf_nbuckets_for(p->capacity, p->bucket_size);
	st.fpbits = (uint32_t) cf_fpbits_for(p->fpr, p->bucket_size);
	st.geom = CF_GEOM_CHAIN;
	st.basebits = st.fpbits < CF_CHAIN_KEY_MAX ? st.fpbits : CF_CHAIN_KEY_MAX;
	st.enc = (uint32_t) p->encoding;
	cfi_create_header(buf, p, st.fpbits);
	cfi_write_desc(buf + CF_V2_HEADER_SIZE, &st);
	/* an empty table is all zeros in either encoding (index 0 is {0, 0, 0, 0}) */
	memset(buf + CF_V2_HEADER_SIZE + CF_V2_STAGE_SIZE, 0,
		   (size_t) table_bytes_for(st.nbuckets, (uint32_t) p->bucket_size, st.fpbits, st.enc));
	cfi_seal(buf);
}

/* ---------------------------------------------------------------------
 * the tables
 * ------------------------------------------------------------------- */

/* growth by an appended chain table (cfi_geom_appended: any filter without an in-place sub-filter) */
static const cfi_growth chain_growth = {
	.grow_size = chain_grow_size,
	.grow = chain_grow,
};

const cfi_geometry cfi_geom_chain = {
	.name = "chain",
	.geom = CF_GEOM_CHAIN,
	.stash = false,
	.check = chain_check,
	.attach = NULL,
	.scan = chain_scan,
	.has = chain_has,
	.count = chain_count,
	.add = chain_add,
	.remove = chain_remove,
	.refines = chain_refines,
	.full_of_copies = chain_full_of_copies,
	.fold = chain_fold,
	.items = chain_items,
	.build = chain_build,
	.stats = chain_stats,
	.lookup = chain_lookup,
	.takes = chain_takes,
	.create_size = chain_create_size,
	.create = chain_create,
	.growth = &chain_growth,
};

/*
 * legacy tables: chain's operations but for refines; never created (version
 * 1's); a filter of them grows by chain tables (growth NULL)
 */
const cfi_geometry cfi_geom_legacy = {
	.name = "legacy",
	.geom = CF_GEOM_LEGACY,
	.stash = false,
	.check = legacy_check,
	.attach = NULL,
	.scan = chain_scan,
	.has = chain_has,
	.count = chain_count,
	.add = chain_add,
	.remove = chain_remove,
	.refines = legacy_refines,
	.full_of_copies = chain_full_of_copies,
	.fold = chain_fold,
	.items = chain_items,
	.build = chain_build,
	.stats = chain_stats,
};
