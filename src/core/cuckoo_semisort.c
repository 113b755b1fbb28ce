/*
 * cuckoo_semisort.c - the semi-sorted bucket codec's tables of multisets,
 * generated once at load time, and its canonical-form check
 * (cuckoo_semisort.h).  Plain C99 plus a load-time constructor.
 */
#include "cuckoo_semisort.h"

/*
 * Index -> sorted nibbles, in lexicographic order of (a, b, c, d): index 0
 * is {0, 0, 0, 0}, so an all-zero bucket is an empty one, and 3875 is
 * {15, 15, 15, 15}; indexes 3876 .. 4095 stay 0.  cf_semi_lanes holds the
 * same multisets for the lookup paths: nibble k at bits 16k + 12 .. 16k +
 * 15, the top of a 16-bit lane, so that one shift right by 12 - lw lines
 * them up above lw-bit low parts (cuckoo_codec_semi.h, semi_word_has).
 *
 * Both are written once, by semi_tables_init before any other code of the
 * library runs (a constructor: at program start, or when the shared
 * library is loaded), and only read after that, so threads need no lock.
 * test_semisort checks them against cf_semi_index and against a checksum
 * of the literal tables cuckoo 1.2 carried.
 */
uint16_t	cf_semi_nibbles[1 << CF_SEMI_INDEX_BITS];
uint64_t	cf_semi_lanes[1 << CF_SEMI_INDEX_BITS];

#if defined(__GNUC__) || defined(__clang__)
__attribute__((constructor))
#else
#error "cuckoo_semisort.c needs a load-time constructor (GCC or Clang): port semi_tables_init"
#endif
static void
semi_tables_init(void)
{
	uint32_t	i = 0;

	/* the multisets a <= b <= c <= d of 0..15, in lexicographic order */
	for (uint32_t a = 0; a < 16; a++)
		for (uint32_t b = a; b < 16; b++)
			for (uint32_t c = b; c < 16; c++)
				for (uint32_t d = c; d < 16; d++, i++)
				{
					cf_semi_nibbles[i] = (uint16_t) (a | b << 4 | c << 8 | d << 12);
					cf_semi_lanes[i] = (uint64_t) a << 12 | (uint64_t) b << 28 |
						(uint64_t) c << 44 | (uint64_t) d << 60;
				}
}

bool
cf_semi_canonical(uint64_t lo, uint64_t hi, uint32_t w)
{
	uint32_t	v[4];

	if ((lo & ((1u << CF_SEMI_INDEX_BITS) - 1)) >= CF_SEMI_INDEXES)
		return false;
	cf_semi_unpack(lo, hi, w, v);
	return v[0] <= v[1] && v[1] <= v[2] && v[2] <= v[3];
}
