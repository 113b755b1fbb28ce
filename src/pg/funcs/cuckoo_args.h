/*
 * cuckoo_args.h - the arguments of an SQL call: the one way to open a filter
 * argument (with a per-call-site cache) and to get a value argument's hash info.
 */
#ifndef CUCKOO_ARGS_H
#define CUCKOO_ARGS_H

#include "cuckoo_hashval.h"

CFPG_HIDDEN_BEGIN

/*
 * Opens filter *d, whatever its form: the newest state of an expanded
 * filter in place, anything else detoasted, with *d then pointing at the
 * flat value (so an update, cf_add or cf_delete, does not detoast it a
 * second time).  Raises if the stored value is corrupted.
 */
extern void cfpg_open_datum(Datum *d, cf_filter *f);

/*
 * A new varlena with the union of (non-NULL) filter arguments 0 and 1;
 * errors say errmsg_text and why.  A NOTICE if its rate is over twice its
 * target (cfpg_union_check_fpr; only_on_crossing: not if a part already was).
 */
extern struct varlena *cfpg_union_args(FunctionCallInfo fcinfo, const char *errmsg_text,
									   bool only_on_crossing);

/*
 * The per-call-site cache (in fn_extra): the value type's hash info and
 * the detoasted filter arguments.
 */
typedef struct CfCallCache CfCallCache;

/* The cache of this call site (made on first use); raises without one. */
extern CfCallCache *cfpg_call_cache(FunctionCallInfo fcinfo);
/*
 * A read-only view of filter datum d, detoasted at most once per distinct
 * stored value; valid until the next call.
 */
extern const cf_filter *cfpg_read_filter(FunctionCallInfo fcinfo, CfCallCache *c, Datum d);
/* The cache's hash info, for values of typid (set up on first use). */
extern CfHashInfo *cfpg_type_hashinfo(FunctionCallInfo fcinfo, CfCallCache *c, Oid typid);
/* The cache's hash info, for the values of argument argno. */
extern CfHashInfo *cfpg_arg_hashinfo(FunctionCallInfo fcinfo, CfCallCache *c, int argno);
/* The three above in one call: filter datum d, the hash info of argument argno. */
extern const cf_filter *cfpg_probe_filter(FunctionCallInfo fcinfo, Datum d, int argno, CfHashInfo **hi);

/*
 * The two-column row the call's declared result type (OUT parameters) asks
 * for, of (first, second); the _status functions' (filter, answer) rows.
 */
extern Datum cfpg_result_pair(FunctionCallInfo fcinfo, Datum first, bool firstnull,
							  Datum second, bool secondnull);

CFPG_HIDDEN_END

#endif							/* CUCKOO_ARGS_H */
