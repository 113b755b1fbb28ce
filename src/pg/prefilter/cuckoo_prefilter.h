/*
 * cuckoo_prefilter.h - the automatic join pre-filter (cuckoo.join_prefilter,
 * docs/prefilter.md): a planner hook that adds the hand-made pre-filter
 * (SELECT cf_agg(s.k) FROM small s WHERE ...) @> b.k to the big side of a
 * join where that cannot change the result and the estimates say it pays.
 */
#ifndef CUCKOO_PREFILTER_H
#define CUCKOO_PREFILTER_H

#include "cuckoo_compat.h"

CFPG_HIDDEN_BEGIN

/* Defines the settings and installs the hooks, chaining the previous ones. */
extern void cfpg_prefilter_init(void);

CFPG_HIDDEN_END

#endif							/* CUCKOO_PREFILTER_H */
