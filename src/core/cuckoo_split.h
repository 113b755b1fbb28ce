/*
 * cuckoo_split.h - split tables (geometry 3, cuckoo_split.c): the address
 * and entry arithmetic every reader of a split table inlines, and the split
 * table's operations.
 */
#ifndef CUCKOO_SPLIT_H
#define CUCKOO_SPLIT_H

#include "cuckoo_geom.h"

/*
 * SSE2 (every x86-64) compares a split table's bucket pair in 16-bit lanes
 * (split_pair_match16) or, for widths 17 .. 24, 32-bit ones
 * (split_pair_match32); CF_NO_SIMD builds the portable path alone.
 */
#if defined(__SSE2__) && !defined(CF_NO_SIMD)
#define SPLIT_SIMD 1
#include <emmintrin.h>
#endif

/*
 * SPLIT (geometry 3, FORMAT.md "Split tables"): one table of m0 << L
 * buckets, m0 odd.  With prod = H * m0, top = prod div 2^32 and the 64-bit
 * address stream S = (prod mod 2^32) * 2^32 + (g * 2^F0 mod 2^32), read
 * from its top bit down, and K = kk(f0) = mix64(f0 + seed) the key of the
 * base fingerprint f0 = g div 2^(32 - F0):
 *   i1 = top * 2^L + S[1..L]
 *   i2 = ((hm - top) mod m0) * 2^L + (S[1..L] xor K[1..L]),  hm = (low32(kk) * m0) div 2^32
 *   a slot of width W = F0 + 1 + R holds f0 | e (r bits) | 1 | 0^(R - r); 0 is empty
 *   in i1 it matches when e is a prefix of S[L+1..L+R], in i2 of that xor K[L+1..L+R].
 * The pair at level L + 1 refines the pair at level L (drop the last digit),
 * so an entry can trade its first extension bit for an address digit: the
 * table doubles in place and never needs a kick to do it.
 */

/* kk(f0) = mix64(f0 + CF_HASH_SEED) for f0 < 64 (test_unit checks the formula) */
extern const uint64_t cfi_split_keys[64];

/* h's bucket pair and the slot values it matches in each bucket */
typedef struct split_probe
{
	uint32_t	i1,
				i2;
	uint32_t	q1,				/* f0 | S[L+1..L+R] | 1: the full entry for i1 */
				q2;				/* the same for i2 */
} split_probe;

/*
 * h's probe at level L of a split table with m0 base buckets, base width
 * F0 and extension width R (1 <= R, L + R <= 64 - F0, L <= 31).
 */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline void
split_probe_at(uint32_t m0, uint32_t L, uint32_t F0, uint32_t R, uint64_t h, split_probe *p)
{
	uint64_t	prod = (h >> 32) * m0;
	uint32_t	top = (uint32_t) (prod >> 32);
	uint32_t	g = (uint32_t) h;
	uint32_t	f0 = g >> (32 - F0);
	uint64_t	kk = cfi_split_keys[f0];
	uint32_t	hm = (uint32_t) (((uint64_t) (uint32_t) kk * m0) >> 32);
	uint32_t	a0 = hm - top + (m0 & (0u - (uint32_t) (hm < top)));
	/* K rotated left by L: K[1..L] at the bottom, K[L+1..L+R] on top (L + R <= 64) */
	uint64_t	kr = (kk << L) | (kk >> ((0u - L) & 63));
	/* prod * 2^L < 2^64 (m0 * 2^L < 2^32): top * 2^L + S[1..L] over S[L+1..32] */
	uint64_t	pl = prod << L;
	uint32_t	i1 = (uint32_t) (pl >> 32);
	uint32_t	x = i1 ^ (uint32_t) kr;
	/* S * 2^L: S[L+1..L+R] on top, then S[L+R+1] (made 1 below, the marker) */
	uint64_t	T = (pl << 32) | ((uint64_t) (g << F0) << L);

	p->i1 = i1;
	/* (a0 << L) | the low L bits of x */
	p->i2 = ((a0 ^ (x >> L)) << L) ^ x;
	p->q1 = (f0 << (R + 1)) | (uint32_t) (T >> (63 - R)) | 1;
	p->q2 = p->q1 ^ ((uint32_t) (kr >> (63 - R)) & ~1u);
}

static inline void
split_probe_of(const cf_stage *st, uint64_t h, split_probe *p)
{
	split_probe_at(st->base_nbuckets, st->level, st->basebits, st->extbits, h, p);
}

/*
 * Split tables, a bucket in one word w: non-zero iff a lane matches ql (the
 * query times lanes_lo).  Lane-wise w - 1 (the top bit of each lane set
 * first so no borrow leaves it) gives each lane's marker-and-below mask; a
 * lane matches when nothing above its marker differs from the query and it
 * is not empty; then bad has a zero lane, which the borrow test detects
 * exactly (it may misplace which lane, never whether one is).
 */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline uint64_t
split_word_match(const cf_stage *st, uint64_t w, uint64_t ql)
{
	uint64_t	lo = ENG(st)->lanes_lo,
				hi = ENG(st)->lanes_hi,
				m = ENG(st)->bucket_mask;
	uint64_t	x = w & m;
	uint64_t	below = x ^ (((x | hi) - lo) ^ (~x & hi));
	uint64_t	bad = ((x ^ ql) & ~below & m) | swar_empty_lanes(st, x);

	return (bad - lo) & ~bad & hi;
}

#ifdef SPLIT_SIMD
/*
 * Split tables of bucket size 4 and width W <= 16 (W known at compile
 * time), h's two bucket words w1 and w2 (slot s at bit s * W, bits above
 * 4W ignored) compared at once against q1 and q2 in 16-bit SSE2 lanes: true
 * iff a slot of w1 matches q1 or one of w2 matches q2 (split_slot_matches).
 * Each lane's marker-and-below mask is x ^ (x - 1), the subtraction
 * saturating so that an empty lane's mask is 0: it then differs from the
 * query (odd, so never 0) and cannot match, with no separate empty test.
 */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline bool
split_pair_match16(uint64_t w1, uint64_t w2, uint32_t q1, uint32_t q2, const uint32_t W)
{
	__m128i		x = _mm_set_epi64x((long long) w2, (long long) w1);
	/* q1 in the low four lanes, q2 in the high four */
	__m128i		q = _mm_cvtsi32_si128((int) (q1 | (q2 << 16)));
	__m128i		below,
				bad;

	if (W < 16)
	{
		/* slots 2 and 3 up to bit 32, then in each 32-bit half slot 1 up to bit 16 */
		const uint64_t two = (UINT64_C(1) << (2 * W)) - 1;
		const uint32_t one = (1u << W) - 1;

		x = _mm_or_si128(_mm_and_si128(x, _mm_set1_epi64x((long long) two)),
						 _mm_and_si128(_mm_slli_epi64(x, 32 - 2 * W), _mm_set1_epi64x((long long) (two << 32))));
		x = _mm_or_si128(_mm_and_si128(x, _mm_set1_epi32((int) one)),
						 _mm_and_si128(_mm_slli_epi32(x, 16 - W), _mm_set1_epi32((int) (one << 16))));
	}
	q = _mm_shuffle_epi32(_mm_unpacklo_epi16(q, q), 0x50);
	below = _mm_xor_si128(x, _mm_subs_epu16(x, _mm_set1_epi16(1)));
	bad = _mm_andnot_si128(below, _mm_xor_si128(x, q));
	return _mm_movemask_epi8(_mm_cmpeq_epi16(bad, _mm_setzero_si128())) != 0;
}

/*
 * Split tables of bucket size 4 and width 17 <= W <= 24 (W known at
 * compile time), h's two buckets each in two words (a: slots 0 and 1, b:
 * slots 2 and 3, in its low 2W bits) compared at once against q1 and q2 in
 * 32-bit SSE2 lanes: true iff a slot of bucket 1 matches q1 or one of
 * bucket 2 matches q2 (split_slot_matches: v ^ q <= v ^ (v - 1)).  Every
 * lane is below 2^31, so the lanes compare as signed, and an empty lane's
 * mask, 0 - 1, is below every query: it cannot match, with no separate
 * empty test.
 */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline bool
split_pair_match32(uint64_t a1, uint64_t b1, uint64_t a2, uint64_t b2, uint32_t q1, uint32_t q2,
				   const uint32_t W)
{
	const uint64_t one = (UINT64_C(1) << W) - 1;
	const __m128i lo = _mm_set1_epi64x((long long) one),
				hi = _mm_set1_epi64x((long long) (one << 32)),
				ones = _mm_set1_epi32(1);
	__m128i		x1 = _mm_set_epi64x((long long) b1, (long long) a1),
				x2 = _mm_set_epi64x((long long) b2, (long long) a2),
				miss1,
				miss2;

	/* in each 64-bit half, its second slot up to bit 32: slot s in 32-bit lane s */
	x1 = _mm_or_si128(_mm_and_si128(x1, lo), _mm_and_si128(_mm_slli_epi64(x1, 32 - W), hi));
	x2 = _mm_or_si128(_mm_and_si128(x2, lo), _mm_and_si128(_mm_slli_epi64(x2, 32 - W), hi));
	/* all ones in a lane that does not match */
	miss1 = _mm_cmpgt_epi32(_mm_xor_si128(x1, _mm_set1_epi32((int) q1)),
							_mm_xor_si128(x1, _mm_sub_epi32(x1, ones)));
	miss2 = _mm_cmpgt_epi32(_mm_xor_si128(x2, _mm_set1_epi32((int) q2)),
							_mm_xor_si128(x2, _mm_sub_epi32(x2, ones)));
	return _mm_movemask_epi8(_mm_and_si128(miss1, miss2)) != 0xFFFF;
}
#endif

/*
 * h's pair in a split table, read once: its probe and both buckets' slot
 * values (v[0] bucket i1, v[1] bucket i2, slot by slot), what every scan
 * of the pair's slots reads (a semi-sorted bucket decoded once).
 */
typedef struct split_pair
{
	split_probe p;
	uint32_t	v[2][CFI_MAX_BUCKET];
} split_pair;

static inline void
split_pair_read(const cf_stage *st, uint32_t bucket_size, uint64_t h, split_pair *pr)
{
	split_probe_of(st, h, &pr->p);
	bucket_read(st, bucket_size, pr->p.i1, pr->v[0]);
	bucket_read(st, bucket_size, pr->p.i2, pr->v[1]);
}

/* side 0 or 1 of pair pr: its bucket and the entry h has there */
static inline uint32_t
split_pair_bucket(const split_pair *pr, int side)
{
	return side ? pr->p.i2 : pr->p.i1;
}

static inline uint32_t
split_pair_query(const split_pair *pr, int side)
{
	return side ? pr->p.q2 : pr->p.q1;
}

/* does slot value v (any width) match query q: all bits above v's marker equal */
static inline bool
split_slot_matches(uint32_t v, uint32_t q)
{
	return v != 0 && (v ^ q) <= (v ^ (v - 1));
}

/*
 * The other bucket of the entry v sitting in bucket x, and (*v2) the same
 * entry as it reads there: its extension bits xor the key's bits of the
 * levels they stand for.  Its own inverse.
 */
static inline uint32_t
split_alt(const cf_stage *st, uint32_t x, uint32_t v, uint32_t *v2)
{
	uint32_t	L = st->level,
				R = st->extbits,
				m0 = st->base_nbuckets;
	uint64_t	kk = cfi_split_keys[v >> (R + 1)];
	uint32_t	hm = (uint32_t) (((uint64_t) (uint32_t) kk * m0) >> 32);
	uint32_t	top = x >> L;
	uint32_t	a0 = hm >= top ? hm - top : hm + m0 - top;
	uint32_t	kap = (uint32_t) ((kk << L) >> (64 - R)) << 1;

	*v2 = v ^ (kap & ~(v ^ (v - 1)));
	return (a0 << L) | ((x ^ (uint32_t) ((kk >> 1) >> (63 - L))) & ENG(st)->lowmask);
}

/* ---- split tables (cuckoo_split.c; what the list and union use: cuckoo_geom.h) ---- */
/* Kick-out insertion of entry v1 (as it reads in bucket i1); undone on failure. */
bool		cfi_split_place(cf_stage *st, uint32_t bucket_size, uint32_t max_kicks,
							uint32_t i1, uint32_t v1, uint64_t seed);
/* The virtual level (level + extension length) of h's finest match (slots and stash), or -1. */
int			cfi_split_finest(const cf_stage *st, uint32_t bucket_size, uint64_t h);
/* Removes h's match of the highest virtual level (slots and stash); false if none. */
bool		cfi_split_delete(cf_stage *st, uint32_t bucket_size, uint64_t h);
/* Copies of h's matches in its pair and the stash. */
uint32_t	cfi_split_count(const cf_stage *st, uint32_t bucket_size, uint64_t h);
/* A free stash record, or -1. */
int			cfi_split_stash_free(const cf_stage *st);
/* Writes src doubled into dst (set up by the caller: level + 1, zeroed table, stash room). */
void		cfi_split_double(const cf_stage *src, cf_stage *dst, uint32_t bucket_size);
/* Places a 32-bit entry of bucket x at st's level; false (st unchanged) if it does not fit. */
bool		cfi_split_place32(cf_stage *st, uint32_t bucket_size, uint32_t max_kicks,
							  uint32_t x, uint32_t e);
/* Lifts a 32-bit entry one level; false if it has no extension bits (copies to 2x and 2x+1). */
bool		cfi_split_lift(uint32_t F0, uint32_t *x, uint32_t *e);
/* Slot s of bucket x as a 32-bit entry (0 if empty). */
uint32_t	cfi_split_entry32(const cf_stage *st, uint32_t bucket_size, uint32_t x, uint32_t s);
/* Expected false-positive rate of a split table (scans it). */
double		cfi_split_fpr(const cf_stage *st, uint32_t bucket_size);


/*
 * The extra slots lifting split table st's entries to level `to` would take
 * (entries whose extension runs out are copied into both children).
 */
uint64_t	cfi_split_lift_copies(const cf_stage *st, uint32_t bucket_size, uint32_t to);

/* split tables: does a slot of h's pair or a stash record match h (cuckoo_split.c) */
bool		cfi_split_has(const cf_stage *st, uint32_t bucket_size, uint64_t h);
/* split tables: does a stash record match h (the lookup paths read it after a miss) */
bool		cfi_split_stash_has(const cf_stage *st, uint64_t h);

/*
 * The lookup path of f, whose sub-filters are split tables (cuckoo_split_lookup.c,
 * the split geometry's lookup operation), or NULL: the general path.
 */
const cfi_lookup_path *cfi_split_lookup(cf_filter *f);

#endif							/* CUCKOO_SPLIT_H */
