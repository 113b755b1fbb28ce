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

/*
 * What the glue's headers declare between CFPG_HIDDEN_BEGIN and
 * CFPG_HIDDEN_END is internal to cuckoo.so: hidden, so that calls between
 * its files (the glue into the core, one layer into the one below) bind
 * directly instead of through the PLT.  The fmgr entry points, declared by
 * PG_FUNCTION_INFO_V1 in the .c files, stay visible.
 */
#if defined(__GNUC__) && !defined(_WIN32)
#define CFPG_HIDDEN_BEGIN	_Pragma("GCC visibility push(hidden)")
#define CFPG_HIDDEN_END		_Pragma("GCC visibility pop")
#else
#define CFPG_HIDDEN_BEGIN
#define CFPG_HIDDEN_END
#endif

#endif							/* CUCKOO_COMPAT_H */
