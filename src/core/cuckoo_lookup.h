/*
 * cuckoo_lookup.h - what cuckoo_lookup.c gives the rest of the core: the
 * lookup path of a filter, chosen once when it is opened.
 */
#ifndef CUCKOO_LOOKUP_H
#define CUCKOO_LOOKUP_H

#include "cuckoo_split.h"

/* cf_filter.lookup: the path cf_contains takes, chosen once per filter */
#define CFI_LOOKUP_ANY      0       /* any geometry, slot by slot if need be */
#define CFI_LOOKUP_ONE      1       /* one chain table, one load per bucket */
#define CFI_LOOKUP_SWAR     2       /* chain tables only, one load per bucket */
/* 3 and up: one level-0 table of a bucket size and width known at compile time;
 * the last one (CFI_LOOKUP_SEMI in cuckoo_lookup.c): semi-sorted tables */

/* Chooses f's lookup path and marks where each family starts (cf_open). */
void		cfi_setup_lookup(cf_filter *f);

#endif							/* CUCKOO_LOOKUP_H */
