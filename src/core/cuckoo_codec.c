/*
 * cuckoo_codec.c - each table encoding's table (cf_codec, cuckoo_codec.h):
 * bit-packed and semi-sorted, their setup and cf_validate's scan of a
 * table.  Plain C99.
 */
#include "cuckoo_codec.h"

/* ---------------------------------------------------------------------
 * bit-packed (encoding 0)
 * ------------------------------------------------------------------- */

/* cfi_stage_setup's fields are the bit-packed ones */
static void
packed_setup(cf_stage *st, uint32_t bucket_size)
{
	(void) st;
	(void) bucket_size;
}

static bool
packed_scan(const cf_stage *st, uint32_t bucket_size, uint32_t k, uint32_t markers, uint64_t *n,
			char *err, size_t errlen)
{
	for (uint32_t i = 0; i < st->nbuckets; i++)
	{
		check_interrupts(i);
		for (uint32_t s = 0; s < bucket_size; s++)
		{
			uint32_t	v = packed_slot_get(st, bucket_size, i, s);

			if (v != 0 && (v & markers) == 0)
			{
				cfi_set_err(err, errlen, "slot %u of bucket %u of sub-filter %u has no end marker",
							s, i, k);
				return false;
			}
			*n += v != 0;
		}
	}
	return true;
}

/* ---------------------------------------------------------------------
 * semi-sorted (encoding 1)
 * ------------------------------------------------------------------- */

/* whole buckets through the codec: no lane tricks */
static void
semi_setup(cf_stage *st, uint32_t bucket_size)
{
	(void) bucket_size;
	st->bucket_bits = cf_semi_bucket_bits(st->fpbits);
	ENG(st)->swar = false;
	ENG(st)->bucket_mask = st->bucket_bits >= 64 ? UINT64_MAX :
		(UINT64_C(1) << st->bucket_bits) - 1;
}

/*
 * Every bucket one that cf_semi_pack writes (an index below 3876, low
 * parts in order where the top bits tie): other bytes would be a second
 * spelling of the same set, and filters compare by their bytes.
 */
static bool
semi_scan(const cf_stage *st, uint32_t bucket_size, uint32_t k, uint32_t markers, uint64_t *n,
		  char *err, size_t errlen)
{
	(void) bucket_size;
	for (uint32_t i = 0; i < st->nbuckets; i++)
	{
		uint64_t	lo,
					hi;
		uint32_t	v[4];

		check_interrupts(i);
		semi_load(st, i, &lo, &hi);
		if ((lo & ((1u << CF_SEMI_INDEX_BITS) - 1)) >= CF_SEMI_INDEXES)
		{
			cfi_set_err(err, errlen, "bucket %u of sub-filter %u has multiset index %u, not below %d",
						i, k, (unsigned) (lo & ((1u << CF_SEMI_INDEX_BITS) - 1)), CF_SEMI_INDEXES);
			return false;
		}
		if (!cf_semi_canonical(lo, hi, st->fpbits))
		{
			cfi_set_err(err, errlen, "bucket %u of sub-filter %u is not in sorted order", i, k);
			return false;
		}
		cf_semi_unpack(lo, hi, st->fpbits, v);
		for (uint32_t s = 0; s < CF_SEMI_SLOTS; s++)
		{
			/* a split table's entries each end with a marker (FORMAT.md) */
			if (v[s] != 0 && (v[s] & markers) == 0)
			{
				cfi_set_err(err, errlen, "slot %u of bucket %u of sub-filter %u has no end marker",
							s, i, k);
				return false;
			}
			*n += v[s] != 0;
		}
	}
	return true;
}

/* ---------------------------------------------------------------------
 * the codecs, by encoding byte
 * ------------------------------------------------------------------- */

static const cf_codec codecs[] = {
	[CF_ENC_PACKED] = {"bit-packed", CF_ENC_PACKED, 0, packed_setup, packed_scan},
	[CF_ENC_SEMISORT] = {"semi-sorted", CF_ENC_SEMISORT, CF_SEMI_SLOTS, semi_setup, semi_scan},
};

const cf_codec *
cfi_codec_of(int enc)
{
	if (enc < 0 || enc >= (int) (sizeof(codecs) / sizeof(codecs[0])))
		return NULL;
	return &codecs[enc];
}
