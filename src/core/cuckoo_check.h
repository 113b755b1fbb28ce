/*
 * cuckoo_check.h - format version 3's check bytes (FORMAT.md "Version 3"):
 * CRC-8/AUTOSAR of the header (byte 11) and of each descriptor (byte +15),
 * computed by the writers (cfi_seal) and checked by cfi_open.
 */
#ifndef CUCKOO_CHECK_H
#define CUCKOO_CHECK_H

#include "cuckoo_layout.h"

/* the check byte a version-3 header (at least CF_V2_HEADER_SIZE bytes) should hold */
uint8_t		cfi_hcheck(const uint8_t *hdr);
/* the check byte a descriptor (CF_V2_STAGE_SIZE bytes) should hold */
uint8_t		cfi_dcheck(const uint8_t *desc);

/*
 * Makes the version-2 or -3 header and descriptors at buf (nstages from
 * byte 5) version 3: the version byte and every check byte written.  What
 * every writer does last, once its header and descriptors are final.
 */
void		cfi_seal(uint8_t *buf);

/*
 * Checks the check bytes of a version-3 value of len bytes: the header's,
 * then (nstages within bounds and the value long enough) each
 * descriptor's.  False with a CF_CORRUPT_PREFIX message on a mismatch; true
 * when they match or cannot be located (the caller's header checks then
 * refuse the value).
 */
bool		cfi_check_v3(const uint8_t *buf, size_t len, char *err, size_t errlen);

/* puts CF_CORRUPT_PREFIX before the message in err unless it has it */
void		cfi_mark_corrupt(char *err, size_t errlen);

#endif							/* CUCKOO_CHECK_H */
