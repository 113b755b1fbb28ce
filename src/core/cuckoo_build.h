/*
 * cuckoo_build.h - what cuckoo_build.c gives the geometries: the bulk build
 * of one empty chain or legacy table.
 */
#ifndef CUCKOO_BUILD_H
#define CUCKOO_BUILD_H

#include "cuckoo_table.h"

/*
 * Builds f's only sub-filter, an empty chain or legacy table, from the n
 * hashes of runs (cf_build_runs has checked f, n and the work area, of
 * cf_build_work_size bytes); false if they do not all fit.
 */
bool		cfi_build_pairs(cf_filter *f, const cf_run *runs, size_t nruns, uint64_t n, void *work);

#endif							/* CUCKOO_BUILD_H */
