/*
 * cuckoo_hash.c - the one XXH3 hash computed per value, with the seed that
 * is part of the byte format.  Plain C99.
 */
#include "cuckoo_internal.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

uint64_t
cf_hash_bytes(const void *data, size_t len)
{
	return XXH3_64bits_withSeed(data, len, CF_HASH_SEED);
}

uint64_t
cf_hash_int64(int64_t v)
{
	uint8_t		b[8];

	put_le64(b, (uint64_t) v);
	return XXH3_64bits_withSeed(b, 8, CF_HASH_SEED);
}
