/*
 * cuckoo_split.c - split tables (geometry 3): one table that doubles in
 * place.  The table arithmetic: its width schedule (cf_split_width),
 * kick-out insertion (the walk of cuckoo_table.h), the doubling, the
 * stash, deletes of the finest match, and placing entries of another
 * table of the family (unions).
 * When a filter's split table doubles or unites, and the filter's layout,
 * are cuckoo_geom_split.c's, the lookup paths cuckoo_split_lookup.c's.
 * Plain C99.
 */
#include "cuckoo_split.h"

#include <math.h>
#include <stdlib.h>

/* ---------------------------------------------------------------------
 * the width schedule: a split table's slot width at each level (its
 * sizing: cf_create's, a list's bound and the table it becomes)
 * ------------------------------------------------------------------- */

/*
 * 2^-n for n in 0 .. CF_MAX_FPBITS - 1, exact: ldexp(1.0, -n) without a call
 * into libm, whose cost (some fifty calls per schedule) was most of a
 * list's growth and of a union of two lists (issue 35)
 */
static const double split_pow2[CF_MAX_FPBITS] = {
	0x1p-0, 0x1p-1, 0x1p-2, 0x1p-3, 0x1p-4, 0x1p-5, 0x1p-6, 0x1p-7,
	0x1p-8, 0x1p-9, 0x1p-10, 0x1p-11, 0x1p-12, 0x1p-13, 0x1p-14, 0x1p-15,
	0x1p-16, 0x1p-17, 0x1p-18, 0x1p-19, 0x1p-20, 0x1p-21, 0x1p-22, 0x1p-23,
	0x1p-24, 0x1p-25, 0x1p-26, 0x1p-27, 0x1p-28, 0x1p-29, 0x1p-30, 0x1p-31,
};

/*
 * An entry keeps its false-match chance when it migrates (it loses a stored
 * bit and the query must match one more address bit), so the items added at
 * level l with F(l) = W(l) - 1 compared bits add about c * 2^-F(l) to the
 * rate for ever (c = bucket_size * design load).  The schedule is the step
 * function F = Fa (levels 0..10), Fb (11..20), Fc (21..31), Fa <= Fb <= Fc,
 * lexicographically smallest with
 *     c * (2 * 2^-Fa + 10 * 2^-Fa + 10 * 2^-Fb + 11 * 2^-Fc) <= 1.9 * fpr
 * (level 0 counts twice: its table is filled from empty), so the rate stays
 * below twice the target at every size.  Widths are at least
 * CF_SPLIT_MIN_WIDTH.  A pure function of fpr and the bucket size, so the
 * filters of one family always agree.
 */
static bool
split_schedule(double fpr, uint32_t bucket_size, uint32_t F[3])
{
	double		c = bucket_size * design_load_permille(bucket_size) / 1000.0;
	double		budget = 1.9 * fpr / c;
	uint32_t	fmin = CF_SPLIT_MIN_WIDTH - 1;

	for (uint32_t a = fmin; a <= CF_MAX_FPBITS - 1; a++)
	{
		/* no b fits where a's own terms do not (the sums below only grow) */
		if (12.0 * split_pow2[a] >= budget)
			continue;
		for (uint32_t b = a; b <= CF_MAX_FPBITS - 1; b++)
		{
			double		used = 12.0 * split_pow2[a] + 10.0 * split_pow2[b];

			if (used >= budget)
				continue;
			for (uint32_t k = b; k <= CF_MAX_FPBITS - 1; k++)
				if (used + 11.0 * split_pow2[k] <= budget)
				{
					F[0] = a;
					F[1] = b;
					F[2] = k;
					return true;
				}
		}
	}
	return false;
}

uint32_t
cf_split_width(double fpr, uint32_t bucket_size, uint32_t level)
{
	uint32_t	F[3];

	if (!split_schedule(fpr, bucket_size, F))
		return 0;
	return 1 + (level <= 10 ? F[0] : level <= 20 ? F[1] : F[2]);
}

const uint64_t cfi_split_keys[64] = {
	UINT64_C(0xbf5b3a6ebfadd310), UINT64_C(0x6d1ec949da859daa), UINT64_C(0x204d71068af8dbff),
	UINT64_C(0x1c672af53383e142), UINT64_C(0x5559f62229943430), UINT64_C(0x931b502babb0f6b3),
	UINT64_C(0xfb27455974a03bf0), UINT64_C(0x0854613938e13b88), UINT64_C(0x4c4f4787b8d6caed),
	UINT64_C(0x807298e38d9bd292), UINT64_C(0x1041781ecc63c021), UINT64_C(0x97e207665570e16d),
	UINT64_C(0x0b0541a61b43e496), UINT64_C(0x7d6110f46a9006b5), UINT64_C(0x4962307cf52b42ae),
	UINT64_C(0xf939abd0808c4df7), UINT64_C(0xfc65b37557a37360), UINT64_C(0x364eb401528712c0),
	UINT64_C(0x544b1eaf62ad5e27), UINT64_C(0x7ae7e89bf6d44a20), UINT64_C(0xade8a0a313b53dc3),
	UINT64_C(0x4f82b23ab3d1d867), UINT64_C(0xe6607265f97215f7), UINT64_C(0x41ec1ccd38e5db93),
	UINT64_C(0x122828e06e6e5e42), UINT64_C(0x42ee4898f0ed7941), UINT64_C(0x8d3001ac6e5e2de7),
	UINT64_C(0xa18e2c52d0996129), UINT64_C(0x51d1b2fc589a27fd), UINT64_C(0x9582cf0dbc823f22),
	UINT64_C(0x4ffe5f0620e3611a), UINT64_C(0x189efaf6facbfcf6), UINT64_C(0x9945ae984d2bb158),
	UINT64_C(0x388bc1cdfc1ce8f7), UINT64_C(0xea0a06c51d45bd47), UINT64_C(0xd828c93c46148dfe),
	UINT64_C(0xd22de02717a8c81c), UINT64_C(0x7b5ec865abfd26a8), UINT64_C(0x4ab80326345f4f3d),
	UINT64_C(0x3f349a1a368b934a), UINT64_C(0x0e8e5dc309e90211), UINT64_C(0x533faa3780e1f07e),
	UINT64_C(0x8a7b71282b7a0101), UINT64_C(0x57656f4fee707741), UINT64_C(0x597c42ff678d5559),
	UINT64_C(0xc52f8a2fe4189111), UINT64_C(0xd17bd37f6eb42cc7), UINT64_C(0x85746e15b8824c50),
	UINT64_C(0x3949ca608262856d), UINT64_C(0x8a6d0a92254705a0), UINT64_C(0xb54beedcd30e6c8f),
	UINT64_C(0x5065c9d7ee3565d5), UINT64_C(0x78d19440e3905be3), UINT64_C(0x4576c3e975e76297),
	UINT64_C(0xecf2396f72d306be), UINT64_C(0xbcca0b35f5126785), UINT64_C(0xffcbaafb10d0f044),
	UINT64_C(0xe3dedc5f7ba98828), UINT64_C(0xc8372010082b6f8b), UINT64_C(0xf28529aae5c7a549),
	UINT64_C(0x09d1803ead96485a), UINT64_C(0x7e1a37ff806f9466), UINT64_C(0x1d8a9ba71b6941d4),
	UINT64_C(0xffa841435026691d),
};

/* do a and b's rates give split tables the same widths at every level? */
bool
cfi_split_same_schedule(const cf_filter *a, const cf_filter *b)
{
	if (a->target_fpr == b->target_fpr)
		return true;
	for (uint32_t l = 0; l <= 31; l += 10)
		if (cf_split_width(a->target_fpr, a->bucket_size, l + (l > 0)) !=
			cf_split_width(b->target_fpr, b->bucket_size, l + (l > 0)))
			return false;
	return true;
}

/* ---------------------------------------------------------------------
 * entries in a width-free form: the slot as a 32-bit-wide table holds it
 * ------------------------------------------------------------------- */

/* slot v of a W-bit table as 32 bits */
static inline uint32_t
to32(uint32_t v, uint32_t W)
{
	return v << (32 - W);
}

/*
 * a 32-bit entry e as a slot of a W-bit table with R = W - 1 - F0, its
 * extension cut to R bits if longer (a coarser entry: still a prefix of its
 * owner's bits)
 */
static inline uint32_t
from32(uint32_t e, uint32_t W, uint32_t F0)
{
	uint32_t	R32 = 31 - F0;
	uint32_t	R = W - 1 - F0;

	if (R32 - (uint32_t) __builtin_ctz(e) > R)
		e = (e & ~((UINT32_C(1) << (R32 - R + 1)) - 1)) | (UINT32_C(1) << (R32 - R));
	return e >> (32 - W);
}

/* extension length r of a 32-bit entry */
static inline uint32_t
r32(uint32_t e, uint32_t F0)
{
	return 31 - F0 - (uint32_t) __builtin_ctz(e);
}

/* ---------------------------------------------------------------------
 * the stash: records of (bucket, level, 32-bit entry) after the table
 * ------------------------------------------------------------------- */

static inline uint8_t *
stash_rec(const cf_stage *st, uint32_t k)
{
	return st->stash + (size_t) k * CF_SPLIT_STASH_REC;
}

/*
 * The stash record matching h of the highest virtual level (its level plus
 * its extension length), or -1; *vlevel gets that level.
 */
static int
stash_find(const cf_stage *st, uint64_t h, int *vlevel)
{
	int			best = -1;
	uint32_t	F0 = st->basebits;
	uint32_t	f0 = (uint32_t) h >> (32 - F0);

	for (uint32_t k = 0; k < st->nstash; k++)
	{
		const uint8_t *r = stash_rec(st, k);
		uint32_t	e = get_le32(r + 4);
		uint32_t	x = get_le32(r);
		uint32_t	lev = r[8];
		split_probe p;
		int			vl;

		if (e == 0 || (e >> (32 - F0)) != f0)
			continue;
		split_probe_at(st->base_nbuckets, lev, F0, 31 - F0, h, &p);
		if (!((x == p.i1 && split_slot_matches(e, p.q1)) ||
			  (x == p.i2 && split_slot_matches(e, p.q2))))
			continue;
		vl = (int) (lev + r32(e, F0));
		if (best < 0 || vl > *vlevel)
		{
			best = (int) k;
			*vlevel = vl;
		}
	}
	return best;
}

static uint32_t
stash_count(const cf_stage *st, uint64_t h)
{
	uint32_t	n = 0;
	uint32_t	F0 = st->basebits;

	for (uint32_t k = 0; k < st->nstash; k++)
	{
		const uint8_t *r = stash_rec(st, k);
		uint32_t	e = get_le32(r + 4);
		split_probe p;

		if (e == 0 || (e >> (32 - F0)) != ((uint32_t) h >> (32 - F0)))
			continue;
		split_probe_at(st->base_nbuckets, r[8], F0, 31 - F0, h, &p);
		n += (get_le32(r) == p.i1 && split_slot_matches(e, p.q1)) ||
			(get_le32(r) == p.i2 && split_slot_matches(e, p.q2));
	}
	return n;
}

/* a free stash record (entry 0), or -1 */
int
cfi_split_stash_free(const cf_stage *st)
{
	for (uint32_t k = 0; k < st->nstash; k++)
		if (get_le32(stash_rec(st, k) + 4) == 0)
			return (int) k;
	return -1;
}

/* writes record k: entry e (32-bit form) in bucket x of level lev */
void
cfi_split_stash_put(cf_stage *st, uint32_t k, uint32_t x, uint32_t lev, uint32_t e)
{
	uint8_t    *r = stash_rec(st, k);

	if (st->journal)
		st->journal->save(st->journal, r, CF_SPLIT_STASH_REC);
	put_le32(r, x);
	put_le32(r + 4, e);
	r[8] = (uint8_t) lev;
	r[9] = r[10] = r[11] = 0;
}

/* the stash record h would take: its level-L primary bucket and full entry */
void
cfi_split_stash_entry(const cf_stage *st, uint64_t h, uint32_t *x, uint32_t *e)
{
	split_probe p;

	split_probe_of(st, h, &p);
	*x = p.i1;
	*e = to32(p.q1, st->fpbits);
}

/* ---------------------------------------------------------------------
 * lookups, counts
 * ------------------------------------------------------------------- */

static inline bool
bucket_matches(const cf_stage *st, uint32_t bucket_size, uint32_t i, uint32_t q)
{
	uint32_t	v[CFI_MAX_BUCKET];
	bool		in = false;

	if (ENG(st)->swar)
	{
		uint64_t	bit = (uint64_t) i * st->bucket_bits;
		uint64_t	w = load_window(st->table, st->table_bytes, bit >> 3) >> (bit & 7);

		return split_word_match(st, w, q * ENG(st)->lanes_lo) != 0;
	}
	/* the bucket read once (a semi-sorted one decoded once) */
	bucket_read(st, bucket_size, i, v);
	for (uint32_t s = 0; s < bucket_size; s++)
		in |= split_slot_matches(v[s], q);
	return in;
}

bool
cfi_split_has(const cf_stage *st, uint32_t bucket_size, uint64_t h)
{
	split_probe p;
	int			vl;

	split_probe_of(st, h, &p);
	if (bucket_matches(st, bucket_size, p.i1, p.q1) ||
		bucket_matches(st, bucket_size, p.i2, p.q2))
		return true;
	return st->nstash != 0 && stash_find(st, h, &vl) >= 0;
}

/* the stash part of a lookup (the split lookup paths call it when nstash != 0) */
bool
cfi_split_stash_has(const cf_stage *st, uint64_t h)
{
	int			vl;

	return stash_find(st, h, &vl) >= 0;
}

uint32_t
cfi_split_count(const cf_stage *st, uint32_t bucket_size, uint64_t h)
{
	split_pair	pr;
	uint32_t	n = 0;

	split_pair_read(st, bucket_size, h, &pr);
	for (uint32_t s = 0; s < bucket_size; s++)
	{
		uint32_t	v = pr.v[0][s];

		n += split_slot_matches(v, pr.p.q1) || (pr.p.i2 == pr.p.i1 && split_slot_matches(v, pr.p.q2));
		if (pr.p.i2 != pr.p.i1)
			n += split_slot_matches(pr.v[1][s], pr.p.q2);
	}
	return n + stash_count(st, h);
}

/* ---------------------------------------------------------------------
 * insertion
 * ------------------------------------------------------------------- */

/*
 * Puts entry v (as it reads in bucket i1) into one of its two buckets, with
 * the kick-out walk of cuckoo_table.h: split_alt gives an entry's other
 * bucket and how it reads there.
 */
bool
cfi_split_place(cf_stage *st, uint32_t bucket_size, uint32_t max_kicks,
				uint32_t i1, uint32_t v1, uint64_t seed)
{
	return cf_walk_place(st, bucket_size, max_kicks, i1, v1, seed, split_alt);
}

bool
cfi_split_insert(cf_stage *st, uint32_t bucket_size, uint32_t max_kicks, uint64_t h)
{
	split_probe p;

	split_probe_of(st, h, &p);
	return cfi_split_place(st, bucket_size, max_kicks, p.i1, p.q1,
						   ((uint64_t) p.q1 << 32) ^ h);
}

/* ---------------------------------------------------------------------
 * deletes
 * ------------------------------------------------------------------- */

/*
 * h's match of the highest virtual level (level plus extension length)
 * among the slots of its pair (*bi, *bs) and the stash records (*sk, when
 * a record is finer than every slot; else -1); returns that level, or -1
 * when nothing matches.
 */
static int
split_finest(const cf_stage *st, uint32_t bucket_size, uint64_t h, uint32_t *bi, uint32_t *bs,
			 int *sk)
{
	split_pair	pr;
	int			best = -1,
				vl = -1;
	uint32_t	R = st->extbits;

	*sk = -1;
	split_pair_read(st, bucket_size, h, &pr);
	for (int b = 0; b < 2; b++)
	{
		uint32_t	i = split_pair_bucket(&pr, b);
		uint32_t	q = split_pair_query(&pr, b);

		for (uint32_t s = 0; s < bucket_size; s++)
		{
			uint32_t	v = pr.v[b][s];
			int			lv;

			if (!split_slot_matches(v, q))
				continue;
			lv = (int) (st->level + R - (uint32_t) __builtin_ctz(v));
			if (lv > best)
			{
				best = lv;
				*bi = i;
				*bs = s;
			}
		}
	}
	if (st->nstash)
	{
		int			k = stash_find(st, h, &vl);

		if (k >= 0 && vl > best)
		{
			*sk = k;
			best = vl;
		}
	}
	return best;
}

int
cfi_split_finest(const cf_stage *st, uint32_t bucket_size, uint64_t h)
{
	uint32_t	bi,
				bs;
	int			sk;

	return split_finest(st, bucket_size, h, &bi, &bs, &sk);
}

/*
 * Removes h's match of the highest virtual level (level plus extension
 * length) among the slots of its pair and the stash records; false if none.
 * Exact (FORMAT.md, "Deletes in split tables"): the finest match's entry
 * matches a subset of the values any coarser match of h matches.
 */
bool
cfi_split_delete(cf_stage *st, uint32_t bucket_size, uint64_t h)
{
	uint32_t	bi = 0,
				bs = 0;
	int			sk;

	if (split_finest(st, bucket_size, h, &bi, &bs, &sk) < 0)
		return false;
	if (sk >= 0)
	{
		cfi_split_stash_put(st, (uint32_t) sk, 0, 0, 0);
		return true;
	}
	slot_set(st, bucket_size, bi, bs, 0);
	stage_set_nitems(st, st->nitems - 1);
	return true;
}

/* ---------------------------------------------------------------------
 * doubling
 * ------------------------------------------------------------------- */

/*
 * Writes the table of src doubled into dst, whose table (zeroed, level
 * src->level + 1, width >= src->fpbits) and stash (room for src's records)
 * the caller has set up: every entry of bucket x goes to bucket 2x + its
 * first extension bit with the rest of its extension; an entry with no
 * extension bits left goes to both 2x and 2x + 1.  The children hold at
 * most what the parent held, so nothing can overflow and nothing is kicked.
 * The stash records are copied as they are (they keep their level).
 */
void
cfi_split_double(const cf_stage *src, cf_stage *dst, uint32_t bucket_size)
{
	uint32_t	F0 = src->basebits;
	uint32_t	emask = (UINT32_C(1) << (32 - F0)) - 1;
	uint32_t	n = 0;

	for (uint32_t x = 0; x < src->nbuckets; x++)
	{
		check_interrupts(x);
		for (uint32_t s = 0; s < bucket_size; s++)
		{
			uint32_t	v = slot_get(src, bucket_size, x, s);
			uint32_t	e,
						head;

			if (v == 0)
				continue;
			e = to32(v, src->fpbits);
			head = e & ~emask;
			if (r32(e, F0) == 0)
			{
				uint32_t	w = e >> (32 - dst->fpbits);

				if (!bucket_put(dst, bucket_size, 2 * x, w) ||
					!bucket_put(dst, bucket_size, 2 * x + 1, w))
					abort();	/* cannot happen: children hold what the parent held */
				n += 2;
			}
			else
			{
				uint32_t	bit = (e >> (31 - F0)) & 1;
				uint32_t	rest = head | ((e << 1) & emask);

				if (!bucket_put(dst, bucket_size, 2 * x + bit, rest >> (32 - dst->fpbits)))
					abort();	/* cannot happen, as above */
				n++;
			}
		}
	}
	dst->nitems = n;
	put_le32(dst->desc + DESC_NITEMS, n);
	if (src->nstash)
		memcpy(dst->stash, src->stash, (size_t) src->nstash * CF_SPLIT_STASH_REC);
}

/* ---------------------------------------------------------------------
 * placing another table's entries (unions)
 * ------------------------------------------------------------------- */

/*
 * Places the 32-bit entry e of bucket x of st's level into st, cut to st's
 * width, with a kick-out walk; false (st unchanged) if it does not fit.
 */
bool
cfi_split_place32(cf_stage *st, uint32_t bucket_size, uint32_t max_kicks, uint32_t x, uint32_t e)
{
	return cfi_split_place(st, bucket_size, max_kicks, x, from32(e, st->fpbits, st->basebits),
						   ((uint64_t) x << 32) ^ e);
}

/*
 * One level of lifting of the 32-bit entry e of bucket x: its first
 * extension bit becomes the last address digit.  Returns false for an
 * entry with no extension bits (it belongs to both children: *x is 2x and
 * the caller places a copy in 2x + 1 too).
 */
bool
cfi_split_lift(uint32_t F0, uint32_t *x, uint32_t *e)
{
	uint32_t	emask = (UINT32_C(1) << (32 - F0)) - 1;

	if (r32(*e, F0) == 0)
	{
		*x = 2 * *x;
		return false;
	}
	*x = 2 * *x + ((*e >> (31 - F0)) & 1);
	*e = (*e & ~emask) | ((*e << 1) & emask);
	return true;
}

/* the 32-bit form of slot s of bucket x (0 if empty) */
uint32_t
cfi_split_entry32(const cf_stage *st, uint32_t bucket_size, uint32_t x, uint32_t s)
{
	uint32_t	v = slot_get(st, bucket_size, x, s);

	return v ? to32(v, st->fpbits) : 0;
}

/*
 * The copies a lift of st's entries to level `to` would add: an entry of
 * virtual level L + r (a stash record: its own level) lifted past it is
 * copied into both children at each further level, 2^(to - L - r) - 1
 * extra slots (capped: a count this large only says "far too many").
 */
uint64_t
cfi_split_lift_copies(const cf_stage *st, uint32_t bucket_size, uint32_t to)
{
	uint64_t	extra = 0;

	for (uint32_t x = 0; x < st->nbuckets; x++)
		for (uint32_t s = 0; s < bucket_size; s++)
		{
			uint32_t	v = slot_get(st, bucket_size, x, s);
			uint32_t	vl;

			if (v == 0)
				continue;
			vl = st->level + r32(to32(v, st->fpbits), st->basebits);
			if (to > vl)
				extra += (UINT64_C(1) << (to - vl > 32 ? 32 : to - vl)) - 1;
		}
	for (uint32_t k = 0; k < st->nstash; k++)
	{
		const uint8_t *rec = stash_rec(st, k);
		uint32_t	e = get_le32(rec + 4);
		uint32_t	vl;

		if (e == 0)
			continue;
		vl = rec[8] + r32(e, st->basebits);
		if (to > vl)
			extra += (UINT64_C(1) << (to - vl > 32 ? 32 : to - vl)) - 1;
	}
	return extra;
}

/* buckets cfi_split_fpr reads at most: evenly spaced beyond that */
#define SPLIT_FPR_SAMPLE	1024

/*
 * Expected false-positive rate of st: a lookup compares its query with the
 * 2 * bucket_size slots of its pair, and a slot with r extension bits
 * matches a random query with chance 2^-(F0 + r).  Reads every bucket of a
 * small table, an even sample of SPLIT_FPR_SAMPLE buckets of a large one
 * (deterministic; cf_info stays O(1)).
 */
double
cfi_split_fpr(const cf_stage *st, uint32_t bucket_size)
{
	double		sum = 0.0;
	uint32_t	step = st->nbuckets > SPLIT_FPR_SAMPLE ? st->nbuckets / SPLIT_FPR_SAMPLE : 1;
	uint32_t	seen = 0;

	for (uint32_t x = 0; x < st->nbuckets; x += step, seen++)
		for (uint32_t s = 0; s < bucket_size; s++)
		{
			uint32_t	v = slot_get(st, bucket_size, x, s);

			if (v)
				sum += ldexp(1.0, -(int) (st->fpbits - 1 - (uint32_t) __builtin_ctz(v)));
		}
	/* the mean per bucket (of every bucket, or of an even sample), times 2 buckets */
	sum *= 2.0 / seen;
	for (uint32_t k = 0; k < st->nstash; k++)
	{
		const uint8_t *r = stash_rec(st, k);
		uint32_t	e = get_le32(r + 4);

		if (e)
			sum += ldexp(2.0, -(int) (31 - (uint32_t) __builtin_ctz(e))) /
				((double) st->base_nbuckets * (double) (UINT64_C(1) << r[8]));
	}
	return sum > 1.0 ? 1.0 : sum;
}

/*
 * Stash records a conversion of the n hashes hs into split table t (level
 * 0, empty) needs at least: the members of a group of more than 2b hashes
 * with one base key and one bucket pair (copies of a value) beyond 2b.
 */
uint32_t
cfi_split_group_excess(const cf_stage *t, uint32_t b, const uint64_t *hs, uint32_t n)
{
	uint32_t	need = 0;

	for (uint32_t i = 0; i < n; i++)
	{
		split_probe pi;
		uint32_t	same = 0;

		split_probe_at(t->base_nbuckets, 0, t->basebits, t->extbits, hs[i], &pi);
		for (uint32_t j = 0; j < i; j++)
		{
			split_probe pj;

			split_probe_at(t->base_nbuckets, 0, t->basebits, t->extbits, hs[j], &pj);
			same += pj.q1 >> (t->extbits + 1) == pi.q1 >> (t->extbits + 1) &&
				((pj.i1 == pi.i1 && pj.i2 == pi.i2) || (pj.i1 == pi.i2 && pj.i2 == pi.i1));
		}
		need += same >= 2 * b;
	}
	return need;
}
