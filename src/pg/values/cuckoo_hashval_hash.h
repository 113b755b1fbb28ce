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

/* whether a value of hi's type may have alternates (its row's test; most never) */
static inline bool
cfpg_may_have_alternates(const CfHashInfo *hi, Datum value)
{
	return hi->row->may_alt != NULL && hi->row->may_alt(hi, value);
}

/*
 * Whether f holds value (under its own hash or an alternate); *h is set to
 * the hash f holds, or the value's own: the one to delete, or to add.  A
 * value that cannot have alternates (most: a bigint of at most 2^53) is one
 * hash and one lookup, here.
 */
static inline bool
cfpg_find_value(const cf_filter *f, CfHashInfo *hi, Datum value, uint64 *h)
{
	if (!cfpg_may_have_alternates(hi, value))
	{
		*h = cfpg_hash_datum(hi, value, (int) f->hashing);
		return cf_contains(f, *h);
	}
	return cfpg_find_alternates(f, hi, value, h);
}

/* The hash to act on for value in f: cfpg_find_value's. */
static inline uint64
cfpg_value_hash(const cf_filter *f, CfHashInfo *hi, Datum value)
{
	uint64		h;

	(void) cfpg_find_value(f, hi, value, &h);
	return h;
}

/* cf_count of value in f: its own hash's and its alternates' copies */
static inline uint32
cfpg_count_value(const cf_filter *f, CfHashInfo *hi, Datum value)
{
	if (!cfpg_may_have_alternates(hi, value))
		return cf_count(f, cfpg_hash_datum(hi, value, (int) f->hashing));
	return cfpg_count_alternates(f, hi, value);
}

CFPG_HIDDEN_END

#endif							/* CUCKOO_HASHVAL_HASH_H */
