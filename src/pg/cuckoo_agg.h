/*
 * cuckoo_agg.h - what the aggregates (cuckoo_agg.c) give the module: the
 * setting cuckoo.agg_probe_limit.
 */
#ifndef CUCKOO_AGG_H
#define CUCKOO_AGG_H

#include "cuckoo_args.h"

CFPG_HIDDEN_BEGIN

/* cuckoo.agg_probe_limit: the longest probe of cf_agg's hash set */
extern int	cfagg_probe_limit;

CFPG_HIDDEN_END

#endif							/* CUCKOO_AGG_H */
