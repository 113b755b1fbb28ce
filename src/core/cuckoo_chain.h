/*
 * cuckoo_chain.h - how a chain or legacy table (geometries 2 and 1,
 * cuckoo_geom_chain.c) places a value: its fingerprint and bucket pair, and
 * the lookup of one such table.  What the chain module shares with the
 * kick-out walk (cuckoo_table.c) and the bulk build (cuckoo_build.c).
 */
#ifndef CUCKOO_CHAIN_H
#define CUCKOO_CHAIN_H

#include "cuckoo_codec.h"

/*
 * A sub-filter maps the value's hash h to a fingerprint and a bucket pair
 * in one of two ways (FORMAT.md, "Hashing").
 *
 * LEGACY (format version 1): fp = ((h mod 2^32) * fpmax) div 2^32 + 1,
 * alt(i, fp) = (H(fp) - i) mod m.  Each size and width is unrelated to the
 * others, so a match in one sub-filter says nothing about another.
 *
 * CHAIN (format version 2): a family of tables of m0 << L buckets (level L)
 * and widths w >= f0 + L.  The fingerprint is the top w bits of g, the low
 * 32 bits of h with its top f0 bits made non-zero, so a narrower
 * fingerprint is the wider one shifted right.  The bucket pair refines:
 *   alt(i, fp) = (alt0(i >> L, fp0) << L) | ((i ^ fp >> (w - f0 - L)) & (2^L - 1))
 *   alt0(j, fp0) = (H(fp0) - j) mod m0,  fp0 = fp >> (w - f0)
 * is its own inverse, and dropping k low digits of a bucket and k low bits
 * of the fingerprint gives the pair and fingerprint at level L - k.  Two
 * values that collide in a table therefore collide in every table of the
 * family with a level and width no larger, which makes deletes exact.
 */

/* g: the low 32 bits of h, its top basebits made non-zero (never an empty slot) */
static inline uint32_t
chain_bits(const cf_stage *st, uint64_t h)
{
	uint32_t	g = (uint32_t) h;

	return g | ((uint32_t) ((g >> ENG(st)->base_shift) == 0) << ENG(st)->base_shift);
}

/* fingerprint in 1 .. fpmax */
static inline uint32_t
fingerprint(const cf_stage *st, uint64_t h)
{
	if (st->geom == CF_GEOM_CHAIN)
		return (uint32_t) ((uint64_t) chain_bits(st, h) >> ENG(st)->fp_shift);
	return (uint32_t) (((h & 0xFFFFFFFFu) * (uint64_t) st->fpmax) >> 32) + 1;
}

/* primary bucket from the high 32 bits of h (nested for every level) */
static inline uint32_t
primary_bucket(const cf_stage *st, uint64_t h)
{
	return (uint32_t) (((h >> 32) * (uint64_t) st->nbuckets) >> 32);
}

/* (H(key) - i) mod m with H(key) = mix32(key) scaled to m: its own inverse */
static inline uint32_t
reflect(uint32_t i, uint32_t key, uint32_t m)
{
	uint32_t	hm = (uint32_t) (((uint64_t) mix32(key) * m) >> 32);

	return hm >= i ? hm - i : hm + m - i;
}

/* the other bucket of fp */
static inline uint32_t
alt_bucket(const cf_stage *st, uint32_t i, uint32_t fp)
{
	uint32_t	a0;

	if (st->geom != CF_GEOM_CHAIN)
		return reflect(i, fp, st->nbuckets);
	a0 = reflect(i >> st->level, fp >> ENG(st)->key_shift, st->base_nbuckets);
	return (a0 << st->level) | ((i ^ (fp >> ENG(st)->mask_shift)) & ENG(st)->lowmask);
}

/*
 * Does a bucket of h's pair in chain or legacy table st hold h's
 * fingerprint?  One branch on the hashing, then straight-line code: a
 * level-0 chain table (every new filter's) needs no low digits.
 */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline bool
chain_pair_has(const cf_stage *st, uint32_t bucket_size, uint64_t h)
{
	uint32_t	i1 = primary_bucket(st, h);
	uint32_t	fp,
				i2;

	if (st->geom == CF_GEOM_CHAIN)
	{
		fp = (uint32_t) ((uint64_t) chain_bits(st, h) >> ENG(st)->fp_shift);
		if (st->level == 0)
			i2 = reflect(i1, fp >> ENG(st)->key_shift, st->nbuckets);
		else
			i2 = (reflect(i1 >> st->level, fp >> ENG(st)->key_shift, st->base_nbuckets) << st->level) |
				((i1 ^ (fp >> ENG(st)->mask_shift)) & ENG(st)->lowmask);
	}
	else
	{
		fp = (uint32_t) (((h & 0xFFFFFFFFu) * (uint64_t) st->fpmax) >> 32) + 1;
		i2 = reflect(i1, fp, st->nbuckets);
	}
	return pair_has(st, bucket_size, i1, i2, fp);
}

#endif							/* CUCKOO_CHAIN_H */
