/*
 * cuckoo_lookup.h - what cuckoo_lookup.c gives the rest of the core: the
 * lookup path of a filter, chosen once when it is opened.
 */
#ifndef CUCKOO_LOOKUP_H
#define CUCKOO_LOOKUP_H

#include "cuckoo_geom_iface.h"

/*
 * Chooses f's lookup path (cfi_lookup_path, cuckoo_geom_iface.h): its
 * geometry's, when every sub-filter has the same one, else the general
 * path; cf_filter.lookup gets the path's number (cf_open).
 */
void		cfi_setup_lookup(cf_filter *f);

#endif							/* CUCKOO_LOOKUP_H */
