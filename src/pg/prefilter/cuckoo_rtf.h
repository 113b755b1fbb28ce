/*
 * cuckoo_rtf.h - run-time join filters (cuckoo.join_prefilter_runtime,
 * docs/prefilter.md, "Run-time filters"): a walk of the finished plan puts
 * a builder (a pass-through custom scan) between each suitable hash join's
 * Hash node and its child, which hashes every build-side key with the
 * join's own hash opfamily, and a checker (another pass-through custom
 * scan) where the probe side's key is first produced, which drops the rows
 * whose key is not in the cuckoo filter built from those hashes.
 *
 * cuckoo_rtf_plan.c: settings, the planner hook and the plan walk;
 * cuckoo_rtf_exec.c: the two executor nodes, their EXPLAIN and the
 * ExecutorStart hook that connects each checker to its builder and join.
 */
#ifndef CUCKOO_RTF_H
#define CUCKOO_RTF_H

#include "cuckoo_compat.h"

#include "nodes/extensible.h"

CFPG_HIDDEN_BEGIN

/* the settings (cuckoo_rtf_plan.c) */
extern bool cfpg_rtf_enabled;			/* cuckoo.join_prefilter_runtime */
extern int	cfpg_rtf_max_keys;			/* cuckoo.join_prefilter_runtime_max_keys */
extern int	cfpg_rtf_sample;			/* cuckoo.join_prefilter_runtime_sample */
extern double cfpg_rtf_min_removed;		/* cuckoo.join_prefilter_runtime_min_removed */
extern double cfpg_rtf_min_rows;		/* cuckoo.join_prefilter_runtime_min_rows */

/* the two node kinds' plan methods (cuckoo_rtf_exec.c) */
extern const CustomScanMethods cfpg_rtf_build_methods;
extern const CustomScanMethods cfpg_rtf_check_methods;

/*
 * custom_private of a builder: CFPG_RTF_BUILD, id, nkeys, then per key
 * CFPG_RTF_KEYFIELDS integers (filter number, hash function, collation,
 * hashing method CFPG_RTF_HASH_*, strict); custom_exprs: the keys, over the child (OUTER_VAR).
 * Of a checker: CFPG_RTF_CHECK, id, key number in its builder, then the
 * same CFPG_RTF_KEYFIELDS for its side; custom_exprs: its one key.
 */
#define CFPG_RTF_BUILD		1
#define CFPG_RTF_CHECK		2
#define CFPG_RTF_KEYFIELDS	5

/* how a side hashes its key (the fourth key field) */
#define CFPG_RTF_HASH_STANDARD	0	/* the opfamily's 32-bit function, mixed to 64 */
#define CFPG_RTF_HASH_EXTENDED	1	/* its 64-bit function, seed 0 */
#define CFPG_RTF_HASH_INT2		2	/* an integer equality: the value as an int64, */
#define CFPG_RTF_HASH_INT4		3	/* hashed in line (cf_hash_int64_inline) */
#define CFPG_RTF_HASH_INT8		4

/*
 * Both settings on (cuckoo.join_prefilter, cuckoo.join_prefilter_runtime):
 * the planner adds filters, and a cached plan's filters run (off, they pass
 * every row without collecting or checking).
 */
extern bool cfpg_rtf_active(void);

/* Registers the node kinds, installs the ExecutorStart hook (chained). */
extern void cfpg_rtf_exec_init(void);

/*
 * Defines the settings, installs the planner hook (chained) and calls
 * cfpg_rtf_exec_init; called by _PG_init after cfpg_prefilter_init.
 */
extern void cfpg_rtf_init(void);

CFPG_HIDDEN_END

#endif							/* CUCKOO_RTF_H */
