/*
 * cuckoo_compat.h - what differs between the PostgreSQL majors cuckoo
 * builds against (15 to 18), in one place, keyed on PG_VERSION_NUM.
 */
#ifndef CUCKOO_COMPAT_H
#define CUCKOO_COMPAT_H

#include "postgres.h"

/* 16 moved the varlena macros (VARDATA, SET_VARSIZE, ...) out of postgres.h */
#if PG_VERSION_NUM >= 160000
#include "varatt.h"
#endif

/*
 * Soft errors (16+): an input function given an ErrorSaveContext in
 * fcinfo->context reports bad input there with ereturn() and returns, so
 * pg_input_is_valid() and pg_input_error_info() work.  Before 16 every
 * error is raised.
 */
#if PG_VERSION_NUM >= 160000
#include "nodes/miscnodes.h"
#else
#define ereturn(context, dummy_value, ...) \
	do { \
		(void) (context); \
		ereport(ERROR, __VA_ARGS__); \
		return dummy_value; \
	} while (0)
#endif

/*
 * 18 dropped pg_attribute_noreturn() (written after a declaration) for
 * pg_noreturn (written before it); GCC and Clang take the attribute after.
 */
#ifndef pg_attribute_noreturn
#if defined(__GNUC__) || defined(__clang__)
#define pg_attribute_noreturn() __attribute__((noreturn))
#else
#define pg_attribute_noreturn()
#endif
#endif

#endif							/* CUCKOO_COMPAT_H */
