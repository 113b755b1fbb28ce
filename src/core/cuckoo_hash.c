/*
 * cuckoo_hash.c - the one XXH3 hash computed per value, with the seed that
 * is part of the byte format.  Plain C99.
 */
#include "cuckoo_layout.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

uint64_t
cf_hash_bytes(const void *data, size_t len)
{
	return XXH3_64bits_withSeed(data, len, CF_HASH_SEED);
}

/*
 * The 8-byte path of XXH3 written out (cf_hash_int64_inline, cuckoo.h):
 * through XXH3_64bits_withSeed, gcc -O3 keeps the length dispatch out of
 * line, which made the hash 2.2x slower than at -O2.
 */
uint64_t
cf_hash_int64(int64_t v)
{
	return cf_hash_int64_inline(v);
}
