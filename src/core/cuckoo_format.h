/*
 * cuckoo_format.h - what cuckoo_format.c gives the files above it: what
 * creating a filter shares, opening and validating a filter through its
 * geometries' tables (the checks they share), the header and descriptor
 * writers.
 */
#ifndef CUCKOO_FORMAT_H
#define CUCKOO_FORMAT_H

#include "cuckoo_geom_iface.h"

/*
 * What cf_create_size checks of p whatever geometry it gets (bucket size,
 * rate, kicks, expansion, capacity, encoding); false, err set, if not valid.
 */
bool		cfi_check_params(const cf_params *p, char *err, size_t errlen);
/*
 * The bytes of a new filter of p with one table of m buckets of fpbits-bit
 * slots; 0, err set, if over what a value can hold.
 */
size_t		cfi_create_len(const cf_params *p, uint64_t m, uint32_t fpbits, char *err, size_t errlen);
/* Writes the version-2 header of a new filter of p (base width fpbits, one sub-filter) into buf. */
void		cfi_create_header(uint8_t *buf, const cf_params *p, uint32_t fpbits);

/*
 * cf_open with the registry reg (cuckoo_geom_iface.h): each sub-filter's
 * descriptor checked by the table of its geometry byte, which it keeps;
 * reg kept too (cfi_registry_of), for the filters a module rewrites from f.
 * cuckoo_ops.c opens the caller's filters with cfi_geometries.
 */
bool		cfi_open(cf_filter *f, uint8_t *buf, size_t len, const cfi_registry *reg,
					 char *err, size_t errlen);
/* cf_validate: cfi_open, then each sub-filter's table scanned by its geometry */
bool		cfi_validate(const uint8_t *buf, size_t len, const cfi_registry *reg,
						 char *err, size_t errlen);
/* cf_upgrade, the result opened with reg */
void		cfi_upgrade(const cf_filter *f, uint8_t *out, cf_filter *result, const cfi_registry *reg);

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

/* Writes a version-2 sub-filter descriptor for st into d (16 bytes). */
void		cfi_write_desc(uint8_t *d, const cf_stage *st);
/* Writes the version-2 header of f into buf, all but nstages (byte 5). */
void		cfi_write_header(uint8_t *buf, const cf_filter *f);

#endif							/* CUCKOO_FORMAT_H */
