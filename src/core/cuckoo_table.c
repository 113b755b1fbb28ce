/*
 * cuckoo_table.c - one table (sub-filter): setting up its view, and the
 * kick-out insertion into a chain or legacy table (the walk of
 * cuckoo_table.h).  Plain C99.
 */
#include "cuckoo_table.h"
#include "cuckoo_chain.h"

/* chain and legacy tables: the same fingerprint in both buckets */
static inline uint32_t
table_alt(const cf_stage *st, uint32_t i, uint32_t v, uint32_t *v2)
{
	*v2 = v;
	return alt_bucket(st, i, v);
}

bool
cfi_stage_insert(cf_stage *st, uint32_t bucket_size, uint32_t max_kicks,
				 uint32_t i1, uint32_t fp)
{
	return cf_walk_place(st, bucket_size, max_kicks, i1, fp, ((uint64_t) fp << 32) | i1,
						 table_alt);
}

/* Fills the derived fields of a stage from its descriptor fields. */
void
cfi_stage_setup(cf_stage *st, uint32_t bucket_size)
{
	uint32_t	f = st->fpbits;

	st->fpmax = (uint32_t) ((UINT64_C(1) << f) - 1);
	st->bucket_bits = bucket_size * f;
	st->base_nbuckets = st->nbuckets >> st->level;
	ENG(st)->lowmask = (uint32_t) ((UINT64_C(1) << st->level) - 1);
	ENG(st)->fp_shift = 32 - f;
	ENG(st)->base_shift = 32 - st->basebits;
	ENG(st)->key_shift = f - st->basebits;
	ENG(st)->mask_shift = ENG(st)->key_shift - st->level;
	st->extbits = 0;			/* a split table's: split_stage_setup */
	/*
	 * One 64-bit load reads a whole bucket if the bucket's bit offset within
	 * its first byte (a multiple of the largest power of two <= 8 dividing
	 * bucket_bits) plus bucket_bits never exceeds 64.
	 */
	{
		uint32_t	g = st->bucket_bits & (~st->bucket_bits + 1);

		ENG(st)->swar = st->bucket_bits + 8 - (g < 8 ? g : 8) <= 64;
	}
	ENG(st)->lanes_lo = 0;
	for (uint32_t s = 0; s < bucket_size && s * f < 64; s++)
		ENG(st)->lanes_lo |= UINT64_C(1) << (s * f);
	ENG(st)->lanes_hi = ENG(st)->lanes_lo << (f - 1);
	ENG(st)->bucket_mask = st->bucket_bits >= 64 ? UINT64_MAX :
		(UINT64_C(1) << st->bucket_bits) - 1;
	st->table_bytes = (size_t) table_bytes_for(st->nbuckets, bucket_size, f, st->enc);
	cfi_codec_of((int) st->enc)->setup(st, bucket_size);
}
