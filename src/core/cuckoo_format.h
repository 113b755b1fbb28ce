/*
 * cuckoo_format.h - what cuckoo_format.c gives the files above it: a list's
 * bound and the split table it becomes, and the header and descriptor
 * writers.
 */
#ifndef CUCKOO_FORMAT_H
#define CUCKOO_FORMAT_H

#include "cuckoo_internal.h"

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
/* bytes of the level-0 split table filter a list f becomes */
size_t		cfi_list_table_len(const cf_filter *f);
/*
 * Writes the level-0 split table filter of list f (cfi_list_table_len
 * bytes, f's header) into out, empty, and opens it as r.
 */
void		cfi_list_table(const cf_filter *f, uint8_t *out, cf_filter *r);

/* Writes a version-2 sub-filter descriptor for st into d (16 bytes). */
void		cfi_write_desc(uint8_t *d, const cf_stage *st);
/* Writes the version-2 header of f into buf, all but nstages (byte 5). */
void		cfi_write_header(uint8_t *buf, const cf_filter *f);

#endif							/* CUCKOO_FORMAT_H */
