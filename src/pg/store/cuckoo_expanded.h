/*
 * cuckoo_expanded.h - cuckoofilter as an expanded object: what cf_add and
 * cf_delete return, so that a PL/pgSQL loop does not copy the filter per call.
 */
#ifndef CUCKOO_EXPANDED_H
#define CUCKOO_EXPANDED_H

#include "cuckoo_datum.h"

CFPG_HIDDEN_BEGIN

/* what cfpg_expanded_modify does with the hash it is given */
typedef enum CfxOp
{
	CFX_ADD,					/* one more copy */
	CFX_DELETE,					/* one copy less, if any */
	CFX_ADD_UNIQUE,				/* one copy, unless it is already reported present */
	CFX_TRY_ADD					/* one copy if there is room; else no change, no error */
} CfxOp;

/*
 * Applies op with hash h to d (or to a new filter for defaults when
 * isnull); an add records value kind kind in a filter that has none yet.
 * d is flat or the newest state of an expanded filter: an older state is
 * flattened first (cfpg_open_datum does).  opened: d as the caller opened
 * it with cfpg_open_datum (or NULL), which an op on the newest state then
 * uses (and changes) instead of opening the filter a second time.
 */
extern Datum cfpg_expanded_modify(Datum d, bool isnull, const cf_params *defaults,
								  cf_filter *opened, uint64 h, CfxOp op, int kind);
/* Opens d in place if it is the newest state of an expanded filter. */
extern bool cfpg_expanded_open_current(Datum d, cf_filter *f);

CFPG_HIDDEN_END

#endif							/* CUCKOO_EXPANDED_H */
