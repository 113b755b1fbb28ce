/*
 * cuckoo_geom.h - the geometries: their tables (the interface
 * cfi_geometry, cuckoo_geom_iface.h), each defined in its own module, the
 * registry that holds them at their byte (cuckoo_geometries.c), and what
 * they share at the filter level (cuckoo_geom.c).
 *
 * Each module stands above the format layer (it re-opens the filters it
 * rewrites through cfi_open, with the registry the filter was opened
 * with), and the registry above them all: cf_open (cuckoo_ops.c) opens the
 * caller's filters with it, so every sub-filter carries its table from the
 * moment it is opened, and no object names one above it.
 */
#ifndef CUCKOO_GEOM_H
#define CUCKOO_GEOM_H

#include "cuckoo_build.h"
#include "cuckoo_format.h"
#include "cuckoo_geom_iface.h"

/* ---- what the geometries share at the filter level (cuckoo_geom.c) ---- */

/*
 * Writes f (version 2) plus 'extra' sub-filters into out and re-opens f on
 * out (cfi_open, with f's registry): the header, f's descriptors, the new
 * descriptors (descs), f's tables, then the new tables (tables[k], or
 * zeros when tables is NULL).
 */
void		cfi_splice_stages(cf_filter *f, uint8_t *out, uint32_t extra,
							  const uint8_t *descs, const uint8_t *const *tables);
/*
 * The header fields of a union r of a and b written at out: the value kind
 * (b's where a has none or b holds any), deletes and retained summed.
 */
void		cfi_union_counters(const cf_filter *a, const cf_filter *b, uint8_t *out, cf_filter *r);

/*
 * the geometries, each defined in its own module (cuckoo_geom_chain.c:
 * legacy and chain; cuckoo_geom_split.c; cuckoo_geom_list.c)
 */
extern const cfi_geometry cfi_geom_legacy;
extern const cfi_geometry cfi_geom_chain;
extern const cfi_geometry cfi_geom_split;
extern const cfi_geometry cfi_geom_list;
/*
 * the registry (cuckoo_geometries.c, above every module): each table at
 * its geometry byte, with which cf_open, cf_validate and cf_upgrade open
 * the caller's filters; and the geometry a filter without a sub-filter
 * that grows in place grows by (an appended sub-filter: chain)
 */
extern const cfi_registry cfi_geometries;
extern const cfi_geometry *const cfi_geom_appended;

/*
 * What the split module (cuckoo_split.c, cuckoo_split_lookup.c,
 * cuckoo_geom_split.c) gives the geometries above it: a list's conversion
 * into a split table builds one with these, and a union checks that two
 * filters' split tables agree (the width schedule, cf_split_width, is
 * declared in cuckoo.h).
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

/*
 * What the list module (cuckoo_geom_list.c) gives its tests: its sizing.
 *
 * m0 of these parameters: the base buckets (odd) of the split table
 * cf_create gives the capacity (its level-0 table holds it), of which the
 * list's bound and its validation are rules; the table cuckoo 1.2
 * converted every list into.
 */
uint64_t	cfi_list_m0(uint64_t capacity, uint32_t bucket_size);
/*
 * The base buckets (odd) of the split table a list of these header
 * parameters becomes: m0 (cf_create's, the table of the capacity) halved
 * (rounded up, odd) k times for the largest k <= W(0) - 1 - F0 whose
 * table still takes at least the bytes of a full list (8 * CF_LIST_MAX),
 * else m0; 0 when they give no split table.
 */
uint32_t	cfi_list_base(uint32_t capacity, double fpr, uint32_t bucket_size, uint32_t enc);
/*
 * The most hashes a list may hold for these header parameters (a reader
 * rule): the bytes of the level-0 split table of m0 buckets, over 8, at
 * most CF_LIST_MAX; 0 when they give no split table.
 */
uint32_t	cfi_list_max(uint32_t capacity, double fpr, uint32_t bucket_size, uint32_t enc);

#endif							/* CUCKOO_GEOM_H */
