/*
 * cuckoo_semisort.h - the semi-sorted bucket codec (table encoding 1): four
 * w-bit slot values <-> one 4w-4 bit string.  Pure values, no memory access.
 *
 * A bucket's four values (0 = empty, any other = an entry; the codec never
 * looks further into them) are sorted ascending as unsigned integers.  Their
 * top 4 bits then form a sorted 4-multiset of 0..15, stored as its index
 * among all 3876 such multisets in lexicographic order (12 bits), followed
 * by the four low parts (w - 4 bits each) in the sorted order.  FORMAT.md,
 * "Tables (encoding 1)", is the contract.
 */
#ifndef CUCKOO_SEMISORT_H
#define CUCKOO_SEMISORT_H

#include <stdbool.h>
#include <stdint.h>

#define CF_SEMI_SLOTS       4       /* the only bucket size it encodes */
#define CF_SEMI_INDEXES     3876    /* sorted 4-multisets of 0..15: C(19, 4) */
#define CF_SEMI_INDEX_BITS  12

/*
 * The multiset of each index, its sorted nibbles a <= b <= c <= d as
 * a | b << 4 | c << 8 | d << 12; indexes 3876 .. 4095 (never written,
 * refused by validation) read as 0, so decoding any 12 bits is safe.
 * Generated at load time (cuckoo_semisort.c); read-only after that.
 */
extern uint16_t cf_semi_nibbles[1 << CF_SEMI_INDEX_BITS];

/* the multiset of each index as four 16-bit lanes, nibble k at bits 16k + 12 */
extern uint64_t cf_semi_lanes[1 << CF_SEMI_INDEX_BITS];

/* bits a bucket of width w takes */
static inline uint32_t
cf_semi_bucket_bits(uint32_t w)
{
	return CF_SEMI_SLOTS * w - 4;
}

/*
 * Index of the sorted nibbles a <= b <= c <= d in lexicographic order:
 * the multisets starting with a smaller first nibble, then those with the
 * same first and a smaller second, and so on (the sums are the tables).
 */
static inline uint32_t
cf_semi_index(uint32_t a, uint32_t b, uint32_t c, uint32_t d)
{
	/* sum over v < x of C(18 - v, 3), C(17 - v, 2), C(16 - v, 1) */
	static const uint16_t p3[16] = {0, 816, 1496, 2056, 2511, 2875, 3161, 3381,
	3546, 3666, 3750, 3806, 3841, 3861, 3871, 3875};
	static const uint16_t p2[16] = {0, 136, 256, 361, 452, 530, 596, 651,
	696, 732, 760, 781, 796, 806, 812, 815};
	static const uint8_t p1[16] = {0, 16, 31, 45, 58, 70, 81, 91,
	100, 108, 115, 121, 126, 130, 133, 135};

	return p3[a] + p2[b] - p2[a] + p1[c] - p1[b] + d - c;
}

/* sorts v[0 .. 4) ascending (a network of five compare-exchanges) */
static inline void
cf_semi_sort4(uint32_t v[4])
{
#define CF_SEMI_CX(i, j) do { \
		uint32_t	lo_ = v[i] < v[j] ? v[i] : v[j]; \
		uint32_t	hi_ = v[i] < v[j] ? v[j] : v[i]; \
		v[i] = lo_; v[j] = hi_; \
	} while (0)
	CF_SEMI_CX(0, 1);
	CF_SEMI_CX(2, 3);
	CF_SEMI_CX(0, 2);
	CF_SEMI_CX(1, 3);
	CF_SEMI_CX(1, 2);
#undef CF_SEMI_CX
}

/* bits [p, p + n) of the 128-bit string lo | hi << 64, n <= 32 */
static inline uint32_t
cf_semi_field(uint64_t lo, uint64_t hi, uint32_t p, uint32_t n)
{
	uint64_t	x;

	if (p >= 64)
		x = hi >> (p - 64);
	else if (p == 0)
		x = lo;
	else
		x = (lo >> p) | (hi << (64 - p));
	return (uint32_t) (x & ((UINT64_C(1) << n) - 1));
}

/*
 * Encodes the four w-bit values v (any order; 4 <= w <= 32) as the bucket's
 * 4w - 4 bits: *lo the first 64, *hi the rest (zero when w <= 17).
 */
static inline void
cf_semi_pack(const uint32_t v[4], uint32_t w, uint64_t *lo, uint64_t *hi)
{
	uint32_t	s[4] = {v[0], v[1], v[2], v[3]};
	uint32_t	lw = w - 4;
	uint64_t	l = 0,
				h = 0;

	cf_semi_sort4(s);
	l = cf_semi_index(s[0] >> lw, s[1] >> lw, s[2] >> lw, s[3] >> lw);
	for (uint32_t k = 0; k < 4 && lw > 0; k++)
	{
		uint32_t	p = CF_SEMI_INDEX_BITS + k * lw;
		uint64_t	x = s[k] & (uint32_t) ((UINT64_C(1) << lw) - 1);

		if (p < 64)
		{
			l |= x << p;
			if (p + lw > 64)
				h |= x >> (64 - p);
		}
		else
			h |= x << (p - 64);
	}
	*lo = l;
	*hi = h;
}

/* Decodes a bucket's bits (lo, hi as cf_semi_pack) into its sorted values. */
static inline void
cf_semi_unpack(uint64_t lo, uint64_t hi, uint32_t w, uint32_t v[4])
{
	uint32_t	nib = cf_semi_nibbles[lo & ((1u << CF_SEMI_INDEX_BITS) - 1)];
	uint32_t	lw = w - 4;

	for (uint32_t k = 0; k < 4; k++)
		v[k] = (((nib >> (4 * k)) & 15) << lw) |
			(lw ? cf_semi_field(lo, hi, CF_SEMI_INDEX_BITS + k * lw, lw) : 0);
}

/*
 * Is (lo, hi) a bucket cf_semi_pack writes: an index below 3876 and low
 * parts that do not decrease where the top bits are equal (the bits past
 * the bucket's 4w - 4 are the caller's to check)?
 */
bool		cf_semi_canonical(uint64_t lo, uint64_t hi, uint32_t w);

#endif							/* CUCKOO_SEMISORT_H */
