/*
 * cuckoo_table.h - what cuckoo_table.c gives the rest of the core: setting
 * up a sub-filter's view, and kick-out insertion into one sub-filter.
 */
#ifndef CUCKOO_TABLE_H
#define CUCKOO_TABLE_H

#include "cuckoo_internal.h"

/*
 * Inserts fingerprint fp with primary bucket i1 into one sub-filter, with a
 * kick-out walk of at most max_kicks steps that is undone if it fails.
 */
bool		cfi_stage_insert(cf_stage *st, uint32_t bucket_size, uint32_t max_kicks,
							 uint32_t i1, uint32_t fp);
/* Fills the derived fields of a stage from its descriptor fields. */
void		cfi_stage_setup(cf_stage *st, uint32_t bucket_size);

#endif							/* CUCKOO_TABLE_H */
