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

/* ---- split tables (cuckoo_split.c) ---- */
/* Kick-out insertion of entry v1 (as it reads in bucket i1); undone on failure. */
bool		cfi_split_place(cf_stage *st, uint32_t bucket_size, uint32_t max_kicks,
							uint32_t i1, uint32_t v1, uint64_t seed);
/* Inserts h's full entry; false (st unchanged) if the walk fails. */
bool		cfi_split_insert(cf_stage *st, uint32_t bucket_size, uint32_t max_kicks, uint64_t h);
/* Removes h's match of the highest virtual level (slots and stash); false if none. */
bool		cfi_split_delete(cf_stage *st, uint32_t bucket_size, uint64_t h);
/* Copies of h's matches in its pair and the stash. */
uint32_t	cfi_split_count(const cf_stage *st, uint32_t bucket_size, uint64_t h);
/* Does every slot of h's pair hold an entry matching h? */
bool		cfi_split_pair_jammed(const cf_stage *st, uint32_t bucket_size, uint64_t h);
/* A free stash record, or -1. */
int			cfi_split_stash_free(const cf_stage *st);
/* Writes stash record k (journaled); all zero frees it. */
void		cfi_split_stash_put(cf_stage *st, uint32_t k, uint32_t x, uint32_t lev, uint32_t e);
/* The stash record of h: its primary bucket at st's level and its full entry (32-bit form). */
void		cfi_split_stash_entry(const cf_stage *st, uint64_t h, uint32_t *x, uint32_t *e);
/* Writes src doubled into dst (set up by the caller: level + 1, zeroed table, stash room). */
void		cfi_split_double(const cf_stage *src, cf_stage *dst, uint32_t bucket_size);
/* Places a 32-bit entry of bucket x at st's level; false (st unchanged) if it does not fit. */
bool		cfi_split_place32(cf_stage *st, uint32_t bucket_size, uint32_t max_kicks,
							  uint32_t x, uint32_t e);
/* Lifts a 32-bit entry one level; false if it has no extension bits (copies to 2x and 2x+1). */
bool		cfi_split_lift(uint32_t F0, uint32_t *x, uint32_t *e);
/* A 32-bit entry as a slot of st (cut to its width). */
uint32_t	cfi_split_entry_as(const cf_stage *st, uint32_t e);
/* Slot s of bucket x as a 32-bit entry (0 if empty). */
uint32_t	cfi_split_entry32(const cf_stage *st, uint32_t bucket_size, uint32_t x, uint32_t s);
/* Expected false-positive rate of a split table (scans it). */
double		cfi_split_fpr(const cf_stage *st, uint32_t bucket_size);

#endif							/* CUCKOO_TABLE_H */
