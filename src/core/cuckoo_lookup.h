/*
 * cuckoo_lookup.h - what cuckoo_lookup.c gives the rest of the core: the
 * lookup path of a filter, chosen once when it is opened.
 */
#ifndef CUCKOO_LOOKUP_H
#define CUCKOO_LOOKUP_H

#include "cuckoo_split.h"

/*
 * cf_filter.lookup: the path cf_contains takes, an index into the path
 * descriptors of cuckoo_lookup.c (what it reads: kind, geometry, bucket
 * size, width, encoding; its functions), chosen once per filter
 */
/* Chooses f's lookup path and marks where each family starts (cf_open). */
void		cfi_setup_lookup(cf_filter *f);

#endif							/* CUCKOO_LOOKUP_H */
