/*
 * cuckoo_hashval_hash.h - a value's 64-bit hash (cuckoo_hashval_hash.c): the
 * one call every function that adds, probes or deletes a value makes.  The
 * hash info it takes is cuckoo_hashval.h's.
 */
#ifndef CUCKOO_HASHVAL_HASH_H
#define CUCKOO_HASHVAL_HASH_H

#include "cuckoo_hashval.h"

CFPG_HIDDEN_BEGIN

/*
 * The 64-bit hash of a non-NULL value of hi->typid under value hashing
 * hashing (CF_HASHING_V1 or CF_HASHING_V2: the filter's, FORMAT.md).
 */
extern uint64 cfpg_hash_datum_any(CfHashInfo *hi, Datum value, int hashing);

/*
 * The same, with the integer types (the most common keys, hashed alike by
 * both value hashings) hashed without a call into the dispatcher: per-row
 * cf_contains and cf_agg feel it.
 */
static inline uint64
cfpg_hash_datum(CfHashInfo *hi, Datum value, int hashing)
{
	switch (hi->kind)
	{
		case CFH_INT8:
			return cf_hash_int64_inline(DatumGetInt64(value));
		case CFH_INT4:
			return cf_hash_int64_inline((int64) DatumGetInt32(value));
		default:
			return cfpg_hash_datum_any(hi, value, hashing);
	}
}

CFPG_HIDDEN_END

#endif							/* CUCKOO_HASHVAL_HASH_H */
