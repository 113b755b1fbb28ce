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

const char *
cf_status_str(cf_status st)
{
	switch (st)
	{
		case CF_OK:
			return "CF_OK";
		case CF_FULL:
			return "CF_FULL";
		case CF_NOT_FOUND:
			return "CF_NOT_FOUND";
		case CF_CANNOT_GROW:
			return "CF_CANNOT_GROW";
		case CF_RETAINED:
			return "CF_RETAINED";
		case CF_READ_ONLY:
			return "CF_READ_ONLY";
		case CF_TOO_MANY_COPIES:
			return "CF_TOO_MANY_COPIES";
	}
	return "unknown status";
}

/*
 * The one place the defaults are written: SQL's cf_create(capacity), the
 * glue's new filters (cfpg_params) and cf_filter_new's fields left 0 start
 * from it.
 */
cf_params
cf_params_default(uint64_t capacity)
{
	cf_params	p;

	memset(&p, 0, sizeof(p));
	p.capacity = capacity;
	p.fpr = CF_DEFAULT_FPR;
	p.bucket_size = CF_DEFAULT_BUCKET_SIZE;
	p.max_kicks = CF_DEFAULT_MAX_KICKS;
	p.expansion = CF_DEFAULT_EXPANSION;
	p.encoding = CF_ENC_PACKED;
	p.geometry = CF_GROWING;	/* CF_GEOM_DEFAULT */
	return p;
}
