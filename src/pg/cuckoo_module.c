/*
 * cuckoo_module.c - what loading cuckoo.so sets up: the module's magic
 * block, the core's interrupt hook, the extension's settings and the join
 * pre-filter's planner hooks (cuckoo_prefilter.c).
 */
#include "postgres.h"

#include "miscadmin.h"
#include "utils/guc.h"

#include "cuckoo_agghashes.h"
#include "cuckoo_prefilter.h"
#include "cuckoo_rtf.h"

PG_MODULE_MAGIC;

/* lets a statement timeout or cancel stop the core's long loops */
static void
cfpg_check_interrupts(void)
{
	CHECK_FOR_INTERRUPTS();
}

void		_PG_init(void);

void
_PG_init(void)
{
	cf_interrupt_hook = cfpg_check_interrupts;
	DefineCustomIntVariable("cuckoo.agg_probe_limit",
							"Longest probe of cf_agg's hash set before it turns into an array.",
							"A testing aid: 0 sends every cf_agg through the array.",
							&cfpg_agg_probe_limit, 64, 0, 1024, PGC_USERSET,
							GUC_NOT_IN_SAMPLE, NULL, NULL, NULL);
	cfpg_prefilter_init();
	cfpg_rtf_init();
	MarkGUCPrefixReserved("cuckoo");
}
