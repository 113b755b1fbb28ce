/*
 * cuckoo_geom.h - the geometries: their tables of operations (the
 * interface cf_geom_ops, cuckoo_geom_ops.h), each defined in its own
 * module, and what they share at the filter level (cuckoo_geom.c).
 *
 * Each module stands above the format layer (it re-opens the filters it
 * rewrites, through cfi_open with its own table: a module's rewrites hold
 * its geometry and those below it only), and cuckoo_ops.c, above them all,
 * opens the caller's filters against the last one (cf_open): so every
 * sub-filter carries its table from the moment it is opened, and no object
 * names a geometry defined above it.
 */
#ifndef CUCKOO_GEOM_H
#define CUCKOO_GEOM_H

#include "cuckoo_build.h"
#include "cuckoo_format.h"
#include "cuckoo_geom_ops.h"

/* ---- what the geometries share at the filter level (cuckoo_geom.c) ---- */

/*
 * Writes f (version 2) plus 'extra' sub-filters into out and re-opens f on
 * out (against top: cfi_open): the header, f's descriptors, the new
 * descriptors (descs), f's tables, then the new tables (tables[k], or
 * zeros when tables is NULL).
 */
void		cfi_splice_stages(cf_filter *f, uint8_t *out, uint32_t extra,
							  const uint8_t *descs, const uint8_t *const *tables,
							  const cf_geom_ops *top);
/*
 * The highest of top and the tables f's sub-filters carry (the 'below'
 * links order them): what a module's rewrite of f re-opens against, so a
 * sub-filter of a geometry defined above the module (beside its table
 * after a union, or in a filter that grows by chain tables) is still read.
 */
const cf_geom_ops *cfi_top_over(const cf_filter *f, const cf_geom_ops *top);
/*
 * The header fields of a union r of a and b written at out: the value kind
 * (b's where a has none or b holds any), deletes and retained summed.
 */
void		cfi_union_counters(const cf_filter *a, const cf_filter *b, uint8_t *out, cf_filter *r);

/*
 * the geometries, each defined in its own module (cuckoo_geom_chain.c:
 * legacy and chain; cuckoo_geom_split.c; cuckoo_geom_list.c), in the order
 * of their 'below' links
 */
extern const cf_geom_ops cfi_geom_legacy;
extern const cf_geom_ops cfi_geom_chain;
extern const cf_geom_ops cfi_geom_split;
extern const cf_geom_ops cfi_geom_list;
/*
 * the last of them (cuckoo_ops.c), from which every other is down the
 * 'below' links: cf_open, cf_validate and cf_upgrade open against it, and
 * the tests walk the geometries from it
 */
extern const cf_geom_ops *const cfi_geom_top;

/*
 * What the split module (cuckoo_split.c, cuckoo_split_lookup.c,
 * cuckoo_geom_split.c) gives the geometries above it: a list's conversion
 * into a split table builds one with these, and a union checks that two
 * filters' split tables agree.
 *
 * cfi_stage_setup of a split table: and its extension width R = w - 1 - F0
 */
static inline void
split_stage_setup(cf_stage *st, uint32_t bucket_size)
{
	cfi_stage_setup(st, bucket_size);
	st->extbits = st->fpbits - 1 - st->basebits;
}

/* Do a and b's rates give split tables the same widths at every level? */
bool		cfi_split_same_schedule(const cf_filter *a, const cf_filter *b);
/* Inserts h's full entry; false (st unchanged) if the walk fails. */
bool		cfi_split_insert(cf_stage *st, uint32_t bucket_size, uint32_t max_kicks, uint64_t h);
/* Writes stash record k (journaled); all zero frees it. */
void		cfi_split_stash_put(cf_stage *st, uint32_t k, uint32_t x, uint32_t lev, uint32_t e);
/* The stash record of h: its primary bucket at st's level and its full entry (32-bit form). */
void		cfi_split_stash_entry(const cf_stage *st, uint64_t h, uint32_t *x, uint32_t *e);
/* stash records a conversion of hashes hs[0..n) into t (level 0, empty) needs */
uint32_t	cfi_split_group_excess(const cf_stage *t, uint32_t b, const uint64_t *hs, uint32_t n);

#endif							/* CUCKOO_GEOM_H */
