/*
 * cuckoo_format.h - what cuckoo_format.c gives the files above it: opening
 * and validating a filter through its geometries' tables (the checks they
 * share), a list's bound and the split table it becomes, the header and
 * descriptor writers.
 */
#ifndef CUCKOO_FORMAT_H
#define CUCKOO_FORMAT_H

#include "cuckoo_geom_ops.h"

/*
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
/*
 * cf_open, against the geometries down from top (cuckoo_geom_ops.h): each
 * sub-filter's descriptor checked by its geometry's table, which it keeps.
 * The geometry modules re-open the filters they rewrite with their own
 * table; cuckoo_ops.c opens the caller's with the last geometry's.
 */
bool		cfi_open(cf_filter *f, uint8_t *buf, size_t len, const cf_geom_ops *top,
					 char *err, size_t errlen);
/* cf_validate: cfi_open, then each sub-filter's table scanned by its geometry */
bool		cfi_validate(const uint8_t *buf, size_t len, const cf_geom_ops *top,
						 char *err, size_t errlen);
/* cf_upgrade, the result opened against top */
void		cfi_upgrade(const cf_filter *f, uint8_t *out, cf_filter *result, const cf_geom_ops *top);

/*
 * What a table geometry's check (legacy, chain, split) requires first of
 * st, sub-filter k's descriptor: buckets, a fingerprint width, an item
 * count its slots can hold; false, err set, if not.
 */
bool		cfi_check_slots(const cf_filter *f, const cf_stage *st, uint32_t k, char *err, size_t errlen);
/* sets err to "sub-filter k has an unknown geometry" (its fields); false */
bool		cfi_unknown_geometry(const cf_stage *st, uint32_t k, char *err, size_t errlen);
/*
 * A table geometry's scan: sub-filter k's slots each empty or an entry
 * with one of the bits 'markers' set, as many entries as its item count,
 * the bits past its last bucket zero, a semi-sorted table's buckets each
 * as cf_semi_pack writes them; false, err set, if not.
 */
bool		cfi_scan_table(const cf_filter *f, uint32_t k, uint32_t markers, char *err, size_t errlen);

/* bytes of the level-0 split table filter a list f becomes */
size_t		cfi_list_table_len(const cf_filter *f);
/*
 * Writes the level-0 split table filter of list f (cfi_list_table_len
 * bytes, f's header) into out, empty, and opens it as r (against top).
 */
void		cfi_list_table(const cf_filter *f, uint8_t *out, cf_filter *r, const cf_geom_ops *top);

/* Writes a version-2 sub-filter descriptor for st into d (16 bytes). */
void		cfi_write_desc(uint8_t *d, const cf_stage *st);
/* Writes the version-2 header of f into buf, all but nstages (byte 5). */
void		cfi_write_header(uint8_t *buf, const cf_filter *f);

#endif							/* CUCKOO_FORMAT_H */
