/*
 * cuckoo_list.h - a list's sorted hashes (geometry 4, cuckoo_geom_list.c):
 * what the list module shares with the format layer (a list's bound) and
 * the filter-level operations (cf_is_list, cf_list_hashes).
 */
#ifndef CUCKOO_LIST_H
#define CUCKOO_LIST_H

#include "cuckoo_layout.h"

/* ---------------------------------------------------------------------
 * lists (geometry 4, FORMAT.md "List sub-filters"): nbuckets slots of 8
 * bytes, the first nitems hashes non-decreasing, the rest zero
 * ------------------------------------------------------------------- */

/* is f a list (a list is always a filter's only sub-filter) */
static inline bool
filter_is_list(const cf_filter *f)
{
	return f->nstages == 1 && f->stages[0].geom == CF_GEOM_LIST;
}

static inline uint64_t
list_get(const cf_stage *st, uint32_t i)
{
	return get_le64(st->table + (size_t) i * 8);
}

/*
 * the first position whose hash is >= h (nitems if none): binary search
 * without a branch on the data (the answer lies in [base, base + n]; a
 * select, not a jump, narrows it), since a lookup's comparisons are coin
 * flips a branch predictor gets half wrong
 */
static inline uint32_t
list_lower(const cf_stage *st, uint64_t h)
{
	uint32_t	base = 0,
				n = st->nitems;

	if (n == 0)
		return 0;
	while (n > 1)
	{
		uint32_t	half = n / 2;

		base = list_get(st, base + half) < h ? base + half : base;
		n -= half;
	}
	return base + (list_get(st, base) < h);
}

static inline bool
list_has(const cf_stage *st, uint64_t h)
{
	uint32_t	i = list_lower(st, h);

	return i < st->nitems && list_get(st, i) == h;
}

#endif							/* CUCKOO_LIST_H */
