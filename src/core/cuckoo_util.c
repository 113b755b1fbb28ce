/*
 * cuckoo_util.c - the core's ground floor: error messages into the caller's
 * buffer, and the hook that lets a caller cancel a long loop.  Plain C99.
 */
#include "cuckoo_util.h"

#include <stdarg.h>
#include <stdio.h>

void		(*cf_interrupt_hook) (void) = NULL;

void
cfi_set_err(char *err, size_t errlen, const char *fmt,...)
{
	va_list		ap;

	if (err == NULL || errlen == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}
