/*
 * cuckoo_util.h - what every file of the core uses and that depends on no
 * table layout: error messages into the caller's buffer; the names of
 * statuses and the default parameters (cuckoo.h).  Plain C99.
 */
#ifndef CUCKOO_UTIL_H
#define CUCKOO_UTIL_H

#include "cuckoo_int.h"

/* formats an error message into err (errlen bytes; nothing if err is NULL) */
void		cfi_set_err(char *err, size_t errlen, const char *fmt,...)
#if defined(__GNUC__)
			__attribute__((format(printf, 3, 4)))
#endif
			;

#endif							/* CUCKOO_UTIL_H */
